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
import unicodedata
from pathlib import Path
from typing import Any

from citeloom.payload import family_name
from citeloom.payload import fold as _fold
from citeloom.structure.covers import jstor_cover
from citeloom.structure.glued import unglued_letters
from citeloom.structure.header import (  # noqa: F401 - the sources, named here too
    FILE_NAME,
    PDF_METADATA,
    PDF_TEXT,
    ZOTERO,
    file_name_authors,
    file_name_year,
    foot_rows,
    layer_rows,
    page_texts,
)
from citeloom.structure.leading import (
    info_names,
    institution_start,
    leading_names,
    once_each,
    with_footnote,
)
from citeloom.structure.names import (
    NAME_WORD,
    NOT_A_PERSON,
    PARTICLE_WORDS,
    SYMBOLS,
    THANKS,
    UPPER,
    cited_families,
    cover_citation,
    email_locals,
    family_first,
    front_matter_authors,
    one_word_pairs,
    parse_byline,
    person,
    placeholders,
    split_by_emails,
    unglue_and,
)
from citeloom.structure.titles import layer_title
from citeloom.structure.years import (
    ANY_DATE,
    CITATION,
    DATE,
    FAMILY,
    IOP_CITE,
    MONTH,
    SELF_CITE,
    TEMPLATE_VENUE,
    YEAR,
    paper_year,
)
from citeloom.system import pdf_info
from citeloom.text import fold_alnum

# Where the header (title, byline, date) ends: the abstract, contents or first section
# (not a subtitle: "Summary of technical model details").
_HEADER_END = re.compile(r"^(?:abstract|summary(?!\s+of\b)|contents|table of contents|keywords|"
                         r"key words|(?:1\.?\s+|i\.\s+)?introduction|1\.?\s+[A-Z])\b|"
                         # IEEE's section heads in capitals: "II. PHOTOPLETHYSMOGRAPHY AND …"
                         r"^(?-i:[IVX]{1,4}\.\s+[A-Z]{2,}(?:\s+[A-Z]{2,})+)(?:\s|$)",
                         re.IGNORECASE)
# The same, inside a line: page 1 given as one item ("<title> <names> Abstract This ...").
_ABSTRACT_IN_LINE = re.compile(r"\s(?:Abstract|ABSTRACT|Summary|Keywords)\b")
_EMAIL = re.compile(r"\S+@\S+")
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


