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

from citeloom.payload import family_name
from citeloom.payload import fold as _fold
from citeloom.structure.header import file_name_year, layer_rows
from citeloom.structure.header import year_ok as _year_ok
from citeloom.structure.names import (
    NAME_WORD,
    NOT_A_PERSON,
    SYMBOLS,
    THANKS,
    parse_byline,
    person,
    unglue_and,
)
from citeloom.structure.titles import layer_title
from citeloom.system import pdf_info
from citeloom.text import compose_accents

PDF_TEXT = "pdf-text"
PDF_METADATA = "pdf-metadata"
FILE_NAME = "file-name"
ZOTERO = "zotero"

YEAR = r"(1[89]\d\d|20\d\d)"
# "© 2019", "(c) 2007–2008 Nicolas Vaughan": a range's last year is this edition's;
# "© Author(s) 2013" (Copernicus), "Copyright, 2006 David M. Mount".
_COPYRIGHT = re.compile(rf"(?:©|\(c\)|copyright)[,:]?\s*(?:[\w()]+\s+)?{YEAR}"
                        rf"(?:\s*[-–—]\s*{YEAR})?\b", re.IGNORECASE)
_PUBLISHED = re.compile(rf"\b(?:published(?: online)?|accepted)\s*:?\s*(?:\w+\s+){{0,3}}"
                        rf"{YEAR}\b", re.IGNORECASE)
# A journal's own citation of the paper: "Clinical Science (2014) 126, 305–313",
# "International Psychogeriatrics (2014), 26:1", "... Outcomes 2010, 4:1". The volume
# touches its comma or issue: "Morris (1992) 1 ," is a citation with a footnote mark.
_VOLUME = re.compile(rf"\({YEAR}\)\s*,?\s*(?:\d+[,:(]|(?:article|paper)\s+(?:no\.|number)"
                     rf"\s*\d+)")
_FAMILY = r"([A-Z][^\W\d_]+(?:[-'’][A-Z][^\W\d_]+)?)"
# "Datta et al. Journal of Trauma Management & Outcomes 2010, 4:1" (a running header);
# "How to cite this article Webb et al. (2017)". Not "(see Smith et al., 2004)".
_CITATION = re.compile(rf"\b{_FAMILY}\s+et al\.?;?\s+[A-Z][^\n©()]{{0,80}}?\b{YEAR}\s*,"
                       rf"\s*\d+\s*:\s*\d+|cite this article:?\s+{_FAMILY}\s+et al\.?,?\s*"
                       rf"\({YEAR}\)")




def _page_texts(doc: Any, pages: int = 1) -> list[str]:
    """Texts of every item (body and furniture) on the first ``pages`` pages, in order,
    accents composed ("M¨oller": old TeX fonts set them apart)."""
    out = []
    for item in getattr(doc, "texts", []):
        if any(p.page_no <= pages for p in getattr(item, "prov", [])):
            text = compose_accents(" ".join(getattr(item, "text", "").split()))
            if text:
                out.append(text)
    return out


# Where the header (title, byline, date) ends: the abstract, contents or first section.
_HEADER_END = re.compile(r"^(?:abstract|summary|contents|table of contents|keywords|"
                         r"key words|(?:1\.?\s+|i\.\s+)?introduction|1\.?\s+[A-Z])\b",
                         re.IGNORECASE)
# The same, inside a line: page 1 given as one item ("<title> <names> Abstract This ...").
_ABSTRACT_IN_LINE = re.compile(r"\s(?:Abstract|ABSTRACT|Summary|Keywords)\b")
_EMAIL = re.compile(r"\S+@\S+")
# Months in English, and as French, German and Spanish papers print them ("27 octobre 2018",
# "3. März 2020", "15 de marzo de 2019").
_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|"
          r"aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|"
          r"janvier|f[ée]vrier|mars|avril|mai|juin|juillet|ao[ûu]t|septembre|octobre|"
          r"novembre|d[ée]cembre|januar|februar|m[äa]rz|juni|juli|oktober|dezember|"
          r"enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|setiembre|"
          r"octubre|noviembre|diciembre)\.?")
# A date: "January 6, 2023", "June 2002", "5 June 2017", "3rd February 2023", "2023/01/06",
# "2022-11-13", and a date line's "06/16/2014" (month first) or "16.06.2014".
_DAYS = (rf"\d{{1,2}}(?:st|nd|rd|th)?(?:\s*[-–—]\s*(?:{_MONTH}\s+)?\d{{1,2}}"
         rf"(?:st|nd|rd|th)?)?")
