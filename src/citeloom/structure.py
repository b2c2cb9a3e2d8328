"""Structure repair between conversion and chunking.

Docling's PDF pipeline with our CDLA layout model leaves a document that chunks badly for
citation: every heading sits at level 1, the paper title is a section header (so it heads
the front matter like a section), running headers, page numbers and a table of contents
leak into the body (and, merged into a paragraph across a page break, give its chunk the
wrong first page), and Docling's line joiner drops real hyphens at line ends
("population-\\nbased" -> "populationbased", "482-\\n5" -> "4825").

:func:`restructure` repairs that in place, in this order (docs/CHUNKING.md has the rules
and the measurements):

0. **Prose in floats** (:meth:`Restructurer.unwrap_prose`): running text the layout model
   boxed as a table or picture goes back into the reading order.
1. **Furniture** (:meth:`Restructurer.drop_furniture`): short lines in the page margins
   that repeat on two or more pages (digits ignored), page numbers ("7", "Page 5 of 10",
   "5/16", "xi") and tables of contents (dot leaders) move to the furniture layer, which the
   chunker never reads. A running line merged into a paragraph is cut out of its text
   together with its provenance entry, so the paragraph keeps only its real pages. Then
   paragraphs joined across a page break are split there
   (:meth:`Restructurer.split_at_pages`), so every chunk cites its own first page.
2. **Text** (:func:`normalize_text`): ligatures, soft hyphens, hyphens at line breaks,
   control characters, whitespace; code and formulas untouched. Then compounds Docling
   closed up at a line break get their hyphen back: given the PDF, exactly where its text
   layer shows a line-end hyphen that was real; without it, where the document itself
   spells the word hyphenated more often.
3. **Headings**: standalone "Abstract"/"References"/... text items become headings; section
   headers that are no headings (a symbol, a formula, a sentence, body-size regular type)
   become text; the title becomes a ``TitleItem`` on the furniture layer (see below).
4. **Levels**: from numbering (1 / 1.2 / 1.2.3, "1.", "Chapter 2", roman "IV.", "A." under
   roman sections, "Appendix A", "A.1"), then, given the PDF, from font size/weight/case,
   else from letter case only. Docling's ``HierarchicalChunker`` keeps one heading per
   level and drops every kept heading whose level is >= a new heading's level, so a
   heading's level decides its chunk's ``meta.headings`` (the section path).

The title is kept out of section paths on purpose: ``HierarchicalChunker`` treats a body
``TitleItem`` as level 0, i.e. it would prefix *every* chunk's headings. On the furniture
layer it stays in the document (see :func:`find_title`) but out of chunks.

Font information: a ``DoclingDocument`` carries none (no font name, size or weight on any
item; Docling's parsed pages, which know font names but not sizes, are dropped after
conversion). With ``pdf_path`` the heading styles are read from the PDF with pypdfium2
(effective size = font size x text-matrix scale, weight, font name, italic flag) at each
heading's provenance box. Without it, numbering and letter case are all there is, and
unnumbered headings in a document without numbering and without an upper/lower-case
pattern stay at level 1.
"""

from __future__ import annotations

import ctypes
import logging
import re
import statistics
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from docling_core.types.doc import DocItemLabel, DoclingDocument
from docling_core.types.doc.document import (
    CodeItem,
    ContentLayer,
    FormulaItem,
    PictureItem,
    ProvenanceItem,
    SectionHeaderItem,
    TableItem,
    TextItem,
    TitleItem,
)

SectionKind = Literal["title", "abstract", "references", "appendix", "body"]

_log = logging.getLogger(__name__)

# --------------------------------------------------------------------------------------
# Text normalisation
# --------------------------------------------------------------------------------------

