"""A paper's title when Docling found no title item: a plausible PDF metadata title, else
page 1's largest type, else its first unnumbered heading, else the file name; and what is
not a title (a journal's boilerplate above it, a generator's placeholder, a version
stamp)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from citeloom.structure.names import parse_byline

if TYPE_CHECKING:
    from docling_core.types.doc import DoclingDocument


# Words journals print above a title ("RESEARCH ARTICLE Open Access"), often letter-spaced.
BOILERPLATE_WORDS = ("openaccess", "researcharticle", "originalarticle", "originalresearch",
                     "shortcommunication", "review", "research", "article", "letter",
                     "editorial", "abstract", "background", "methodology")


def is_boilerplate_heading(text: str) -> bool:
    squashed = re.sub(r"[^a-z]", "", text.lower())
    for word in BOILERPLATE_WORDS:
        squashed = squashed.replace(word, "")
    return len(squashed) < 3


def plausible_title(text: str | None, min_words: int = 3) -> bool:
    """A metadata or heading string that reads like a paper title, not a file name,
    a journal's running header or a generator's placeholder."""
    if not text:
        return False
    text = text.strip()
    words = re.findall(r"[^\W\d_]{2,}", text)
    if len(words) < min_words or len(text) > 400:
        return False
    if re.search(r"\.(docx?|pdf|tex|dvi)\b|microsoft word|untitled", text, re.IGNORECASE):
        return False
    letters = sum(ch.isalpha() for ch in text)
    return letters / max(1, len(text.replace(" ", ""))) > 0.7


def pdf_metadata_title(path: Path, password: str | None = None) -> str | None:
    """The Title field of a PDF's info dictionary, if it is there and plausible."""
    from citeloom.system import pdf_info

    title = pdf_info(path, password).get("Title", "")
    # A publisher's web page title, saved with the file: "<title> | SIAM Journal on Matrix
    # Analysis and Applications | Vol. 45, No. 4 | Society for Industrial and …"
    title = title.split(" | ")[0].strip()
    return title if plausible_title(title) else None


#: How much larger than the page's usual text a title is set (LaTeX's \\maketitle: 17.3 pt
#: over 10-12 pt; a journal's 10 pt capitals over 8 pt).
TITLE_SIZE = 1.15
# (An "Introduction" row ends the head, "Introduction to Bayes Factors" is a title; so does
# "Contents", not Elsevier's masthead "Contents lists available at ScienceDirect".)
_HEAD_END = re.compile(r"^(?:(?:abstract|summary|keywords)\b|contents\b(?!\s+lists)|"
                       r"(?:1\.?\s+)?introduction\s*$)", re.IGNORECASE)


# What a run in the largest type is when it is no title: a numbered heading ("1 Zitat",
# "Capítulo 1"), an institution's banner or logo.
_BANNER = r"\b(?:universit\w*|council|society|journal|press|institut\w*)\b"
_NOT_A_TITLE = re.compile(r"^(?:\d+(?:\.\d+)*\.?\s|(?:chapter|cap\W?[ıií]tulo|kapitel|chapitre)\b)|"
                          rf"{_BANNER}|www\.|\w\.(?:com|org|net)\b",
                          re.IGNORECASE)


# A title this much larger than the page's usual type, on page 1's first row, may be two
# words ("MultipleAlignment Objects", "Extending GenomicRanges"): a 17 pt \\title over
# 10 pt text.
TOP_TITLE_SIZE = 1.4


def _standing_out(head: list, first: int, usual: float) -> bool:
    """Whether the largest type's run starts page 1 and is set well above its usual size."""
    return first == 0 and head[0][1] >= TOP_TITLE_SIZE * usual