_DAY, _MONTH_NO = r"(?:0?[1-9]|[12]\d|3[01])", r"(?:0?[1-9]|1[0-2])"
_DATE = re.compile(rf"\b(?:{_MONTH}\s+(?:{_DAYS},?\s+)?{YEAR}|"
                   rf"\d{{1,2}}(?:st|nd|rd|th)?\.?\s+(?:de\s+)?{_MONTH},?\s+(?:de\s+)?{YEAR}|"
                   rf"{YEAR}[-/]{_MONTH_NO}[-/]{_DAY}|{_MONTH_NO}/{_DAY}/{YEAR}|"
                   rf"{_DAY}\.{_MONTH_NO}\.{YEAR})\b", re.IGNORECASE)
# A thesis's place and year: "Budapest, 2022".
_PLACE_YEAR = re.compile(rf"^[A-Z][^\W\d_]+(?:[ -][A-Z][^\W\d_]+)?,\s*{YEAR}$")
# A journal's issue line: JSS "May 2004, Volume 11, Issue 9", "Volume 11, Issue 9 ...
# 2004"; R News "Vol. 2/2, June 2002"; "Vol. 12, No. 3, March 2019".
_ISSUE = re.compile(
    rf"\b{YEAR},\s*Volume\s+\d+,\s*Issue\s+\d+|"
    rf"\bVolume\s+\d+,\s*Issue\s+\d+\b[^\n]{{0,40}}?\b{YEAR}\b|"
    rf"\bVol\.\s*\d+\s*/\s*\d+\s*,\s*{_MONTH}\s+{YEAR}\b|"
    rf"\bVol(?:ume|\.)?\s*\d+\s*,\s*(?:No\.?|Number|Issue)\s*\d+\s*,?\s*(?:{_MONTH}\s+)?"
    rf"\(?{YEAR}\)?|"
    # TUGboat's running head "TUGboat, Volume 32 (2011), No. 2" (a draft's "Volume 0" is none)
    rf"\bVolume\s+[1-9]\d*\s*\({YEAR}\)\s*,\s*No\.\s*\d+", re.IGNORECASE)
# arXiv's side stamp: "arXiv:2206.01062v1 [cs.CL] 2 Jun 2022" (the category marks the stamp,
# not a citation of another preprint).
_ARXIV = re.compile(rf"arXiv:\s*[\w./-]+\s*\[[\w.\-]+\]\s*\d{{1,2}}\s+{_MONTH}\s+{YEAR}\b",
                    re.IGNORECASE)
_ANY_DATE = _DATE.pattern[2:-2]  # the date alternatives, to build lines around them
# The paper's own reference, as the publisher prints it on page 1: ACM's "ACM Reference
# Format: Ben Trovato, G.K.M. Tobin, and Lars Thørväld. 2018. The Name of the Title. ...",
# "Cite this article as: A. Smith and B. Jones (2019)". Its names are the authors.
_SELF_CITE = re.compile(
    rf"(?:ACM Reference Format|Reference Format|Cite this (?:article|paper|chapter)(?: as)?|"
    rf"To cite this (?:article|paper)|Please cite (?:this (?:article|paper) )?as)\s*:\s*"
    rf"(?P<names>[^\n]{{3,600}}?)\s*(?:\.\s+|\s\()(?P<year>{YEAR})\)?[.,]", re.IGNORECASE)
# A conference's own line (a running head or first-page footer): a date with a range of
# days ("June 03–05, 2018", "October 29–November 2, 2023", "September 18-20, 2006"), or
# "Proceedings of the ASME 2023 ...". Only short lines of page 1: a reference to another
# conference sits in a paragraph or the reference list.
_CONF_RANGE = re.compile(rf"\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\s*[-–—]\s*"
                         rf"(?:{_MONTH}\s+)?\d{{1,2}}(?:st|nd|rd|th)?,?\s+{YEAR}\b",
                         re.IGNORECASE)
_PROCEEDINGS = re.compile(rf"^(?:Preprint:?\s+)?(?:Proceedings|Proc\.)\s+of\s+[^\n]{{0,120}}?"
                          rf"(?<!\d){YEAR}\b")  # "Proceedings of PracticalTEX2004"
# Dates a journal or preprint prints about the paper itself: revtex's "(Dated: December 27,
# 2018)", AASTeX's "Draft version February 26, 2021", Elsevier's "Preprint submitted to
# Elsevier June 8, 2018", "Submitted to ECP on January 2, 2013"; a working paper's or
# vignette's own version line, "Version: June 28, 2019", "This version: March 2020" (not
# "First version:", not a build stamp such as "typeset on ...": that is the file's date).
_PAPER_DATE = re.compile(
    rf"\(Dated:?\s*(?:{_ANY_DATE})\)|\bDraft version\s+(?:{_ANY_DATE})|"
    rf"\b(?:preliminary\s+)?draft\s*[,:]\s*(?:{_ANY_DATE})|"  # TUGboat's "preliminary draft, …"
    rf"^Date:\s*(?:{_ANY_DATE})|"  # amsart's footnote "Date: March 10, 2011."
    rf"\b(?:Preprint|Manuscript|Paper)\s+submitted\s+to\b[^\n]{{0,80}}?(?:{_ANY_DATE})|"
    rf"^(?:(?:This|Current|Latest)\s+)?version\s*:\s*(?:{_ANY_DATE})",
    re.IGNORECASE | re.MULTILINE)