LIGATURES = {
    "\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi",
    "\ufb04": "ffl", "\ufb05": "st", "\ufb06": "st",
}
_LIGATURE_RE = re.compile("[\ufb00-\ufb06]")
# Invisible characters that only break words apart (not ZWJ/ZWNJ: scripts need those).
_INVISIBLE_RE = re.compile("[\u200b\u2060\ufeff]")
# PDFium reports a hyphen printed at a line end as U+0002 (pypdfium2's text: U+FFFE) and
# emits no line break after it; a soft hyphen at a break is a syllable break by definition.
_PDFIUM_HYPHEN_RE = re.compile("[\u0002\ufffe][ \t]*(?:\r?\n)?")
_SOFT_BREAK_RE = re.compile("\u00ad[ \t]*(?:\r?\n[ \t]*)?")
# Control characters some fonts map their bullets or symbols to (tab/newline/CR aside).
_CONTROL_RE = re.compile("[\x00\x01\x03-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# A word (it may contain hyphens itself), a hyphen, then a line break or spaces, then a word.
_HYPHEN_BREAK_RE = re.compile(
    r"(?P<a>[^\W_](?:[\w'\u2019\-\u2010]*[^\W_])?)[\-\u2010](?P<sep>[ \t]*\r?\n\s*|[ \t]+)"
    r"(?P<b>[^\W_](?:[\w'\u2019\-]*[^\W_])?)"
)
# "pre- and post-processing", "first- or second-order": a suspended hyphen, not a break.
SUSPENDED_FOLLOWERS = frozenset(
    ["and", "or", "nor", "to", "vs", "versus", "than", "as", "but",
     "und", "oder", "bis", "et", "ou", "y", "o"]
)
# Prefixes that keep their hyphen when the line breaks right after it, unless the document
# itself spells the closed form more often ("non-\ntrauma" -> "non-trauma").
KEEP_HYPHEN_PREFIXES = frozenset(["non", "self", "well", "cross", "ex", "all", "half", "quasi"])
_TOKEN_RE = re.compile(r"[^\W_][\w\-]*[^\W_]")


# A title line cut after one of these continues on the next line.
_TITLE_OPEN_END = frozenset(["of", "the", "and", "for", "in", "on", "with", "to", "a", "an",
                             "from", "into", "via", "versus", "vs", "by", "at", "or"])
# A component that ends a hyphenated phrase at a real hyphen ("state-of-the-\nart").
_PHRASE_WORDS = frozenset(["of", "the", "to", "in", "on", "by", "for", "and", "or", "a", "an",
                           "at", "up", "out", "off"])


def join_hyphen_break(a: str, b: str, counts: Mapping[str, int] | None = None,
                      closed_self: int = 0) -> str:
    """How to rejoin ``a`` + hyphen + line break + ``b``: "a- b", "a-b" or "ab".

    In order: before a conjunction the hyphen is suspended ("pre- and post-") and stays
    with its space; if the document (``counts``, lowercased tokens) spells the word one
    way more often, that way (``closed_self``: occurrences of the closed form that are this
    very break, not evidence); before anything but a lowercase letter, or after a digit or
    inner capital, the hyphen is real ("COVID-\n19", "2-\nphenylethyl", "HIV-\npositive");
    after or before a function word inside a hyphenated phrase ("state-of-the-\nart",
    "end-\nto-end") and after "non", "self", "well", ... it is real; anything else is a
    syllable break."""
    if b.lower() in SUSPENDED_FOLLOWERS:
        return f"{a}- {b}"
    hyph_form, closed_form = f"{a}-{b}", f"{a}{b}"
    if counts:
        hyph = counts.get(hyph_form.lower(), 0)
        closed = max(0, counts.get(closed_form.lower(), 0) - closed_self)
        if hyph != closed:
            return hyph_form if hyph > closed else closed_form
    parts = a.replace("\u2010", "-").split("-")
    last = parts[-1]
    if (not b[0].islower() or any(ch.isdigit() for ch in last)
            or any(ch.isupper() for ch in last[1:])):
        return hyph_form
    if len(parts) > 1 and last.lower() in _PHRASE_WORDS:
        return hyph_form
    if "-" in b and b.split("-")[0].lower() in _PHRASE_WORDS:  # "end-\nto-end"
        return hyph_form
    if len(parts) == 1 and last.lower() in KEEP_HYPHEN_PREFIXES:
        return hyph_form
    return closed_form


def _hyphen_break(match: re.Match[str], counts: Mapping[str, int] | None) -> str:
    return join_hyphen_break(match.group("a"), match.group("b"), counts)


def normalize_text(text: str, *, counts: Mapping[str, int] | None = None) -> str:
    """Text as a reader would quote it.

    * ligatures U+FB00-FB06 -> ff fi fl ffi ffl st st;
    * zero-width spaces/BOM and soft hyphens (U+00AD) removed; a soft hyphen or PDFium's
      line-end hyphen marker (U+0002/U+FFFE) joins the word halves around it; other
      control characters (fonts map bullets to them) become spaces; U+FFFD and
      private-use characters (unmapped glyphs) stay, as a visible sign of a lost symbol;
    * a hyphen followed by a line break or spaces, between two word parts
      (``recog-\nnition``, ``recog- nition``), is resolved by :func:`join_hyphen_break`:
      kept with its space before a conjunction ("pre- and post-processing"); else the
      spelling the document uses more often (``counts``: lowercased token counts of the
      whole document, see :func:`word_counts`); else kept before anything but a lowercase
      letter ("COVID-\n19"), after a digit or inner capital ("2-\nphenylethyl"), after a
      hyphenated phrase ending in a function word ("state-of-the-\nart") and after "non",
      "self", "well", ...; else joined ("recognition");
    * runs of whitespace (any Unicode space, line breaks) folded to one space.

    Hyphens not followed by whitespace are never touched ("state-of-the-art", "COVID-19").
    """
    if not text:
        return text
    text = _LIGATURE_RE.sub(lambda m: LIGATURES[m.group()], text)
    text = _INVISIBLE_RE.sub("", text)
    text = _SOFT_BREAK_RE.sub("", text)
    text = _PDFIUM_HYPHEN_RE.sub("-\n", text)
    text = _CONTROL_RE.sub(" ", text)
    text = _HYPHEN_BREAK_RE.sub(lambda m: _hyphen_break(m, counts), text)
    return " ".join(text.split())


def word_counts(texts: Iterable[str]) -> Counter[str]:
    """Lowercased word counts (hyphenated compounds count as one word)."""
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(t.lower() for t in _TOKEN_RE.findall(text))
    return counts


def _compound_forms(counts: Mapping[str, int]) -> dict[str, tuple[str, int]]:
    """Closed-up key -> (most frequent hyphenated spelling, its count)."""
    forms: dict[str, tuple[str, int]] = {}
    for token, n in counts.items():
        if "-" not in token:
            continue
        key = token.replace("-", "")
        if key not in forms or n > forms[key][1]:
            forms[key] = (token, n)
    return forms


def _rehyphenate(token: str, form: str) -> str:
    """``token`` with hyphens inserted where ``form`` (same letters) has them."""
    out, i = [], 0
    for ch in form:
        if ch == "-":
            out.append("-")
            if i < len(token) and token[i] == "-":
                i += 1
            continue
        out.append(token[i])
        i += 1
    return "".join(out)


def repair_joined_compounds(text: str, counts: Mapping[str, int],
                            forms: Mapping[str, tuple[str, int]] | None = None) -> str:
    """Put back hyphens Docling dropped at line ends ("populationbased" -> "population-based")
    when the document spells that compound (3+ letters) with the hyphen more often than
    without. Numbers are left alone: "1-4" elsewhere says nothing about "14"."""
    forms = _compound_forms(counts) if forms is None else forms

    def fix(m: re.Match[str]) -> str:
        token = m.group()
        low = token.lower()
        key = low.replace("-", "")
        hit = forms.get(key)
        if (not hit or hit[0].count("-") <= low.count("-") or hit[1] <= counts.get(low, 0)
                or sum(ch.isalpha() for ch in key) < 3):
            return token
        return _rehyphenate(token, hit[0])

    return _TOKEN_RE.sub(fix, text)


# --------------------------------------------------------------------------------------
# Headings: numbering and kinds
# --------------------------------------------------------------------------------------

_ROMAN_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}
_ROMAN = r"(?=[IVX])X{0,3}(?:IX|IV|V?I{0,3})"

_CHAPTER_RE = re.compile(
    rf"^(?:chapter|chap\.|part|kapitel|teil)\s+(\d{{1,3}}|{_ROMAN})\b[.:]?\s*(.*)$", re.I)
_APPENDIX_RE = re.compile(
    r"^(?:appendix|appendices|annex|anhang|anlage)\b\s*([A-Z]|\d{1,2})?((?:\.\d{1,3})*)"
    r"\s*[.:\-\u2013\u2014)]?\s*(.*)$", re.I)
_ARABIC_RE = re.compile(r"^(\d{1,2}(?:\.\d{1,3}){0,5})(?:\.(?!\d))?\)?\s+(.+)$")
_LETTER_DOTTED_RE = re.compile(r"^([A-Z])((?:\.\d{1,3}){1,5})\.?\s+(.+)$")
_ROMAN_RE = re.compile(rf"^({_ROMAN})[.)]\s+(.+)$")
_LETTER_RE = re.compile(r"^([A-Z])[.)]\s+(.+)$")
# "A Proofs", "B Additional results": LaTeX appendix headings, only trusted after references.
_BARE_LETTER_RE = re.compile(r"^([A-H])\s+([A-Z].*)$")