def layer_title(path: Path, password: str | None = None, *, strict: bool = True) -> str | None:
    """The title as page 1's text layer sets it, for a document whose title Docling did not
    mark: the first rows in the largest type above the abstract (or contents, or
    introduction), one under the other, in a type at least :data:`TITLE_SIZE` times the
    page's usual size; plausible (:func:`plausible_title`), not a numbered heading, a
    banner or letter-spaced capitals. None when nothing stands out so (a title in the
    body's size, a file whose sizes PDFium cannot tell): missing, not guessed. Not
    ``strict``: two words are enough ("Amap Package"), for a title item to be cut at; and
    so they are for a run that starts the page in a type :data:`TOP_TITLE_SIZE` times the
    usual."""
    if path.suffix.lower() != ".pdf" or not path.is_file():
        return None
    from statistics import median

    from citeloom.convert.textlayer import sized_rows

    rows = sized_rows(path, 1, password)
    if len(rows) < 3:
        return None
    usual = median(size for _, size, _ in rows)
    head, masthead, skipped = [], False, 0
    for row in rows[:20]:
        if len(head) + skipped >= 12 + 4 * (skipped > 0):
            break
        if _MASTHEAD.match(row[0]) or masthead:  # Elsevier's masthead: the journal's name
            masthead = not re.match(r"journal\s+homepage", row[0], re.IGNORECASE)
            skipped += 1  # in the title's type, from "Contents lists" to "journal homepage"
            continue
        if _HEAD_END.match(row[0]):
            break
        head.append(row)
    if not head or usual <= 1.0:
        return None
    if aas := _aastex_title(head):
        return aas
    # the largest type's run, or the next largest's under a banner that is no title
    # (Elsevier's journal name over the title: "Neuroscience Letters")
    sizes: list[float] = []
    for size in sorted((size for _, size, _ in head if size >= TITLE_SIZE * usual),
                       reverse=True):
        if not sizes or size < 0.98 * sizes[-1]:  # a type 2 % smaller: another type
            sizes.append(size)
    for largest in sizes[:2]:
        if title := _run_title(head, largest, usual, strict,
                               under=largest != sizes[0] or skipped > 0):
            return title
        if len(sizes) < 2 or sizes[1] < 0.9 * largest or _first(head, sizes[1]) < _first(
                head, largest):  # the next type is well below (a byline's or a heading's),
            break  # or the larger run is no banner over it (JSTOR's "Source:" line)
    return None


def _same_type(size: float, of: float) -> bool:
    return abs(size - of) <= 0.02 * of  # (a type 2 % apart is the same)


def _first(head: list, size: float) -> int:
    return next(i for i, (_, s, _) in enumerate(head) if _same_type(s, size))


def _run_title(head: list, largest: float, usual: float, strict: bool, under: bool = False
               ) -> str | None:
    """The rows of ``head`` in the ``largest`` type, one under the other, as a title; None
    when they do not read as one (nor as a byline, ``under`` a larger banner: a title in
    the largest type may read as names, "Serverless Dataflows", "Intelligent Machinery")."""
    first = _first(head, largest)
    run = [head[first]]
    for row in head[first + 1:]:  # the next rows in that type, each right under the last
        if not _same_type(row[1], largest) or not 0 < row[2] - run[-1][2] <= 2.5 * largest \
                or _LABEL.match(row[0]):  # JSTOR's cover: "Author(s): …" under the title
            break
        run.append(row)
    title = " ".join(" ".join(text for text, _, _ in run).split()).rstrip(" ∗*†‡?,✩☆")
    words = title.split()
    if (not words or len(words) > 30 or "arxiv" in title.lower()
            or (_NOT_A_TITLE.search(title) and not _COUNTED.match(title))
            or sum(len(w) == 1 and w.isalpha() for w in words) > 0.3 * len(words)  # "V E R"
            or is_boilerplate_heading(title)
            or not plausible_title(title, 2 if not strict or _standing_out(head, first, usual)
                                   else 3)
            or (under and parse_byline(title))
            or _LABEL.match(title)):
        return None
    return title


