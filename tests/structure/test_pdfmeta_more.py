"""Authors and year found in real papers' first pages (``pdfmeta``), across layouts: a
biomedical journal with family names in capitals, a JSS-style byline with affiliations
(one name per line in the text layer; the info dictionary completes Docling's paragraph),
two initialed names on one line under a date, an R News paper in capitals with "AND", a
title the title finder ran the byline into, names set side by side, a journal's side
column and a report's names over its title. Each paper's first two pages are converted
for real (no OCR)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from citeloom.payload import family_name
from citeloom.structure.metadata import PDF_METADATA, PDF_TEXT, document_metadata
from citeloom.structure.names import parse_byline

from ..conftest import CORPUS, SHARED

CORPUS2 = SHARED / "corpus2" / "pdfs"
PAPERS = {
    "cermine__example3": CORPUS / "text" / "cermine__example3.pdf",
    "coin__MAXtest": CORPUS2 / "coin__MAXtest.pdf",
    "mcmc__morph": CORPUS2 / "mcmc__morph.pdf",
    "mvtnorm__MVT_Rnews": CORPUS2 / "mvtnorm__MVT_Rnews.pdf",
    "robustbase__psi_functions": CORPUS2 / "robustbase__psi_functions.pdf",
    # names whose lines and columns only the text layer keeps apart
    "survival__timedep": CORPUS2 / "survival__timedep.pdf",
    "ape__RandomTopologies": CORPUS2 / "ape__RandomTopologies.pdf",
    "Matrix__Intro2Matrix": CORPUS2 / "Matrix__Intro2Matrix.pdf",
    "cermine__test6": CORPUS / "text" / "cermine__test6.pdf",
    "p2md__open_access": CORPUS / "text"
    / "p2md__The-Impact-of-Open-Access-Latin-American-Scholarship.pdf",
}
pytestmark = pytest.mark.skipif(not all(p.is_file() for p in PAPERS.values()),
                                reason="the shared corpus is not there")


@pytest.fixture(scope="module")
def found(models_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """name -> (title the executor finds, document_metadata) for each paper."""
    import pypdfium2 as pdfium

    from citeloom.convert.converter import build_converter, convert_file
    from citeloom.provision import layout_model_path
    from citeloom.structure.restructure import restructure
    from citeloom.structure.titles import title_of

    conv = build_converter(ocr=False, layout_model_path=layout_model_path(models_dir))
    out: dict[str, Any] = {}
    folder = tmp_path_factory.mktemp("first_pages")
    for name, src in PAPERS.items():
        pdf = pdfium.PdfDocument(str(src))
        two = pdfium.PdfDocument.new()
        two.import_pages(pdf, list(range(min(2, len(pdf)))))
        copy = folder / src.name
        two.save(str(copy))
        doc = restructure(convert_file(copy, conv), pdf_path=copy)
        title = title_of(doc, src)  # the executor's: page 1's text layer is the same
        out[name] = (title, document_metadata(doc, src, title))  # the info dict: the file's
    return out


def families(meta: dict[str, Any]) -> list[str]:
    return [family_name(a) for a in meta.get("authors", [])]


def test_capitalised_family_names_and_the_journal_line(found: dict[str, Any]) -> None:
    _, meta = found["cermine__example3"]
    assert families(meta)[:3] == ["Douglas", "Sharma", "Masuyer"]
    assert meta["authors"][0] == "Douglas, Ross G."
    assert meta["year"] == 2014
    assert meta["metadata_source"]["authors"] == meta["metadata_source"]["year"] == PDF_TEXT


def test_byline_with_affiliations_name_by_name(found: dict) -> None:
    # "Ludwig A. Hothorn / Leibniz Universität Hannover / Torsten Hothorn / Ludwig-
    # Maximilians-Universität München": the text layer keeps the lines apart.
    _, meta = found["coin__MAXtest"]
    assert meta["authors"] == ["Hothorn, Ludwig A.", "Hothorn, Torsten"]
    assert meta["metadata_source"]["authors"] == PDF_TEXT
    assert meta["year"] == 2009  # "Copyright © 2009 WILEY-VCH"


def test_a_byline_completed_by_the_info_dictionary() -> None:
    """Docling's reading of the same page, one paragraph: the text gives the first name,
    the info dictionary both, and the first pages show both."""
    from citeloom.structure.metadata import _authors

    line = ("Ludwig A. Hothorn Leibniz Universität Hannover Torsten Hothorn "
            "Ludwig-Maximilians-Universität München")
    title = "Order-restricted Scores Test for the Evaluation of Population-based Studies"
    info = {"Author": "Ludwig A. Hothorn, Torsten Hothorn"}
    assert _authors([title, line, "Abstract"], {}, line, title)[0] == ["Hothorn, Ludwig A."]
    assert _authors([title, line, "Abstract"], info, line, title) == (
        ["Hothorn, Ludwig A.", "Hothorn, Torsten"], PDF_METADATA)


def test_two_initialed_names_on_one_line_and_the_date_under_the_title(found: dict) -> None:
    # "Leif T. Johnson Charles J. Geyer" / "March 20, 2020": it used to be one person,
    # "Geyer, Leif T. Johnson Charles J.".
    _, meta = found["mcmc__morph"]
    assert meta["authors"] == ["Johnson, Leif T.", "Geyer, Charles J."]
    assert meta["year"] == 2020 and meta["metadata_source"]["year"] == PDF_TEXT


def test_names_in_capitals_joined_by_capital_and(found: dict) -> None:
    # "TORSTEN HOTHORN, FRANK BRETZ, AND ALAN GENZ" (it gave "Genz, And Alan"); R News
    # 1(2) is cited without a year, and no other year is on the page: none is made up.
    _, meta = found["mvtnorm__MVT_Rnews"]
    assert meta["authors"] == ["Hothorn, Torsten", "Bretz, Frank", "Genz, Alan"]
    assert "year" not in meta and "year" not in meta["metadata_source"]


def test_a_byline_run_into_the_title_is_taken_out_of_it(found: dict) -> None:
    title, meta = found["robustbase__psi_functions"]
    assert "Koller" in title  # the title finder's line has the names …
    assert meta["title"] == "Definitions of ψ-Functions Available in Robustbase"  # … not now
    assert meta["authors"] == ["Koller, Manuel", "Mächler, Martin"]
    assert meta["year"] == 2022  # "April 2, 2022" under it


def test_names_set_side_by_side_are_split_where_the_page_parts_them(found: dict) -> None:
    # Docling: "Terry Therneau Cynthia Crowson Elizabeth Atkinson Mayo Clinic", one line
    _, meta = found["survival__timedep"]
    assert meta["authors"] == ["Therneau, Terry", "Crowson, Cynthia", "Atkinson, Elizabeth"]
    assert meta["metadata_source"]["authors"] == PDF_TEXT


def test_a_name_docling_ran_into_the_title_is_found_on_its_own_line(found: dict) -> None:
    # Docling: "Enumeration and Simulation of Random Tree Topologies Emmanuel Paradis"
    title, meta = found["ape__RandomTopologies"]
    assert title == "Enumeration and Simulation of Random Tree Topologies"  # largest type
    assert meta["authors"] == ["Paradis, Emmanuel"]
    assert meta["year"] == 2023  # "February 13, 2023" under the name


def test_the_group_under_the_names_is_no_author(found: dict) -> None:
    # "Martin Maechler and Douglas Bates" / "R Core Development Team" / their addresses
    _, meta = found["Matrix__Intro2Matrix"]
    assert meta["authors"] == ["Maechler, Martin", "Bates, Douglas"]


def test_a_side_column_above_the_title_is_not_the_byline(found: dict) -> None:
    # PeerJ: "Corresponding author / Mary J. O'Connell" comes first in the text layer
    _, meta = found["cermine__test6"]
    assert families(meta) == ["Webb", "Walsh", "O'Connell"]


def test_names_over_a_reports_title(found: dict) -> None:
    # "December 19, 2019 / John Kiplinger / Valerie Yaw / The Impact of Open Access ..."
    _, meta = found["p2md__open_access"]
    assert meta["authors"] == ["Kiplinger, John", "Yaw, Valerie"]


def test_the_text_layers_rows_and_a_cover_that_names_roles() -> None:
    from citeloom.convert.textlayer import page_rows
    from citeloom.structure.header import layer_rows

    rows = page_rows(CORPUS2 / "survival__timedep.pdf", 1)
    assert "Terry Therneau, Cynthia Crowson, Elizabeth Atkinson" in rows
    assert rows.index("Mayo Clinic") == rows.index(
        "Terry Therneau, Cynthia Crowson, Elizabeth Atkinson") + 1
    # A thesis cover: "Supervisor: Author:" over "John Doe John Smith" — the text layer
    # cannot say which is which, so Docling's reading stands.
    cover = CORPUS2 / "texlive__elteikthesis_en.pdf"
    assert any("John Doe" in r for r in page_rows(cover, 1))
    assert layer_rows(cover, None, "Title of the thesis") == ([], [])


@pytest.mark.parametrize(("name", "title"), [
    ("mcmc__bfst", "Bayes Factors via Serial Tempering"),  # Docling: plain text
    ("lmtest__lmtest-intro", "Diagnostic Checking in Regression Relationships"),
    ("mvtnorm__MVT_Rnews", None),  # capitals in the body's own size: nothing stands out
])
def test_the_title_in_the_largest_type_on_page_one(name: str, title: str | None) -> None:
    from citeloom.structure.titles import layer_title

    assert layer_title(CORPUS2 / f"{name}.pdf") == title


def test_no_author_is_made_of_title_words(found: dict) -> None:
    for name, (title, meta) in found.items():
        words = {w.lower() for w in meta.get("title", title).split() if len(w) > 3}
        for author in meta.get("authors", []):
            assert not words & {w.lower().strip(",.") for w in author.split()}, (name, author)


@pytest.mark.parametrize("line", [
    "Heavy Mesons In A Relativistic Model",
    "Model, Heavy Mesons In A Relativistic",
    "Simultaneous Inference in General Parametric Models",
    "Bayesian Analysis and Data Processing",
    "Andrew W. Mellon Foundation Grant 1711-05155",
    "John Kiplinger Valerie Yaw",  # two people or one: not known, so none
])
def test_lines_that_are_not_bylines(line: str) -> None:
    assert parse_byline(line) == []


@pytest.mark.parametrize(("line", "names"), [
    ("by Dr. Jens Oehlschlägel", ["Oehlschlägel, Jens"]),
    ("TORSTEN HOTHORN, FRANK BRETZ, AND ALAN GENZ",
     ["Hothorn, Torsten", "Bretz, Frank", "Genz, Alan"]),
    ("Leif T. Johnson Charles J. Geyer", ["Johnson, Leif T.", "Geyer, Charles J."]),
])
def test_bylines(line: str, names: list[str]) -> None:
    assert parse_byline(line) == names


@pytest.mark.parametrize(("text", "year"), [
    ("Journal of Statistical Software\nMay 2004, Volume 11, Issue 9. http://www.jstatsoft.org/",
     2004),
    ("R News Vol. 2/2, June 2002 ISSN 1609-3631", 2002),
    ("arXiv:2206.01062v1 [cs.CL] 2 Jun 2022", 2022),
    ("see arXiv:1706.03762 for the model", None),  # a citation of another preprint
])
def test_year_lines(text: str, year: int | None) -> None:
    from citeloom.structure.years import paper_year as _year

    assert _year(text, {})[0] == year


@pytest.mark.parametrize(("header", "year"), [
    (["Martin Maechler", "September 2006 (typeset on November 10, 2022)"], 2006),
    (["Antoine Missier", "2023/01/06"], 2023),
    (["Supervisor: Author:", "Budapest, 2022"], 2022),
    (["Department of Statistics, 1650 Main Street"], None),
])
def test_year_from_the_date_under_the_title(header: list[str], year: int | None) -> None:
    from citeloom.structure.years import paper_year as _year

    assert _year("", {}, header)[0] == year


# Publisher layouts (issue #27), on hand-written lines that mimic them: ACM (acmart),
# Elsevier (elsarticle, cas), revtex, AASTeX, ASME/DAFx-style proceedings, EJP-style
# journal lines, PTP-style marks, thesis title pages. Each was missed or wrong before.


def _doc(lines: list[str]) -> Any:
    """A document whose page 1 is these lines, in order."""
    from docling_core.types.doc import BoundingBox, DocItemLabel, DoclingDocument, ProvenanceItem

    doc = DoclingDocument(name="sample")
    for line in lines:
        doc.add_text(label=DocItemLabel.TEXT, text=line, prov=ProvenanceItem(
            page_no=1, bbox=BoundingBox(l=0, t=0, r=1, b=1), charspan=(0, len(line))))
    return doc


@pytest.mark.parametrize(("line", "names"), [
    # Elsevier's affiliation letters (and a role in brackets)
    ("Anna K. Lindqvist a,b,∗, Marco Bellini b (Co-ordinator), Tomás Ruiz a,c",
     ["Lindqvist, Anna K.", "Bellini, Marco", "Ruiz, Tomás"]),
    # marks closed by a bracket, a journal of physics
    ("Kenji Sato1,∗) and Emi Tanaka2,∗∗)", ["Sato, Kenji", "Tanaka, Emi"]),
    # names set apart only by their footnote symbols
    ("Ingrid Holm ‡ Pavel Novak §", ["Holm, Ingrid", "Novak, Pavel"]),
    # a thesis's degree, a generation suffix
    ("by Ruth A. Miller, B.A.", ["Miller, Ruth A."]),
    ("Carl W. Berg Jr, Dana Fox", ["Berg, Carl W.", "Fox, Dana"]),
    # initials run together in a publisher's reference
    ("Lee Chang, H.J.K. Park, and Omar Haddad",
     ["Chang, Lee", "Park, H.J.K.", "Haddad, Omar"]),
    # a name's own last letter is no affiliation letter
    ("Maria Costa and Ivo Pla", ["Costa, Maria", "Pla, Ivo"]),
])
def test_publisher_bylines(line: str, names: list[str]) -> None:
    assert parse_byline(line) == names


@pytest.mark.parametrize(("text", "year"), [
    # ACM's reference to the paper itself
    ("ACM Reference Format:\nPriya Raman, Tomasz Wójcik, and Lee Chang. 2019. Sparse "
     "Widgets. In Proc. of Something. ACM, 12 pages.", 2019),
    ("(Dated: March 3, 2016)", 2016),  # revtex
    ("Draft version May 2, 2020 Typeset using some class", 2020),  # AASTeX
    ("Preprint submitted to Journal of Imaginary Things March 9, 2015", 2015),  # Elsevier
    ("Received 3 May 2010; revised 1 June 2011; accepted 2 July 2011", 2011),  # the last
    ("(Received April 2, 2003; revised November 21, 2007)", 2007),
    ("Electron. J. Things 7 (2013), paper no. 12, 1-20.", 2013),
    ("We received 40 responses in March 2019 and more later.", None),  # no history line
    ("regression.\nVersion: June 28, 2019.\n1", 2019),  # a vignette's version line
    ("First version: May 2016\nThis version: March 3, 2018", 2018),
    # the document's own build line (a date the reader sees on its page)
    ("This document corresponds to version 1.0.8 and was typeset on January 11, 2022.", 2022),
    ("This version was compiled on February 10, 2020 with R 3.6", 2020),
    ("Samples were processed on 3 May 2019 in the lab.", None),  # not the document's
    ("the version: June 2, 2004 release notes", None),  # not a line's start
])
def test_publisher_year_lines(text: str, year: int | None) -> None:
    from citeloom.structure.years import paper_year as _year

    assert _year(text, {})[0] == year


@pytest.mark.parametrize(("name", "expected"), [
    ("ETH Zurich", None),  # an institution's acronym before a word
    ("MRC Biostatistics Unit", None),
    ("Epigenomics AG", None),  # a company
    ("CV Radhakrishnan", "Radhakrishnan, CV"),  # initials without their dots
    ("Wei WANG", "Wang, Wei"),  # a family name in capitals
])
def test_an_acronym_or_a_company_is_no_person(name: str, expected: str | None) -> None:
    from citeloom.structure.names import person

    assert person(name) == expected


def test_a_date_line_from_the_text_layer_and_a_footnote_mark_after_a_cited_year() -> None:
    from citeloom.structure.years import paper_year as _year

    assert _year("", {}, ["Version 1.7", "27 November, 2022"])[0] == 2022
    # "(1992) 1 ," is a citation with its footnote mark, not a journal's volume
    assert _year("see DiDonato and Morris (1992) 1 , and further references", {})[0] is None
    assert _year("Clinical Science (2014) 126, 305-313", {})[0] == 2014


@pytest.mark.parametrize(("row", "continued"), [
    ("Extended Model Formulas in R: Multiple Parts and", True),
    ("A Study of", True), ("Widgets:", True),
    ("Extended Model Formulas in R", False), ("Ann Writer and Bo Lee", False),
])
def test_a_title_row_that_ends_mid_phrase_goes_on(row: str, continued: bool) -> None:
    from citeloom.structure.header import _CONTINUED

    assert bool(_CONTINUED.search(row)) == continued


def test_the_date_under_the_title_comes_before_the_build_line() -> None:
    from citeloom.structure.years import paper_year as _year

    text = "A Vignette\nAnn Writer\nMay 2004\nThis file was typeset on June 1, 2021."
    assert _year(text, {}, ["A Vignette", "Ann Writer", "May 2004"])[0] == 2004
    assert _year(text, {}, ["A Vignette", "Ann Writer"])[0] == 2021


@pytest.mark.parametrize(("line", "year"), [
    ("Conference'21, July 12–16, 2021, Somewhere, XY", 2021),  # ACM's footer
    ("Proc. of the 3rd Workshop on Widgets (WW-12), Oslo, Norway, May 4-6, 2012", 2012),
    ("Proceedings of the ABCD 2017 Summer Meeting on Things", 2017),
    ("Extended Abstracts of a Conference October 30–November 3, 2019, Town", 2019),
    # a conference cited in the text or the reference list is not the paper's
    ("Smith et al. reported at the meeting (July 10–15, 2018) that widgets fail.", None),
    ("[4] A. Writer. Widgets. In Proc. of a Conf., June 3-5, 2004.", None),
])
def test_the_conference_line_of_page_one(line: str, year: int | None) -> None:
    from citeloom.structure.years import paper_year as _year

    assert _year(line, {}, [], [line])[0] == year


@pytest.mark.parametrize(("whole", "year"), [
    # the notes of three corpus2 vignettes (network p1, seriation p2, kernlab p20)
    ("PLEASE NOTE: This document has been modified from the original paper. The original "
     "paper is: network: A Package for Managing Relational Data in R. Journal of Statistical "
     "Software 24:2, 2008. Later versions of the package have new functions.", 2008),
    ("A previous version of this manuscript was published in the Journal of Statistical "
     "Software (Hahsler, Hornik, and Buchta 2008). Since then the package has grown (2017).",
     2008),
    ("A shorter version of this introduction to the R package kernlab is published as "
     "Karatzoglou, Smola, Hornik, and Zeileis (2004) in the Journal of Statistical Software.",
     2004),
    # the notes of five dev3 vignettes (flexmix, sandwich, strucchange, spam, zoo: p1-2)
    ("Abstract This article was originally published as Leisch (2004b) in the Journal of "
     "Statistical Software. FlexMix implements a general framework (2007).", 2004),
    ("This introduction to the R package sandwich is a (slightly) modified version of Zeileis "
     "(2004), published in the Journal of Statistical Software. A follow-up paper (Zeileis "
     "2006b).", 2004),
    ("This introduction to the R package strucchange is a (slightly) modi ed version of "
     "Zeileis, Leisch, Hornik, and Kleiber (2002), which reviews tests for structural change "
     "in linear regression models.", 2002),
    ("Keywords: MCMC, GMRF, R. This document was published in a similar form in Gerber F, "
     "Furrer R (2015). \u201cPitfalls in the Implementation of Bayesian Hierarchical "
     "Modeling.\u201d Journal of Statistical Software, 63(1).", 2015),
    ("A previous version to this introduction to the R package zoo has been published as "
     "Zeileis and Grothendieck (2005) in the Journal of Statistical Software.", 2005),
    # another document: a conference or preliminary version; two years: which one?
    ("This article was originally published in the Proceedings of ICML 2019.", None),
    ("This method is a modified version of Zeileis (2004), published in a journal.", None),
    ("This paper is a modified version of the estimator of Smith (2004) and Lee (2006).",
     None),
    ("A preliminary version of this paper appeared in the Proceedings of ICML 2019.", None),
    ("An earlier version of this paper was published in 2001 and revised in 2003.", None),
    ("The original paper is: a draft we never finished, 2010.", None),  # no venue
    ("Smith (2004) published the original method; we extend it.", None),  # no own note
])
def test_the_note_about_the_published_version(whole: str, year: int | None) -> None:
    from citeloom.structure.years import paper_year as _year

    assert _year("Some Title\nJane Author", {}, [], [], whole=whole)[0] == year


def test_thesis_title_page_years() -> None:
    from citeloom.structure.years import paper_year as _year

    statement = ("A dissertation submitted in partial fulfillment of the requirements for the "
                 "degree of Doctor of Philosophy in The University of Somewhere 2016")
    assert _year("", {}, [], [statement])[0] == 2016
    assert _year("", {}, ["Jane Q. Public", "A THESIS", "2019"])[0] == 2019
    assert _year("", {}, [], ["Dissertation on 1984 Olympics"])[0] is None


def test_the_papers_own_reference_gives_its_authors() -> None:
    # ACM: author blocks read out of order (columns), the reference format has them all
    doc = _doc(["Sparse Widgets", "Priya Raman Some University Town, Country Lee Chang",
                "Tomasz Wójcik", "Another Lab", "ABSTRACT", "Widgets are sparse.",
                "ACM Reference Format:",
                "Priya Raman, Tomasz Wójcik, and Lee Chang. 2019. Sparse Widgets. In Proc."])
    meta = document_metadata(doc, None, "Sparse Widgets")
    assert meta["authors"] == ["Raman, Priya", "Wójcik, Tomasz", "Chang, Lee"]
    assert meta["year"] == 2019


def test_author_blocks_name_then_affiliation() -> None:
    doc = _doc(["Sparse Widgets", "Ana Pereira∗", "Department of Physics, University of X",
                "Rui Costa", "Institute of Other Things, Elsewhere", "Lia Ramos Mota",
                "Department of Y, University of Z", "Abstract", "Widgets are sparse."])
    meta = document_metadata(doc, None, "Sparse Widgets")
    assert meta["authors"] == ["Pereira, Ana", "Costa, Rui", "Mota, Lia Ramos"]


def test_author_blocks_whose_affiliations_read_like_names() -> None:
    # Rcpp's JSS vignette (dev3): each author's affiliation on the line under the name,
    # one a project, one a group whose name starts with a bare letter
    doc = _doc(["Rcpp: Seamless R and C++ Integration", "Dirk Eddelbuettel", "Debian Project",
                "Romain François", "R Enthusiasts", "Abstract", "The Rcpp package simplifies "
                "integrating C++ code with R."])
    meta = document_metadata(doc, None, "Rcpp: Seamless R and C++ Integration")
    assert meta["authors"] == ["Eddelbuettel, Dirk", "François, Romain"]


def test_a_run_of_names_split_by_the_papers_own_citation_of_itself() -> None:
    # strucchange's vignette (dev3), as Docling gives it: page 1 in one item, four names
    # with nothing between them, and the version note that names the same four
    title = "strucchange: An R Package for Testing for Structural Change"
    doc = _doc([f"{title} Achim Zeileis Friedrich Leisch Kurt Hornik Christian Kleiber "
                "Abstract This introduction to the R package strucchange is a (slightly) "
                "modified version of Zeileis, Leisch, Hornik, and Kleiber (2002), which "
                "reviews tests for structural change."])
    meta = document_metadata(doc, None, title)
    assert meta["authors"] == ["Zeileis, Achim", "Leisch, Friedrich", "Hornik, Kurt",
                               "Kleiber, Christian"]
    assert meta["year"] == 2002
    # the title finder found no title (the file's name stands in): the names close the
    # part of the item before its Abstract
    meta = document_metadata(doc, None, "strucchange__strucchange-intro")
    assert meta["authors"][0] == "Zeileis, Achim" and len(meta["authors"]) == 4
    # without a citation that fits the run word for word, the run is not guessed at
    for cited in ("Zeileis, Leisch, and Hornik (2002)", "Zeileis and Kleiber (2002)",
                  "Leisch, Zeileis, Hornik, and Kleiber (2002)"):
        doc = _doc([f"{title} Achim Zeileis Friedrich Leisch Kurt Hornik Christian Kleiber "
                    f"Abstract We extend {cited} to new tests."])
        assert "authors" not in document_metadata(doc, None, title), cited


def test_a_byline_that_ends_with_its_typesetting_date() -> None:
    # TH.data's supplement (dev3): the names and the date on one line
    title = "The Impact of Prepartum Factor XIII Activity on Postpartum Blood Loss"
    doc = _doc([title, "Christian Haslinger, Wolfgang Korte, Torsten Hothorn, Romana Brun, "
                "Charles Greenberg, Roland Zimmermann Processed and Typeset: April 25, 2022",
                "This dynamic document contains the patient-level data as well as computer "
                "source codes for the reproduction of tables and figures."])
    meta = document_metadata(doc, None, title)
    assert meta["authors"][-1] == "Zimmermann, Roland" and len(meta["authors"]) == 6
    assert meta["year"] == 2022


@pytest.mark.parametrize("line", ["R Enthusiasts", "R Core", "Debian Project"])
def test_a_bare_letter_or_a_project_is_no_person(line: str) -> None:
    assert parse_byline(line) == []


def test_a_heading_after_running_text_is_no_byline() -> None:
    # the title finder took a section heading; the lines under it are the body
    doc = _doc(["SUBMISSION OF FILES", "Each author should submit the file and all the "
                "sources so that the paper can be rebuilt when there are problems.",
                "General Layout", "These instructions are typical."])
    assert "authors" not in document_metadata(doc, None, "SUBMISSION OF FILES")


def test_a_laboratory_named_after_people_is_not_a_byline() -> None:
    from citeloom.structure.metadata import _lead_name

    assert _lead_name("Rohsen Kendle Heat Transfer Laboratory, Department of Engineering") \
        == []
    assert _lead_name("Carter T. Butts Department of Sociology, University of California") \
        == ["Butts, Carter T."]
    assert _lead_name("Hana Novak Leibniz Universität Hannover") == ["Novak, Hana"]


def test_a_title_that_starts_like_a_section() -> None:
    # "Introduction to ..." is the title, not the first section: the byline is under it
    doc = _doc(["Introduction to the Widget Class", "Ingrid Holm ‡ Pavel Novak §",
                "Abstract", "Widgets."])
    meta = document_metadata(doc, None, "Introduction to the Widget Class")
    assert meta["authors"] == ["Holm, Ingrid", "Novak, Pavel"]


def test_a_name_whose_family_is_the_address_on_its_line() -> None:
    # R's Matrix vignette: name, group and e-mail address on one line under the title
    doc = _doc(["Sparse Model Matrices",
                "Martin Maechler R Core Development Team maechler@R-project.org",
                "July 2007, 2008 (typeset on November 10, 2022)", "Introduction",
                "Model matrices are often practically sparse."])
    assert document_metadata(doc, None, "Sparse Model Matrices")["authors"] == [
        "Maechler, Martin"]
    from citeloom.structure.metadata import _lead_name

    assert _lead_name("Ana Pereira Widget Working Group ana.pereira@example.org") == [
        "Pereira, Ana"]
    # the address names someone else (a secretary, a list): no name is taken from it
    assert _lead_name("Ana Pereira Widget Working Group office@example.org") == []
    assert _lead_name("Widget Working Group widgets@example.org") == []


@pytest.mark.parametrize(("rows", "title"), [
    # a title over two rows, right under each other, then the byline and the body
    ([("A Study of Things", 17.2, 100), ("in Several Places", 17.2, 121),
      ("Jane Roe", 12, 150), *[("Body text of the page goes on here.", 10, 200 + k)
                               for k in range(6)]], "A Study of Things in Several Places"),
    # a banner in the title's type, a volume line, then the title: the banner is no title
    ([("Journal of Foo Studies", 17.2, 40), ("Vol. 3, 2020", 9, 60),
      ("A Study of Things", 17.2, 100), *[("Body text.", 10, 200 + k) for k in range(6)]],
     None),
    # the largest type is a numbered heading, or letter-spaced capitals
    ([("1 Results of the Experiments", 14, 100), *[("Body.", 10, 200 + k) for k in range(6)]],
     None),
    ([("U N I V E R S I T Y Of Somewhere", 20, 60), ("A Thesis About Things", 17, 120),
      *[("Body.", 10, 200 + k) for k in range(6)]], None),
    # rows of the largest type far apart on the page are not one title
    ([("Title Words Here Now", 17.2, 100), ("Other Large Words Later", 17.2, 400),
      *[("Body.", 10, 200 + k) for k in range(6)]], "Title Words Here Now"),
    # nothing larger than the body's type
    ([("Quantile Regression in R", 10, 100), *[("Body.", 10, 200 + k) for k in range(6)]],
     None),
])
def test_which_rows_of_the_largest_type_make_a_title(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, rows: list, title: str | None) -> None:
    import citeloom.convert.textlayer as textlayer
    from citeloom.structure.titles import layer_title

    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(b"%PDF-1.4\n")  # read by the stand-in below, not by PDFium
    monkeypatch.setattr(textlayer, "sized_rows", lambda *a, **k: rows)
    assert layer_title(pdf) == title


def test_raised_marks_are_set_apart_in_the_rows_and_a_particle_is_no_name() -> None:
    from citeloom.convert.textlayer import page_rows
    from citeloom.structure.names import person

    rows = page_rows(CORPUS2 / "coin__LegoCondInf.pdf", 1)
    byline = next(r for r in rows if "Hothorn" in r)
    assert "Hothorn 1" in byline and "Hornik 2" in byline  # not "Hothorn1", "Hornik2"
    assert parse_byline(byline) == ["Hothorn, Torsten", "Hornik, Kurt"]
    assert person("di Giove") is None  # a particle and a family name: no given name
    assert person("Graduate Interdisciplinary Program") is None


@pytest.mark.parametrize(("name", "year"), [
    ("Rcpp__Rcpp-jss-2011.pdf", 2011),
    ("Smith - 2019 - Deep learning of things.pdf", 2019),  # Zotero's file names
    ("smith2019deep.pdf", 2019),
    ("2003.12345v2.pdf", None),  # an arXiv id: March 2020, not 2003
    ("a_2019_b_2020.pdf", None),  # two years: which?
    ("report-12019.pdf", None),
    ("spam__jss15.pdf", None),
])
def test_a_year_the_file_name_gives(name: str, year: int | None) -> None:
    from citeloom.structure.header import file_name_year

    assert file_name_year(Path(name)) == year


def test_the_page_s_year_wins_over_the_file_name_s(tmp_path: Path) -> None:
    from docling_core.types.doc import BoundingBox, DocItemLabel, DoclingDocument, ProvenanceItem

    from citeloom.structure.metadata import FILE_NAME

    def doc(*lines: str) -> DoclingDocument:
        d = DoclingDocument(name="x")
        for line in lines:
            d.add_text(label=DocItemLabel.TEXT, text=line, prov=ProvenanceItem(
                page_no=1, bbox=BoundingBox(l=0, t=0, r=1, b=1), charspan=(0, len(line))))
        return d

    path = tmp_path / "Smith - 2011 - A study of things.txt"  # (no PDF: nothing else to read)
    title = "A Study of Things"
    undated = document_metadata(doc(title, "Jane Smith", "Abstract"), path, title)
    assert undated["year"] == 2011 and undated["metadata_source"]["year"] == FILE_NAME
    dated = document_metadata(doc(title, "Jane Smith", "June 2013", "Abstract"), path, title)
    assert dated["year"] == 2013 and dated["metadata_source"]["year"] == PDF_TEXT


@pytest.mark.parametrize(("lines", "title", "authors"), [
    # heldout11's gnuplot: the title finder missed the title, whose line runs into the names
    (["gnuplot 5.4", "An Interactive Plotting Program Thomas Williams & Colin Kelley",
      "Version 5.4 organized by: Ethan A Merritt and many others"], "gnuplot",
     ["Williams, Thomas", "Kelley, Colin"]),
    # ... but a list that a label or an earlier clause introduces is no byline
    (["Widgets 3.9", "Former team members: Tim Römer, Richard Sieg and Christof Söger"],
     "Widgets 3.9", []),
    # DejaGnu: the first author and "et al." before the organisation
    (["DejaGnu", "Rob Savoye et al. Cygnus Support and the GNU Project", "Version 1.6.3"],
     "dejagnu", ["Savoye, Rob"]),
    # a country after the name, a footnote star before it, the date after it
    (["Asymptote package CAD.asy", "* Mark Henning, Germany 29 September 2006"],
     "Asymptote package CAD.asy", ["Henning, Mark"]),
    # a city is not a person, even before a country
    (["Sparse Widgets", "Palo Alto, USA"], "Sparse Widgets", []),
    # Mergeomics: a list of names, then the first affiliation on the same line; given names
    # that are also particles elsewhere ("Le", "Bin")
    (["Omics Integration", "November 1, 2022", "Ville-Petteri Makinen, Le Shu, Bin Zhang, "
      "Xia Yang Department of Integrative Biology and Physiology, University of California"],
     "Omics Integration", ["Makinen, Ville-Petteri", "Shu, Le", "Zhang, Bin", "Yang, Xia"]),
])
def test_bylines_heldout10_and_heldout11_lost(lines: list[str], title: str,
                                              authors: list[str]) -> None:
    meta = document_metadata(_doc([*lines, "Abstract", "Widgets are sparse."]), None, title)
    assert meta.get("authors", []) == authors


@pytest.mark.parametrize(("lines", "title", "authors", "year"), [
    # SuiteSparse's AMD: initialed names run together, then the version and its date;
    # the © line under the abstract is older than this version
    (["AMD User Guide", "Patrick R. Amestoy* Timothy A. Davis Iain S. Duff VERSION 2.4.6, "
      "May 4, 2016", "Abstract", "AMD is a set of routines.",
      "AMD Copyright©2013 by Timothy A. Davis. All Rights Reserved."], "AMD User Guide",
     ["Amestoy, Patrick R.", "Davis, Timothy A.", "Duff, Iain S."], 2016),
    # a journal's paper reprinted as a vignette: the publisher's © wins over the build date
    (["Simultaneous Inference in General Parametric Models", "Torsten Hothorn",
      "February 10, 2023", "Abstract", "Simultaneous inference is a common problem.",
      "Copyright © 2008 WILEY-VCH Verlag GmbH & Co. KGaA, Weinheim"],
     "Simultaneous Inference in General Parametric Models", ["Hothorn, Torsten"], 2008),
    # the last change's date of "Created: … Last modified: …"
    (["Using filterVcf() to Select Variants", "Paul Shannon",
      "Created: 20 February, 2013 Last modified: 22 October, 2015", "Contents"],
     "Using filterVcf() to Select Variants", ["Shannon, Paul"], 2015),
    # ... but the original date of "…, Revised …", as the seen sets' truths read it
    (["Limma Intro", "Gordon Smyth", "23 October 2004, Revised 21 October 2013", "Contents"],
     "Limma Intro", ["Smyth, Gordon"], 2004),
    # a laboratory after the name is no person; nor are a title's nouns
    (["Additional documentation for the Gay-Berne potential",
      "Mike Brown, Sandia National Labs, April 2007", "The Gay-Berne interaction is given by"
      " a product of three terms, each of which we describe below in some detail."],
     "Additional documentation for the Gay-Berne potential", ["Brown, Mike"], 2007),
    (["R/GSEPD Tutorial", "Gene Set Enrichment and Projection Displays",
      "Karl Stamm - karl.stamm@gmail.com -", "November 1, 2022", "1 Introduction"],
     "R/GSEPD Tutorial", ["Stamm, Karl"], 2022),
    # a conference's preprint line with its year glued to the conference's name
    (["MetaPlot and Other Collaborations", "Brooks Moses", "Abstract", "Most methods.",
      "Preprint: Proceedings of PracticalTEX2004"], "MetaPlot and Other Collaborations",
     ["Moses, Brooks"], 2004),
])
def test_what_heldout12_showed(lines: list[str], title: str, authors: list[str],
                               year: int) -> None:
    meta = document_metadata(_doc(lines), None, title)
    assert (meta.get("authors", []), meta.get("year")) == (authors, year)


@pytest.mark.parametrize(("line", "names"), [
    ("Leslie Pérez Cáceres", ["Pérez Cáceres, Leslie"]),  # a Spanish patronymic, then a family
    ("Inez Gonzalez", ["Gonzalez, Inez"]),  # a given name alone is no patronymic
    ("Bebc Bdbh DC", []),  # glyph codes of a Type 3 font, read as letters
    ("Clement Smith and Anna Manning", ["Smith, Clement", "Manning, Anna"]),
])
def test_names_heldout12_showed(line: str, names: list[str]) -> None:
    assert parse_byline(line) == names


@pytest.mark.parametrize(("rows", "title"), [
    # TUGboat: the title in the body's size over its byline, under the running head
    (["preliminary draft, October 25, 2002 1:43", "TUGboat, Volume 0 (2001), No. 0 "
      "preliminary draft, October 25, 2002 1:43, 1001", "Space geometry with METAPOST ∗",
      "Denis Roegel", "Abstract", "METAPOST is a tool especially well-suited for drawings."],
     "Space geometry with METAPOST"),
    (["TUGboat, Volume 32 (2011), No. 2, 193", "The cals package: Multipage tables",
      "with decorations", "Oleg Parashchenko", "Abstract", "Tables are complicated."],
     "The cals package: Multipage tables with decorations"),
    # no byline before the first section: no title from here
    (["Some Package", "1 Introduction", "Denis Roegel wrote this."], None),
    # the rows above a byline that do not start like a title (a thesis cover's clause)
    (["des Studiengangs Informatik der Hochschule", "Max Mustermann", "Abstract"], None),
])
def test_a_title_in_the_body_size_is_the_rows_over_the_byline(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, rows: list[str],
        title: str | None) -> None:
    import citeloom.convert.textlayer as textlayer
    from citeloom.structure.titles import byline_title

    pdf = tmp_path / "tugboat.pdf"
    pdf.write_bytes(b"%PDF-1.4\n")  # read by the stand-in below, not by PDFium
    monkeypatch.setattr(textlayer, "page_rows", lambda *a, **k: rows)
    assert byline_title(pdf) == title


@pytest.mark.parametrize(("lines", "year"), [
    # a TUGboat issue's running head; a draft's "Volume 0" is a placeholder, its date is not
    (["TUGboat, Volume 18 (1997), No. 4", "Creating 3D animations", "Denis Roegel"], 1997),
    (["TUGboat, Volume 0 (2060), No. 0 preliminary draft, December 30, 2006 9:24",
      "Lists in TeX's Mouth", "Alan Jeffrey"], 2006),
    (["draft: March 5, 2021 18:00", "The dashundergaps package", "Frank Mittelbach"], 2021),
])
def test_tugboat_years(lines: list[str], year: int) -> None:
    meta = document_metadata(_doc([*lines, "Abstract", "Widgets are sparse."]), None,
                             lines[1])
    assert meta.get("year") == year


def test_a_noun_in_ism_is_no_family_name() -> None:
    assert parse_byline("Plane-Waves Formalism.") == []


def test_what_heldout13_showed_besides_tugboat() -> None:
    from citeloom.structure.metadata import title_byline

    # a \thanks mark after the title, the name and its own mark after it
    assert title_byline("ATLAS Installation Guide ✯ R. Clint Whaley ❸") == (
        "ATLAS Installation Guide", ["Whaley, R. Clint"])
    # a labelled byline
    assert parse_byline("Author: Stan G. Moore") == ["Moore, Stan G."]
    # amsart's date footnote on page 1
    meta = document_metadata(_doc(["Documentation for ratpoints", "Michael Stoll",
                                   "1. Introduction", "This paper describes the program.",
                                   "Date: March 10, 2011."]), None,
                             "Documentation for ratpoints")
    assert meta.get("year") == 2011


@pytest.mark.parametrize(("line", "names"), [
    # AASTeX: capitals, accented initials, affiliation numbers after commas
    ("L. G. BOUMA, 1 J. D. HARTMAN, 1 W. BHATTI, 1 J. N. WINN, 1 AND G. Á. BAKOS 1",
     ["Bouma, L. G.", "Hartman, J. D.", "Bhatti, W.", "Winn, J. N.", "Bakos, G. Á."]),
    # names set apart only by their affiliations' numbers
    ("Yichen He∗1 Guanhua Huang∗1 Peiyuan Feng 1 Yuan Lin†1",
     ["He, Yichen", "Huang, Guanhua", "Feng, Peiyuan", "Lin, Yuan"]),
    # "+" and "$" as affiliation marks (PLDI)
    ("Andreas Gal∗+, Brendan Eich∗ , Mohammad R. Haghighat$ , Blake Kaplan∗",
     ["Gal, Andreas", "Eich, Brendan", "Haghighat, Mohammad R.", "Kaplan, Blake"]),
    ("Δημήτριος Α. Φιλίππου", ["Φιλίππου, Δημήτριος Α."]),  # Greek
    ("Robert A. MacLachlan, Editor", ["MacLachlan, Robert A."]),  # a manual's editor
])
def test_bylines_heldout14_showed(line: str, names: list[str]) -> None:
    assert parse_byline(line) == names


def test_what_heldout14_showed_in_titles_and_years() -> None:
    from citeloom.structure.metadata import title_byline

    assert title_byline("PaSa: An LLM Agent for Comprehensive Academic Paper Search Yichen "
                        "He∗1 Guanhua Huang∗1 Peiyuan Feng 1 Yuan Lin†1") == (
        "PaSa: An LLM Agent for Comprehensive Academic Paper Search",
        ["He, Yichen", "Huang, Guanhua", "Feng, Peiyuan", "Lin, Yuan"])
    for line, year in (("© Author(s) 2013. CC Attribution 3.0 License.", 2013),
                       ("ANN, Version 1.1.1 Copyright, 2006 David M. Mount", 2006)):
        meta = document_metadata(_doc(["A Scaling Approach", "Matthias Perrette", "Abstract",
                                       "Sea level rises.", "Received: 17 April 2012", line]),
                                 None, "A Scaling Approach")
        assert meta.get("year") == year
    # a name given twice on page 1 (byline and correspondence) is one author
    meta = document_metadata(_doc(["Acute effect of speed exercise", "Özcan SAYGIN",
                                   "Özcan SAYGIN", "Abstract", "Nitric oxide."]), None,
                             "Acute effect of speed exercise")
    assert meta.get("authors") == ["Saygin, Özcan"]


def doc_with(rows: list[tuple[Any, str]]) -> Any:
    """A document whose page 1 is these (label, text) items, in order."""
    from docling_core.types.doc import BoundingBox, DoclingDocument, ProvenanceItem

    doc = DoclingDocument(name="sample")
    for label, text in rows:
        doc.add_text(label=label, text=text, prov=ProvenanceItem(
            page_no=1, bbox=BoundingBox(l=0, t=0, r=1, b=1), charspan=(0, len(text))))
    return doc


def test_an_elsevier_masthead_is_no_title() -> None:
    from docling_core.types.doc import DocItemLabel

    from citeloom.structure.headings import find_title

    T, X = DocItemLabel.TITLE, DocItemLabel.TEXT
    masthead = [(X, "Solar Energy Materials & Solar Cells 137 (2015) 1-5"),
                (X, "Contents lists available at ScienceDirect"),
                (T, "Solar Energy Materials & Solar Cells"),
                (X, "journal homepage: www.elsevier.com/locate/solmat")]
    assert find_title(doc_with(masthead)) is None
    assert find_title(doc_with([*masthead, (X, "Abstract"), (X, "We study cells."),
                                (T, "Performance evaluation of a solar cell")])) \
        == "Performance evaluation of a solar cell"


def test_a_plus_in_a_title_is_no_footnote_mark() -> None:
    from citeloom.structure.metadata import title_byline

    assert title_byline("Programming in C++ John Smith") == ("Programming in C++ John Smith", [])
