"""Shapes heldout19 showed (issue #27, item 5, session 28): papers researchers keep in
GitHub repositories — a JSTOR cover page, bylines with semicolons, card-suit marks and
IUCr's "Family, I." order, a lab's name under the byline, conference and report lines the
year rules missed, a title whose first line ends in a colon, and an old TeX font's "fi"
ligature read as U+FFFD."""

from __future__ import annotations

import pytest
from docling_core.types.doc import DocItemLabel

from citeloom.structure.names import parse_byline
from citeloom.structure.years import paper_year

from .test_pdfmeta_more import doc_with


@pytest.mark.parametrize(("line", "names"), [
    # JSTOR's cover page labels them
    ("Author(s): Gerard Hoberg and Gordon M. Phillips",
     ["Hoberg, Gerard", "Phillips, Gordon M."]),
    # semicolons between names, an Italian particle
    ("Tanya Strydom 1,2; Salomé Bouskila 1 ; Giulio V. Dalla Riva 7 ; Timothée Poisot 1,2",
     ["Strydom, Tanya", "Bouskila, Salomé", "Dalla Riva, Giulio V.", "Poisot, Timothée"]),
    # affiliations marked with card suits (an IEEE conference paper)
    ("Thorsten Lohmar ♣ , Torbjörn Einarsson ♦ , Per Fröjdh ♦ ,Frédéric Gabin ♥",
     ["Lohmar, Thorsten", "Einarsson, Torbjörn", "Fröjdh, Per", "Gabin, Frédéric"]),
    # Acta Crystallographica: family name first, initials, affiliation letters
    ("Bajor, J. ac, Tkaczuk, K.L. ac, Chruszcz, M. ac , Kagan, O. bc, Minor, W. ac",
     ["Bajor, J.", "Tkaczuk, K. L.", "Chruszcz, M.", "Kagan, O.", "Minor, W."]),
])
def test_bylines(line: str, names: list[str]) -> None:
    assert parse_byline(line) == names


@pytest.mark.parametrize("line", [
    "Meta AI",  # a lab under the names, not a person "AI, Meta"
    "Paris, France",
    "Smith, J.",  # one inverted name is no byline: a reference's start
    "Department of Biology; University of Montreal",
])
def test_not_bylines(line: str) -> None:
    assert parse_byline(line) == []


@pytest.mark.parametrize(("year", "lines"), [
    (2004, ["MapReduce: Simplified Data Processing", "Jeffrey Dean", "To appear in OSDI 2004"]),
    (2010, ["Google Technical Report dapper-2010-1, April 2010", "Dapper, a Tracing System"]),
    (2015, ["IronFleet", "Chris Hawblitzel", "Permission to make digital or hard copies of all or "
            "part of this work for personal or classroom use is granted without fee provided "
            "that copies are not made or distributed for profit. " * 3
            + "SOSP’15, October 4–7, 2015, Monterey, CA. Copyright is held by the owner."]),
    (2016, ["Large-Margin Softmax Loss", "Weiyang Liu", "arXiv:1612.02295v4 [stat.ML] 17 Nov 2017",
            "Over the past several years, convolutional neural networks have boosted the state "
            "of the art. " * 3 + "Proceedings of the 33 rd International Conference on Machine "
            "Learning, New York, NY, USA, 2016. JMLR: W&CP volume 48. Copyright 2016 by the "
            "author(s)."]),
    (2016, ["IEEE GEOSCIENCE AND REMOTE SENSING LETTERS, VOL. XX, NO. XX, XX 2016",
            "Rough Set Based Color Channel Selection"]),
    (2016, ["A Title Here", "Manuscript received 01-Jul-2016; revised 03-Oct-2016; "
            "accepted 28-Oct-2016."]),
    (2022, ["A Title Here", "c© The Author(s), under exclusive license to Springer Nature "
            "Switzerland AG 2022"]),
    (2000, ["Ab Initio Methods", "© Commonwealth of Australia 2000"]),
    (2017, ["SAND2017-4327C", "Modeling Rocket Motor Fires"]),
])
def test_year_lines(year: int, lines: list[str]) -> None:
    text = "\n".join(lines)
    assert paper_year(text, {}, lines[1:], lines, whole=text)[0] == year


