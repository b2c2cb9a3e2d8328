"""What a PDF's text layer tells beyond Docling's output, read with pypdfium2: the printed
style (size, weight, slant, font) of text inside given boxes and of the body text, and the
hyphens printed at line ends.

Optional evidence for :mod:`citeloom.structure.restructure`: pypdfium2 is imported only when
called."""

from __future__ import annotations

import ctypes
import re
import statistics
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citeloom.system import open_pdf


@dataclass(frozen=True)
class Style:
    """Typographic style of a heading as printed."""

    size: float
    bold: bool
    italic: bool
    caps: bool = False
    font: str = ""

    def prominence(self, size_class: float) -> tuple[float, int, int, int]:
        return (size_class, int(self.bold), int(self.caps), int(not self.italic))


_BOLD_NAME_RE = re.compile(r"bold|black|heavy|demi|semibold|extrab|ultrab|[.,\-+]b$|bd$", re.I)
_ITALIC_NAME_RE = re.compile(r"italic|oblique|[.,\-+]i$|it$", re.I)
_FORCE_BOLD, _ITALIC_FLAG = 1 << 18, 1 << 6


def read_pdf_styles(pdf_path: Path, boxes: Mapping[str, tuple[int, tuple[float, ...], str]],
                    password: str | None = None) -> tuple[dict[str, Style], Style | None]:
    """Styles of the text inside each box, and the document's body text style.

    ``boxes`` maps a key to (page number, (l, b, r, t) bottom-left page coordinates, text).
    Pages that are rotated, or boxes where fewer than half the expected characters are
    found, give no style. The body style is the most common size and font (by characters)
    on the pages read.
    """
    import pypdfium2.raw as pdfium_c

    styles: dict[str, Style] = {}
    size_counts: Counter[float] = Counter()
    font_counts: Counter[str] = Counter()
    by_page: dict[int, list[tuple[str, tuple[float, ...], str]]] = defaultdict(list)
    for key, (page_no, box, text) in boxes.items():
        by_page[page_no].append((key, box, text))
    with open_pdf(pdf_path, password) as pdf:  # PDFium: one thread at a time
        name_buf = ctypes.create_string_buffer(256)
        flags = ctypes.c_int()
        matrix = pdfium_c.FS_MATRIX()
        for page_no, wanted in sorted(by_page.items()):
            if not 1 <= page_no <= len(pdf):
                continue
            page = pdf[page_no - 1]
            try:
                if page.get_rotation():
                    continue
                crop_l, crop_b = page.get_cropbox()[:2]
                textpage = page.get_textpage()
                raw = textpage.raw
                chars: list[tuple[float, float, int]] = []
                for i in range(textpage.count_chars()):
                    code = pdfium_c.FPDFText_GetUnicode(raw, i)
                    if code in (0x20, 0x0A, 0x0D, 0x02, 0xFFFE):
                        continue
                    left, bottom, right, top = textpage.get_charbox(i)
                    cx, cy = (left + right) / 2 - crop_l, (bottom + top) / 2 - crop_b
                    chars.append((cx, cy, i))
                    if i % 4 == 0:  # every 4th character is plenty for the body style
                        size_counts[round(_char_size(pdfium_c, raw, i, matrix) * 2) / 2] += 1
                        pdfium_c.FPDFText_GetFontInfo(raw, i, name_buf, 256, ctypes.byref(flags))
                        font_counts[_font_name(name_buf)] += 1
                for key, (left, bottom, right, top), text in wanted:
                    inside = [i for cx, cy, i in chars
                              if left - 1 <= cx <= right + 1 and bottom - 1 <= cy <= top + 1]
                    expected = sum(1 for ch in text if not ch.isspace())
                    if not inside or len(inside) < 0.5 * expected:
                        continue
                    sizes, bold, italic, fonts = [], 0, 0, Counter()
                    for i in inside:
                        sizes.append(_char_size(pdfium_c, raw, i, matrix))
                        weight = pdfium_c.FPDFText_GetFontWeight(raw, i)
                        pdfium_c.FPDFText_GetFontInfo(raw, i, name_buf, 256, ctypes.byref(flags))
                        name = _font_name(name_buf)
                        fonts[name] += 1
                        bold += int(weight >= 600 or bool(flags.value & _FORCE_BOLD)
                                    or bool(_BOLD_NAME_RE.search(name)))
                        italic += int(bool(flags.value & _ITALIC_FLAG)
                                      or bool(_ITALIC_NAME_RE.search(name)))
                    styles[key] = Style(size=round(statistics.median(sizes), 2),
                                        bold=bold > len(inside) / 2,
                                        italic=italic > len(inside) / 2,
                                        font=fonts.most_common(1)[0][0])
                textpage.close()
            finally:
                page.close()
    body = None
    if size_counts and font_counts:
        body = Style(size=size_counts.most_common(1)[0][0], bold=False, italic=False,
                     font=font_counts.most_common(1)[0][0])
    return styles, body


def _font_name(buf: Any) -> str:
    """Font name without a subset prefix ("ABCDEE+Arial" -> "Arial")."""
    return re.sub(r"^[A-Z]{6}\+", "", buf.value.decode("latin-1", "replace"))


def _char_size(pdfium_c: Any, raw: Any, i: int, matrix: Any) -> float:
    size = pdfium_c.FPDFText_GetFontSize(raw, i)
    if pdfium_c.FPDFText_GetMatrix(raw, i, matrix):
        size *= abs(matrix.a * matrix.d - matrix.b * matrix.c) ** 0.5
    return float(size)


_RAW_BREAK_RE = re.compile(
    r"(?<![\w\-])([\w\-]*\w)(?:[\u0002\ufffe][ \t]*(?:\r?\n)?|-\r?\n)(\w(?:[\w\-]*\w)?)")


def line_end_hyphens(pdf_path: Path, password: str | None = None
                     ) -> dict[int, list[tuple[str, str, str]]]:
    """Per page, (text before, word part before, word part after) around every hyphen the
    PDF prints at a line end, from PDFium's text layer (which marks syllable-break hyphens
    U+0002 and keeps others as "-" before the line break)."""
    pairs: dict[int, list[tuple[str, str, str]]] = defaultdict(list)
    with open_pdf(pdf_path, password) as pdf:  # PDFium: one thread at a time
        for page_no, page in enumerate(pdf, start=1):
            try:
                textpage = page.get_textpage()
                text = textpage.get_text_range()
                textpage.close()
            finally:
                page.close()
            for m in _RAW_BREAK_RE.finditer(text):
                context = " ".join(text[max(0, m.start() - 16):m.start()].split()[1:])
                pairs[page_no].append((context, m.group(1), m.group(2)))
    return pairs
