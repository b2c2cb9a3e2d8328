"""A page's text layer as PDFium reads it, as Docling text cells: the second extractor of the
repair ladder (:mod:`citeloom.convert.ocr`).

Docling's own parser gives up on fonts without a Unicode map (dvips' Type 3 bitmap fonts)
and prints glyph names or symbols. PDFium falls back to the character codes, which in TeX's
fonts are ASCII for letters and digits, so the same page reads as words. Two things PDFium
leaves undone are done here:

* TeX's ligatures sit at control codes without a Unicode value — 0x0B-0x0F in the OT1
  encoding, 0x1B-0x1F in T1 (Cork), in the order ff fi fl ffi ffl — and PDFium returns the
  bare code ("e\\x1bect"). They become the letters ("effect").
* A carriage return PDFium reads from the page (not one it generated) is OT1's "fl" — or,
  in fonts old dvips re-encoded with two-character glyph names, a "c" whose glyph is named
  /CR, which PDFium takes for the control character. Which one, the page's words decide:
  the reading whose words the lexicon knows more often ("Approach", not "Approaflh").
* PDFium marks a hyphen at a line end with U+0002 or U+FFFE; it becomes "-", which the
  structure pass joins like any other line-end hyphen.
* PDFium counts in UTF-16: a character outside the Basic Multilingual Plane (TeX's math
  italic letters, U+1D400 on) comes as two halves, a surrogate pair. The pair becomes the
  one character; a half alone is dropped (no UTF-8 text can hold it, and the document
  could not be written).

Cells are lines: characters in PDFium's reading order, a new cell at each line break and at
a wide horizontal gap (two columns side by side), with the union of the characters' boxes
in Docling's top-left page coordinates, so the layout model's clusters collect them like
the parser's own cells and headings, sections and pages stay where they were.
"""

from __future__ import annotations

import ctypes
import functools
import re
from pathlib import Path
from typing import Any

LIGATURES = {0x0B: "ff", 0x0C: "fi", 0x0D: "fl", 0x0E: "ffi", 0x0F: "ffl",
             0x1B: "ff", 0x1C: "fi", 0x1D: "fl", 0x1E: "ffi", 0x1F: "ffl"}
_HYPHEN_MARKS = (0x02, 0xFFFE)
_SKIP = frozenset([0x00])
#: A space wider than this many ems parts two names in a byline ("Chengrun Yang   Xuezhi
#: Wang": ICLR's and NeurIPS's names stand a quad apart); a word space is a third of an em,
#: stretched in a justified line to about half of one.
WIDE_GAP = 0.8
WIDE = "\u2003"  # such a space, in the rows of a page's header (sizes read)
_CR = "\ue0cd"  # a carriage return read from the page, until the page says what it is
_LONE_HALF = re.compile("[\ud800-\udfff]")  # a UTF-16 half whose partner never came
_held: list[Any] = []  # [(path, password), document]: the last document read, kept open


def _document(path: Path, password: str | None) -> Any:
    """The open PDFium document for ``path`` (one kept open at a time; call under
    Docling's ``pypdfium2_lock``: PDFium is not thread-safe)."""
    import pypdfium2 as pdfium

    key = (str(path), password)
    if _held and _held[0] == key:
        return _held[1]
    if _held:
        _held[1].close()
        _held.clear()
    pdf = pdfium.PdfDocument(str(path), password=password)
    _held.extend([key, pdf])
    return pdf


def release() -> None:
    """Close the document kept open (at the end of a conversion)."""
    from docling.utils.locks import pypdfium2_lock

    with pypdfium2_lock:
        if _held:
            _held[1].close()
            _held.clear()


def page_text(path: Path, page_no: int, password: str | None = None) -> str:
    """The text of page ``page_no`` (1-based), ligatures and hyphens restored."""
    return " ".join(text for text, _ in page_lines(path, page_no, password=password))


Line = tuple[str, tuple[float, float, float, float]]


