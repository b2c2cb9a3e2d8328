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