# A byline's line that ends in a given name, its family name on the next line, or that
# ends in its "and" or a comma, the next name on the next line.
_BROKEN = re.compile(rf"(?:,|\band|&)(?:\s*(?:[{UPPER}][^\W\d_]*\.?|{PARTICLE_WORDS})){{0,4}}\s*$")
# (", Rajesh P N", ", Geert van den")
# Where the people named are not the authors: a thesis's supervisor and jury, an editor.
_OTHERS = re.compile(r"\b(?:jury|direction|supervis\w*|advis[eo]rs?|committee|rapporteurs?|"
                     r"examin\w*|editors?|edited\s+by|reviewed\s+by|reviewers?|referees?|"
                     r"betreu\w*|gutacht\w*|relator\w*|directeur|director)\b", re.IGNORECASE)


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
    # A working paper's note after the names: "… Emil Verner* [PRELIMINARY – COMMENTS WELCOME]"
    words = re.sub(r"\s*\[[^\[\]]{3,60}\]$", "", " ".join(words)).split()
    for i in range(len(words) - 3, 1, -1):
        tail = " ".join(words[i:])
        if not re.search(r"\s(?:and|&)\s", tail):
            continue
        if re.fullmatch(r"[A-Z]\.", words[i - 1]):
            continue  # not inside a name: "Sergei L. | Kosakovsky Pond 1 and Spencer V. Muse"
        names = parse_byline(tail)
        if len(names) >= 2 and all(len(n.split()) <= 3 for n in names):
            if (re.fullmatch(r"[A-Z]\.", words[i]) and i >= 3 and not words[i - 1].endswith(",")
                    and len(longer := parse_byline(" ".join(words[i - 1:]))) == len(names)):
                names, i = longer, i - 1  # a given name before its initial: "Anna | B. Jones"
            # the names before, each of two words closed by its comma: "Sergio Correia, |
            # Stephan Luck, and Emil Verner" (not past an initial: "… the World J. Smith,")
            while (i >= 4 and words[i - 1].endswith(",")
                   and not re.fullmatch(r"[A-Z]\.|.*:", words[i - 3])  # nor a label's list
                   and (more := person(" ".join(words[i - 2:i]).rstrip(",")))):
                names, i = [more, *names], i - 2
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
            names = parse_byline(DATE.sub("", " ".join(words[i:])))
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
    # A byline's row that goes on to the next ("HIDEKI KAWASAKI ∗∗ ∗∗∗ and"), or a name and
    # its affiliation after a comma ("KEI KOBAYASHI, ∗ The Institute of Statistical
    # Mathematics", "… Izzulhaq, Independent Researcher"): one name, then.
    bare = re.sub(r"[\s,]+(?:and|&)$", "", line.strip())
    if bare != line.strip() and len(named := parse_byline(bare)) == 1:
        return named
    first, comma, rest = line.partition(",")
    rest = rest.strip(f" {SYMBOLS}")
    # (or an institution's acronym: "Werner A. Stahel, ETH Zurich"; not a country's: "Palo
    # Alto, USA")
    acronym = (re.match(r"[A-Z]{3,}\s+[A-Z][a-z]", rest)  # (not a state's: "Palo Alto, CA")
               and not re.match(r"(?:USA|UAE|PRC)\b", rest))
    post = (len(rest.split()) <= 4 and (NOT_A_PERSON.search(rest) or acronym)
            and not parse_byline(rest))
    year = (re.fullmatch(r"(?:19|20)\d\d", rest) and not re.search(r"\d", first)  # (a year:
            and not re.search(rf"\b{MONTH}\b", first, re.IGNORECASE))  # "Danny Ayers, 2021")
    if (comma and (_AFFIL_LINE.match(rest) or post or year)
            and len(named := parse_byline(first)) == 1):
        return named  # (a post: "Emre Tasar, Data Scientist", "…, Independent Researcher")
    head = re.split(r"\s\.\s+(?=\d?[A-Z])|\s[|·•]\s", line, maxsplit=1)  # (or a bar: "Anthony Le |
    # Denison University, …")
    if len(head) == 2 and (named := parse_byline(head[0])):
        return named  # names, a lone full stop, their affiliation (LHCb's notes)
    line = re.sub(r"^by\s+", "", _EMAIL.sub(" ", line), flags=re.IGNORECASE)
    m = DATE.search(line)
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
        # "Mary Jones, University of Oxford", "Alex Krizhevsky University of Toronto"
        # (but "Paul G. Allen School of Computer Science" is a school's name)
        apart = words[i - 1].endswith(",") or (words[i + 1:i + 2] in (["of"], ["de"])
                                               and bool(_UNIVERSITY.match(words[i].strip(",."))))
        if not apart and _INSTITUTION_NEXT.match(words[i].strip(",.")):
            return []  # "Andrew W. Mellon Foundation", "Johns Hopkins University"
        # "Andrew Baumann, Microsoft Research", "Diederik P. Kingma* University of Amsterdam"
        name = person(re.sub(rf"[{SYMBOLS}\d,]+$", "", " ".join(words[:i])))
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
    cut = institution_start(words, cut)  # ("… Zisserman + Visual Geometry Group")
    # "… Billinge at Department of", "… Laue a, * a Department of": the affiliation's mark
    head = re.sub(rf"(?:\s+(?:at|[a-z]|\d+|[{SYMBOLS}]))+$", "", " ".join(words[:cut]))
    names = parse_byline(head) if re.search(r",|\sand\s|&", head) else []
    return names if len(names) >= 2 else []


def _named_by_address(line: str) -> list[str]:
    """"Martin Maechler R Core Development Team maechler@R-project.org": the line starts
    with a person whose family name is in the name part of the line's e-mail address; what
    lies between (a group, a team) need not read as an affiliation."""
    m = _EMAIL.search(line)
    if not m:
        return []
    mailbox = _letters(m.group().split("@")[0])
    words = line[: m.start()].split()
    for n in (4, 3, 2):  # (the longest: "Divya Kumar Jitendra Patel … divyakumarpatel@")
        name = person(" ".join(words[:n])) if n <= len(words) else None
        if not name:
            continue
        family, given = (_letters(part) for part in name.split(",", 1))
        # the family name in the mailbox, or (two words) the mailbox is the given name
        if (len(family) >= 3 and family in mailbox
                or n == 2 and len(mailbox) >= 3 and mailbox == given):  # ("ashish@…")
            return [name]
    return []


