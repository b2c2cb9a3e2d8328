"""The names a refused byline starts with (issue #27, item 5, session 34): rows of real
papers that the byline parser refuses as a whole (a five-word name, a letter the text layer
broke), whose first author is still plain; and rows that only start like names."""

from __future__ import annotations

import pytest
from docling_core.types.doc import DocItemLabel

from citeloom.structure.leading import leading_names
from citeloom.structure.names import parse_byline

from .test_pdfmeta_more import doc_with

KOOKMIN = ("Radityo Fajar Pamungkas, Ida Bagus Krishna Yoga Utama, Khairi Hindriyandhito, "
           "Yeong Min Jang ∗ Department of Electronics Engineering, Kookmin University, Seoul")
BIOINF = "Rainer Winnenburg, ThomasWa«chter, Conrad Plake, Andreas Doms and Michael Schroeder"


@pytest.mark.parametrize(("row", "first"), [(KOOKMIN, ["Pamungkas, Radityo Fajar"]),
                                            (BIOINF, ["Winnenburg, Rainer"])])
def test_a_refused_byline_gives_the_names_it_starts_with(row: str, first: list[str]) -> None:
    assert parse_byline(row) == []  # the parser refuses the row as a whole
    assert leading_names(row) == first


@pytest.mark.parametrize("row", [
    "New Haven, CT, USA",
    "Gowrishankar, Ramesh Babu H.S., Satyanarayana P.S. Department of Computer Science",
    "Department of Statistics, University of Oxford, Oxford, UK",
    "Ada Lovelace, University of London",  # one person: not enough to go on
])
def test_rows_that_do_not_start_with_two_persons_give_none(row: str) -> None:
    assert leading_names(row) == []


def test_the_first_author_of_a_refused_byline_is_the_papers() -> None:
    from citeloom.structure.metadata import document_metadata

    title = "A Hybrid Approach of ConvLSTM-DT and GPT-4 for Real-time Anomaly Detection"
    X = DocItemLabel.TEXT
    doc = doc_with([(DocItemLabel.TITLE, title), (X, KOOKMIN),
                    (DocItemLabel.SECTION_HEADER, "Abstract"),
                    (X, "Anomaly detection is a critical requirement across diverse domains.")])
    assert document_metadata(doc, None, title)["authors"] == ["Pamungkas, Radityo Fajar"]


def test_a_name_of_four_words_in_the_info_dictionary_is_one_person_where_the_page_prints_it():
    from citeloom.structure.leading import info_names

    page = "Efficient Copulas Brynjólfur Gauti Guðrúnar Jónsson 2024-08-25 This paper …"
    # (Quarto writes the PDF's Author; the byline parser leaves four words open)
    assert info_names("Brynjólfur Gauti Guðrúnar Jónsson", page) == \
        ["Jónsson, Brynjólfur Gauti Guðrúnar"]
    assert info_names("Muhammad Iqbal Hilmy Izzulhaq; Jane Smith",
                      "Muhammad Iqbal Hilmy Izzulhaq (ORCID: …), Jane Smith") == \
        ["Izzulhaq, Muhammad Iqbal Hilmy", "Smith, Jane"]
    # not printed whole on the first pages: left open, as before
    assert info_names("Brynjólfur Gauti Guðrúnar Jónsson", "B. G. G. Jónsson, 2024") == []
    assert info_names("Ada Lovelace and Charles Babbage", "") == \
        ["Lovelace, Ada", "Babbage, Charles"]


def test_an_institution_named_before_its_head_word_is_no_name():
    from citeloom.structure.metadata import _list_before_affiliation

    # ICLR's byline as one item: "Visual Geometry Group" is no "Geometry, Visual"
    line = ("Karen Simonyan∗ & Andrew Zisserman + Visual Geometry Group, Department of "
            "Engineering Science, University of Oxford {karen,az}@robots.ox.ac.uk")
    assert _list_before_affiliation(line.split()) == ["Simonyan, Karen", "Zisserman, Andrew"]
    # an affiliation its word opens stays where it starts
    line = "Ville-Petteri Makinen, Le Shu, Yuqi Zhao Department of Integrative Biology, UCLA"
    assert _list_before_affiliation(line.split()) == ["Makinen, Ville-Petteri", "Shu, Le",
                                                      "Zhao, Yuqi"]


def test_a_row_under_every_authors_name_is_their_affiliation_not_a_name():
    from citeloom.structure.leading import once_each

    rows = ["Comparing Performance Differences Between RUST and C++", "Kushagra Srivastava",
            "Manning CICS", "University of Massachusetts", "Prof. Meng-Chieh Chiu",
            "Manning CICS", "University of Massachusetts"]
    assert once_each(["Srivastava, Kushagra", "Cics, Manning", "Chiu, Meng-Chieh"], rows) == \
        ["Srivastava, Kushagra", "Chiu, Meng-Chieh"]
    # a single author whose name the running head repeats stays
    assert once_each(["Smith, Jane"], ["Jane Smith", "A Title", "Jane Smith"]) == ["Smith, Jane"]


def test_a_byline_row_that_ends_in_an_open_bracket():
    from citeloom.structure.names import parse_byline

    row = ("Markus Konkol (m.konkol [at] uni-muenster [dot] de), Daniel Nüst, Laura Goulier "
           "(Institute")  # the bracket closes on the next row
    assert parse_byline(row) == ["Konkol, Markus", "Nüst, Daniel", "Goulier, Laura"]