ABSTRACT_RE = re.compile(
    r"^(abstract|executive summary|zusammenfassung|kurzfassung|r[ée]sum[ée]|resumen|"
    r"sommario|samenvatting)$", re.I)
REFERENCES_RE = re.compile(
    r"^(references?|bibliography|literature( cited)?|works cited|cited literature|"
    r"references and notes|reference list|literaturverzeichnis|literatur|quellen|"
    r"r[ée]f[ée]rences( bibliographiques)?|bibliographie|referencias|bibliograf[ií]a)$", re.I)
APPENDIX_RE = re.compile(
    r"^(appendix|appendices|annex|anhang|supplementary( online)? (material|materials|"
    r"information|data)|supporting information|online supplement)\b", re.I)
# Unnumbered back matter: never a subsection of the last body section.
BACK_MATTER_RE = re.compile(
    r"^(acknowledge?ments?|funding|competing interests?|conflicts? of interests?|"
    r"declarations?( of [\w ]+)?|author('s|s'|s)? contributions?|author details|"
    r"author information|authors' information|data availability|availability of data"
    r"( and materials?)?|ethics( approval| statement)?.*|consent for publication|"
    r"abbreviations|notes|endnotes|footnotes|about the authors?|disclosures?|"
    r"additional information.*|open access|publisher's note|glossary|index)\b", re.I)
# Headings that open a document's first level in papers and reports.
TOP_LEVEL_RE = re.compile(
    r"^(introduction|background|related work|literature review|methods?|methodology|"
    r"materials and methods|results|results and discussion|discussion|conclusions?|"
    r"summary|limitations|contents|table of contents|preface|foreword|keywords|"
    r"key words|overview)\b", re.I)
# Words journals print above a title ("RESEARCH ARTICLE Open Access").
_KICKER_RE = re.compile(
    r"^(?:(?:research|original|review|short|brief|open access|white|technical)\s+"
    r"(?:article|paper|research|communication|report|note)|editorial|open access)"
    r"[\s:|\u2013\u2014-]+(?=\S)", re.I)


def _clean(text: str) -> str:
    return " ".join(text.replace("\u00a0", " ").split()).strip()


def _roman_value(s: str) -> int:
    total = 0
    for i, ch in enumerate(s):
        v = _ROMAN_VALUES[ch]
        total += -v if i + 1 < len(s) and _ROMAN_VALUES[s[i + 1]] > v else v
    return total


@dataclass(frozen=True)
class Numbering:
    """A heading's number: ``scheme`` in arabic/chapter/roman/letter/appendix, ``parts``
    the number's components ("3.2.1" -> (3, 2, 1)), ``rest`` the heading without it."""

    scheme: str
    parts: tuple[int | str, ...]
    rest: str

    @property
    def depth(self) -> int:
        return len(self.parts)


def parse_numbering(heading: str) -> Numbering | None:
    """The heading's section number, if it starts with one.

    "3 Method", "3.2 Training", "3.2.1. Data", "Chapter 2. Roles", "IV. RESULTS",
    "Appendix A: Proofs", "A.1 Setup" and "A. Background" (a letter: an appendix or, under
    roman sections, a subsection, decided by :func:`numbering_level`'s caller) are
    recognised; "2019 results" and "A Study of X" are not.
    """
    text = _clean(heading)
    if m := _APPENDIX_RE.match(text):
        label, sub, rest = m.groups()
        parts: tuple[int | str, ...] = (label.upper() if label else "",)
        parts += tuple(int(p) for p in sub.split(".") if p)
        return Numbering("appendix", parts, rest)
    if m := _CHAPTER_RE.match(text):
        num = m.group(1)
        value = int(num) if num.isdigit() else _roman_value(num.upper())
        return Numbering("chapter", (value,), m.group(2))
    if (m := _ARABIC_RE.match(text)) and (m.group(2)[0].isalpha() or m.group(2)[0] in "\"'(«“"):
        return Numbering("arabic", tuple(int(p) for p in m.group(1).split(".")), m.group(2))
    if m := _LETTER_DOTTED_RE.match(text):
        parts = (m.group(1),) + tuple(int(p) for p in m.group(2).split(".") if p)
        return Numbering("appendix", parts, m.group(3))
    if m := _ROMAN_RE.match(text):
        return Numbering("roman", (_roman_value(m.group(1)),), m.group(2))
    if m := _LETTER_RE.match(text):
        return Numbering("letter", (m.group(1),), m.group(2))
    return None


def numbering_level(heading: str, *, roman_sections: bool = False) -> int | None:
    """Level implied by the heading's number: "1" -> 1, "1.2" -> 2, "1.2.3" -> 3,
    "IV." -> 1, "Chapter 2" -> 1, "Appendix A" -> 1, "A.1" -> 2; "A." -> 2 under roman
    sections (IEEE style), else 1 (an appendix). None when the heading is unnumbered."""
    num = parse_numbering(heading)
    if num is None:
        return None
    if num.scheme == "letter":
        return 2 if roman_sections else 1
    return num.depth


def section_kind(heading: str, title: str | None = None) -> SectionKind:
    """What a heading opens: ``title`` (equal to ``title``, when given), ``abstract``,
    ``references`` (bibliography), ``appendix`` (also supplementary material) or ``body``.
    Section numbers are ignored ("7 References" is references)."""
    text = _clean(heading)
    if title and text.casefold() == _clean(title).casefold():
        return "title"
    num = parse_numbering(text)
    if num is not None and num.scheme == "appendix":
        return "appendix"
    rest = _clean(num.rest if num else text).rstrip(" .:")
    if ABSTRACT_RE.match(rest):
        return "abstract"
    if REFERENCES_RE.match(rest):
        return "references"
    if APPENDIX_RE.match(rest):
        return "appendix"
    return "body"


def chain_kind(headings: Iterable[str], title: str | None = None) -> SectionKind:
    """Kind of a chunk from its whole heading chain: the first non-body kind from the top
    (a subsection of "Appendix A" is appendix, one of "References" is references)."""
    for heading in headings:
        kind = section_kind(heading, title)
        if kind != "body":
            return kind
    return "body"


def find_title(doc: DoclingDocument) -> str | None:
    """The document's title item, on any layer (``restructure`` puts it on furniture)."""
    for item in doc.texts:
        if item.label == DocItemLabel.TITLE and item.text.strip():
            return _clean(item.text)
    return None


# --------------------------------------------------------------------------------------
# Fonts from the PDF (optional)
# --------------------------------------------------------------------------------------


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


