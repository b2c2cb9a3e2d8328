"""What a heading says about its place in a document: its section number (arabic, chapter,
roman, letter, appendix) and the level that implies, the kind of section it opens (title,
abstract, references, appendix, body), and the document's title item.

Rules on text alone (no positions, no fonts): :mod:`citeloom.structure.restructure` combines
them with fonts and reading order."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from docling_core.types.doc import DocItemLabel, DoclingDocument

SectionKind = Literal["title", "abstract", "references", "appendix", "body"]

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
BARE_LETTER_RE = re.compile(r"^([A-H])\s+([A-Z].*)$")

ABSTRACT_RE = re.compile(
    r"^(abstract|executive summary|zusammenfassung|kurzfassung|r[ée]sum[ée]|resumen|"
    r"sommario|samenvatting)$", re.I)
# The one test for a reference-list heading: section kind "references" here, and the
# chunker's "reference" label (searches can leave bibliographies out). A section number
# ("7. References") and punctuation around the name ("[References]", "References:") are fine.
REFERENCES_RE = re.compile(
    r"^\W*(\d+\.?\s*)?(references?|bibliography|literature( cited)?|works cited|"
    r"cited literature|references and notes|reference list|literaturverzeichnis|literatur|"
    r"quellen|r[ée]f[ée]rences( bibliographiques)?|bibliographie|referencias|"
    r"bibliograf[ií]a)\W*$", re.I)
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


def clean_text(text: str) -> str:
    """``text`` on one line: whitespace runs (no-break spaces too) folded to one space."""
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
    text = clean_text(heading)
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
    text = clean_text(heading)
    if title and text.casefold() == clean_text(title).casefold():
        return "title"
    num = parse_numbering(text)
    if num is not None and num.scheme == "appendix":
        return "appendix"
    rest = clean_text(num.rest if num else text).rstrip(" .:")
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


# Elsevier's masthead around a journal's name, which Docling may mark as the title: the
# name comes after "Contents lists available at …" and before "journal homepage: …" (the
# paper's title comes after both).
_MASTHEAD_ABOVE = re.compile(r"contents lists available at", re.IGNORECASE)
_MASTHEAD_BELOW = re.compile(r"journal homepage", re.IGNORECASE)


# PMC's banner over an author manuscript: "HHS Public Access", "Europe PMC Funders Group".
_PMC_BANNER = re.compile(r"^(?:HHS|NIH|Europe\s+PMC\s+Funders?)\s+(?:Public\s+Access|"
                         r"Author\s+Manuscripts?|Group)$|^Author\s+manuscript$", re.IGNORECASE)


def find_title(doc: DoclingDocument) -> str | None:
    """The document's title item, on any layer (``restructure`` puts it on furniture); not
    a journal's name in Elsevier's masthead, between "Contents lists available at
    ScienceDirect" and "journal homepage: …"."""
    texts = doc.texts
    for k, item in enumerate(texts):
        if item.label == DocItemLabel.TITLE and item.text.strip():
            above = " ".join(t.text for t in texts[max(0, k - 2):k])
            below = " ".join(t.text for t in texts[k + 1:k + 3])
            if (_MASTHEAD_ABOVE.search(above) or _MASTHEAD_BELOW.search(below)
                    or _PMC_BANNER.match(item.text.strip())):
                continue
            title = clean_text(item.text)
            return _LINE_NUMBERS.sub("", title) if _numbered(doc, item) else title
    return None


# A margin's line numbers that Docling took into a title ("ParquetDB: A Lightweight Python
# Parquet-Based 1 Database 2"): bare numbers between the title's words.
_LINE_NUMBERS = re.compile(r"(?<=\S)\s+\d{1,3}(?=\s|$)")


def _numbered(doc: DoclingDocument, title: object) -> bool:
    """The title's own bare numbers are its page's line numbers (a draft, a review copy):
    they count up from 1, and there are three of them ("… fair 1 offline … data 2
    preprocessing 3"), or five items or more of the page are bare numbers and the next
    number is one of them."""
    numbers = [int(n) for n in _LINE_NUMBERS.findall(getattr(title, "text", ""))]
    if not numbers or numbers != list(range(1, len(numbers) + 1)):
        return False  # a page's lines count from 1: "The Biostrings 2 classes" keeps its 2
    if len(numbers) >= 3:
        return True
    pages = {p.page_no for p in getattr(title, "prov", [])}
    bare = {int(t.text) for t in doc.texts if re.fullmatch(r"\d{1,3}", t.text.strip())
            and any(p.page_no in pages for p in t.prov)}
    return len(bare) >= 5 and len(numbers) + 1 in bare  # the margin goes on where it ends

