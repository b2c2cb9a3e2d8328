"""A title item that ran on into the byline: cut where page 1's largest type ends, when what
follows is names; a subtitle in a smaller type stays (structure.metadata.run_on)."""

from __future__ import annotations

from pathlib import Path

import pytest

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