# A title that starts with a count, not a heading's number: "30 Days After Introducing
# Programming: Will My Students Fail?" (six words at least, and nothing else against it).
# A number further on is a line number ("1 A way around the 2 exploration-…").
_COUNTED = re.compile(rf"^\d+\s+(?!.*{_BANNER}|.*\s\d+\s)(?:\S+\s+){{5,}}", re.IGNORECASE)
_MASTHEAD = re.compile(r"contents\s+lists\s+available", re.IGNORECASE)
_LABEL = re.compile(r"(?:author\(s\)|authors?|source|published\s+by)\s*:", re.IGNORECASE)


# AASTeX's stamps over a title (ApJ, AJ, the AAS journals' preprints): "Draft version
# August 29, 2019", "Typeset using LATEX modern style in AASTeX62", "Preprint typeset using
# LATEX style emulateapj v. 01/23/15", "Submitted for publication in ApJL".
_AAS_STAMP = re.compile(r"typeset\s+using\s+L\s?A\s?T\s?E\s?X|emulateapj|AASTeX", re.IGNORECASE)
_AAS_LINE = re.compile(r"^(?:draft\s+version|(?:preprint\s+)?typeset\s+using|submitted|accepted|"
                       r"received|published|to\s+appear)\b", re.IGNORECASE)


def _aastex_title(head: list) -> str | None:
    """The title of an AASTeX preprint: the rows under its stamps, in one type, one under
    the other, to the byline's smaller or larger type. AASTeX may set it in the body's
    size ("QUANTIFYING AND CONTROLLING BIASES …" in 10 pt over 10 pt text), where the
    largest type finds nothing."""
    if not any(_AAS_STAMP.search(text) for text, _, _ in head[:4]):
        return None
    start = next((i for i, (text, _, _) in enumerate(head) if not _AAS_LINE.match(text)), None)
    if start is None:
        return None
    run = [head[start]]
    for row in head[start + 1:]:
        size = run[0][1]
        if abs(row[1] - size) > 0.02 * size or not 0 < row[2] - run[-1][2] <= 2.5 * size:
            break
        run.append(row)
    title = " ".join(" ".join(text for text, _, _ in run).split()).rstrip(" ∗*†‡?,")
    return title if plausible_title(title, 3) and not _NOT_A_TITLE.search(title) else None


# A running head or a page number above a title: "TUGboat, Volume 18 (1997), No. 4", "274",
# "preliminary draft, October 25, 2002".
_RUNNING_HEAD = re.compile(r"\d{3,}|\bvol(?:ume|\.)|\bno\.\s*\d|\bdraft\b|\bpage\b|^\W*$",
                           re.IGNORECASE)


# The first row of a thesis's note on its title page.
_THESIS_NOTE = re.compile(r"^(?:an?\s+)?(?:(?:master'?s?|doctoral|bachelor'?s?|ph\.?\s?d\.?)\s+)?"
                          r"(?:thesis|dissertation)\b|^submitted\s+(?:to|in|for|by)\b|"
                          r"^in\s+partial\s+fulfil", re.IGNORECASE)


