"""A paper's metadata from the PDF itself: authors, year and DOI (the title is found in
``chunk``/``headings``), each marked with where it came from.

    converted document + PDF file ─► byline, © line, citation line, DOI (pages 1-2)
                                  ─► the PDF's info dictionary (Author, Subject, Title)
                                  ─► {authors, year, doi, metadata_source}

Sources, by preference: the document's own first page (``pdf-text``: the byline under the
title, the copyright or "Published" line, the journal's citation line), then the PDF's
info dictionary (``pdf-metadata``, only when it reads like the real thing: generators write
"Microsoft Office User" or a job number there). The file's creation date is never taken
for the year: a paper printed to PDF years later carries that year. Zotero's metadata,
when the document has an item, wins over all of this (``payload.merge_metadata``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from .payload import PARTICLES, family_name
from .payload import fold as _fold

PDF_TEXT = "pdf-text"
PDF_METADATA = "pdf-metadata"
FILE_NAME = "file-name"
ZOTERO = "zotero"

# Words that say an "author" is a publisher, a generator or an office, not a person.
NOT_A_PERSON = re.compile(
    r"\b(journals?|press|publish\w*|office|user|admin\w*|university|universit\w+|inc|ltd|"
    r"llc|gmbh|corporation|company|society|association|department|institute|editor\w*|"
    r"microsoft|adobe|acrobat|word|latex|tex|writer|unknown|author|owner|springer|"
    r"elsevier|wiley|abstract|introduction|background|keywords|article|review|research|"
    r"open|access|correspondence|email|paper|report|study|edition|volume|chapter|series|"
    r"working|draft|preprint|technical|front|cover|contents|summary)\b", re.IGNORECASE)
_MARKERS = r"[\d*†‡§¶#∗⁎]"
# Affiliation marks after a name: "Agyeman-Duah 1*", "Theurer 2,3", "Ball1*".
_AFFIL = re.compile(rf"(?<=[^\W\d_.])\s*{_MARKERS}(?:\s*,?\s*{_MARKERS})*"
                    rf"(?=\s*(?:,|and\b|&|$))")
_NAME_WORD = re.compile(r"^(?:[A-Z][.]?|[A-Z][^\W\d_]*(?:[-'’][A-Z]?[^\W\d_]+)*\.?)$")
# A capital inside a word, except after Mc, Mac, Di, De, Le, La, Da, Du, Fitz (McGee).
_CAMEL = re.compile(r"^(?!Mc|Mac|Di|De|Le|La|Da|Du|Fitz)[A-Z][a-z]+[A-Z]")
YEAR = r"(1[89]\d\d|20\d\d)"
_COPYRIGHT = re.compile(rf"(?:©|\(c\)|copyright)\s*(?:\w+\s+)?{YEAR}\b", re.IGNORECASE)
_PUBLISHED = re.compile(rf"\b(?:published(?: online)?|accepted)\s*:?\s*(?:\w+\s+){{0,3}}"
                        rf"{YEAR}\b", re.IGNORECASE)
# A journal's own citation of the paper: "Clinical Science (2014) 126, 305–313",
# "International Psychogeriatrics (2014), 26:1", "... Outcomes 2010, 4:1".
_VOLUME = re.compile(rf"\({YEAR}\)\s*,?\s*\d+\s*[,:(]")
_FAMILY = r"([A-Z][^\W\d_]+(?:[-'’][A-Z][^\W\d_]+)?)"
# "Datta et al. Journal of Trauma Management & Outcomes 2010, 4:1" (a running header);
# "How to cite this article Webb et al. (2017)". Not "(see Smith et al., 2004)".
_CITATION = re.compile(rf"\b{_FAMILY}\s+et al\.?;?\s+[A-Z][^\n©()]{{0,80}}?\b{YEAR}\s*,"
                       rf"\s*\d+\s*:\s*\d+|cite this article:?\s+{_FAMILY}\s+et al\.?,?\s*"
                       rf"\({YEAR}\)")


def _person(name: str) -> str | None:
    """``First Last`` as ``Last, First`` when it reads like a person's name, else None."""
    words = name.strip(" .;").split()
    if not 2 <= len(words) <= 6 or NOT_A_PERSON.search(name):
        return None
    if not all(_NAME_WORD.match(w) or w.lower() in PARTICLES for w in words):
        return None
    if any(_CAMEL.search(w) for w in words):
        return None  # "JavaScript", "PubTabNet": a product, not a person
    if words[-1].lower() in PARTICLES or len(words[-1].rstrip(".")) < 2:
        return None  # a family name is not an initial
    # Journals that set family names in capitals: "Ross G. DOUGLAS" is Douglas.
    words = [w.title() if len(w) > 2 and w.isupper() else w for w in words]
    fam = family_name(" ".join(words))
    given = " ".join(words[: len(words) - len(fam.split(" "))])
    return f"{fam}, {given}"