# The history line: "Received 4 July 2013; revised 10 December 2013; accepted 1 January
# 2014", "(Received April 1, 2004; revised November 20, 2008)": the last of its dates.
_HISTORY = re.compile(
    rf"\bReceived:?\s+(?:on\s+)?(?:{_ANY_DATE})(?:[^\n]{{0,60}}?\b(?:revised|accepted|"
    rf"published)(?:\s+\w+){{0,2}}:?\s+(?:on\s+)?(?:{_ANY_DATE}))*", re.IGNORECASE)
# The document's own build line, which the reader sees on its pages (unlike the file's
# creation date, which only the info dictionary holds): "This document corresponds to Rcpp
# version 1.0.8 and was typeset on January 11, 2022", "This version was compiled on
# February 10, 2020". After a date under the title, which the author set.
_BUILT = re.compile(rf"\b(?:typeset|compiled)\b[^\n]{{0,60}}?\bon\s+(?:{_ANY_DATE})",
                    re.IGNORECASE)
# A thesis's title page: "A dissertation submitted ... in The University of Michigan 2008".
_THESIS = re.compile(r"\b(?:thesis|dissertation)\b", re.IGNORECASE)
# What follows a name on a JSS-style byline line: its affiliation ("Carter T. Butts
# University of California"); a name right before these is part of an institution's
# ("Andrew W. Mellon Foundation"), and is not taken.
_AFFIL_WORD = re.compile(r"^(?:universit\w*|institut\w*|department|dept\.?|school|college|"
                         r"faculty|laborator\w*|lab|cent(?:er|re)|hospital|clinic|"
                         r"technische|technikum|fh|core|team|foundation|corporation|inc\.?|"
                         r"research|national|federal|academy|ecole|école|polytechnic\w*|"
                         r"group|division|google|microsoft|ibm|meta|amazon|mayo|tech|"
                         r"[A-Z][a-z]+-(?:universit\w*|institut\w*))$", re.IGNORECASE)
_UNIVERSITY = re.compile(r"^(?:universit\w*|[A-Z][a-z]+-universit\w*|technikum|hochschule)$",
                         re.IGNORECASE)
_INSTITUTION_NEXT = re.compile(r"^(?:foundation|institut\w*|cent(?:er|re)|memorial|"
                               r"medical|cancer|hospital|trust|fund|grant|prize|award|"
                               r"lecture|college|school|library|museum|laborator\w*|"
                               r"universit\w*)$", re.IGNORECASE)


def _prose(line: str) -> bool:
    """A sentence of running text (an abstract without its heading, a section's first
    paragraph): the header has ended; a heading after it ("General Layout") is no byline."""
    words = line.split()
    lower = sum(w[:1].islower() for w in words)
    return (len(words) >= 12 and lower * 2 > len(words) and not _EMAIL.search(line)
            and bool(re.search(r"[.!?][\"”’)]?$|[a-z]{2}[.!?]\s+[A-Z]", line)))


def _header(first_page: list[str], title: str) -> list[str]:
    """The lines of page 1 between the title and the abstract (or contents, or first
    section), at most 12: from the top when the title is not one of them. A line that
    starts with the title gives its rest ("Usage of the bit package Dr. Jens Oehlschlägel")."""
    tfold = _fold(title).strip()
    start = next((i for i, ln in enumerate(first_page[:16])
                  if tfold and _fold(ln).startswith(tfold)), None)
    lines = first_page[:16] if start is None else first_page[start:start + 16]
    if start is None and lines:  # no title found, page 1 as one item: what precedes Abstract
        head = _ABSTRACT_IN_LINE.split(lines[0][:800], maxsplit=1)
        if len(head) == 2:
            return [head[0].strip()]
    out = []
    for line in lines:
        folded = _fold(line)
        if not (tfold and folded.startswith(tfold)) and (_HEADER_END.match(line)
                                                         or _prose(line)):
            break  # (a title may start like a section: "Introduction to the ... Class")
        if tfold and folded.startswith(tfold):
            line = line[len(title):].strip() if len(line) > len(title) else ""
            # The whole first page as one item ("<title> <names> Abstract This ..."): the
            # header is what comes before the abstract.
            head = _ABSTRACT_IN_LINE.split(line, maxsplit=1)
            if len(head) == 2:
                return [*out, head[0].strip()][:12] if head[0].strip() else out[:12]
        elif len(line) > 12 and folded in tfold:
            continue  # a line of the title
        if line:
            out.append(line)
    return out[:12]


