"""Authors where no byline reads whole: the names a byline row starts with, where the row
as a whole does not read as names; and the names of IEEE's first-page note.

A byline the parser refuses as a whole still names its first authors plainly:

    Radityo Fajar Pamungkas, Ida Bagus Krishna Yoga Utama, … ∗ Department of Electronics …
    Rainer Winnenburg, ThomasWa«chter, Conrad Plake, Andreas Doms and Michael Schroeder

(a name of five words, a letter the layer broke, an affiliation run on). Its parts (parted
by commas, semicolons, bars and "and") are read each without its affiliation marks; the
persons from the start to the first part that is none are the names, when two parts at
least name persons, so that a row which only starts like a name (a place: "New Haven, CT")
is not taken. A prefix of the authors is a loss beside the whole list, but the first author
is what a citation key and "et al." need.
"""

from __future__ import annotations

import re
from collections import Counter

from citeloom.convert.texthealth import known_words
from citeloom.payload import fold
from citeloom.structure.names import SYMBOLS, parse_byline, person

_PART = re.compile(r"\s*(?:,|;|\s\|\s|\s(?:and|&)\s)\s*")
_MARKS = re.compile(rf"(?:\s*[{re.escape(SYMBOLS)}\d]+)+\s*$")


def leading_names(row: str) -> list[str]:
    """The persons the row's parts name from its start to the first part that names none;
    [] unless two parts at least name persons."""
    found = [person(bare) for part in _PART.split(row.strip())
             if (bare := _MARKS.sub("", part).strip())]  # (a part that is only marks: none)
    lead = []
    for name in found:
        if not name:
            break
        lead.append(name)
    return lead if sum(bool(n) for n in found) >= 2 else []


def info_names(author: str, text: str) -> list[str]:
    """The PDF info dictionary's Author as names (its parts parted by semicolons, commas or
    "and"). A part of four words or more that the byline parser leaves open ("John Kiplinger
    Valerie Yaw": one person or two?) is one person here when the first pages print it
    whole ("Brynjólfur Gauti Guðrúnar Jónsson", "Muhammad Iqbal Hilmy Izzulhaq"): a field
    that lists its authors one by one, and a page that shows the same name."""
    author = re.sub(r"\s*;\s*|\s+and\s+", ", ", author)
    if names := parse_byline(author):
        return names
    page = fold(text)

    def one(part: str) -> str | None:
        if len(part.split()) >= 4 and fold(part) in page:
            return person(part)
        got = parse_byline(part)
        return got[0] if len(got) == 1 else None

    names = [one(p) for p in (q.strip() for q in author.split(",")) if p]
    return [n for n in names if n] if names and all(names) else []


def institution_start(words: list[str], at: int) -> int:
    """Where the institution whose head word is ``words[at]`` starts, when its name comes
    before that word, right after a name's mark ("… Andrew Zisserman + Visual Geometry
    Group, Department of …"): the capitalised words of the language between the mark and
    the head word, three at most. Otherwise, and for an affiliation the word opens
    ("Department of …"), ``at``."""
    if words[at + 1:at + 2] and words[at + 1].lower() in ("of", "for", "de", "di", "für"):
        return at
    for start in range(at - 1, max(at - 4, 0), -1):
        if not (words[start][:1].isupper() and words[start].isalpha()):
            break
        if not words[start - 1][-1:].isalpha():  # a mark or comma ends the name before it
            return start if known_words(" ".join(words[start:at])) == at - start else at
    return at


def once_each(names: list[str], rows: list[str]) -> list[str]:
    """``names`` without those read from a row the head sets twice or more: the line under
    every author's name is their shared affiliation ("Kushagra Srivastava / Manning CICS /
    University of Massachusetts", then "Prof. Meng-Chieh Chiu / Manning CICS / …"), which
    may read as a name; a person's name stands once. A lone name stays (a running head
    may repeat a single author's byline)."""
    def key(row: str) -> str:
        return " ".join(fold(row).split())

    seen = Counter(key(row) for row in rows[:40])
    kept = [n for n in names if seen[key(" ".join(reversed(n.split(", ", 1))))] < 2]
    return kept or names


# IEEE's first-page note: "Peijun Bao is with Grupo de Tratamiento …", "C. R. del-Blanco
# and Narciso García are with …".
_IS_WITH = re.compile(r"\s(?:is|are)\s+(?:now\s+|also\s+)?with\s")


def with_footnote(text: str) -> list[str]:
    """The names of a first-page note's "X is with <affiliation>" sentences, in order: the
    authors where the byline is no text (a picture, or lost to the layer's order)."""
    names: list[str] = []
    for m in _IS_WITH.finditer(text):
        window = text[max(0, m.start() - 100):m.start()]
        for start in re.finditer(r"(?:[.;)]\s+|\n)(?=[A-Z])", window):  # sentence starts,
            head = " ".join(window[start.end():].split())  # the longest first
            got = parse_byline(head) if len(head) <= 80 and not re.search(r"[\d@()]", head) \
                else []
            if got:
                names += [n for n in got if n not in names]
                break
    return names
