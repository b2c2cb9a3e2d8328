"""Kinds of first pages the blind metadata sets (heldout4, heldout5) showed: a title item
that ran on into the byline, `\\thanks` stars, accents set apart by old TeX fonts, dates in
other forms and languages, institutions in a byline, version stamps, numbered headings and
notes about a published version (structure.metadata, structure.names, structure.titles)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..conftest import CORPUS

BODY = [("Body text of the paper goes on here.", 10.0, 300.0 + 12 * k) for k in range(8)]


@pytest.mark.parametrize(("rows", "title", "cut", "names"), [
    # title, \thanks-marked author, date: Docling made one title item of the three lines
    ([("Hexagon Binning: an Overview", 17.2, 100.0), ("Nicholas Lewin-Koh✯", 12.0, 130.0),
      ("January 8, 2021", 12.0, 150.0), *BODY],
     "Hexagon Binning: an Overview Nicholas Lewin-Koh✯ January 8, 2021",
     "Hexagon Binning: an Overview", ["Lewin-Koh, Nicholas"]),
    # a subtitle in a smaller type is the title's, not a byline
    ([("Sparse Model Matrices", 17.2, 100.0), ("A Guide for the Perplexed", 14.0, 125.0),
      ("Martin Maechler", 12.0, 150.0), *BODY],
     "Sparse Model Matrices A Guide for the Perplexed",
     "Sparse Model Matrices A Guide for the Perplexed", []),
    # nothing stands out in size: the title item is kept as it is
    ([("Quantile Regression in R Roger Koenker", 10.0, 100.0), *BODY],
     "Quantile Regression in R Roger Koenker", "Quantile Regression in R Roger Koenker", []),
])
def test_a_title_item_that_ran_on_into_the_byline_is_cut_at_the_largest_type(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, rows: list, title: str, cut: str,
        names: list[str]) -> None:
    import citeloom.convert.textlayer as textlayer
    from citeloom.structure.metadata import run_on

    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(b"%PDF-1.4\n")  # read by the stand-in below, not by PDFium
    monkeypatch.setattr(textlayer, "sized_rows", lambda *a, **k: rows)
    assert run_on(title, pdf) == (cut, names)


def test_a_footnote_star_glued_to_and_still_splits_the_names() -> None:
    from citeloom.structure.metadata import title_byline
    from citeloom.structure.names import parse_byline

    assert title_byline("Getting Started with doParallel and foreach Steve Weston✯and "
                        "Rich Calaway") == ("Getting Started with doParallel and foreach",
                                            ["Weston, Steve", "Calaway, Rich"])
    assert parse_byline("Anne Smith ⋆ Bob Jones ★") == ["Smith, Anne", "Jones, Bob"]


@pytest.mark.parametrize(("text", "composed"), [
    ("Steffen M¨oller", "Steffen Möller"),  # old TeX fonts (OT1) set the accent apart
    ("Fran¸cois Michonneau", "François Michonneau"),
    ("Ren´e Bri`ere, na¨ıve", "René Brière, naïve"),
    ("Jindˇrich Kolorenˇc", "Jindřich Kolorenč"),
    ("use `code` here", "use `code` here"),  # a backtick outside a word is no accent
])
def test_accents_set_apart_are_put_on_their_letters(text: str, composed: str) -> None:
    from citeloom.text import compose_accents

    assert compose_accents(text) == composed


@pytest.mark.parametrize(("text", "year"), [
    ("Qhull examples\nDavid C. Sterratt\n3rd February 2023", 2023),
    ("An Example of mi Usage\nBen Goodrich and Jonathan Kropko\n06/16/2014", 2014),
    ("Facture belge simple sans TVA\nSebille Robert\n27 octobre 2018", 2018),
    ("Ein Beispiel\nMax Mustermann\n29. März 2017", 2017),
    ("Un ejemplo\nAna García\n15 de marzo de 2019", 2019),
    ("Package foo\nVersion 1.2.3\nSee 1/2/3 for more.", None),
])
def test_dates_under_a_title_in_other_forms_and_languages(text: str, year: int | None) -> None:
    from citeloom.structure.years import paper_year as _year

    assert _year("", {}, text.split("\n"))[0] == year  # the lines under the title


@pytest.mark.parametrize("name", ["Virginia Tech", "FH Technikum Wien",
                                  "WU Wirtschaftsuniversität Wien", "Facultad de Ingeniería",
                                  "Hochschule Bremen", "Departimento di Informatica",
                                  "Former Normaliz", "Los Angeles", "Free Your Numbers",
                                  "Olivia Newton-John Cancer"])
def test_an_institution_in_a_byline_is_no_person(name: str) -> None:
    from citeloom.structure.names import person

    assert person(name) is None


@pytest.mark.parametrize(("title", "bare"), [
    ("Using the doRNG package doRNG package - Version 1.8.6", "Using the doRNG package"),
    ("The fastcluster package: User's manual Version 1.2.3",
     "The fastcluster package: User's manual"),
    ("An introduction to NMF package Version 0.25", "An introduction to NMF package"),
    ("Generating heatmaps for Nonnegative Matrix Factorization Package NMF - Version 0.25",
     "Generating heatmaps for Nonnegative Matrix Factorization"),
    ("Version 2 of the Survey Design", "Version 2 of the Survey Design"),
    ('Introduction to the "geosphere" package (Version 1.5-18)',
     'Introduction to the "geosphere" package'),
    ("Grouped one-dimensional data method comparison (vipor version 0.4.3)",
     "Grouped one-dimensional data method comparison"),
])
def test_a_version_stamp_is_no_part_of_a_title(title: str, bare: str) -> None:
    from citeloom.structure.titles import _VERSION_STAMP

    assert _VERSION_STAMP.sub("", title) == bare


def test_a_numbered_section_heading_is_never_the_title(converted) -> None:  # type: ignore[no-untyped-def]
    """A page from the middle of a paper (its first heading "5.1 Hyper Parameter
    Optimization"): no title, rather than a section's name."""
    from citeloom.structure.titles import document_title

    doc = converted(CORPUS / "text" / "docling__2305.03393v1-pg9.pdf")
    assert document_title(doc, "fallback") == "fallback"


@pytest.mark.parametrize(("text", "year"), [
    ("A version of this article describing the package dbscan was published as Hahsler, "
     "Piekenbrock, and Doran (2019) and should be cited.", 2019),
    ("This package vignette is an up-to-date version of Alfons and Templ (2013), published "
     "in the Journal of Statistical Software.", 2013),
    ("The version of this document you read was built in 2020.", None),  # not published
])
def test_a_note_about_the_published_version_in_other_words(text: str, year: int | None) -> None:
    from citeloom.structure.years import version_note_year as _version_note_year

    assert _version_note_year(text) == year


@pytest.mark.parametrize(("line", "names"), [
    ("Mark van der Loo", ["van der Loo, Mark"]),  # particles are no second person
    ("Paul E. Johnson <pauljohn @ ku.edu>", ["Johnson, Paul E."]),  # the address goes
    ("Jason P. Sinnwell∗and Daniel J. Schaid", ["Sinnwell, Jason P.", "Schaid, Daniel J."]),
    ("Société Mathématique de France", []),
    ("John Verzani, gWidgetsRGtk@gmail.com", ["Verzani, John"]),  # a bare address goes
    ("John Fox y Milan Bouchet-Valat", ["Fox, John", "Bouchet-Valat, Milan"]),  # Spanish "and"
    ("Hans Müller und Eva Schmidt", ["Müller, Hans", "Schmidt, Eva"]),
    ("John E Smith", ["Smith, John E"]),  # a capital E is an initial, not Italian "and"
    ("John Kiplinger Valerie Yaw", []),  # two people or one: not known
    # a group credited after the people is dropped, the people kept
    ("Michael Lawrence, Bioconductor Team", ["Lawrence, Michael"]),
    ("Anne Smith, Bob Jones and the R Core Team", ["Smith, Anne", "Jones, Bob"]),
    ("Bioconductor Core Team", []),
])
def test_bylines_the_blind_sets_showed(line: str, names: list[str]) -> None:
    from citeloom.structure.names import parse_byline

    assert parse_byline(line) == names


def test_a_workshop_masthead_gives_the_year() -> None:
    from citeloom.structure.years import paper_year as _year

    page = ["Proceedings of the 3rd International Workshop on Distributed Statistical "
            "Computing (DSC 2003)", "March 20–22, Vienna, Austria ISSN 1609-395X"]
    assert _year("", {}, None, page)[0] == 2003


def _doc_with_heading(text: str):  # type: ignore[no-untyped-def]
    from docling_core.types.doc import BoundingBox, DoclingDocument, ProvenanceItem

    doc = DoclingDocument(name="x")
    doc.add_heading(text=text, prov=ProvenanceItem(page_no=1, charspan=(0, len(text)),
                                                    bbox=BoundingBox(l=0, t=0, r=1, b=1)))
    return doc


@pytest.mark.parametrize(("heading", "rows", "title"), [
    # the largest type over the first heading (a \maketitle Docling did not mark)
    ("Models for Fire Calls",
     [("Introduction to Bayes Factors", 17.2, 164.0), ("Jim Albert", 12.0, 197.0),
      ("March 18, 2018", 12.0, 220.0), ("Models for Fire Calls", 14.3, 262.0), *BODY],
     "Introduction to Bayes Factors"),
    # ... unless the heading goes on where the largest type's rows stop (a subtitle)
    ("Support Vector Machines The Interface to libsvm in package e1071",
     [("Support Vector Machines", 17.2, 100.0), ("The Interface to libsvm", 14.0, 125.0),
      *BODY], "Support Vector Machines The Interface to libsvm in package e1071"),
    # two words are a title when they start the page in a type well above the body's
    ("1 Introduction",
     [("MultipleAlignment Objects", 17.2, 100.0), ("Marc Carlson", 12.0, 130.0),
      ("November 1, 2022", 12.0, 150.0), *BODY], "MultipleAlignment Objects"),
    # ... and not when they sit under other rows, or barely above the body's type (the
    # file's name, "paper", is the title then)
    ("1 Introduction",
     [("Technical Report 7", 12.0, 80.0), ("Extending GenomicRanges", 17.2, 100.0),
      *BODY], "paper"),
    ("1 Introduction", [("Extending GenomicRanges", 12.0, 100.0), *BODY], "paper"),
])
def test_page_ones_largest_type_before_its_first_heading(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, heading: str, rows: list,
        title: str) -> None:
    import citeloom.convert.textlayer as textlayer
    import citeloom.structure.titles as titles

    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(b"%PDF-1.4\n")
    monkeypatch.setattr(textlayer, "sized_rows", lambda *a, **k: rows)
    monkeypatch.setattr(titles, "pdf_metadata_title", lambda *a, **k: None)
    assert titles.title_of(_doc_with_heading(heading), pdf) == title


@pytest.mark.parametrize(("text", "year"), [
    ("(c) 2007–2008 Nicolas Vaughan", 2008),  # a range's end: this edition
    ("∗ ©2016–2022, Association for Computing Machinery", 2022),
    ("© 2019 Elsevier Ltd. All rights reserved.", 2019),
])
def test_a_copyright_range_gives_its_last_year(text: str, year: int) -> None:
    from citeloom.structure.years import paper_year as _year

    assert _year(text, {})[0] == year
