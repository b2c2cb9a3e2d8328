"""Names set apart only by space (issue #27, item 5, session 34): ICLR's and NeurIPS's bylines
put a quad between the names and no comma ("Chengrun Yang * Xuezhi Wang Yifeng Lu"), and
Docling's text joins them with single spaces. The text layer still holds the gaps: a space
of 0.8 em or more in a header row parts two names; a word space does not."""

from __future__ import annotations

from pathlib import Path

from docling_core.types.doc import DocItemLabel

from .test_drafts import _pdf
from .test_pdfmeta_more import doc_with

TITLE = "Quillwork: Equivariant Widgets for Tensor Images"
NAMES = ["Ada Lovelace", "Alan Turing", "Grace Hopper"]


def _byline_pdf(tmp_path: Path, gap_em: float, names: list[str] = NAMES) -> Path:
    """Title, then the names on one row, each a run of its own ``gap_em`` ems after the
    last (10 pt Helvetica: about 5 pt a letter), then an affiliation and the abstract."""
    from citeloom.convert.textlayer import page_lines

    rows = [(90.0, 80.0, 16.0, TITLE)]
    x = 90.0
    probe = _pdf(tmp_path / "probe.pdf", [(x, 110.0 + 20 * k, 10.0, n)
                                          for k, n in enumerate(names)])
    widths = {text: right - left for text, (left, _, right, _) in page_lines(probe, 1)}
    for name in names:
        rows.append((x, 110.0, 10.0, name))
        x += widths[name] + 10.0 * gap_em
    rows += [(90.0, 130.0, 9.0, "Department of Computing, University of Somewhere"),
             (90.0, 170.0, 12.0, "Abstract"),
             (90.0, 186.0, 10.0, "Many widgets show symmetries that can be exploited.")]
    return _pdf(tmp_path / "byline.pdf", rows)


def test_a_quad_between_names_is_a_comma_in_the_row(tmp_path: Path) -> None:
    from citeloom.convert.textlayer import page_rows

    pdf = _byline_pdf(tmp_path, 1.2)
    assert page_rows(pdf, 1, names=True)[1] == "Ada Lovelace, Alan Turing, Grace Hopper"
    assert page_rows(pdf, 1)[1] == "Ada Lovelace Alan Turing Grace Hopper"  # (a title's row)
    rows = page_rows(_byline_pdf(tmp_path, 0.35), 1, names=True)  # a word space
    assert rows[1] == "Ada Lovelace Alan Turing Grace Hopper"


def test_a_wide_space_beside_and_stays_a_space(tmp_path: Path) -> None:
    from citeloom.convert.textlayer import page_rows

    rows = page_rows(_byline_pdf(tmp_path, 1.2, ["Ada Lovelace", "and", "Alan Turing"]), 1,
                     names=True)
    assert rows[1] == "Ada Lovelace and Alan Turing"


def test_names_a_quad_apart_are_the_authors(tmp_path: Path) -> None:
    """Docling gave the byline as one run of words; the layer's gaps part the names."""
    from citeloom.structure.metadata import document_metadata

    pdf = _byline_pdf(tmp_path, 1.2)
    X = DocItemLabel.TEXT
    doc = doc_with([(DocItemLabel.TITLE, TITLE), (X, " ".join(NAMES)),
                    (X, "Department of Computing, University of Somewhere"),
                    (DocItemLabel.SECTION_HEADER, "Abstract"),
                    (X, "Many widgets show symmetries that can be exploited.")])
    meta = document_metadata(doc, pdf, TITLE)
    assert meta["authors"] == ["Lovelace, Ada", "Turing, Alan", "Hopper, Grace"]
    tight = _byline_pdf(tmp_path, 0.35)
    assert document_metadata(doc, tight, TITLE).get("authors") != meta["authors"]