def parse_byline(text: str) -> list[str]:
    """Authors of a byline ("A B 1*, C D 2,3 and E F 4") as ``Last, First``; empty when
    the line does not read as a list of names (every part must)."""
    text = " ".join(text.split())
    if not text or len(text) > 600 or re.search(r"[:@/]|\d{3,}", text):
        return []
    text = _AFFIL.sub("", text)
    parts = re.split(r"\s*,\s*(?:and\s+|&\s*)?|\s+(?:and|&)\s+", text)
    # Marks before a name ("Anna Sundström, 1 Michael Rönnlund") go too.
    parts = [re.sub(rf"^(?:{_MARKERS}\s*)+", "", p) for p in parts]
    parts = [p for p in parts if p.strip()]
    names = [_person(p) for p in parts]
    if not names or any(n is None for n in names):
        return []
    if len(parts) == 1 and len(parts[0].split()) >= 4 and not re.search(
            r"\b[A-Z]\.?(?:\s|$)", parts[0]):
        return []  # "John Kiplinger Valerie Yaw": two people on a line, or one? Not known.
    return [n for n in names if n]


def _page_texts(doc: Any, pages: int = 1) -> list[str]:
    """Texts of every item (body and furniture) on the first ``pages`` pages, in order."""
    out = []
    for item in getattr(doc, "texts", []):
        if any(p.page_no <= pages for p in getattr(item, "prov", [])):
            text = " ".join(getattr(item, "text", "").split())
            if text:
                out.append(text)
    return out


def _info(path: Path | None, password: str | None) -> dict[str, str]:
    if path is None or path.suffix.lower() != ".pdf" or not path.is_file():
        return {}
    try:
        import pypdfium2 as pdfium

        pdf = pdfium.PdfDocument(str(path), password=password)
        try:
            return {k: (v or "").strip() for k, v in pdf.get_metadata_dict().items()}
        finally:
            pdf.close()
    except Exception:  # metadata is a nicety; a broken file fails in conversion
        return {}


def _year_ok(year: int) -> bool:
    import datetime

    return 1800 <= year <= datetime.date.today().year + 1


def _authors(first_page: list[str], info: dict[str, str], text: str, title: str
             ) -> tuple[list[str], str | None]:
    # The byline sits under the title, above the abstract (a short title reads as a name).
    lines = [ln for ln in first_page[:12] if _fold(ln) != _fold(title)]
    for i, line in enumerate(lines):
        if line.lower().startswith("abstract"):
            break
        names = parse_byline(line)
        for more in lines[i + 1:] if names else []:  # a byline over two lines
            if not parse_byline(more):
                break
            names += parse_byline(more)
        if names:
            return names, PDF_TEXT
    meta = re.sub(r"\{?\bet al\.?\}?", "", info.get("Author", ""))
    names = parse_byline(meta.replace(";", ","))
    # Only names the first pages also show: an info-dictionary Author is often the typist.
    if names and all(_fold(family_name(n)) in _fold(text) for n in names):
        return names, PDF_METADATA
    m = _CITATION.search(text)
    family = m and (m.group(1) or m.group(3))
    if family and not NOT_A_PERSON.search(family):
        return [family], PDF_TEXT  # the first author's family name only
    return [], None


def _year(text: str, info: dict[str, str]) -> tuple[int | None, str | None]:
    for rx in (_VOLUME, _CITATION, _COPYRIGHT, _PUBLISHED):
        for m in rx.finditer(text):
            year = next((int(g) for g in m.groups() if g and g.isdigit()), None)
            if year and _year_ok(year):
                return year, PDF_TEXT
    m = re.search(rf"\b{YEAR}\b", info.get("Subject", ""))
    if m and _year_ok(int(m.group(1))):
        return int(m.group(1)), PDF_METADATA
    return None, None


def _doi(text: str, info: dict[str, str]) -> tuple[str | None, str | None]:
    from .zotero.base import find_dois  # the DOI rules Zotero matching uses (normalised)

    for value, source in ((info.get("Subject", "") + " " + info.get("Keywords", ""),
                           PDF_METADATA), (text, PDF_TEXT)):
        found = find_dois(value)
        if found:
            return found[0], source
    return None, None


def document_metadata(doc: Any, path: Path | None, title: str, *,
                      password: str | None = None) -> dict[str, Any]:
    """Title, authors, year and DOI of a converted document, from its first pages and its
    PDF info dictionary, with ``metadata_source`` saying where each came from (a field
    not found is left out of both)."""
    from .chunk import pdf_metadata_title

    info = _info(path, password)
    first_page = _page_texts(doc, 1)
    text = "\n".join(_page_texts(doc, 2))
    out: dict[str, Any] = {"metadata_source": {}}
    src = out["metadata_source"]
    if title:
        out["title"] = title
        src["title"] = (FILE_NAME if path is not None and title == path.stem else
                        PDF_METADATA if path is not None and title == pdf_metadata_title(path)
                        else PDF_TEXT)
    authors, how = _authors(first_page, info, text, title)
    if authors:
        out["authors"], src["authors"] = authors, how
    year, how = _year(text, info)
    if year:
        out["year"], src["year"] = year, how
    doi, how = _doi(text, info)
    if doi:
        out["doi"], src["doi"] = doi, how
    return out
