"""Page 1's header as the PDF's own text layer sets it, and a year a file's name gives: what
:mod:`citeloom.structure.metadata` reads where Docling's paragraphs lose the lines.

Docling merges a header into paragraphs ("Terry Therneau Cynthia Crowson Elizabeth
Atkinson Mayo Clinic"); PDFium's text layer keeps each name on its line and each column
apart (:func:`citeloom.convert.textlayer.page_rows`). docs/DECISIONS.md "Names and titles
from page 1's text layer" gives the guards and what they were measured on."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from citeloom.payload import fold as _fold
from citeloom.text import compose_accents

# Where a metadata field came from (``metadata_source``).
PDF_TEXT = "pdf-text"
PDF_METADATA = "pdf-metadata"
FILE_NAME = "file-name"
ZOTERO = "zotero"


def year_ok(year: int) -> bool:
    """A year a paper can have: from 1800 to next year."""
    import datetime

    return 1800 <= year <= datetime.date.today().year + 1


# A thesis cover's labelled names: the supervisor sits beside the author. A role with a
# colon anywhere in a row, or a row that is only a role ("Relatori", "Thesis Advisors").
_ROLE_LABEL = re.compile(
    r"\b(?:supervisor|advis[eo]r|referee|examiner|consultant|reviewer|promoter|mentor)s?"
    r"\s*:|^(?:(?:co-?)?(?:supervisors?|supervisore|advis[eo]rs?|thesis advis[eo]rs?|"
    r"relator[ei]|correlator[ei]|candidat[oi]|laureand[oi]|betreuer(?:in)?|"
    r"(?:erst|zweit)?gutachter(?:in)?|prüfer(?:in)?|directeur|rapporteurs?|encadrant|"
    r"director(?:a|es)?|asesor(?:a|es)?|orientador(?:a|es)?|tutor(?:a|es)?|promotor(?:en)?|"
    r"committee|chair)\s*:?)$", re.IGNORECASE)


# A role in brackets after the author's name: "Ian K. Bania (Advisor: Cosmin Ilie)".
_ROLE_ASIDE = re.compile(r"\s*\((?:co-?)?(?:supervisor|advis[eo]r|mentor)s?\s*:[^()]*\)",
                         re.IGNORECASE)


def _role_labelled(rows: list[str]) -> bool:
    """A row labels people by role (a thesis's supervisor). Not a journal's review record,
    whose reviewers are account handles ("Reviewers:" / "• @openjournals", JOSS's side
    column)."""
    for i, row in enumerate(rows):
        if _ROLE_LABEL.search(row):
            rest = row.split(":", 1)[1].strip() if ":" in row else ""
            given = rest or (rows[i + 1] if i + 1 < len(rows) else "")
            if not re.match(r"^[•·∙-]?\s*@\w", given):
                return True
    return False


def _squashed(text: str) -> str:
    """Letters and digits only, folded: a title's rows compared whatever their spacing and
    marks ("package∗", "L ATEX")."""
    return re.sub(r"[\W_]+", "", _fold(text))


# A row that ends mid-phrase: the next one goes on with it (a title over two rows).
_CONTINUED = re.compile(r"(?:\b(?:and|or|of|for|the|a|an|in|on|with|to|from|by|via)|[:,–-])\s*$",
                        re.IGNORECASE)


# A manuscript's label before its title on page 1: "Title: Using neutral theory …".
TITLE_LABEL = re.compile(r"^title\s*:[\s,;]*", re.IGNORECASE)


def _nearly(a: str, b: str) -> bool:
    """Two spellings of one title row, but for a glyph or two (a ligature a font dropped
    or another extractor read otherwise): at most two letters in ten more or fewer, and
    nine in ten the same."""
    from difflib import SequenceMatcher

    return (abs(len(a) - len(b)) <= max(2, len(a) // 10)
            and SequenceMatcher(None, a, b, autojunk=False).ratio() >= 0.9)


def page_texts(doc: Any, pages: int = 1, first: int = 1) -> list[str]:
    """Texts of every item (body and furniture) on pages ``first`` to ``pages``, in order,
    accents composed ("M¨oller": old TeX fonts set them apart)."""
    out = []
    for item in getattr(doc, "texts", []):
        if any(first <= p.page_no <= pages for p in getattr(item, "prov", [])):
            text = compose_accents(" ".join(getattr(item, "text", "").split()))
            if text:
                out.append(text)
    return out


def layer_rows(path: Path | None, password: str | None, title: str = ""
                ) -> tuple[list[str], list[str]]:
    """Page 1's rows as its text layer sets them (``textlayer.page_rows``), for the byline:
    Docling may merge a title, its names and their affiliations into one paragraph
    ("Terry Therneau Cynthia Crowson Elizabeth Atkinson Mayo Clinic"), where the PDF keeps
    a name per line or per column. The rows from the title on (a title set over several
    rows given as one), and apart those above it (a report's names over its title, or a
    journal's side column: "Corresponding author", an editor).

    Both empty unless the title is one of the rows: a page read from its top has title and
    affiliation lines that pass for names ("Los Angeles"), so without the title to start
    from, Docling's reading decides. Empty too for a file that is no PDF or whose title is
    its file name, a text layer that does not read as words (Docling's reading, OCR's
    included, is the better one) and a cover that labels its people by role (a
    supervisor beside the author)."""
    if (path is None or path.suffix.lower() != ".pdf" or not path.is_file()
            or title == path.stem):
        return [], []
    from citeloom.convert.texthealth import OK, health
    from citeloom.convert.textlayer import page_rows

    rows = [_ROLE_ASIDE.sub("", row) for row in page_rows(path, 1, password, names=True)]
    if not rows or health(" ".join(rows)).score < OK or _role_labelled(rows):
        return [], []
    # As Docling gives it ("O'Connell"), accents on their letters ("M¨oller": old TeX fonts).
    rows = [compose_accents(row.replace("’", "'")) for row in rows]
    rows = [TITLE_LABEL.sub("", row) for row in rows]  # "Title: …", a manuscript's label
    whole = _squashed(title)
    for i, row in enumerate(rows if len(whole) >= 10 else []):
        part = _squashed(row)
        if len(part) >= 20 and whole != part and _nearly(whole, part):
            part = whole  # one row, a glyph or two read otherwise ("simpli#ed", "simpliFFed")
        if len(part) >= 10 and whole.startswith(part) and not part.startswith(whole):
            end, joined = i + 1, part  # the title's rows: joined while they spell it
            while (end < len(rows) and _squashed(rows[end])
                   and whole.startswith(joined + _squashed(rows[end]))):
                joined += _squashed(rows[end])
                end += 1
            # a subtitle the title found left out: "… Dynamics:" / "Time as … in" /
            # "Boundary-Driven Cellular Automata" (each row but the last ends mid-phrase)
            while end < len(rows) and _CONTINUED.search(rows[end - 1]):
                end += 1
            return [title, *rows[end:]], rows[:i]
        if part.startswith(whole):  # the title found is the row's start: its rows
            end = i + 1             # go on while a row ends mid-phrase ("... Parts and")
            while end < len(rows) and _CONTINUED.search(rows[end - 1]):
                end += 1
            # (the title as found where the row is only the title: "predic-tion" broken
            # by a hyphen in the layer)
            return [title if part == whole else rows[i], *rows[end:]], rows[:i]
    return [], []


def file_name_year(path: Path | None) -> int | None:
    """The one year a file's name gives, set apart from other digits ("Smith - 2019 -
    Title.pdf", Zotero's way of naming a paper's file; "Rcpp-jss-2011.pdf";
    "smith2019deep.pdf"): a year the person who named the file gave it. None when the name
    has none, or several; an arXiv identifier's digits are no year ("2003.12345" is March
    2020)."""
    if path is None:
        return None
    stem = re.sub(r"\d{4}\.\d{4,5}(?:v\d+)?", " ", path.stem)  # an arXiv id: 2003.12345
    years = {int(y) for y in re.findall(r"(?<!\d)((?:19|20)\d\d)(?!\d)", stem)}
    if len(years) == 1 and year_ok(year := years.pop()):
        return year
    return None


# Zotero's (and ZotFile's) name for a paper's file: "Morgan-Davies - 1960 - A Nesting
# Colony of Avocets.pdf", "Babu et al. - 2021 - Evaluation of ….pdf", "Gòmez, Underhill,
# Brooks - 2017 - Bird ….pdf" (spaces sometimes made "_" by whoever uploaded it).
_FAMILY = r"[A-ZÀ-Þ][^\W\d_]+(?:[-'’][^\W\d_]+)*"
_ZOTERO_NAME = re.compile(rf"(?:^|[_\s])({_FAMILY}(?:(?:,[_\s]*|[_\s]+and[_\s]+){_FAMILY}){{0,2}}"
                          rf"|{_FAMILY}[_\s]+et[_\s]+al\.?)[_\s]+-[_\s]+(?:19|20)\d\d[_\s]+-[_\s]+"
                          r"(.{8,})$")


def file_name_authors(path: Path | None, title: str) -> list[str]:
    """The family names a Zotero-style file name gives its paper's authors, when the title
    it gives (cut short, as Zotero does) is how the paper's title begins; empty otherwise.
    For a paper whose byline no text shows (a scan, a picture)."""
    m = _ZOTERO_NAME.search(path.stem) if path is not None and title else None
    if not m:
        return []
    named = _squashed(re.sub(r"-annotated$", "", m.group(2)))
    if len(named) < 12 or not _squashed(title).startswith(named[:40]):
        return []
    people = re.sub(r"[_\s]+et[_\s]+al\.?$", "", m.group(1))
    return [p for p in re.split(r"[_\s]*,[_\s]*|[_\s]+and[_\s]+", people) if p]


def foot_rows(path: Path | None, password: str | None) -> list[str]:
    """Page 1's last rows as its text layer sets them, where Docling may have dropped the
    foot ("Preprint submitted to Ad Hoc Networks, November 7, 2025", elsarticle's); empty
    for a file that is no PDF."""
    if path is None or path.suffix.lower() != ".pdf" or not path.is_file():
        return []
    from citeloom.convert.textlayer import sized_rows

    rows = sized_rows(path, 1, password, limit=200)
    return [text for text, _, _ in sorted(rows, key=lambda r: r[2])[-3:]]