def byline_title(path: Path, password: str | None = None) -> str | None:
    """The rows right above page 1's first byline, for a title set in the body's size
    (TUGboat's articles: "Space geometry with METAPOST∗" over "Denis Roegel"): at most
    three rows, up to a running head or a page number, plausible as a title; None where no
    row before the abstract (or first section) reads as a byline, or its text layer does
    not read as words."""
    if path.suffix.lower() != ".pdf" or not path.is_file():
        return None
    from citeloom.convert.texthealth import OK, health
    from citeloom.convert.textlayer import page_rows
    from citeloom.structure.names import parse_byline

    rows = page_rows(path, 1, password)[:14]
    if not rows or health(" ".join(rows)).score < OK:
        return None
    for i, row in enumerate(rows):
        if _HEAD_END.match(row) or _NUMBERED.match(row):
            return None
        if not parse_byline(row) or (re.match(r"(?:and|&)\s", row) and i > 0
                                     and rows[i - 1].rstrip().endswith((",", ":"))):
            continue  # (nor the title's last row: "…, Economic," / "and Social Predictors")
        # a thesis's title page: its note ("A THESIS SUBMITTED TO … IN PARTIAL FULFILLMENT OF
        # THE REQUIREMENTS …") between the title and the name; the title is above the note
        note = next((k for k, r in enumerate(rows[:i]) if _THESIS_NOTE.match(r)), None)
        end = i if note is None else note
        above: list[str] = []
        for prev in reversed(rows[max(0, end - 3):end]):
            if _RUNNING_HEAD.search(prev) or parse_byline(prev):
                break
            above.insert(0, prev)
        title = " ".join(" ".join(above).split()).rstrip(" ∗*†‡")
        if re.search(r"[a-z]{2}\.$", title):
            return None  # a sentence the paragraph above ends: "… features of the style."
        if (title[:1].isupper() and plausible_title(title, 2) and not _NOT_A_TITLE.search(title)
                and not is_boilerplate_heading(title)):
            return title
        return None
    return None


# A numbered section heading ("1 Convex hulls in 2D", "3.2 Results") is never the title.
_NUMBERED = re.compile(r"^\d+(?:\.\d+)*\.?\s")
# A version stamp a vignette's title line carries: "... Version 1.2.3", "... Package NMF -
# Version 0.25", "... doRNG package - Version 1.8.6", "... (vipor version 0.4.3)": the
# package's, not the title's.
_VERSION_STAMP = re.compile(r"(?:(?:\s+(?:[Pp]ackage\s+[\w.]+|[\w.]+\s+package)\s*[-–—:]|"
                            r"\s*[-–—:,]?)\s*\b[Vv]ersion\s+\d+(?:[.-]\d+)*|"
                            r"\s*\((?:[\w.]+\s+)?[Vv]ersion\s+\d+(?:[.-]\d+)*\))"
                            # its date: "Remote Control Quisk Design Version 0.2, 5/31/2022"
                            r"(?:\s*,?\s*\d{1,2}/\d{1,2}/\d{2,4})?\s*$")


def document_title(doc: DoclingDocument, fallback: str) -> str:
    """The document's title item, else the first plausible heading on page 1 that is not
    numbered, else ``fallback`` (the file name)."""
    from docling_core.types.doc import DocItemLabel

    first_heading = None
    before = ""  # the text item right before, on page 1
    for item, _level in doc.iterate_items():
        label = getattr(item, "label", None)
        text = " ".join(getattr(item, "text", "").split())
        if not text:
            continue
        if label == DocItemLabel.TITLE:
            return text
        on_first_page = any(p.page_no == 1 for p in getattr(item, "prov", []))
        if (label == DocItemLabel.SECTION_HEADER and on_first_page and first_heading is None
                and not is_boilerplate_heading(text) and plausible_title(text)
                and not _NUMBERED.match(text)):
            first_heading = f"{before} {text}" if title_head(before, text) else text
        before = text if label == DocItemLabel.TEXT and on_first_page else ""
    return first_heading or fallback


def _on_first_page(title: str, doc: DoclingDocument) -> bool:
    """Whether most of a PDF info title's words are on page 1 (a draft's label in the info,
    "Youreka - Manuscript Brouillon 2024", is not the title page 1 prints); true where
    page 1 has too little text to tell (a scan)."""
    from citeloom.payload import fold
    from citeloom.structure.header import page_texts

    seen = set(re.findall(r"[^\W\d_]{3,}", fold(" ".join(page_texts(doc, 1)))))
    words = re.findall(r"[^\W\d_]{3,}", fold(title))
    return len(seen) < 15 or not words or sum(w in seen for w in words) * 2 >= len(words)