def _is_caps(text: str) -> bool:
    cased = [ch for ch in text if ch.isupper() or ch.islower()]
    return len(cased) >= 3 and all(ch.isupper() for ch in cased)


def read_pdf_styles(pdf_path: Path, boxes: Mapping[str, tuple[int, tuple[float, ...], str]],
                    password: str | None = None) -> tuple[dict[str, Style], Style | None]:
    """Styles of the text inside each box, and the document's body text style.

    ``boxes`` maps a key to (page number, (l, b, r, t) bottom-left page coordinates, text).
    Pages that are rotated, or boxes where fewer than half the expected characters are
    found, give no style. The body style is the most common size and font (by characters)
    on the pages read.
    """
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    styles: dict[str, Style] = {}
    size_counts: Counter[float] = Counter()
    font_counts: Counter[str] = Counter()
    by_page: dict[int, list[tuple[str, tuple[float, ...], str]]] = defaultdict(list)
    for key, (page_no, box, text) in boxes.items():
        by_page[page_no].append((key, box, text))
    pdf = pdfium.PdfDocument(str(pdf_path), password=password)
    try:
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
    finally:
        pdf.close()
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
    import pypdfium2 as pdfium

    pairs: dict[int, list[tuple[str, str, str]]] = defaultdict(list)
    pdf = pdfium.PdfDocument(str(pdf_path), password=password)
    try:
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
    finally:
        pdf.close()
    return pairs


# --------------------------------------------------------------------------------------
# The pass
# --------------------------------------------------------------------------------------

_TEXTUAL = {DocItemLabel.TEXT, DocItemLabel.PARAGRAPH, DocItemLabel.SECTION_HEADER,
            DocItemLabel.PAGE_HEADER, DocItemLabel.PAGE_FOOTER, DocItemLabel.TITLE}
_ROMAN_LOWER = r"(?=[ivxlc])c{0,3}(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})"
_PAGE_NUMBER_RE = re.compile(rf"^(?:page\s*)?(?:#|{_ROMAN_LOWER})(?:\s*(?:/|of)\s*#)?$")
_LEADER_RE = re.compile(r"(?:\.\s?){4,}\.?")
_LEADER_ENTRY_RE = re.compile(r"(?:\.\s?){4,}\s*(?:\d{1,4}|[ivxlc]{1,6})\b", re.I)
MARGIN = 0.15  # fraction of the page height (or width, for sideways text) counted as margin
MAX_RUNNING_WORDS = 60


def _running_key(text: str) -> str:
    key = unicodedata.normalize("NFKC", text).lower()
    key = re.sub(r"\d+", "#", key)
    return " ".join(key.split()).strip(" .,;:|-\u2013\u2014")


@dataclass
class Report:
    """What :func:`restructure` changed (for logs and tests)."""

    title: str | None = None
    furniture: list[str] = field(default_factory=list)
    cut_fragments: list[str] = field(default_factory=list)
    toc: int = 0
    page_splits: int = 0
    unwrapped: list[str] = field(default_factory=list)
    promoted: list[str] = field(default_factory=list)
    demoted: list[str] = field(default_factory=list)
    levels: dict[str, int] = field(default_factory=dict)
    level_source: str = "numbering"
    text_changed: int = 0
    errors: list[str] = field(default_factory=list)