# A name's last word with its affiliation's mark: "He∗1", "Gal∗+" (a footnote symbol first).
_MARKED = re.compile(rf"[^\W\d_]{{2,}}[{THANKS}][{SYMBOLS}]*\d*,?")


def title_byline(title: str) -> tuple[str, list[str]]:
    """A title the names ran into ("Definitions of ψ-Functions Available in Robustbase
    Manuel Koller and Martin Mächler"): the title without them, and the names (two or
    more, joined by "and"); else the title as it is and no names."""
    # A \\thanks mark after the title, then one name or more and their own marks:
    # "ATLAS Installation Guide ✯ R. Clint Whaley ❸".
    marked = re.match(rf"^(.{{8,}}?)\s*[{THANKS}]\s+(.+?)\s*[{THANKS}\u2776-\u2793]?$", title)
    if marked and (names := parse_byline(marked.group(2))):
        return marked.group(1), names
    words = unglue_and(title).split()  # "Weston✯and Rich"
    # Names each with its affiliation's mark: "PaSa: … Paper Search Yichen He∗1 Guanhua
    # Huang∗1 Peiyuan Feng 1 Yuan Lin†1": the first marked word ends the first name.
    first = next((k for k, w in enumerate(words) if k >= 3 and _MARKED.fullmatch(w)), None)
    if first is not None:
        start = first - (2 if len(words[first - 1].rstrip(".")) == 1 else 1)
        names = parse_byline(" ".join(words[start:]))
        if len(names) >= 2 and all(len(n.split()) <= 4 for n in names):
            return " ".join(words[:start]).rstrip(" ,;:"), names
    for i in range(len(words) - 3, 1, -1):
        tail = " ".join(words[i:])
        if not re.search(r"\s(?:and|&)\s", tail):
            continue
        names = parse_byline(tail)
        if len(names) >= 2 and all(len(n.split()) <= 3 for n in names):
            return " ".join(words[:i]).rstrip(" ,;:"), names
    return title, []


def run_on(title: str, path: Path, password: str | None = None) -> tuple[str, list[str]]:
    """A title item that ran on into the byline under it ("Hexagon Binning: an Overview
    Nicholas Lewin-Koh✯ January 8, 2021"): the words in page 1's largest type
    (:func:`layer_title`) and the names after them; the title as it is and no names when
    what follows is not names (a subtitle in a smaller type stays)."""
    head = re.sub(r"\W", "", _fold(layer_title(path, password, strict=False) or ""))
    words = title.split()
    for i in range(1, len(words) if head else 0):
        done = re.sub(r"\W", "", _fold(" ".join(words[:i])))
        if done == head:
            names = parse_byline(_DATE.sub("", " ".join(words[i:])))
            return (" ".join(words[:i]), names) if names else (title, [])
        if len(done) >= len(head):
            break
    return title, []


def _title_words(title: str) -> set[str]:
    return {w for w in re.findall(r"[^\W\d_]{3,}", _fold(title))}


def _like_title(line: str, title_words: set[str]) -> bool:
    """Most of the line's words are the title's: a line of the title, not a byline."""
    words = re.findall(r"[^\W\d_]{3,}", _fold(line))
    return bool(words) and sum(w in title_words for w in words) * 2 >= len(words)


def _lead_name(line: str) -> list[str]:
    """The person a JSS-style line starts with, before an affiliation or a date:
    "Carter T. Butts University of California, Irvine", "Charles J. Geyer March 20, 2020",
    "by David Meyer FH Technikum Wien" — one name, taken only where the affiliation
    clearly begins right after it."""
    if named := _named_by_address(line):
        return named
    line = re.sub(r"^by\s+", "", _EMAIL.sub(" ", line), flags=re.IGNORECASE)
    m = _DATE.search(line)
    if m and not line[m.end():].strip(" ,.;()"):
        line = line[: m.start()]  # "Manuel Koller April 2, 2022"
        # "... Iain S. Duff VERSION 2.4.6, May 4, 2016": the version before the date
        line = re.sub(r"\s*\b(?:version|release|v)\.?\s*\d+(?:\.\d+)*[a-z]?\s*[,;]?\s*$",
                      "", line, flags=re.IGNORECASE).rstrip(" ,;")
        names = parse_byline(line)
        if names:
            return names
    if m := re.match(r"^(.{3,60}?),?\s+et\s+al\.?(?:\s|$)", line):
        name = person(m.group(1))  # "Rob Savoye et al. Cygnus Support": the first author
        return [name] if name else []
    words = line.split()
    if names := _list_before_affiliation(words):
        return names
    for i in (2, 3, 4):
        if i >= len(words):
            break
        # The affiliation starts right after the name ("University of California"), or
        # a university's name does ("Leibniz Universität"); not "Heat Transfer Laboratory",
        # whose first words could be a name's.
        nxt = words[i:i + 3]
        if not (_AFFIL_WORD.match(nxt[0].strip(",.")) or any(
                _UNIVERSITY.match(w.strip(",.")) for w in nxt[1:])):
            continue
        if _INSTITUTION_NEXT.match(words[i].strip(",.")):
            return []  # "Andrew W. Mellon Foundation", "Johns Hopkins University"
        name = person(" ".join(words[:i]))
        if name:
            return [name]
    return []