# The start of an affiliation line under an author's name (ACM's and IEEE's author blocks:
# name / institution / city / e-mail).
_AFFIL_LINE = re.compile(r"^(?:the\s+)?(?:[^\W\d_]+\s+){0,3}?(?:universit\w*|institut\w*|"
                         r"department|dept\.?|school|college|faculty|laborator\w*|"
                         r"cent(?:er|re)|consortium|group|hospital|corporation|inc\.?|"
                         r"academy|division)\b|\S+@\S+", re.IGNORECASE)


def _letters(text: str) -> str:
    """``text``'s Latin letters only, folded: a name as a mailbox spells it."""
    return re.sub(r"[^a-z]", "", _fold(text))


def _mailed(names: list[str], mail: list[str]) -> bool:
    """Whether a family name of ``names`` is spelt in one of the header's e-mail addresses
    ("Filip Ilievski" under "{thawani,jpujara,ilievski}@isi.edu")."""
    families = [_letters(family_name(n)) for n in names]
    return any(len(f) >= 4 and f in local for f in families for local in mail)


# A team or collaboration as the byline, on its own line: "Meituan LongCat Team", "The
# ATLAS Collaboration", "lightkurve contributors".
_TEAM = re.compile(r"^\s*(?:the\s+)?(?:[^\W\d_][\w-]*\s+){0,4}(?:team|collaboration|consortium|"
                   r"contributors)\s*$", re.IGNORECASE)


# A mailbox of two names: "edoardo.carra", "lorenzo3.gentile".
_TWO_PART_BOX = re.compile(r"\b([^\W\d_]{2,})\d*[._-]([^\W\d_]{2,})\d*@")


def _mail_ordered(names: list[str], lines: list[str]) -> list[str]:
    """``names`` read given name first where the byline sets them family name first and
    every one of them has a mailbox "given.family" that says so ("Carr\u00e0 Edoardo" over
    "edoardo.carra@mail.polimi.it": Carrà, Edoardo); as read otherwise. Two names at least,
    every one must agree, and none may match as read: one convention, not a guess per name
    (a lone "ruder.sebastian@" is Sebastian Ruder's own choice of mailbox)."""
    boxes = {(a.lower(), b.lower()) for ln in lines for a, b in _TWO_PART_BOX.findall(ln)}
    parts = one_word_pairs(names)
    if (not boxes or not parts
            or any((_letters(p[1]), _letters(p[0])) in boxes for p in parts)
            or not all((_letters(p[0]), _letters(p[1])) in boxes for p in parts)):
        return names
    return [f"{given}, {fam}" for fam, given in parts]


def _more_blocks(lines: list[str]) -> list[str]:
    """Names of the author blocks after the first ("John Smith" / "Department, University"
    / "Peter Sellers" / "Department, ..."): a line of names counts when an affiliation
    line follows it, when it or the line before it has an e-mail address (a block closed
    by its address, then the next name: "MIPT" / "Moscow, Russia" / "a@b.edu" / "Daniil
    Dorin"), or when an address of the header spells its family name; a line that starts
    with a name and goes on with its affiliation ("Tom F. Johnson Department, University")
    counts too; other lines are the blocks' addresses."""
    out: list[str] = []
    # not past a thesis's supervisor, its jury or an editor
    lines = lines[:next((i for i, ln in enumerate(lines) if _OTHERS.search(ln)), len(lines))]
    read = [parse_byline(line) for line in lines]
    # Blocks of one name line and one affiliation line each, to the end ("Debian Project" /
    # "Romain François" / "R Enthusiasts"): the odd lines are the names, whatever the
    # affiliations look like. Any other shape ("Novartis Pharma AG" as one of three lines
    # under a name) takes only names that an affiliation line follows.
    if len(lines) % 2 and all(bool(n) == (i % 2 == 1) for i, n in enumerate(read)):
        return [name for names in read for name in names]
    mail = email_locals(lines)
    for i, line in enumerate(lines):
        names = read[i]
        if names and (i + 1 < len(lines) and _AFFIL_LINE.match(lines[i + 1])
                      or _EMAIL.search(line) or i > 0 and _EMAIL.search(lines[i - 1])
                      or _mailed(names, mail)):
            out += names
        elif not names and not _AFFIL_LINE.match(line) and i > 0:
            # (not the line right under the first block's names: its affiliation, "David R.
            # Cheriton School of Computer Science, University of Waterloo")
            out += _lead_name(line) if re.search(r"\d|,", line) or len(line) > 40 else []
    return out