class Restructurer:
    """One document's repair; :func:`restructure` runs all steps."""

    def __init__(self, doc: DoclingDocument, pdf_path: str | Path | None = None, *,
                 password: str | None = None, strict: bool = False) -> None:
        self.doc = doc
        self.password = password
        self.strict = strict
        self.pdf_path = Path(pdf_path) if pdf_path else None
        if self.pdf_path and (not self.pdf_path.is_file()
                              or self.pdf_path.suffix.lower() != ".pdf"):
            self.pdf_path = None
        self.report = Report()
        self._title_text: str | None = None
        self.paged = any(getattr(t, "prov", None) for t in doc.texts)

    def run(self) -> DoclingDocument:
        """All steps in order. A step that fails is logged and skipped (unless ``strict``):
        the repair is best effort and must never cost the document its ingestion."""
        styles: dict[str, Style] = {}
        body: Style | None = None

        def read_styles() -> None:
            nonlocal styles, body
            styles, body = self._styles()

        steps: list[tuple[str, Callable[[], None]]] = []
        if self.paged:
            steps += [("unwrap_prose", self.unwrap_prose), ("drop_furniture", self.drop_furniture),
                      ("split_at_pages", self.split_at_pages)]
        steps += [("normalise", self.normalise), ("promote_headings", self.promote_headings),
                  ("styles", read_styles), ("mark_title", lambda: self.mark_title(styles)),
                  ("demote", lambda: self.demote_non_headings(styles, body)),
                  ("levels", lambda: self.assign_levels(styles))]
        for name, step in steps:
            try:
                step()
            except Exception as exc:
                if self.strict:
                    raise
                _log.warning("restructure: step %s failed on %s: %s", name, self.doc.name, exc)
                self.report.errors.append(f"{name}: {type(exc).__name__}: {exc}")
        r = self.report
        _log.debug("restructure %s: title=%r levels from %s, %d furniture, %d cut, %d toc, "
                   "%d page splits, %d unwrapped, %d texts changed", self.doc.name, r.title,
                   r.level_source, len(r.furniture), len(r.cut_fragments), r.toc,
                   r.page_splits, len(r.unwrapped), r.text_changed)
        return self.doc

    # -- helpers ------------------------------------------------------------------------

    def _replace(self, item: TextItem, cls: type[TextItem], **changes: Any) -> TextItem:
        """Swap ``item`` for an instance of ``cls`` under the same reference."""
        idx = int(item.self_ref.rsplit("/", 1)[1])
        data = {name: getattr(item, name) for name in cls.model_fields
                if name not in ("label", "level") and hasattr(item, name)}
        data.update(changes)
        new = cls(**data)
        self.doc.texts[idx] = new
        return new

    def _inside_float(self, item: Any) -> bool:
        """Whether the item belongs to a table or picture (cells, figure text)."""
        parent = item.parent
        while parent is not None:
            node = parent.resolve(self.doc)
            if isinstance(node, TableItem | PictureItem):
                return True
            parent = getattr(node, "parent", None)
        return False

    def _body_texts(self, labels: set[DocItemLabel] | None = None) -> list[TextItem]:
        out = []
        for item, _ in self.doc.iterate_items():
            if isinstance(item, TextItem) and (labels is None or item.label in labels):
                out.append(item)
        return out

    def _band(self, prov: ProvenanceItem) -> str | None:
        page = self.doc.pages.get(prov.page_no)
        if page is None:
            return None
        height, width = page.size.height, page.size.width
        box = prov.bbox.to_bottom_left_origin(height)
        if box.b >= height * (1 - MARGIN):
            return "top"
        if box.t <= height * MARGIN:
            return "bottom"
        tall = (box.t - box.b) > 2 * (box.r - box.l)
        if tall and (box.r <= width * 0.08 or box.l >= width * 0.92):
            return "side"
        return None

    @staticmethod
    def _fragment(item: TextItem, prov: ProvenanceItem) -> str:
        if len(item.prov) == 1:
            return item.text
        start, end = prov.charspan
        return item.text[start:end]

    # -- 0. prose inside tables and pictures ---------------------------------------------

    def unwrap_prose(self) -> None:
        """Text the layout model boxed as a table or picture but which is running prose
        (sentences, not cells or labels) goes back into the reading order as text.

        Without a table-structure model our tables have a single empty cell and their text
        in child items; Docling's chunker labels that text "table", and drops text inside
        pictures altogether. A table or picture holds prose when at least 30 words sit in
        its text items (captions and footnotes aside: they are chunked with it) and at
        least 60% of them in items of 10 or more words. Such a table's text all moves out
        and the table, now an empty shell, goes to the furniture layer; a picture keeps its
        short labels and only its long (>= 10 words) items move out."""
        for node in [*self.doc.tables, *self.doc.pictures]:
            if node.content_layer != ContentLayer.BODY or node.parent is None:
                continue
            is_table = isinstance(node, TableItem)
            if is_table and node.data.num_rows * node.data.num_cols > 1 \
                    and any(c.text.strip() for c in node.data.table_cells):
                continue
            satellites = {r.cref for r in [*node.captions, *node.footnotes]}
            texts = [i for i, _ in self.doc.iterate_items(
                root=node, traverse_pictures=True, included_content_layers=set(ContentLayer))
                if isinstance(i, TextItem) and i.self_ref not in satellites]
            words = [len(t.text.split()) for t in texts]
            total = sum(words)
            if total < 30 or sum(w for w in words if w >= 10) < 0.6 * total:
                continue
            if not is_table:
                texts = [t for t, w in zip(texts, words, strict=True) if w >= 10]
            self._lift(node, texts)
            if is_table:
                node.content_layer = ContentLayer.FURNITURE
            self.report.unwrapped.append(node.self_ref)

    def _lift(self, node: Any, texts: list[TextItem]) -> None:
        """Move ``texts`` (descendants of ``node``) to ``node``'s parent, right after it."""
        parent = node.parent.resolve(self.doc)
        moved = {t.self_ref for t in texts}
        for desc, _ in list(self.doc.iterate_items(root=node, with_groups=True,
                                                   traverse_pictures=True,
                                                   included_content_layers=set(ContentLayer))):
            desc.children = [c for c in desc.children if c.cref not in moved]
        at = next(i for i, c in enumerate(parent.children) if c.cref == node.self_ref) + 1
        for t in texts:
            t.parent = parent.get_ref()
        parent.children[at:at] = [t.get_ref() for t in texts]

    # -- 1. furniture -------------------------------------------------------------------

    def drop_furniture(self) -> None:
        """Running headers/footers, page numbers and tables of contents out of the body."""
        doc = self.doc
        candidates: list[tuple[TextItem, ProvenanceItem, str, str]] = []
        pages_by_key: dict[str, set[int]] = defaultdict(set)
        furniture_keys: set[str] = set()
        for item in doc.texts:
            if item.content_layer == ContentLayer.FURNITURE and item.text.strip():
                furniture_keys.add(_running_key(item.text))
        for item in self._body_texts(_TEXTUAL):
            if not item.prov or self._inside_float(item):
                continue
            for prov in item.prov:
                band = self._band(prov)
                frag = self._fragment(item, prov).strip()
                if not frag or len(frag.split()) > MAX_RUNNING_WORDS:
                    continue
                # A text item that is only a number is a page or chapter number wherever it
                # sits (table cells and figure labels are not looked at).
                if band is None and not (len(item.prov) == 1 and frag.isdigit()
                                         and len(frag) <= 4):
                    continue
                key = _running_key(frag)
                candidates.append((item, prov, frag, key))
                pages_by_key[key].add(prov.page_no)

        def running(item: TextItem, key: str) -> bool:
            # A heading repeated at the top of two pages may be two sections of one name
            # ("Results" in paper and supplement): headings need three pages.
            repeats = 3 if isinstance(item, SectionHeaderItem) else 2
            return (bool(_PAGE_NUMBER_RE.match(key)) or len(pages_by_key[key]) >= repeats
                    or key in furniture_keys)

        cut: dict[str, list[ProvenanceItem]] = defaultdict(list)
        items: dict[str, TextItem] = {}
        for item, prov, _frag, key in candidates:
            if key and running(item, key):
                cut[item.self_ref].append(prov)
                items[item.self_ref] = item
        for ref, provs in cut.items():
            self._cut(items[ref], provs)
        self._drop_toc()

    def _cut(self, item: TextItem, provs: list[ProvenanceItem]) -> None:
        """Remove fragments (provenance entries) from an item, or the whole item."""
        rest = [p for p in item.prov if p not in provs]
        top = all(self._band(p) == "top" for p in provs)
        if not rest:
            self._to_furniture(item, DocItemLabel.PAGE_HEADER if top else
                               DocItemLabel.PAGE_FOOTER)
            self.report.furniture.append(item.text)
            return
        text = item.text
        spans = []
        for p in provs:
            frag = text[p.charspan[0]:p.charspan[1]].strip()
            spans.append((p.charspan[0], p.charspan[1], frag))
            self.report.cut_fragments.append(frag)
        for start, end, frag in sorted(spans, reverse=True):
            if text[start:end].strip() != frag:  # spans out of step with the text: skip
                continue
            text = text[:start] + text[end:]
        new_text = " ".join(text.split())
        # Re-base the remaining spans on the new text.
        offset, new_provs = 0, []
        for p in rest:
            frag = _clean(item.text[p.charspan[0]:p.charspan[1]])
            pos = new_text.find(frag, offset) if frag else -1
            if pos >= 0:
                p = p.model_copy(update={"charspan": (pos, pos + len(frag))})
                offset = pos + len(frag)
            new_provs.append(p)
        item.text = new_text
        item.prov = new_provs

    def _to_furniture(self, item: TextItem, label: DocItemLabel) -> None:
        if type(item) is TextItem:
            item.label = label
        elif isinstance(item, SectionHeaderItem | TitleItem):
            item = self._replace(item, TextItem, label=label)
        item.content_layer = ContentLayer.FURNITURE

    def _drop_toc(self) -> None:
        """Tables of contents (dot leaders before page numbers) leave the body: they repeat
        the headings, and a hit on them would cite the contents page, not the section."""
        for item in self._body_texts(_TEXTUAL | {DocItemLabel.LIST_ITEM}):
            if self._inside_float(item):
                continue
            provs = [p for p in item.prov if self._is_toc(self._fragment(item, p))]
            if not provs and not (not item.prov and self._is_toc(item.text)):
                continue
            if len(provs) == len(item.prov):
                self._to_furniture(item, DocItemLabel.TEXT)
            else:
                self._cut(item, provs)
            self.report.toc += 1

    @staticmethod
    def _is_toc(text: str) -> bool:
        entries = len(_LEADER_ENTRY_RE.findall(text))
        if not entries:
            return False
        leader_chars = sum(len(m.group()) for m in _LEADER_RE.finditer(text))
        return leader_chars >= 0.25 * len(text) or entries >= 3

    # -- 1b. one page per paragraph ----------------------------------------------------

    def split_at_pages(self) -> None:
        """A paragraph Docling joined across a page break becomes one item per page.

        The chunker gives a chunk the pages of all its items; a long paragraph that runs
        from page 7 to 8 is cut into several chunks, and every one of them would claim
        page 7 as its first page, also those whose text is all on page 8. Split at the
        page break (at the nearest space: a word broken across the pages stays whole on
        the first page), each piece cites its own page, and the chunker still merges
        neighbours under the same headings up to its token budget."""
        for item in self._body_texts({DocItemLabel.TEXT, DocItemLabel.PARAGRAPH,
                                      DocItemLabel.FOOTNOTE, DocItemLabel.REFERENCE}):
            if type(item) is not TextItem or len({p.page_no for p in item.prov}) < 2 \
                    or self._inside_float(item):
                continue
            groups: list[list[ProvenanceItem]] = []
            for prov in item.prov:
                if groups and groups[-1][-1].page_no == prov.page_no:
                    groups[-1].append(prov)
                else:
                    groups.append([prov])
            cuts = [self._cut_point(item.text, g[0].charspan[0]) for g in groups[1:]]
            if any(c is None for c in cuts) or cuts != sorted(cuts):
                continue
            bounds = [0, *cuts, len(item.text)]  # type: ignore[list-item]
            pieces = [item.text[a:b].strip() for a, b in zip(bounds, bounds[1:], strict=False)]
            if not all(pieces):
                continue
            parent = item.parent.resolve(self.doc)
            at = next(i for i, c in enumerate(parent.children) if c.cref == item.self_ref)
            item.text, item.orig, item.prov = pieces[0], pieces[0], groups[0]
            for k, (piece, group) in enumerate(zip(pieces[1:], groups[1:], strict=True)):
                new = item.model_copy(deep=True)
                new.self_ref = f"#/texts/{len(self.doc.texts)}"
                new.text, new.orig, new.children = piece, piece, []
                new.prov = [p.model_copy(update={"charspan": (0, len(piece))}) for p in group]
                self.doc.texts.append(new)
                parent.children.insert(at + 1 + k, new.get_ref())
            self.report.page_splits += 1

    @staticmethod
    def _cut_point(text: str, start: int) -> int | None:
        """Whitespace nearest to a recorded fragment start (Docling's spans drift by a
        character or two where it closed up a hyphen at the break)."""
        for delta in range(0, 25):
            for pos in (start - 1 + delta, start - 1 - delta):
                if 0 < pos < len(text) and text[pos].isspace():
                    return pos
        return None

    # -- 2. text ------------------------------------------------------------------------

    def normalise(self) -> None:
        doc = self.doc
        editable = [t for t in doc.texts if not isinstance(t, CodeItem | FormulaItem)
                    and t.label not in (DocItemLabel.CODE, DocItemLabel.FORMULA)
                    and not self._inside_float(t)]
        counts = word_counts(t.text for t in editable)
        for item in editable:
            new = normalize_text(item.text, counts=counts)
            if new != item.text:
                item.text = new
                self.report.text_changed += 1
        if self.pdf_path is not None:
            # The PDF says exactly which words were broken at a line end.
            self._restore_line_hyphens(editable, word_counts(t.text for t in editable))
            return
        counts = word_counts(t.text for t in editable)
        forms = _compound_forms(counts)
        for item in editable:
            new = repair_joined_compounds(item.text, counts, forms)
            if new != item.text:
                item.text = new
                self.report.text_changed += 1

    def _restore_line_hyphens(self, items: list[TextItem], counts: Mapping[str, int]) -> None:
        """Where the PDF prints "population-" / "based" over a line break and Docling wrote
        "populationbased", put a real hyphen back (see :func:`join_hyphen_break`), at
        that place only: matched on that page, after the text that precedes it."""
        try:
            pairs = line_end_hyphens(self.pdf_path, self.password)  # type: ignore[arg-type]
        except Exception:  # the PDF is optional evidence; a damaged file changes nothing
            return
        by_page: dict[int, list[TextItem]] = defaultdict(list)
        for t in items:
            for page_no in dict.fromkeys(p.page_no for p in t.prov):
                by_page[page_no].append(t)
        for page_no, page_pairs in pairs.items():
            on_page = by_page.get(page_no, [])
            for context, before, after in page_pairs:
                fixed = join_hyphen_break(before, after, counts, closed_self=1)
                if fixed == before + after:
                    continue
                ctx = r"\s*".join(re.escape(w) for w in context.split())
                if not ctx and len(before + after) < 6:
                    continue
                pattern = re.compile(
                    rf"((?<![\w-]){ctx}\s*){re.escape(before + after)}(?!\w)" if ctx else
                    rf"((?<![\w-])){re.escape(before + after)}(?!\w)")
                for item in on_page:
                    new, n = pattern.subn(lambda m, f=fixed: f"{m.group(1)}{f}", item.text,
                                          count=1)
                    if n:
                        item.text = new
                        self.report.text_changed += 1
                        break

    # -- 3. headings --------------------------------------------------------------------

    def promote_headings(self) -> None:
        """A standalone "Abstract", "References", "Acknowledgements" or "Appendix" text item
        is a heading the layout model missed."""
        for item in self._body_texts({DocItemLabel.TEXT, DocItemLabel.PARAGRAPH}):
            text = _clean(item.text).rstrip(" .:")
            if not text or len(text) > 40 or not text[0].isupper() or self._inside_float(item):
                continue
            kind = section_kind(text)
            if kind != "body" or re.match(r"^acknowledge?ments?$", text, re.I):
                self._replace(item, SectionHeaderItem, level=1)
                self.report.promoted.append(text)

    def _headers(self) -> list[SectionHeaderItem]:
        return [i for i in self._body_texts() if isinstance(i, SectionHeaderItem)]

    def _styles(self) -> tuple[dict[str, Style], Style | None]:
        if self.pdf_path is None:
            return {}, None
        boxes = {}
        for item in self._body_texts({DocItemLabel.SECTION_HEADER, DocItemLabel.TITLE}):
            if not item.prov:
                continue
            prov = item.prov[0]
            page = self.doc.pages.get(prov.page_no)
            if page is None:
                continue
            box = prov.bbox.to_bottom_left_origin(page.size.height)
            text = self._fragment(item, prov)
            boxes[item.self_ref] = (prov.page_no, (box.l, box.b, box.r, box.t), text)
        try:
            styles, body = read_pdf_styles(self.pdf_path, boxes, self.password)
        except Exception:  # fonts are a refinement; without them numbering still works
            return {}, None
        texts = {i.self_ref: i.text for i in self._body_texts()}
        styles = {ref: Style(s.size, s.bold, s.italic, _is_caps(_heading_rest(texts[ref])),
                             s.font)
                  for ref, s in styles.items() if ref in texts}
        return styles, body

    def mark_title(self, styles: Mapping[str, Style]) -> None:
        """Move the title to the furniture layer as a TitleItem (see the module notes)."""
        if any(isinstance(t, TitleItem) and t.content_layer == ContentLayer.FURNITURE
               for t in self.doc.texts):  # done before (restructure run twice)
            self._title_text = find_title(self.doc)
            return
        body = self._body_texts()
        position = {item.self_ref: i for i, item in enumerate(body)}
        titles = [i for i in body if isinstance(i, TitleItem)]
        headers = self._headers()
        title: TextItem | None = None
        if len(titles) == 1:
            first_header = next((i for i in body if isinstance(i, SectionHeaderItem)), None)
            if (first_header is None
                    or position[titles[0].self_ref] < position[first_header.self_ref]):
                title = titles[0]
        elif not titles:
            title = self._find_title_candidate(headers, styles)
        if title is None:
            return
        text = _clean(title.text)
        stripped = _KICKER_RE.sub("", text)
        if stripped != text and _plausible_title(stripped):
            text = stripped
        # Kickers above the title ("WHITE PAPER") are not sections.
        first_page = title.prov[0].page_no if title.prov else None
        title_pos = position[title.self_ref]
        for header in headers:
            if position[header.self_ref] >= title_pos:
                break
            if (header.prov[0].page_no if header.prov else None) == first_page:
                self._replace(header, TextItem, label=DocItemLabel.TEXT)
                self.report.demoted.append(header.text)
        # A title's last line the layout model cut off as text ("... review of the" +
        # "literature"): short, lowercase, right after it on the same page.
        pos = position[title.self_ref]
        nxt = body[pos + 1] if pos + 1 < len(body) else None
        if (nxt is not None and type(nxt) is TextItem and nxt.prov and title.prov
                and nxt.prov[0].page_no == title.prov[0].page_no
                and (text.split()[-1].lower() in _TITLE_OPEN_END or text.endswith((":", "-")))
                and nxt.text[:1].islower() and len(nxt.text.split()) <= 6):
            text = f"{text} {_clean(nxt.text)}"
            nxt.content_layer = ContentLayer.FURNITURE
        new = self._replace(title, TitleItem, text=text)
        new.content_layer = ContentLayer.FURNITURE
        self.report.title = text
        self._title_text = text

    def _find_title_candidate(self, headers: list[SectionHeaderItem],
                              styles: Mapping[str, Style]) -> SectionHeaderItem | None:
        """First-page heading before the document's structure starts, plausible as a title,
        and (with fonts) printed clearly larger than any section heading."""
        start = None
        for idx, h in enumerate(headers):
            text = _clean(h.text)
            if (parse_numbering(text) is not None or section_kind(text) != "body"
                    or TOP_LEVEL_RE.match(text)):
                start = idx
                break
        if start is None or start == 0:
            return None
        pool = [h for h in headers[:start] if (not h.prov or h.prov[0].page_no <= 2)
                and _plausible_title(_KICKER_RE.sub("", _clean(h.text)))]
        if not pool:
            return None
        if styles:
            styled = [h for h in pool if h.self_ref in styles]
            if styled:
                best = max(styled, key=lambda h: styles[h.self_ref].size)
                others = [styles[h.self_ref].size for h in headers[start:]
                          if h.self_ref in styles and _clean(h.text) != _clean(best.text)]
                if others and styles[best.self_ref].size < 1.15 * max(others):
                    return None
                return best
        return pool[0]

    def demote_non_headings(self, styles: Mapping[str, Style], body: Style | None) -> None:
        """Section headers that are not headings become text: no letters ("®"), a formula or
        code ("a2 + 8 = 12", "ENABLE ;"), a sentence (> 20 words), or, with fonts, a sentence
        (final period, or > 8 words) in the body's own font, size and regular upright type
        ("None." under "Conflict of interest"). Known section names are never demoted."""
        for h in self._headers():
            text = _clean(h.text)
            if (parse_numbering(text) is not None or section_kind(text) != "body"
                    or BACK_MATTER_RE.match(text) or TOP_LEVEL_RE.match(text)):
                continue
            letters = sum(ch.isalpha() for ch in text)
            style = styles.get(h.self_ref)
            plain_body = (style is not None and body is not None and not style.bold
                          and not style.italic and not style.caps and style.font == body.font
                          and style.size <= body.size * 1.05 + 0.1
                          and (text.endswith((".", "!", "?")) or len(text.split()) > 8))
            if (letters < 2 or re.search(r"[=;{}]", text) or len(text.split()) > 20
                    or plain_body):
                self._replace(h, TextItem, label=DocItemLabel.TEXT)
                self.report.demoted.append(text)

    # -- 4. levels ----------------------------------------------------------------------

    def assign_levels(self, styles: Mapping[str, Style]) -> None:
        headers = self._headers()
        if not headers:
            return
        if len({h.level for h in headers}) > 1:  # the source had levels (DOCX, HTML, ...)
            self.report.level_source = "source"
            return
        title = self._title_text
        texts = [_clean(h.text) for h in headers]
        nums = [parse_numbering(t) for t in texts]
        roman = sum(1 for n in nums if n and n.scheme == "roman") >= 2
        seen_refs = False
        for i, (text, num) in enumerate(zip(texts, nums, strict=True)):
            if num is None and seen_refs and _BARE_LETTER_RE.match(text):
                m = _BARE_LETTER_RE.match(text)
                assert m is not None
                nums[i] = Numbering("appendix", (m.group(1),), m.group(2))
            elif num is not None and num.scheme == "letter" and not roman:
                nums[i] = Numbering("appendix", num.parts, num.rest)
            if section_kind(text) == "references":
                seen_refs = True
        numbered = sum(1 for n in nums if n is not None)
        use_styles = bool(styles) and sum(1 for h in headers if h.self_ref in styles) >= 0.7 * len(
            headers)
        size_class = _size_classes([styles[h.self_ref].size for h in headers
                                    if h.self_ref in styles]) if use_styles else {}

        def prominence(ref: str) -> tuple[float, int, int, int] | None:
            s = styles.get(ref)
            return s.prominence(size_class.get(s.size, s.size)) if s and use_styles else None

        # Level of each style among numbered headings (for unnumbered ones in the same style).
        style_levels: dict[tuple, Counter[int]] = defaultdict(Counter)
        for h, num in zip(headers, nums, strict=True):
            p = prominence(h.self_ref)
            if num is not None and p is not None and num.scheme != "letter":
                style_levels[p][num.depth] += 1

        if numbered >= 2 or (numbered and numbered == len(headers)):
            self.report.level_source = "numbering+fonts" if use_styles else "numbering"
            levels = self._levels_numbered(headers, texts, nums, prominence, style_levels,
                                           title)
        elif use_styles:
            self.report.level_source = "fonts"
            levels = self._levels_by_style(headers, texts, prominence, title)
        else:
            self.report.level_source = "case"
            levels = self._levels_by_case(texts, title)
        for h, text, level in zip(headers, texts, levels, strict=True):
            h.level = max(1, min(level, 100))
            self.report.levels[text] = h.level

    def _levels_numbered(self, headers, texts, nums, prominence, style_levels, title
                         ) -> list[int]:
        open_: dict[int, Numbering | None] = {}  # the chunker's heading stack, simulated
        levels: list[int] = []
        last_numbered_level = 0
        for h, text, num in zip(headers, texts, nums, strict=True):
            kind = section_kind(text, title)
            if num is not None:
                level = 2 if num.scheme == "letter" else num.depth
                if num.scheme != "letter":
                    # An open heading whose number is not a prefix of this one is no
                    # ancestor: "2.1.6" must not sit under "Chapter 1" when chapter 2's
                    # heading is missing.
                    for lvl in sorted(open_):
                        if lvl >= level:
                            break
                        anc = open_[lvl]
                        if anc is None or anc.parts != num.parts[:len(anc.parts)]:
                            level = lvl
                            break
                last_numbered_level = level
            elif kind != "body" or BACK_MATTER_RE.match(text) or TOP_LEVEL_RE.match(text):
                level = 1
            else:
                p = prominence(h.self_ref)
                if p is not None and p in style_levels:
                    level = style_levels[p].most_common(1)[0][0]
                elif p is not None and style_levels:
                    above = [lv for sp, c in style_levels.items() if sp > p
                             for lv in [c.most_common(1)[0][0]]]
                    level = (max(above) + 1) if above else 1
                else:
                    level = last_numbered_level + 1
            for k in [k for k in open_ if k >= level]:
                del open_[k]
            open_[level] = num if num is not None and num.scheme != "letter" else None
            levels.append(level)
        return levels

    def _levels_by_style(self, headers, texts, prominence, title) -> list[int]:
        ranks = sorted({p for h in headers if (p := prominence(h.self_ref)) is not None},
                       reverse=True)
        first = next((prominence(h.self_ref) for h, t in zip(headers, texts, strict=True)
                      if section_kind(t, title) == "body" and not BACK_MATTER_RE.match(t)
                      and prominence(h.self_ref) is not None), None)
        if first is None:
            return [1] * len(headers)
        below = [p for p in ranks if p < first]
        level_of = {p: 1 for p in ranks if p >= first}
        level_of.update({p: min(2 + i, 4) for i, p in enumerate(below)})
        levels = []
        top_text = ""
        for h, text in zip(headers, texts, strict=True):
            p = prominence(h.self_ref)
            level = level_of.get(p, 1) if p is not None else 1
            kind = section_kind(text, title)
            if kind in ("abstract", "references", "appendix", "title"):
                level = 1
            elif BACK_MATTER_RE.match(text):
                container = bool(re.search(r"declaration|additional information|back matter|"
                                           r"end matter|information", top_text, re.I))
                level = min(level, 2 if container else 1)
            if level == 1:
                top_text = text
            levels.append(level)
        return levels

    def _levels_by_case(self, texts, title) -> list[int]:
        """Without fonts or numbers: when section names are in capitals (INTRODUCTION,
        METHODS) and other headings are not, the others are their subsections."""
        regular = [t for t in texts if section_kind(t, title) == "body"
                   and not BACK_MATTER_RE.match(t)]
        caps = [t for t in regular if _is_caps(t)]
        if not (len(caps) >= 2 and len(caps) < len(regular) and _is_caps(regular[0])):
            self.report.level_source = "flat"
            return [1] * len(texts)
        out = []
        for t in texts:
            sub = (section_kind(t, title) == "body" and not BACK_MATTER_RE.match(t)
                   and not _is_caps(t) and not TOP_LEVEL_RE.match(t))
            out.append(2 if sub else 1)
        return out


