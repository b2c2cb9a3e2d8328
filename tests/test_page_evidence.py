"""A page hit scores its page's own evidence (issue #17, session 9): each ranking's best
chunk on the page, beside the best chunk's fused score (``service.ranking.page_evidence``)."""

from __future__ import annotations

import pytest

from citeloom.index import Hit
from citeloom.service import CiteLoom, TextDoc
from citeloom.service.ranking import PAGE_EVIDENCE, Evidence, by_page, normalised, page_key
from citeloom.service.search import _search_filter

from .conftest import CORPUS


def _hit(cid: str, page: int, score: float) -> Hit:
    return Hit(cid, score, {"doc_id": "D", "page_start": page, "page_end": page,
                            "chunk_index": 0, "chunk_text": cid, "kind": "passage"})


def test_a_page_whose_meaning_and_words_sit_in_two_chunks_collects_both() -> None:
    # normalised dense and BM25 scores per chunk; the dense ranking counts twice (bge)
    dense = {"a1": 0.8, "a2": 0.3, "b1": 0.85, "b2": 0.5}
    bm25 = {"a1": 0.2, "a2": 0.9, "b1": 0.25, "b2": 0.1}
    fused = {c: 2 * dense[c] + bm25[c] for c in dense}  # what DBSF gives each chunk
    hits = sorted((_hit(c, 1 if c[0] == "a" else 2, fused[c]) for c in fused),
                  key=lambda h: -h.score)
    assert [h.id for h in by_page(hits)] == ["b1", "a1"]  # best chunk first: page 2 wins
    pages = by_page(hits, evidence=Evidence([dense, bm25], [2.0, 1.0]))
    # page 1: its meaning is in a1, its words in a2; page 2's best chunk leads both rankings
    assert [h.id for h in pages] == ["a1", "b1"]
    assert pages[0].score == pytest.approx(1.8 + PAGE_EVIDENCE * (2 * 0.8 + 0.9 - 1.8))
    assert pages[1].score == pytest.approx(fused["b1"])  # nothing to gain
    assert [p.id for p in pages[0].parts] == ["a2"]  # the parts are as before
    # the search's own hits are not changed
    assert next(h for h in hits if h.id == "a1").score == pytest.approx(fused["a1"])


def test_a_page_of_one_chunk_gains_nothing_whatever_its_rankings_say() -> None:
    """With other phrasings (``also``) a hit's score is the sum of its fused scores in the
    rankings that reached it, which can leave out a ranking that holds it deeper: the gain
    is measured against the best chunk's own evidence, so a lone chunk gains nothing."""
    rankings = [{"a1": 0.8, "b1": 0.9}, {"a1": 0.4}, {"a1": 0.6, "b1": 0.7}, {"b1": 0.5}]
    hits = [_hit("b1", 2, 2.0), _hit("a1", 1, 1.9)]  # a1's sum leaves out a ranking
    pages = by_page(hits, evidence=Evidence(rankings, [2.0, 1.0, 2.0, 1.0]))
    assert [(h.id, h.score) for h in pages] == [("b1", 2.0), ("a1", 1.9)]


def test_normalised_is_dbsf_as_qdrant_computes_it() -> None:
    # mean 2, sample sd 1 (n - 1, as Qdrant): -1 and 5 map to 0 and 1
    got = normalised([("x", 3.0), ("y", 2.0), ("z", 1.0)])
    assert got == pytest.approx({"x": 4 / 6, "y": 0.5, "z": 2 / 6})
    assert normalised([("x", 0.4)]) == {"x": 0.5}
    assert normalised([("x", 1.0), ("y", 1.0)]) == {"x": 0.5, "y": 0.5}
    assert normalised([]) == {}


DOCS = [TextDoc(f"d{i}", f"Note {i}", text) for i, text in enumerate([
    "Angiotensin-converting enzyme inhibitors lower blood pressure in most patients.",
    "Inhibitor binding constants were derived with the Dixon method from rate data.",
    "A fluorogenic substrate was cleaved by the enzyme; fluorescence rose over time.",
    "Crystal structures show how the inhibitor sits in the N-domain active site.",
    "Zinc metallopeptidases need a zinc ion bound by two histidines and a glutamate.",
    "The cohort of 1,204 adults was followed for nine years after enrolment.",
    "Blood pressure was measured twice at each visit, seated, after five minutes.",
    "Tissue fibrosis is driven by peptides that the enzyme's C-domain degrades.",
])]


