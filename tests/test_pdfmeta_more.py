"""Authors and year found in real papers' first pages (``pdfmeta``), across layouts: a
biomedical journal with family names in capitals, a JSS-style byline with affiliations
(the info dictionary completes it), two initialed names on one line under a date, an
R News paper in capitals with "AND", and a title the title finder ran the byline into.
Each paper's first two pages are converted for real (no OCR)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from citeloom.payload import family_name
from citeloom.pdfmeta import PDF_METADATA, PDF_TEXT, document_metadata, parse_byline

from .conftest import CORPUS, SHARED

CORPUS2 = SHARED / "corpus2" / "pdfs"
PAPERS = {
    "cermine__example3": CORPUS / "text" / "cermine__example3.pdf",
    "coin__MAXtest": CORPUS2 / "coin__MAXtest.pdf",
    "mcmc__morph": CORPUS2 / "mcmc__morph.pdf",
    "mvtnorm__MVT_Rnews": CORPUS2 / "mvtnorm__MVT_Rnews.pdf",
    "robustbase__psi_functions": CORPUS2 / "robustbase__psi_functions.pdf",
}
pytestmark = pytest.mark.skipif(not all(p.is_file() for p in PAPERS.values()),
                                reason="the shared corpus is not there")


@pytest.fixture(scope="module")
def found(models_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """name -> (title the executor finds, document_metadata) for each paper."""
    import pypdfium2 as pdfium

    from citeloom.chunk import document_title, pdf_metadata_title
    from citeloom.convert import build_converter, convert_file
    from citeloom.headings import find_title
    from citeloom.models import layout_model_path
    from citeloom.structure import restructure

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
        title = find_title(doc) or document_title(doc, src.stem, pdf_metadata_title(src))
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


def test_byline_with_affiliations_completed_by_the_info_dictionary(found: dict) -> None:
    # "Ludwig A. Hothorn Leibniz Universität Hannover Torsten Hothorn Ludwig-Maximilians-
    # Universität München": the text gives the first; the info dictionary both, and the
    # first pages show both.
    _, meta = found["coin__MAXtest"]
    assert meta["authors"] == ["Hothorn, Ludwig A.", "Hothorn, Torsten"]
    assert meta["metadata_source"]["authors"] == PDF_METADATA
    assert meta["year"] == 2009  # "Copyright © 2009 WILEY-VCH"


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
    from citeloom.pdfmeta import _year

    assert _year(text, {})[0] == year


@pytest.mark.parametrize(("header", "year"), [
    (["Martin Maechler", "September 2006 (typeset on November 10, 2022)"], 2006),
    (["Antoine Missier", "2023/01/06"], 2023),
    (["Supervisor: Author:", "Budapest, 2022"], 2022),
    (["Department of Statistics, 1650 Main Street"], None),
])
def test_year_from_the_date_under_the_title(header: list[str], year: int | None) -> None:
    from citeloom.pdfmeta import _year

    assert _year("", {}, header)[0] == year