# A list of family names cited with a year: "Zeileis, Leisch, Hornik, and Kleiber (2002)".
_CITED_LIST = re.compile(rf"\b((?:{FAMILY}(?:,\s*|,?\s+and\s+|\s*&\s*)){{1,7}}{FAMILY})"
                         rf"\s*\(?{YEAR}[a-z]?\b")
# A date closing a byline, with its label: "... Roland Zimmermann Processed and Typeset:
# April 25, 2022".
_DATED = re.compile(r"\s*(?:(?:processed|typeset|compiled|generated|printed|dated?|version|"
                    r"draft|revised|updated|last\s+\w+)(?:\s+(?:and|&)\s+\w+)?\s*:\s*"
                    r"|draft\s+version\s+)?"  # AASTeX: "… Wright 17 Draft version June 5, 2013"
                    rf"(?:{ANY_DATE})\s*$", re.IGNORECASE)


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
    cited = [re.findall(FAMILY, m.group(1)) for m in _CITED_LIST.finditer(text)]
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


# A name at the start of a line of ScholarOne's list, "Family, Given; affiliation".
_LISTED = re.compile(rf"^(?:Complete List of Authors:\s*)?([{UPPER}][^\W\d_'’-]*(?:[-'’ ]"
                     rf"[{UPPER}][^\W\d_]*)*),\s*([{UPPER}][^;,]{{0,40}}?)\s*;")


def _profiled(lines: list[str], count: int, text: str) -> list[str]:
    """The people of ResearchGate's cover: each a name row, its affiliation's, then "77
    PUBLICATIONS 201 CITATIONS" and "SEE PROFILE". The cover shows only those with a
    profile ("3 authors, including:" over two): then the paper's own byline on the next
    page, when it has ``count`` names and theirs among them."""
    names = []
    for k, line in enumerate(lines):
        if re.search(r"\bPUBLICATIONS\b", line):
            for row in (lines[k - 2:k - 1] if k >= 2 else []) + lines[k - 1:k]:
                if len(found := parse_byline(row)) == 1:
                    names += found
                    break
    if len(names) < count:  # (its start: the affiliation may follow on the same line)
        for item in text.split("\n"):
            words = item.split()[:4 * count]
            for whole in (*(parse_byline(" ".join(words[:k]))
                            for k in range(len(words), 3, -1)), *_runs(words, count)):
                if len(whole) == count and _families(names) <= _families(whole):
                    return whole
    return names


def _runs(words: list[str], count: int) -> list[list[str]]:
    """Every reading of ``words``' start as ``count`` names of two or three words each,
    with nothing between them ("D. Brandon Lloyd Chas Boyd Naga Govindaraju")."""
    if count == 0:
        return [[]]
    out = []
    for n in (2, 3):
        if n <= len(words) and (name := person(" ".join(words[:n]))):
            out += [[name, *rest] for rest in _runs(words[n:], count - 1)]
    return out


def _listed(lines: list[str]) -> list[str]:
    """The names of ScholarOne's "Complete List of Authors", to its "Keywords"."""
    names = []
    for line in lines:
        if re.match(r"Keywords\b", line, re.IGNORECASE) and names:
            break
        if (m := _LISTED.match(line)) and (name := person(f"{m.group(2)} {m.group(1)}")):
            names.append(name)
    return names


def _joined(lines: list[str], i: int) -> tuple[list[str], int]:
    """The names of ``lines[i]``, joined with the next line or two where the byline breaks
    inside a name ("…, and Alireza" / "Zolanvari 2") or after its "and" or comma ("…,
    David W. Hogg 3,4,5 , and" / "Soledad Villar 1,6,7"; JOSS's "…, Xihang" / "Chen 1 ,
    …, and Martí" / "Català 1¶"), and the index of the line after them; none and
    ``i + 1`` when they do not read as names."""
    joined, j = lines[i], i + 1
    names = parse_byline(joined)
    while not names and j < min(len(lines), i + 3) and _BROKEN.search(joined):
        joined, j = f"{joined} {lines[j]}", j + 1
        names = parse_byline(joined)
    return (names, j) if names else ([], i + 1)


def _families(names: list[str]) -> set[str]:
    return {_fold(family_name(n)) for n in names}