def page_lines(path: Path, page_no: int, page_height: float | None = None,
               password: str | None = None) -> list[Line]:
    """The lines of page ``page_no`` (1-based): (text, (left, top, right, bottom)) in
    top-left coordinates of the page's crop box. Empty for a rotated page (its boxes would
    need turning; the ladder reads such a page by OCR instead)."""
    return page_reading(path, page_no, page_height, password)[0]


def page_reading(path: Path, page_no: int, page_height: float | None = None,
                 password: str | None = None) -> tuple[list[Line], int]:
    """:func:`page_lines`, and how many glyphs the page prints (every character PDFium
    finds, mapped or not, spaces and line breaks left out): what a reading of the page
    could at most recover."""
    from docling.utils.locks import pypdfium2_lock

    with pypdfium2_lock:
        return _page_lines(path, page_no, page_height, password)


def _page_lines(path: Path, page_no: int, page_height: float | None, password: str | None,
                sizes: list[float] | None = None) -> tuple[list[Line], int]:
    """:func:`page_reading`; ``sizes``, if given, gets each line's largest font size."""
    import pypdfium2.raw as pdfium_c

    pdf = _document(path, password)
    if not 1 <= page_no <= len(pdf):
        return [], 0
    page = pdf[page_no - 1]
    try:
        if page.get_rotation():
            return [], 0
        crop_l, crop_b, _, crop_t = page.get_cropbox()
        height = page_height if page_height else crop_t - crop_b
        textpage = page.get_textpage()
        try:
            raw = textpage.raw
            lines: list[Line] = []
            glyphs = 0
            text: list[str] = []
            box: list[float] | None = None
            last_right = last_size = font = 0.0
            last_base = last_eff = 0.0  # (sizes only) the last glyph's baseline and size
            matrix = pdfium_c.FS_MATRIX()

            def flush() -> None:
                nonlocal box, font
                line = _LONE_HALF.sub("", "".join(text)).strip()
                if line and box is not None:
                    lines.append((line, (box[0] - crop_l, height - (box[3] - crop_b),
                                         box[2] - crop_l, height - (box[1] - crop_b))))
                    if sizes is not None:
                        sizes.append(font)
                text.clear()
                box, font = None, 0.0

            for i in range(textpage.count_chars()):
                code = pdfium_c.FPDFText_GetUnicode(raw, i)
                if code in _SKIP:
                    continue
                generated = pdfium_c.FPDFText_IsGenerated(raw, i) == 1
                if code == 0x0A or (code == 0x0D and generated):
                    if code == 0x0A:
                        flush()
                    continue  # PDFium's line break (CR LF); a CR it read is OT1's "fl"
                if code == 0x20 or generated:
                    if text and text[-1] != " ":
                        text.append(" ")
                    continue
                glyphs += 1
                if code in _HYPHEN_MARKS:
                    char = "-"
                elif code == 0x0D:
                    char = _CR  # "fl" or "c": the page decides (_carriage_returns)
                elif code in LIGATURES:
                    char = LIGATURES[code]
                elif code < 0x20:
                    continue
                elif 0xDC00 <= code <= 0xDFFF:  # a low half: joined to the high one before
                    if text and "\ud800" <= text[-1] <= "\udbff":
                        high = ord(text.pop())
                        text.append(chr(0x10000 + ((high - 0xD800) << 10) + code - 0xDC00))
                    continue
                else:
                    char = chr(code)
                left, bottom, right, top = textpage.get_charbox(i)
                size = max(top - bottom, 1.0)
                if box is not None and (left - last_right > 3 * max(size, last_size)
                                        or right < box[0] - size):
                    flush()  # a wide gap or a jump back: another column on this line
                if box is None:
                    box = [left, bottom, right, top]
                else:
                    box = [min(box[0], left), min(box[1], bottom),
                           max(box[2], right), max(box[3], top)]
                if sizes is not None:  # the size as set: the font's, scaled by the matrix
                    eff = pdfium_c.FPDFText_GetFontSize(raw, i)
                    if pdfium_c.FPDFText_GetMatrix(raw, i, matrix):
                        eff *= (matrix.c ** 2 + matrix.d ** 2) ** 0.5
                    ox, oy = ctypes.c_double(), ctypes.c_double()
                    pdfium_c.FPDFText_GetCharOrigin(raw, i, ctypes.byref(ox), ctypes.byref(oy))
                    if (text and text[-1] != " " and last_eff and eff < 0.85 * last_eff
                            and oy.value > last_base + 0.15 * last_eff):
                        text.append(" ")  # a raised, smaller mark: "Migchielsen a,1"
                    elif (text and text[-1] == " " and eff >= 0.85 * font
                          and left - last_right > WIDE_GAP * eff):
                        text[-1] = WIDE  # a quad or more between words of one size: names
                        # set apart (not a mark's superscript); :func:`page_rows` says how
                    last_eff, last_base = eff, oy.value
                    font = max(font, eff)
                text.append(char)
                last_right, last_size = right, size
            flush()
            return _carriage_returns(lines), glyphs
        finally:
            textpage.close()
    finally:
        page.close()