def test_the_engines_dbsf_is_the_sum_of_the_normalised_rankings(make_settings) -> None:  # type: ignore[no-untyped-def]
    """On a real Edge index with real bge and BM25 vectors, ``normalised`` reproduces
    Qdrant's DBSF: each hit's fused score is its rankings' normalised scores summed, the
    dense ranking ``dense_weight`` times. So the page evidence is on the fused scale."""
    app = CiteLoom(make_settings())
    try:
        assert app.index_texts("p", DOCS).outcome == "ok"
        index = app.index("p")
        lock = index.lock()
        assert lock is not None and lock.dense_weight == 2
        for text in ("how were binding constants of the inhibitor derived",
                     "blood pressure of patients", "zinc enzyme structure"):
            d = app.dense(lock.dense_model).embed_query(text)
            s = app.sparse().embed_query(text)
            fused = index.search(dense=d, sparse=s, mode="hybrid", limit=len(DOCS),
                                 fusion="dbsf", dense_weight=2)
            hits, *rankings = index.search_evidence(dense=d, sparse=s, limit=len(DOCS),
                                                    dense_weight=2)
            assert [(h.id, h.score, h.payload) for h in hits] == [
                (h.id, h.score, h.payload) for h in fused]  # the same search, batched
            dense, bm25 = (normalised(r) for r in rankings)
            assert len(dense) == len(DOCS) and 0 < len(bm25) < len(DOCS)
            assert {h.id: h.score for h in fused} == pytest.approx(
                {i: 2 * dense.get(i, 0.0) + bm25.get(i, 0.0) for i in dense | bm25},
                abs=1e-4)
    finally:
        app.close()


@pytest.mark.slow
def test_the_default_query_ranks_a_real_papers_pages_by_their_evidence(make_settings) -> None:  # type: ignore[no-untyped-def]
    """A real PDF, converted by Docling and indexed with bge and BM25: the default query's
    page hits carry the page score computed here from the index's own two rankings and
    its fused chunk ranking, in that order."""
    app = CiteLoom(make_settings())
    try:
        assert app.ingest([CORPUS / "text" / "cermine__test2.pdf"], "p").outcome == "ok"
        index = app.index("p")
        lock = index.lock()
        assert lock is not None
        flt = _search_filter(None, include_references=False)
        gained = 0
        for text in ("What was measured and how?", "results of the experiment",
                     "related work on this problem"):
            res = app.query("p", text, top_k=3)
            d = app.dense(lock.dense_model).embed_query(text)
            s = app.sparse().embed_query(text)
            limit = 15  # top_k x 5 chunks, more while they hold fewer than top_k pages
            while True:
                chunks = index.search(dense=d, sparse=s, mode="hybrid", limit=limit,
                                      flt=flt, fusion="dbsf", dense_weight=lock.dense_weight)
                pages: dict[str, list[Hit]] = {}
                for h in chunks:
                    pages.setdefault(page_key(h), []).append(h)
                if len(pages) >= 3 or len(chunks) < limit:
                    break
                limit *= 2
            _, *rankings = index.search_evidence(dense=d, sparse=s, limit=limit, flt=flt,
                                                 dense_weight=lock.dense_weight)
            dense, bm25 = (normalised(r) for r in rankings)
            want = {}
            for members in pages.values():
                whole = sum(w * max(r.get(h.id, 0.0) for h in members)
                            for r, w in ((dense, lock.dense_weight), (bm25, 1)))
                best = members[0].score
                want[members[0].id] = best + PAGE_EVIDENCE * max(whole - best, 0.0)
                gained += whole > best + 1e-6
            top = sorted(want, key=lambda i: -want[i])[:3]
            assert [h.chunk_id for h in res.hits] == top
            assert [h.score for h in res.hits] == pytest.approx([want[i] for i in top],
                                                                 abs=1e-4)
        assert gained  # some page's evidence is spread over more than one chunk
    finally:
        app.close()