def _authors(first_page: list[str], info: dict[str, str], text: str, title: str
             ) -> tuple[list[str], str | None]:
    """The byline under the title, above the abstract; the info dictionary's Author
    when the first pages show every one of its names (and it has more of them than the
    byline found: JSS puts each author's affiliation between the names); else the first
    author of the journal's own citation line."""
    head = " ".join(first_page[:12])  # a repository's cover page, a printed front matter
    if names := cover_citation(head) or front_matter_authors(head):
        return names, PDF_TEXT
    for m in SELF_CITE.finditer(text):  # the paper's own reference: the publisher's list
        names = parse_byline(m.group("names"))
        if names:
            return names, PDF_TEXT
    for m in IOP_CITE.finditer(text):  # "A Bogdanchikov et al", "Y Prasetyo, B D Yuwono"
        cited = re.sub(r"\s+et\s+al\.?$", "", m.group("names"))
        if names := parse_byline(re.sub(rf"\b([{UPPER}])(?=\s)", r"\1.", cited)):
            return names, PDF_TEXT
    for i, line in enumerate(first_page):  # ResearchGate's cover: "3 authors, including:"
        if m := re.match(r"^(\d+)\s+authors?\b", line):
            return _profiled(first_page[i + 1:i + 24], int(m.group(1)), text), PDF_TEXT
    for i, line in enumerate(first_page):  # ScholarOne's review copy: "Complete List of
        if line.startswith("Complete List of Authors:"):  # Authors: Family, Given; Place"
            return _listed(first_page[i:i + 20]), PDF_TEXT
    found: list[str] = []
    tw = _title_words(title)
    lines = [ln for ln in _header(first_page, title) if not _like_title(ln, tw)]
    lines = [_DATED.sub("", ln) if re.search(r":|draft version", ln, re.IGNORECASE) else ln
             for ln in lines]
    for i, line in enumerate(lines):
        names = (parse_byline(line) or _run_by_citation(line, text)
                 or split_by_emails(line, email_locals(lines[i + 1:i + 6])))
        j = i + 1
        if not names:
            names, j = _joined(lines, i)
        if not names and i < 3:  # a title the title finder missed, then its byline
            head, names = title_byline(line)  # not "Former team members: A and B",
            names = [] if re.search(r"[:,]", head) else names  # "A, based on … B and C"
        nxt = parse_byline(lines[j]) if names and j < len(lines) else None  # a name broken
        end = nxt and len(nxt) == 1 and re.search(r"\band\s+\S+(?:\s+\S+)?$", lines[j - 1])  # "…
        if (nxt is not None and (not nxt or end)  # and Jose María" / "Alvarez Rodríguez 3"
                and len(both := parse_byline(f"{lines[j - 1]} {lines[j]}")) > len(names) - bool(nxt)
                and both[len(names) - 1] != names[-1]):  # (the row's last name goes on)
            names, j = both, j + 1  # two rows: "…, R. Stephen" / "Cantrell 3 , William F. …"
        while names and j < len(lines) and (more := _joined(lines, j))[0]:  # more lines
            names, j = names + more[0], more[1]
        if names:
            found = family_first(_mail_ordered(names + _more_blocks(lines[j:]), lines))
            break
    if not found and lines and _TEAM.match(lines[0]):  # no person: a team right under the
        return [lines[0].strip()], PDF_TEXT             # title ("Meituan LongCat Team")
    if not found:  # each author on a line of their own, their affiliation after the name;
        for line in lines[:8]:  # not a thesis's supervisor or jury, nor an editor
            if _OTHERS.search(line):
                break
            found += _lead_name(line)
    meta = re.sub(r"\{?\bet al\.?\}?", "", info.get("Author", ""))
    given = info_names(meta, text)
    # Only names the first pages also show: an info-dictionary Author is often the typist.
    given = given if given and all(_fold(family_name(n)) in _fold(text) for n in given) \
        else []
    if given and (not found or (_families(found) <= _families(given)
                                and len(given) > len(found))):
        return given, PDF_METADATA
    if found:
        return found, PDF_TEXT
    m = CITATION.search(text)
    family = m and (m.group(1) or m.group(3))
    if family and not NOT_A_PERSON.search(family):
        return [family], PDF_TEXT  # the first author's family name only
    return [], None



def _accented(names: list[str], text: str) -> list[str]:
    """``names`` with each word the text layer gave without its accent ("Perez": the accent
    was a glyph of its own beside the word) spelt as the first pages spell it ("Pérez")."""
    spelt = {}
    for word in re.findall(r"[^\W\d_]+", text):
        if len(word) > 1 and not word.isascii() and (bare := _strip(word)).isascii():
            spelt.setdefault(bare, word)
    return [re.sub(r"[^\W\d_]+", lambda m: spelt.get(m.group(), m.group()), n) for n in names]


