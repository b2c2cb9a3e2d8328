"""The names a byline row starts with, where the row as a whole does not read as names.

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

from citeloom.structure.names import SYMBOLS, person

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