def _list_before_affiliation(words: list[str]) -> list[str]:
    """A list of names and then the first one's affiliation on the same line ("Ville-Petteri
    Makinen, Le Shu, Yuqi Zhao Department of Integrative Biology, University of ..."):
    the names, when there are two or more and every one reads as a person."""
    cut = next((i for i, w in enumerate(words)
                if i >= 4 and (_AFFIL_WORD.match(w.strip(",.")) or _UNIVERSITY.match(
                    w.strip(",.")))), None)
    if cut is None or _INSTITUTION_NEXT.match(words[cut].strip(",.")):
        return []
    head = " ".join(words[:cut])
    names = parse_byline(head) if re.search(r",|\sand\s|&", head) else []
    return names if len(names) >= 2 else []


def _named_by_address(line: str) -> list[str]:
    """"Martin Maechler R Core Development Team maechler@R-project.org": the line starts
    with a person whose family name is in the name part of the line's e-mail address; what
    lies between (a group, a team) need not read as an affiliation."""
    m = _EMAIL.search(line)
    if not m:
        return []
    letters = lambda s: re.sub(r"[^a-z]", "", _fold(s))  # noqa: E731
    mailbox = letters(m.group().split("@")[0])
    words = line[: m.start()].split()
    for n in (3, 2):
        name = person(" ".join(words[:n])) if n <= len(words) else None
        if name and len(family := letters(name.split(",")[0])) >= 3 and family in mailbox:
            return [name]
    return []


# The start of an affiliation line under an author's name (ACM's and IEEE's author blocks:
# name / institution / city / e-mail).
_AFFIL_LINE = re.compile(r"^(?:the\s+)?(?:[^\W\d_]+\s+){0,3}?(?:universit\w*|institut\w*|"
                         r"department|dept\.?|school|college|faculty|laborator\w*|"
                         r"cent(?:er|re)|consortium|group|hospital|corporation|inc\.?|"
                         r"academy|division)\b|\S+@\S+", re.IGNORECASE)


def _more_blocks(lines: list[str]) -> list[str]:
    """Names of the author blocks after the first ("John Smith" / "Department, University"
    / "Peter Sellers" / "Department, ..."): a line of names counts when an affiliation
    line follows it, a line that starts with a name and goes on with its affiliation
    ("Tom F. Johnson Department, University") too; other lines are the blocks' addresses."""
    out: list[str] = []
    read = [parse_byline(line) for line in lines]
    # Blocks of one name line and one affiliation line each, to the end ("Debian Project" /
    # "Romain François" / "R Enthusiasts"): the odd lines are the names, whatever the
    # affiliations look like. Any other shape ("Novartis Pharma AG" as one of three lines
    # under a name) takes only names that an affiliation line follows.
    if len(lines) % 2 and all(bool(n) == (i % 2 == 1) for i, n in enumerate(read)):
        return [name for names in read for name in names]
    for i, line in enumerate(lines):
        names = read[i]
        if names and i + 1 < len(lines) and _AFFIL_LINE.match(lines[i + 1]):
            out += names
        elif not names and not _AFFIL_LINE.match(line):
            out += _lead_name(line) if re.search(r"\d|,", line) or len(line) > 40 else []
    return out


# A list of family names cited with a year: "Zeileis, Leisch, Hornik, and Kleiber (2002)".
_CITED_LIST = re.compile(rf"\b((?:{_FAMILY}(?:,\s*|,?\s+and\s+|\s*&\s*)){{1,7}}{_FAMILY})"
                         rf"\s*\(?{YEAR}[a-z]?\b")
# A date closing a byline, with its label: "... Roland Zimmermann Processed and Typeset:
# April 25, 2022".
_DATED = re.compile(r"\s*(?:(?:processed|typeset|compiled|generated|printed|dated?|version|"
                    r"draft|revised|updated|last\s+\w+)(?:\s+(?:and|&)\s+\w+)?\s*:\s*)?"
                    rf"(?:{_ANY_DATE})\s*$", re.IGNORECASE)


