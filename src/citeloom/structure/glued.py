"""Names whose letters the text layer glued to their neighbours: an affiliation's letter
glued to each family name ("Márcio Ribeiroa, Rodrigo Paesa"). (A given name glued to its
family name, "ErinAllor 4", is :func:`citeloom.structure.names.parse_byline`'s.)"""

from __future__ import annotations

import re

from citeloom.structure.names import UPPER

# elsarticle's affiliation letters before the affiliation ("aFederal University of
# Alagoas", or "a Federal …") and glued to the names ("Márcio Ribeiroa, Rodrigo Paesa").
_AFFILIATION_LETTER = re.compile(rf"(?<![^\W\d_])([a-z])\s?(?=[{UPPER}][a-z])")


def unglued_letters(names: list[str], lines: list[str]) -> list[str]:
    """``names`` without the affiliation letter glued to each family name, when the first
    page's head sets letters before its affiliations ("aFederal …", "b Federal …": "a" and
    "b" at least), every family name ends in one of those letters, and they end in two
    letters at least (a byline of "Silva" and "Costa" alone proves nothing)."""
    letters = {m.group(1) for line in lines[:12] for m in _AFFILIATION_LETTER.finditer(line)}
    parts = [n.partition(", ") for n in names]
    ends = {family[-1] for family, _, _ in parts}
    if not {"a", "b"} <= letters or len(ends) < 2 or not ends <= letters or any(
            len(family) < 4 or not family[-2].islower() for family, _, _ in parts):
        return names
    return [f"{family[:-1]}{sep}{given}" for family, sep, given in parts]