def _heading_rest(text: str) -> str:
    num = parse_numbering(text)
    return num.rest if num else text


def _size_classes(sizes: list[float]) -> dict[float, float]:
    """Sizes within 0.6 pt of each other are one class (named by its largest size)."""
    out: dict[float, float] = {}
    group: list[float] = []
    for s in sorted(set(sizes)):
        if group and s - group[0] > 0.6:
            for g in group:
                out[g] = group[-1]
            group = []
        group.append(s)
    for g in group:
        out[g] = group[-1]
    return out


def _plausible_title(text: str) -> bool:
    words = re.findall(r"[^\W\d_]{2,}", text)
    if len(words) < 3 or len(text) > 400:
        return False
    letters = sum(ch.isalpha() for ch in text)
    return letters / max(1, len(text.replace(" ", ""))) > 0.7


def restructure(doc: DoclingDocument, pdf_path: str | Path | None = None, *,
                password: str | None = None, strict: bool = False) -> DoclingDocument:
    """Repair a converted document's structure in place (see the module notes) and return
    it.

    ``pdf_path``: the PDF it was converted from (``password`` if encrypted); adds
    font-based heading levels and hyphens restored from the PDF's text layer. Any other
    path, or none, is fine: everything else works from the document alone.
    ``strict``: raise instead of logging and skipping a step that fails (tests)."""
    return Restructurer(doc, pdf_path, password=password, strict=strict).run()