def _run_by_citation(line: str, text: str) -> list[str]:
    """A run of names with nothing between them ("Achim Zeileis Friedrich Leisch Kurt
    Hornik Christian Kleiber"), split where the families of a list the paper cites with a
    year end, in that order ("Zeileis, Leisch, Hornik, and Kleiber (2002)"): every word
    of the run must be used, each name one to three given names and its family. The run
    is the whole line, or closes a line that starts with a title the title finder missed
    (then the shortest run that splits so)."""
    words = line.split()
    if len(words) > 40:
        return []
    first = len(words)
    while first > 0 and NAME_WORD.match(words[first - 1]):
        first -= 1
    starts = [0] if first == 0 else range(len(words) - 4, first - 1, -1)
    if not starts:
        return []
    cited = [re.findall(_FAMILY, m.group(1)) for m in _CITED_LIST.finditer(text)]
    for start in starts:
        for families in cited:
            names = _split_by_families(words[start:], families)
            if names:
                return names
    return []


def _split_by_families(words: list[str], families: list[str]) -> list[str]:
    names: list[str | None] = []
    start = 0
    for family in families:
        end = next((k for k in range(start + 1, min(start + 4, len(words)))
                    if words[k] == family), None)
        if end is None:
            return []
        names.append(person(" ".join(words[start:end + 1])))
        start = end + 1
    if len(names) >= 2 and start == len(words) and all(names):
        return [n for n in names if n]
    return []


def _families(names: list[str]) -> set[str]:
    return {_fold(family_name(n)) for n in names}


def _authors(first_page: list[str], info: dict[str, str], text: str, title: str
             ) -> tuple[list[str], str | None]:
    """The byline under the title, above the abstract; the info dictionary's Author
    when the first pages show every one of its names (and it has more of them than the
    byline found: JSS puts each author's affiliation between the names); else the first
    author of the journal's own citation line."""
    for m in _SELF_CITE.finditer(text):  # the paper's own reference: the publisher's list
        names = parse_byline(m.group("names"))
        if names:
            return names, PDF_TEXT
    found: list[str] = []
    tw = _title_words(title)
    lines = [ln for ln in _header(first_page, title) if not _like_title(ln, tw)]
    lines = [_DATED.sub("", ln) if ":" in ln else ln for ln in lines]
    for i, line in enumerate(lines):
        names = parse_byline(line) or _run_by_citation(line, text)
        if not names and i < 3:  # a title the title finder missed, then its byline
            head, names = title_byline(line)  # not "Former team members: A and B",
            names = [] if re.search(r"[:,]", head) else names  # "A, based on … B and C"
        j = i + 1
        while names and j < len(lines) and parse_byline(lines[j]):  # over two lines
            names += parse_byline(lines[j])
            j += 1
        if names:
            found = names + _more_blocks(lines[j:])
            break
    if not found:
        found = next((n for n in map(_lead_name, lines[:6]) if n), [])
    meta = re.sub(r"\{?\bet al\.?\}?", "", info.get("Author", ""))
    given = parse_byline(re.sub(r"\s*;\s*|\s+and\s+", ", ", meta))
    # Only names the first pages also show: an info-dictionary Author is often the typist.
    given = given if given and all(_fold(family_name(n)) in _fold(text) for n in given) \
        else []
    if given and (not found or (_families(found) <= _families(given)
                                and len(given) > len(found))):
        return given, PDF_METADATA
    if found:
        return found, PDF_TEXT
    m = _CITATION.search(text)
    family = m and (m.group(1) or m.group(3))
    if family and not NOT_A_PERSON.search(family):
        return [family], PDF_TEXT  # the first author's family name only
    return [], None


# The paper's own note about its published version, on any page (R vignettes and reprints
# of journal papers): "The original paper is: <title>. Journal of Statistical Software 24:2,
# 2008", "A previous version of this manuscript was published in the Journal of Statistical
# Software (Hahsler, Hornik, and Buchta 2008)", "A shorter version of this introduction ... is
# published as Karatzoglou, Smola, Hornik, and Zeileis (2004)". Not a preliminary,
# conference or thesis version: that is another document.
_NOTE_NOUN = (r"(?:package\s+)?"
              r"(?:manuscript|paper|article|document|vignette|introduction|note|work|report)"
              r"(?:\s+(?:to|of|for)\s+(?:the\s+)?(?:R\s+)?package\s+[\w.]+)?")
_VERSION_NOTE = re.compile(
    rf"\b(?:an?|the)\s+(?:(?:previous|earlier|shorter|original|first)\s+)?version\s+(?:of|to)\s+"
    rf"this\s+{_NOTE_NOUN}\b"
    r"|\bthe\s+original\s+(?:paper|article)\s+is\s*:"
    rf"|\bthis\s+{_NOTE_NOUN}\s+(?:is|was|has\s+been)\s+(?:an?\s+)?(?:\(?slightly\)?\s+)?"
    r"(?:updated|up[-\s]to[-\s]date|modi(?:fi|\ufb01|\s)ed|revised|adapted|corrected)\s+"
    r"(?:version\s+of|from)\b"
    rf"|\bthis\s+{_NOTE_NOUN}\s+(?:was|has\s+been)\s+(?:originally\s+|first\s+)?published\s+"
    r"(?:in\s+(?:a\s+)?(?:similar|slightly\s+different|shorter|longer)\s+form\s+)?(?:as|in)\b",
    re.IGNORECASE)
