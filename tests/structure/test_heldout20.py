"""Shapes heldout20 showed (issue #27, item 5, session 28): more papers from GitHub
repositories — ACL's byline without separators over its e-mail addresses, IEEE's "IEEE
Student Member" after a name, a "?" for a mark the font lost, a city read as a person, a
lettered section head taken for a byline, a title whose last rows read like names, a
publisher's web page title in the PDF's info, a year in prose."""

from __future__ import annotations

from pathlib import Path

import pytest
from docling_core.types.doc import DocItemLabel

from citeloom.structure.names import email_locals, parse_byline, split_by_emails
from citeloom.structure.years import paper_year

from .test_drafts import _pdf
from .test_pdfmeta_more import doc_with


def test_a_run_of_names_split_by_their_addresses() -> None:
    locals_ = email_locals(["Google AI Language",
                            "{jacobdevlin,mingweichang,kentonl,kristout}@google.com"])
    assert locals_ == ["jacobdevlin", "mingweichang", "kentonl", "kristout"]
    run = "Jacob Devlin Ming-Wei Chang Kenton Lee Kristina Toutanova"
    assert split_by_emails(run, locals_) == ["Devlin, Jacob", "Chang, Ming-Wei",
                                             "Lee, Kenton", "Toutanova, Kristina"]
    # addresses in another order, or fewer of them, split nothing
    assert split_by_emails(run, locals_[::-1]) == []
    assert split_by_emails(run, locals_[:3]) == []
    assert email_locals(["a.smith@uni.edu, bjones@x.org"]) == ["asmith", "bjones"]


@pytest.mark.parametrize(("line", "names"), [
    ("Ricard Delgado-Gonzalo, Jakub Parak, IEEE Student Member, Adrian Tarniceriu",
     ["Delgado-Gonzalo, Ricard", "Parak, Jakub", "Tarniceriu, Adrian"]),
    ("Moshe Y. Vardi ?", ["Vardi, Moshe Y."]),
    ("N. Rahbany 1 , D. Legrand 1 , M. Atature?, R. Bachelot 1",
     ["Rahbany, N.", "Legrand, D.", "Atature, M.", "Bachelot, R."]),
    ("Sankt Augustin, Germany", []),
])
def test_bylines(line: str, names: list[str]) -> None:
    assert parse_byline(line) == names


def test_the_header_ends_at_ieees_first_section_head() -> None:
    from citeloom.structure.metadata import _HEADER_END

    assert _HEADER_END.match("II. PHOTOPLETHYSMOGRAPHY AND WEARABLE HR MONITORING")
    assert not _HEADER_END.match("V. Kumar, A. Singh")
    assert not _HEADER_END.match("V. KUMAR")


def test_a_year_in_prose_is_not_the_papers() -> None:
    lines = ["Response to Lilley, Lilley, and Rinaldi (2020)",
             "Sergio Correia, Stephan Luck, Emil Verner", "May 15, 2020",
             "the 1917 city-level population estimates published in a 1917 Bulletin"]
    text = "\n".join(lines)
    assert paper_year(text, {}, lines[1:3], lines, whole=text)[0] == 2020


def test_a_title_all_in_the_titles_type_is_no_byline(tmp_path: Path) -> None:
    """The last row of a three-row title reads like a name ("Synchronized Geotagging"):
    set in the title's type, it is the title's."""
    from citeloom.structure.metadata import document_metadata

    title = ("A Decentralized, Self-Healing Road Infrastructure Mapping Network Using Edge "
             "AI and Spatially Synchronized Geotagging")
    pdf = _pdf(tmp_path / "t.pdf", [
        (72, 60, 24, "A Decentralized, Self-Healing Road Infrastructure"),
        (72, 88, 24, "Mapping Network Using Edge AI and Spatially"),
        (72, 116, 24, "Synchronized Geotagging"),
        (72, 150, 11, "Balasubramanian"),
        (72, 164, 10, "Department of Mechanical Engineering"),
        (72, 200, 9, "Abstract—Traditional road surface monitoring systems rely on costly"),
        *[(72, 212 + 12 * k, 9, "audits or specialized inspection vehicles with laser scanners.")
          for k in range(8)]])
    doc = doc_with([(DocItemLabel.TITLE, title), (DocItemLabel.TEXT, "Balasubramanian")])
    meta = document_metadata(doc, pdf, title)
    assert meta["title"] == title and "authors" not in meta


def test_a_web_pages_title_in_the_info_dictionary(tmp_path: Path) -> None:
    from citeloom.structure.titles import pdf_metadata_title

    pdf = _pdf(tmp_path / "siam.pdf", [(72, 90, 10, "EIGENVALUES OF DUAL HERMITIAN MATRICES")],
               title="Eigenvalues of Dual Hermitian Matrices with Application in Formation "
                     "Control | SIAM Journal on Matrix Analysis and Applications | Vol. 45")
    assert pdf_metadata_title(pdf) == ("Eigenvalues of Dual Hermitian Matrices with "
                                       "Application in Formation Control")