def test_a_copyright_in_prose_and_another_version_are_no_year() -> None:
    lines = ["A Title Here", "John Smith",
             "The copyright of the images taken in 2012 belongs to the museum.",
             "An earlier version appeared as Technical Report 12, June 1998."]
    text = "\n".join(lines)
    assert paper_year(text, {}, lines[1:2], lines, whole=text)[0] is None


def test_a_titles_first_line_that_ends_in_a_colon() -> None:
    from citeloom.structure.titles import document_title

    doc = doc_with([(DocItemLabel.TEXT, "arXiv:1710.06068v1 [astro-ph.IM] 17 Oct 2017"),
                    (DocItemLabel.TEXT, "DATA ANALYSIS RECIPES:"),
                    (DocItemLabel.SECTION_HEADER, "USING MARKOV CHAIN MONTE CARLO"),
                    (DocItemLabel.TEXT, "David W. Hogg and Daniel Foreman-Mackey")])
    assert document_title(doc, "") == "DATA ANALYSIS RECIPES: USING MARKOV CHAIN MONTE CARLO"
    doc = doc_with([(DocItemLabel.TEXT, "Note: see the appendix"),  # not the title's case
                    (DocItemLabel.SECTION_HEADER, "USING MARKOV CHAIN MONTE CARLO")])
    assert document_title(doc, "") == "USING MARKOV CHAIN MONTE CARLO"


def test_a_lost_ligature_is_read_as_the_pages_other_reading_has_it() -> None:
    from citeloom.text import fill_lost_glyphs

    page = "MapReduce: Simplified. Programmers find the office “record” — we fit it"
    text = "MapReduce: Simpli\ufffded. Programmers \ufffdnd the o\ufffdce \ufffdrecord\ufffd"
    assert fill_lost_glyphs(text, page) == \
        "MapReduce: Simplified. Programmers find the office \ufffdrecord\ufffd"
    # a word the other reading does not have stays as it is; so does one it has elsewhere
    # but not beside this word's neighbours (Δt read as "fit")
    assert fill_lost_glyphs("a \ufffdsh", page) == "a \ufffdsh"
    assert fill_lost_glyphs("time intervals \ufffdt here", page) == "time intervals \ufffdt here"
    # a lost symbol alone, or before a capital, is no ligature
    assert fill_lost_glyphs("x \ufffd y \ufffdQ z", "x ffi y ffQ z") == "x \ufffd y \ufffdQ z"


def test_restructure_reads_a_lost_ligature_from_the_pdf(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The parser's U+FFFD for an unmapped "fi" (MapReduce, OSDI 2004), filled from PDFium's
    reading of the same page of a real file."""
    from citeloom.structure.restructure import restructure

    from .test_drafts import _pdf

    pdf = _pdf(tmp_path / "lig.pdf", [(72, 90, 10, "Programmers find the system easy to use."),
                                      (72, 104, 10, "Simplified data processing on clusters.")])
    doc = doc_with([(DocItemLabel.TEXT, "Programmers \ufffdnd the system easy to use."),
                    (DocItemLabel.TEXT, "Simpli\ufffded data processing on clusters.")])
    texts = [t.text for t in restructure(doc, pdf_path=pdf, strict=True).texts]
    assert texts == ["Programmers find the system easy to use.",
                     "Simplified data processing on clusters."]
    plain = doc_with([(DocItemLabel.TEXT, "Programmers \ufffdnd the system easy to use.")])
    assert "\ufffd" in restructure(plain, strict=True).texts[0].text  # no PDF: left