# "... a modified version of Zeileis, Leisch, Hornik, and Kleiber (2002), which ...": the note
# names the published version by its authors and year, with or without the venue's name
_NAMED_VERSION = re.compile(rf"^\s*[A-Z][^\W\d_]+(?:(?:,?\s+and\s+|,?\s*&\s*|,\s*|\s+)"
                            rf"[A-Z][^\W\d_]*\.?){{0,8}}(?:\s+et\s+al\.?)?\s*\({YEAR}[a-z]?\)")
_OTHER_VERSION = re.compile(r"\b(?:preliminary|extended|conference|workshop|abridged)\s+"
                            r"version\b|\b(?:proceedings|proc\.|conference|workshop|symposium|"
                            r"meeting|congress|thesis|dissertation)\b", re.IGNORECASE)
_VENUE = re.compile(r"journal|news|proceedings|press|\bvol", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?][\"”’)]?\s+(?=[A-Z])")


def _version_note_year(text: str) -> int | None:
    """The year of the published version a paper's own note names, when the note names one
    year (two: which is it? none taken)."""
    for m in _VERSION_NOTE.finditer(text):
        rest = text[m.end(): m.end() + 220]
        if m.group(0).rstrip().endswith(":"):  # "The original paper is: ... Journal 24:2, 2008"
            y = re.search(rf"\b{YEAR}\b", rest)
            rest = rest[: y.end()] if y else ""
            if not _VENUE.search(rest):
                continue
        else:  # the rest of the sentence
            end = _SENTENCE_END.search(rest)
            rest = rest[: end.start() + 1] if end else rest
        sentence = m.group(0) + rest
        if _OTHER_VERSION.search(sentence) or not (re.search(
                r"published|appeared|journal|news|original paper", sentence, re.IGNORECASE)
                or _NAMED_VERSION.match(rest)):
            continue
        years = set(re.findall(rf"\b{YEAR}[a-z]?\b", rest))  # "Leisch (2004b)"
        if len(years) == 1 and _year_ok(int(next(iter(years)))):
            return int(next(iter(years)))
    return None


def _first_year(rx: re.Pattern[str], text: str) -> int | None:
    """The year of ``rx``'s first match with a plausible one (of a range: its end)."""
    return _first_dated(rx, text)[0]


def _first_dated(rx: re.Pattern[str], text: str) -> tuple[int | None, str]:
    """:func:`_first_year`, and the line of ``text`` that match stands on."""
    for m in rx.finditer(text):
        year = next((int(g) for g in reversed(m.groups()) if g and g.isdigit()), None)
        if year and _year_ok(year):
            start = text.rfind("\n", 0, m.start()) + 1
            end = text.find("\n", m.end())
            return year, text[start:end if end >= 0 else len(text)]
    return None, ""


# "Created: 20 February, 2013 Last modified: 22 October, 2015": the last change's date.
# ("10 October 2012, Revised 8 October 2014" keeps the first: the truths of the seen sets
# take the original date there.)
_MODIFIED = re.compile(r"\blast\s+(?:modified|updated|changed)\b\s*:?\s*(?:on\s+)?",
                       re.IGNORECASE)


_PUBLISHER = re.compile(r"\b(?:wiley|verlag|springer|elsevier|francis|university press|"
                        r"ieee|acm|kluwer|birkh[aä]user|sage|journal|society)\b", re.IGNORECASE)


def _header_year(header: list[str]) -> int | None:
    """The year of a date in the header under the title ("June 2002", "January 6, 2023",
    "Budapest, 2022", "2021" on a line of its own; after "Last modified:" where a line has
    two)."""
    for line in header:
        if len(line) > 200:
            continue
        mod = _MODIFIED.search(line)
        m = (mod and _DATE.match(line, mod.end())) or (
            _DATE.search(line) or _PLACE_YEAR.match(line)
            or re.fullmatch(rf"{YEAR}", line))  # a year on a line of its own
        year = m and next((int(g) for g in m.groups() if g), None)
        if year and _year_ok(year):
            return year
    return None