def _labelled_title(path: Path, password: str | None) -> str | None:
    """A manuscript's title after its label on page 1 ("Title: Using neutral theory to
    reveal the contribution of meta-community pro-" / "cesses to assembly …" / "Authors:
    …"): its rows to the next label, at most three."""
    from citeloom.convert.textlayer import page_rows
    from citeloom.structure.header import TITLE_LABEL

    rows = page_rows(path, 1, password)[:15]
    for i, row in enumerate(rows):
        if (m := TITLE_LABEL.match(row)) and row[m.end():].strip():
            parts = [row[m.end():]]
            for nxt in rows[i + 1:i + 3]:
                if re.match(r"^[^\W\d_][\w ]{0,30}:", nxt):
                    break
                parts.append(nxt)
            title = re.sub(r"(?<=[a-z])-\s+(?=[a-z])", "", " ".join(parts))  # "pro- cesses"
            return title if plausible_title(title, 3) else None
    return None


def _as_printed(meta: str, path: Path, password: str | None) -> str:
    """An info title as page 1 prints it, where its largest type says nearly the same
    ("Cryptographic Hash Functions from Markoff Triples" in the info, "A Cryptographic
    Hash Function from Markoff Triples" on the page): the printed one is what a reader
    cites, and what the byline below it is found under. The info title otherwise."""
    from citeloom.payload import fold

    layer = layer_title(path, password)
    if not layer or layer == meta:
        return meta
    words = lambda text: set(re.findall(r"[^\W\d_]{3,}", fold(text)))  # noqa: E731
    ours, theirs = words(meta), words(layer)
    shared = len(ours & theirs)
    # (not a layer title cut short, "… of the Fast Fourier", nor one with TeX's "\ast"; a
    # shorter printed title that is no start of the info's is the paper's own: "A general
    # model for the evolution of nuptial gift-giving" under an info title of a draft before)
    cut = fold(meta).replace(" ", "").startswith(fold(layer).replace(" ", ""))
    return layer if (ours and shared >= 0.6 * len(ours | theirs) and "\\" not in layer
                     and (len(theirs) >= len(ours) - 1 or not cut)) else meta


def title_head(line: str, title: str) -> bool:
    """Whether ``line``, right above a title, is the title's first line cut off by the
    layout model: it ends in a colon, has two to eight words and the title's case
    ("DATA ANALYSIS RECIPES:" over "USING MARKOV CHAIN MONTE CARLO")."""
    return (line.rstrip().endswith(":") and 2 <= len(line.split()) <= 8
            and line.isupper() == title.isupper() and line[:1].isupper())


def title_of(doc: DoclingDocument, path: Path, password: str | None = None) -> str:
    """A converted file's title: the title item (on any layer), else a plausible PDF
    metadata title, else the largest type on page 1 (:func:`layer_title`; page 1's first
    heading when it starts with those words and goes on), else page 1's first unnumbered
    heading, else the file's name; without a version stamp at its end, accents composed."""
    from citeloom.structure.headings import find_title
    from citeloom.text import compose_accents, fold_alnum

    pdf = path.suffix.lower() == ".pdf" and path.is_file()
    found = find_title(doc) or (_labelled_title(path, password) if pdf else None)
    if not found and pdf and (meta := pdf_metadata_title(path, password)) \
            and _on_first_page(meta, doc):
        found = _as_printed(meta, path, password)
    heading = "" if found else document_title(doc, "")
    layer = None if found or not pdf else layer_title(path, password)
    if layer:  # page 1's largest type before its first heading, unless the heading goes
        found = heading if heading and fold_alnum(heading).startswith(fold_alnum(layer)) \
            else layer  # on where the largest type's rows stop
    title = found or heading or (byline_title(path, password) if pdf else None) or path.stem
    if re.search(r"[a-z]", title):  # Nature's open-access badge run into the title
        title = re.sub(r"\s+OPEN$", "", title)
    return compose_accents(_VERSION_STAMP.sub("", title) or title)
