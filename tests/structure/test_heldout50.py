"""Bylines from heldout50's and heldout51's misses (session 35): JHEP's affiliation letters
set as words, IOP's and Springer's ORCID icons as text, an accent the layer set apart from a
letter that carries it, an affiliation's row with its number glued on, Wiley's "Present
Address"."""

import pytest

from citeloom.structure.names import parse_byline


@pytest.mark.parametrize(("row", "names"), [
    ("Anirban Mukherjee a Siddhartha Lal, a,1", ["Mukherjee, Anirban", "Lal, Siddhartha"]),
    ("Xia Li 1 iD , Shubhangi Makkar 1 iD , Stefano van Gogh 1 iD , Elizabet Nikolova 2",
     ["Li, Xia", "Makkar, Shubhangi", "van Gogh, Stefano", "Nikolova, Elizabet"]),
    ("Roberto Fernández-Barrios [ORCID]1*, Iker Pastor-López [ORCID]1 ,",
     ["Fernández-Barrios, Roberto", "Pastor-López, Iker"]),
    ("Juan Castro Fernandez ´ 1 , and Jose María Alvarez Rodr ´ íguez 3",
     ["Castro Fernandez, Juan", "Alvarez Rodríguez, Jose María"]),
    # letters that are names' own parts stay: "y", "e" are no affiliation letters
    ("Baoliang Li a,∗ , Zeljko Zilic b , Wenhua Dou a",
     ["Li, Baoliang", "Zilic, Zeljko", "Dou, Wenhua"]),
])
def test_a_byline_row_reads_as_its_names(row: str, names: list[str]) -> None:
    assert parse_byline(row) == names


@pytest.mark.parametrize("row", ["1Risk Efficacy & Redline Rising †", "Present Address"])
def test_an_affiliation_row_is_no_byline(row: str) -> None:
    assert parse_byline(row) == []


def test_a_byline_whose_last_name_runs_over_to_a_row_of_its_own() -> None:
    """"… Juan Castro Fernandez ´ 1 , and Jose María" / "Alvarez Rodr ´ íguez 3": the second
    row reads as a name alone, but the first ends in "and" and a given name."""
    from docling_core.types.doc import DocItemLabel

    from citeloom.structure.metadata import document_metadata

    from .test_pdfmeta_more import doc_with

    T, X, H = DocItemLabel.TITLE, DocItemLabel.TEXT, DocItemLabel.SECTION_HEADER
    doc = doc_with([(T, "The WebIndex Data Portal"),
                    (X, "Jose Emilio Labra Gayo 1 , Hania Farham 2 , Juan Castro Fernandez ´ 1 "
                        ", and Jose María"),
                    (X, "Alvarez Rodr ´ íguez 3"),
                    (X, "1 WESO Research Group"), (H, "Abstract")])
    assert document_metadata(doc, None, "The WebIndex Data Portal")["authors"] == [
        "Labra Gayo, Jose Emilio", "Farham, Hania", "Castro Fernandez, Juan",
        "Alvarez Rodríguez, Jose María"]