def _year(text: str, info: dict[str, str], header: list[str] | None = None,
          first_page: list[str] | None = None, whole: str = "") -> tuple[int | None, str | None]:
    """The journal's citation or issue line, the paper's own reference (ACM's "Reference
    Format"), arXiv's stamp (pages 1-2); the conference's own date line (page 1); the © or
    "Published" line, a manuscript's "Dated:"/"Draft version"/"Preprint submitted to ..."
    date, the last date of its "Received ...; accepted ..." line; then a date in the header
    under the title ("June 2002", "January 6, 2023", "Budapest, 2022", "2021"), a thesis's
    "submitted ... 2008", the document's "typeset on <date>" line; then the year of the
    published version the paper's own note names, on any page of ``whole`` ("A previous
    version of this manuscript was published in ... (2008)"); then a year in the info
    dictionary's Subject. Never the file's creation date (a paper printed to PDF years
    later carries that year), never a year cited in the text."""
    for rx in (_VOLUME, _CITATION, _ISSUE, _SELF_CITE, _ARXIV):
        year = _first_year(rx, text)
        if year:
            return year, PDF_TEXT
    for line in first_page or []:  # the conference's own line
        if len(line) <= 250 and not re.search(r"\bet al\b|^\[\d+\]", line):
            m = _CONF_RANGE.search(line) or _PROCEEDINGS.match(line)
            year = m and next((int(g) for g in m.groups() if g), None)
            if year and _year_ok(year):
                return year, PDF_TEXT
    for rx in (_COPYRIGHT, _PUBLISHED, _PAPER_DATE):
        year, line = _first_dated(rx, text)
        if year and rx is _COPYRIGHT and not _PUBLISHER.search(line):
            # a later date under the title is this version's ("© 2013" … "May 4, 2016"),
            # unless a publisher holds the ©: a journal's paper reprinted and built later
            year = max(year, _header_year(header or []) or 0)
        if year:
            return year, PDF_TEXT
    for m in _HISTORY.finditer(text):
        years = [int(y) for y in re.findall(rf"\b{YEAR}\b", m.group(0))]
        if years and _year_ok(max(years)):
            return max(years), PDF_TEXT
    if year := _header_year(header or []):
        return year, PDF_TEXT
    for line in first_page or []:  # "A dissertation submitted ... University of X 2008"
        m = _THESIS.search(line) and re.search(rf"\b(?:in|of|at)\b[^\n]{{0,80}}\b{YEAR}\.?$",
                                               line)
        if m and _year_ok(int(m.group(1))):
            return int(m.group(1)), PDF_TEXT
    year = _first_year(_BUILT, text)
    if year:
        return year, PDF_TEXT
    year = _version_note_year(whole or text)  # its note about its published version
    if year:
        return year, PDF_TEXT
    m = re.search(rf"\b{YEAR}\b", info.get("Subject", ""))
    if m and _year_ok(int(m.group(1))):
        return int(m.group(1)), PDF_METADATA
    return None, None


def _doi(text: str, info: dict[str, str]) -> tuple[str | None, str | None]:
    from citeloom.zotero.base import find_dois  # the DOI rules Zotero matching uses (normalised)

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

    info = pdf_info(path, password)
    first_page = _page_texts(doc, 1)
    text = "\n".join(_page_texts(doc, 2))
    out: dict[str, Any] = {"metadata_source": {}}
    src = out["metadata_source"]
    bare, named = title_byline(title) if title else (title, [])
    if not named and title and path is not None and path.suffix.lower() == ".pdf":
        bare, named = run_on(title, path, password)
    if named and path is not None and title != path.stem:
        title = bare  # the title finder took the byline in: the names are the authors
    if title:
        out["title"] = title
        src["title"] = (FILE_NAME if path is not None and title == path.stem else
                        PDF_METADATA if title == info.get("Title")
                        else PDF_TEXT)
    # The text layer's rows first: they keep the names' lines and columns apart.
    rows, above = layer_rows(path, password, title)
    authors, how = _authors(rows, info, text, title) if rows else ([], None)
    if not authors:
        authors, how = _authors(first_page, info, text, title)
    if not authors and above:  # two names at least: a lone one there is a stamp or a banner
        authors, how = _authors(above, info, text, title)
        authors, how = (authors, how) if len(authors) >= 2 else ([], None)
    if not authors and named:
        authors, how = named, PDF_TEXT
    if authors:  # once each: a byline and a correspondence line may both give a name
        out["authors"], src["authors"] = list(dict.fromkeys(authors)), how
    year, how = _year(text, info, _header(first_page, title), first_page,
                      whole=" ".join(_page_texts(doc, 10_000)))
    if not year and rows:  # a date or a journal's line Docling left out of page 1's items
        year, how = _year("\n".join([*above, *rows]), info, _header(rows, title))
    if not year and (year := file_name_year(path)):  # what the page gives wins
        how = FILE_NAME
    if year:
        out["year"], src["year"] = year, how
    doi, how = _doi(text, info)
    if doi:
        out["doi"], src["doi"] = doi, how
    return out
