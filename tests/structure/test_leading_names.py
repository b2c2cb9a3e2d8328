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