def _strip(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", word)
                   if not unicodedata.combining(c))


def _doi(text: str, info: dict[str, str]) -> tuple[str | None, str | None]:
    from citeloom.zotero.base import find_dois  # the DOI rules Zotero matching uses (normalised)

    for value, source in ((info.get("Subject", "") + " " + info.get("Keywords", ""),
                           PDF_METADATA), (text, PDF_TEXT)):
        # (not a template's own: LIPIcs's "10.4230/LIPIcs.CVIT.2016.23")
        found = [d for d in find_dois(value) if not TEMPLATE_VENUE.search(d)]
        if found:
            return found[0], source
    return None, None


def document_metadata(doc: Any, path: Path | None, title: str, *,
                      password: str | None = None) -> dict[str, Any]:
    """Title, authors, year and DOI of a converted document, from its first pages and its
    PDF info dictionary, with ``metadata_source`` saying where each came from (a field
    not found is left out of both)."""

    info = pdf_info(path, password)
    first_page = page_texts(doc, 1)
    text = "\n".join(page_texts(doc, 2))
    body = " ".join(page_texts(doc, 10_000))
    out: dict[str, Any] = {"metadata_source": {}}
    src = out["metadata_source"]
    bare, named = title_byline(title) if title else (title, [])
    if named and path is not None and (whole := layer_title(path, password)) \
            and fold_alnum(whole) == fold_alnum(title):
        bare, named = title, []  # all of it set in the title's type: no byline in it
        # ("… Network Using Edge AI and Spatially Synchronized Geotagging")
    if not named and title and path is not None and path.suffix.lower() == ".pdf":
        bare, named = run_on(title, path, password)
    if named and path is not None and title != path.stem:
        title = bare  # the title finder took the byline in: the names are the authors
    if jstor := jstor_cover(first_page):
        title, named = jstor  # JSTOR's old cover: title, byline and citation as items
    if title:
        out["title"] = title
        src["title"] = (FILE_NAME if path is not None and title == path.stem else
                        PDF_METADATA if title == info.get("Title")
                        else PDF_TEXT)
    # The text layer's rows first: they keep the names' lines and columns apart.
    rows, above = layer_rows(path, password, title) if not jstor else ([], [])
    authors, how = (named, PDF_TEXT) if jstor else _authors(rows, info, text, title) if rows \
        else ([], None)
    if not authors:
        authors, how = _authors(first_page, info, text, title)
    if not authors and above:  # two names at least: a lone one there is a stamp or a banner
        authors, how = _authors(above, info, text, title)
        authors, how = (authors, how) if len(authors) >= 2 else ([], None)
    if not authors and named:
        authors, how = named, PDF_TEXT
    if not authors and (head := _header(rows or first_page, title)[:1]) and not _OTHERS.search(
            head[0]):
        authors, how = leading_names(head[0]), PDF_TEXT  # the names a refused byline starts with
    if not authors and (authors := with_footnote("\n".join(first_page))):
        how = PDF_TEXT  # IEEE's first-page note, where the byline is no text
    if not authors and (authors := file_name_authors(path, title)):
        how = FILE_NAME  # Zotero's name for the file: family names only
    # (a template's sample names: no author named yet)
    authors = [] if placeholders(authors) else once_each(authors, rows or first_page)
    if authors:  # once each: a byline and a correspondence line may both give a name
        # the family names as the references cite them (not page 1: the byline itself
        authors = cited_families(unglued_letters(_accented(authors, text), first_page),
                                 " ".join(page_texts(doc, 10_000, first=2)))  # "K. Sai
        # Teja, K. Suma Sri" is no reference)
        out["authors"], src["authors"] = list(dict.fromkeys(authors)), how
    year, how = paper_year(text, info, _header(first_page, title), first_page,
                           whole=body, title=title)
    if not year and rows:  # a date or a journal's line Docling left out of page 1's items
        year, how = paper_year("\n".join([*above, *rows]), info, _header(rows, title))
    if not year and (foot := foot_rows(path, password)):  # a foot Docling left out
        year, how = paper_year("\n".join(foot), {})
    if not year and (year := file_name_year(path)):  # what the page gives wins
        how = FILE_NAME
    if year:
        out["year"], src["year"] = year, how
    doi, how = _doi(text, info)
    if doi:
        out["doi"], src["doi"] = doi, how
    return out
