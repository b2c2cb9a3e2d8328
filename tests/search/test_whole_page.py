"""A page hit shows its whole page: the chunks of its page span the ranking did not bring
ride along after its ranked ones (docs/DECISIONS.md "A page hit shows its page")."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeloom.index import Hit, SearchFilter
from citeloom.payload import passage
from citeloom.search import query as search
from citeloom.search.ranking import PAGE_REACH, page_neighbours, with_page
from citeloom.service import CiteLoom
from citeloom.service.api import QueryRequest

from ..conftest import CORPUS, shared_settings


def _chunk(cid: str, page: int, index: int, page_end: int | None = None,
           labels: tuple[str, ...] = ("text",), doc: str = "A") -> Hit:
    return Hit(cid, 0.0, {"doc_id": doc, "page_start": page, "page_end": page_end or page,
                          "chunk_index": index, "chunk_text": f"text of {cid}.",
                          "item_labels": list(labels), "kind": "passage",
                          "section_path": f"S{index}", "section_prefixes": [f"S{index}"]})


def test_the_rest_of_the_page_follows_the_ranked_parts_and_the_span_stays() -> None:
    best, second = _chunk("c5", 3, 5), _chunk("c7", 3, 7)
    best.parts = [second]
    neighbours = [_chunk("c4", 3, 4), _chunk("c6", 3, 6), _chunk("c8", 3, 8, page_end=4),
                  _chunk("c3", 2, 3), _chunk("c2", 3, 2, labels=("reference",)), second]
    shown = with_page(best, neighbours, SearchFilter(exclude_labels=["reference"]))
    # ranked parts first (the cross-encoder reads those), then the page's others in order;
    # c8 runs onto page 4 and c3 starts on page 2: outside the hit's span, not shown
    assert [p.id for p in shown.parts] == ["c7", "c4", "c6"]
    assert best.parts == [second]  # the ranking's own hit is not changed
    p = passage(1, shown, 1000)
    assert (p.page_start, p.page_end) == (3, 3)
    assert [x["chunk_id"] for x in p.parts] == ["c4", "c5", "c6", "c7"]
    assert p.text.split("\n\n") == [f"text of {c}." for c in ("c4", "c5", "c6", "c7")]
    # a filter's labels and section hold for the page's other chunks too
    only = with_page(best, neighbours, SearchFilter(section_prefix="S6"))
    assert [x.id for x in only.parts] == ["c7", "c6"]
    assert with_page(best, [], None) is best


def test_neighbours_are_looked_for_around_every_ranked_chunk() -> None:
    best = _chunk("c20", 9, 20)
    best.parts = [_chunk("c30", 9, 30)]
    doc, near = page_neighbours(best)
    assert doc == "A" and 20 not in near and 30 not in near
    assert set(near) == ({*range(20 - PAGE_REACH, 20 + PAGE_REACH + 1),
                          *range(30 - PAGE_REACH, 30 + PAGE_REACH + 1)} - {20, 30})
    note = Hit("n", 0.0, {"doc_id": "A", "page_start": 9, "kind": "note", "chunk_index": 0})
    pageless = Hit("t", 0.0, {"doc_id": "T", "page_start": None, "chunk_index": 0})
    assert page_neighbours(note) == ("", []) and page_neighbours(pageless) == ("", [])


@pytest.mark.slow
def test_a_real_page_hit_shows_every_chunk_of_its_page(models_dir: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    app = CiteLoom(shared_settings(data_dir=tmp_path, models_dir=models_dir))
    try:
        pdf = CORPUS / "text" / "cermine__example2.pdf"
        assert app.ingest([pdf], "wp").outcome == "ok"
        index = app.runtime.projects.index("wp")
        chunks = [h.payload for h in index.scroll(fields=[
            "page_start", "page_end", "chunk_index", "item_labels", "kind"])]
        question = "What data were the experiments run on?"
        whole = app.query(QueryRequest("wp", question, top_k=5)).hits
        fast = app.query(QueryRequest("wp", question, top_k=5, rerank=0)).hits
        monkeypatch.setattr(search, "whole_pages", lambda index, hits, model, flt: hits)
        ranked = app.query(QueryRequest("wp", question, top_k=5)).hits
        assert [(h.chunk_id, h.page_start, h.page_end) for h in whole] == [
            (h.chunk_id, h.page_start, h.page_end) for h in ranked]
        def ids(h):  # type: ignore[no-untyped-def]
            return {x["chunk_id"] for x in h.parts} or {h.chunk_id}

        grew = 0
        for h, before in zip(whole, ranked, strict=True):
            inside = {p["chunk_index"] for p in chunks
                      if h.page_start <= p["page_start"]
                      and (p["page_end"] or p["page_start"]) <= h.page_end
                      and "reference" not in (p["item_labels"] or [])}
            assert len(ids(h)) == len(inside), (h.pages, len(ids(h)), len(inside))
            assert ids(before) <= ids(h)
            grew += len(ids(h)) > len(ids(before))
        assert grew  # the ranking alone left some page incomplete
        # the fast mode (no second stage) shows the chunks the ranking found, no more
        only = {h.chunk_id: ids(h) for h in ranked}
        assert all(ids(h) == only[h.chunk_id] for h in fast if h.chunk_id in only)
        assert any(ids(h) != ids(w) for h, w in zip(fast, whole, strict=False)
                   if h.chunk_id == w.chunk_id)
    finally:
        app.close()