def _carriage_returns(lines: list[Line]) -> list[Line]:
    """The page's carriage returns as "fl" or as "c", whichever makes more known words."""
    if not any(_CR in text for text, _ in lines):
        return lines
    from citeloom.convert.texthealth import known_words

    words = " ".join(w for text, _ in lines for w in text.split() if _CR in w)
    fl = LIGATURES[0x0D]  # OT1's
    char = "c" if known_words(words.replace(_CR, "c")) > known_words(
        words.replace(_CR, fl)) else fl
    return [(text.replace(_CR, char), box) for text, box in lines]


def page_cells(path: Path, page_no: int, page_height: float,
               password: str | None = None) -> tuple[list[Any], int]:
    """The lines of :func:`page_reading` as Docling ``TextCell``s (not from OCR), and the
    page's glyph count."""
    from docling_core.types.doc import BoundingBox, CoordOrigin
    from docling_core.types.doc.page import BoundingRectangle, TextCell

    cells = []
    lines, glyphs = page_reading(path, page_no, page_height, password)
    for k, (text, (left, top, right, bottom)) in enumerate(lines):
        bbox = BoundingBox(l=left, t=top, r=right, b=bottom, coord_origin=CoordOrigin.TOPLEFT)
        cells.append(TextCell(index=k, text=text, orig=text, from_ocr=False, confidence=1.0,
                              rect=BoundingRectangle.from_bounding_box(bbox)))
    return cells, glyphs


def page_rows(path: Path, page_no: int, password: str | None = None, limit: int = 40,
              names: bool = False) -> list[str]:
    """The first ``limit`` lines of page ``page_no`` as a reader sees them: the pieces
    :func:`page_lines` gives, gathered into rows by their height on the page, left to
    right, with ", " where a wide gap parts two pieces (authors set side by side,
    "Terry Therneau   Cynthia Crowson") and a space elsewhere. For a page's header, where
    Docling may merge a title, its names and their affiliations into one paragraph.
    ``names``: rows read for a byline, where a quad between two words of one size is a
    ", " too ("Chengrun Yang  Xuezhi Wang": ICLR's names, :data:`WIDE_GAP`)."""
    return [text for text, _, _ in sized_rows(path, page_no, password, limit, names)]


def sized_rows(path: Path, page_no: int, password: str | None = None, limit: int = 40,
               names: bool = False) -> list[tuple[str, float, float]]:
    """:func:`page_rows` with each row's largest font size and its top (points from the
    top of the page). Read once per file version: a document's title, byline and year
    each look at page 1's rows."""
    try:
        stat = path.stat()
    except OSError:
        return []
    return [(_set_apart(text, names), size, top) for text, size, top in _sized_rows(
        str(path), stat.st_mtime_ns, stat.st_size, page_no, password, limit)]


