"""Shapes heldout21 showed (issue #27, item 5, session 28): a company and a campus under
a name, and an elsarticle footer whose date Docling set apart."""

from __future__ import annotations

import pytest

from citeloom.structure.names import person
from citeloom.structure.years import paper_year


@pytest.mark.parametrize("name", ["Credit Karma", "UC Berkeley", "UC San Diego"])
def test_employers_are_no_people(name: str) -> None:
    assert person(name) is None


def test_a_date_alone_on_page_one_is_the_papers() -> None:
    lines = ["On the validity of statistical parametric mapping", "Todd C. Pataky",
             "Abstract", "Preprint for Journal of Biomechanics", "May 18, 2019"]
    text = "\n".join(lines)
    assert paper_year(text, {}, lines[1:2], lines, whole=text)[0] == 2019
    # a date inside a sentence is not one on its own
    lines[-1] = "Data were collected until May 18, 2019 at the clinic."
    text = "\n".join(lines)
    assert paper_year(text, {}, lines[1:2], lines, whole=text)[0] is None