@functools.lru_cache(maxsize=16)
def _sized_rows(name: str, _mtime_ns: int, _size: int, page_no: int, password: str | None,
                limit: int) -> tuple[tuple[str, float, float], ...]:
    from docling.utils.locks import pypdfium2_lock

    path = Path(name)
    sizes: list[float] = []
    try:
        with pypdfium2_lock:
            lines, _ = _page_lines(path, page_no, None, password, sizes)
    except Exception:  # noqa: BLE001 - a header is a nicety; the conversion said what failed
        return ()
    finally:
        release()
    rows: list[tuple[float, float, list[tuple[float, float, str, float, float]]]] = []
    for (text, (left, top, right, bottom)), size in list(zip(lines, sizes, strict=True))[:limit]:
        height = bottom - top
        if size > 1 and height > 2.5 * size and height > right - left:
            continue  # set vertically (an arXiv stamp in the margin): no row of the page
            # (a wide piece this high is two rows the layer gave as one: a byline that
            # runs on into its affiliations)
        for k in range(max(0, len(rows) - 2), len(rows)):  # this row or the one before
            r_top, r_bottom, pieces = rows[k]
            if min(bottom, r_bottom) - max(top, r_top) > 0.5 * min(height, r_bottom - r_top):
                pieces.append((left, right, text, height, size))
                rows[k] = (min(top, r_top), max(bottom, r_bottom), pieces)
                break
        else:
            rows.append((top, bottom, [(left, right, text, height, size)]))
    out = []
    for top, _, pieces in rows:
        pieces.sort()
        row = pieces[0][2]
        for (_, right, _, h0, _), (left, _, text, h1, _) in zip(pieces, pieces[1:],
                                                                 strict=False):
            row += (", " if left - right > 1.5 * max(h0, h1) else " ") + text
        out.append((row, max(p[4] for p in pieces), top))
    return tuple(_unnumbered(out))


# A wide space between two names: after a name's last letter, its initial's full stop or its
# mark, before the next one's capital (not beside an "and" or a comma, nor a bullet's).
_WIDE_APART = re.compile(rf"(?<=[^\W_]|[.)*∗†‡§¶])(?<!\band){WIDE}(?!(?:and|&)\s)(?=[^\W\d_])")


def _set_apart(row: str, names: bool) -> str:
    """A row's wide spaces: for a byline (``names``), the ", " between two names; else,
    and wherever no two names meet, spaces."""
    if WIDE not in row:
        return row
    # (not in a row whose spaces are mostly wide, a typewriter's or a scan's: a name holds
    # a word space, so names a quad apart have more word spaces than quads)
    if names and row.count(" ") > row.count(WIDE):
        row = _WIDE_APART.sub(lambda m: ", " if row[m.end():m.end() + 2].istitle() else " ", row)
    return row.replace(WIDE, " ")


_LINE_NO = re.compile(r"^(\d{1,4})(?:(?:,\s*|\s+)(?=\S)|\s*$)")  # (a blank line's number too)


def _unnumbered(rows: list[tuple[str, float, float]]) -> list[tuple[str, float, float]]:
    """Rows without the line numbers a draft sets in its margin (JOSS's drafts, a journal's
    review copy, a conference submission: "1 ginjax: E(d)-Equivariant CNN", "2 Wilson G.
    Gregory 1¶ , …"): five rows or more numbered one after the other, other rows (a side
    column) between them allowed. Numbered affiliations ("1 Department of …") come three or
    four at most and keep their numbers."""
    numbered = [(i, int(m.group(1))) for i, (text, _, _) in enumerate(rows)
                if (m := _LINE_NO.match(text))]
    runs: list[list[int]] = []
    last = None
    for i, n in numbered:
        if last is not None and n == last + 1:
            runs[-1].append(i)
        else:
            runs.append([i])
        last = n
    # every such run: the abstract's rows may go unnumbered between two ("1 Title" … "7,
    # Abstract", then "19 instance, by …")
    strip = {i for run in runs if len(run) >= 5 for i in run}
    if not strip:
        return rows
    return [(text, size, top) for text, size, top in
            ((_LINE_NO.sub("", text) if i in strip else text, size, top)
             for i, (text, size, top) in enumerate(rows)) if text]
