"""What a hit shows of a chunk longer than ``max_chars``: the sentences that match the
query (payload.window), not the chunk's first characters; checked on the function and on a
real indexed chunk whose answer is its last sentence; and what a page hit (a page's best
chunks together) shows."""

from __future__ import annotations

import pytest

from citeloom.index import Hit
from citeloom.payload import ELLIPSIS, PART_GAP, passage, terms, window
from citeloom.search.ranking import PAGE_PARTS, by_page
from citeloom.service import CiteLoom, TextDoc
from citeloom.service.api import QueryRequest, SimilarRequest

FILLER = [f"Participant group {n} attended the clinic on a weekday and completed the usual "
          "questionnaire about sleep and diet." for n in range(1, 9)]
FACT = "The osmium assay of the Kittilä cohort returned exactly 417 micrograms per litre."
TEXT = " ".join([*FILLER, FACT])


def test_short_text_is_shown_whole() -> None:
    assert window("  One sentence. Two.  ", 100, "anything") == "One sentence. Two."


def test_window_shows_the_matching_sentence_at_the_end() -> None:
    shown = window(TEXT, 300, "What did the osmium assay of the Kittila cohort return?")
    assert len(shown) <= 300
    assert shown.startswith(ELLIPSIS + " ") and not shown.endswith(ELLIPSIS)
    assert shown.endswith(FACT)
    # filled with context before it, whole sentences then words, within the budget
    assert len(shown) > 250


def test_window_in_the_middle_is_marked_on_both_sides() -> None:
    shown = window(TEXT, 250, "participant group 4 weekday clinic")
    assert shown.startswith(ELLIPSIS) and shown.endswith(ELLIPSIS)
    assert "Participant group 4 attended" in shown and len(shown) <= 250


def test_without_query_or_match_the_head_is_shown() -> None:
    for query in (None, "", "zebra migration"):
        shown = window(TEXT, 300, query)
        assert shown.startswith(FILLER[0]) and shown.endswith(" " + ELLIPSIS)
        assert len(shown) <= 300


def test_most_distinct_terms_win_then_the_shortest_span() -> None:
    text = ("Alpha appears here alone. " * 6 + "Beta and alpha meet in this sentence. "
            + "Gamma closes. " * 6).strip()
    shown = window(text, 80, "alpha beta")
    assert "Beta and alpha meet" in shown


def test_a_sentence_longer_than_the_budget_is_split_at_words() -> None:
    text = " ".join(["word"] * 300) + " needle found here " + " ".join(["word"] * 100)
    shown = window(text, 200, "needle")
    assert "needle found here" in shown and len(shown) <= 200
    assert shown.startswith(ELLIPSIS) and shown.endswith(ELLIPSIS)
    assert all(part == "word" or part in ("needle", "found", "here", ELLIPSIS)
               for part in shown.split())  # no word cut in half


def test_window_is_deterministic_and_never_over_budget() -> None:
    for max_chars in (100, 137, 250, 400, 799):
        for query in ("osmium 417", "questionnaire sleep diet", None):
            a, b = window(TEXT, max_chars, query), window(TEXT, max_chars, query)
            assert a == b and len(a) <= max_chars


def test_terms() -> None:
    assert terms("What rates did Datta et al. calculate for LMWH?") == {
        "rate", "datta", "calcu", "lmwh"}
    assert terms("Calculated ratios") == {"calcu", "ratio"}
    assert "3" in terms("page 3")  # digits are kept


def test_passage_uses_the_query() -> None:
    class Hit:
        id = "c1"
        score = 0.5
        payload = {"chunk_text": TEXT, "page_start": 2}

    assert passage(1, Hit(), 300, query="osmium assay").text.endswith(FACT)
    assert passage(1, Hit(), 300).text.startswith(FILLER[0])  # no query: the head


@pytest.mark.parametrize("mode", ["sparse", "hybrid", "dense"])
def test_a_real_chunk_shows_its_last_sentence(make_settings, mode: str) -> None:  # type: ignore[no-untyped-def]
    app = CiteLoom(make_settings())
    try:
        app.index_texts("win", [TextDoc(doc_id="notes", title="Clinic notes", text=TEXT),
                                TextDoc(doc_id="other", title="Other",
                                        text="Sleep and diet questionnaires in clinics.")])
        res = app.query(
            QueryRequest(
                "win", "osmium assay Kittilä cohort micrograms", mode=mode, top_k=2, max_chars=300
            )
        )
        top = res.hits[0]
        assert top.doc_id == "notes"
        chunk = next(app.runtime.projects.index("win").scroll("notes")).payload
        assert chunk["doc_chunk_count"] == 1 and chunk["chunk_text"].endswith(FACT)
        assert len(chunk["chunk_text"]) > 300  # one real chunk, longer than what is shown
        assert top.text.endswith(FACT) and len(top.text) <= 300
        # find-similar has no query: the same chunk shows its head
        other = next(app.runtime.projects.index("win").scroll("other")).id
        similar = app.similar(SimilarRequest("win", [other], top_k=2, max_chars=300))
        shown = next(p for p in similar.hits if p.doc_id == "notes").text
        assert shown.startswith(FILLER[0]) and FACT not in shown
    finally:
        app.close()


# -- page hits: a page's best chunks shown together (issue #17) ------------------------------
def _hit(cid: str, doc: str, page: int | None, index: int, text: str = "",
         kind: str = "passage", score: float = 1.0, page_end: int | None = None) -> Hit:
    return Hit(cid, score, {"doc_id": doc, "page_start": page,
                            "page_end": page_end if page_end is not None else page,
                            "chunk_index": index, "chunk_text": text or f"text of {cid}.",
                            "kind": kind, "section_path": f"S{index}"})


def test_by_page_keeps_each_pages_best_chunk_in_order_with_its_next_best() -> None:
    hits = [_hit("a1", "A", 1, 0), _hit("b3", "B", 3, 9), _hit("a2", "A", 1, 2),
            _hit("a3", "A", 2, 5), _hit("a4", "A", 1, 1), _hit("a5", "A", 1, 3),
            _hit("b4", "B", 3, 8)]
    pages = by_page(hits)
    assert [h.id for h in pages] == ["a1", "b3", "a3"]
    # the next best of the same page, best first, at most PAGE_PARTS - 1 of them
    assert [p.id for p in pages[0].parts] == ["a2", "a4"][: PAGE_PARTS - 1]
    assert [p.id for p in pages[1].parts] == ["b4"] and pages[2].parts == []
    assert hits[0].parts == []  # the search's own hits are not changed
    # fewer pages than asked for (a short paper): the chunks no page shows follow
    assert [h.id for h in by_page(hits, top_k=3)] == ["a1", "b3", "a3"]
    assert [h.id for h in by_page(hits, top_k=5)] == ["a1", "b3", "a3", "a5"]


def test_by_page_leaves_annotations_notes_and_pageless_chunks_alone() -> None:
    hits = [_hit("p", "A", 1, 0), _hit("ann", "A", 1, 50, kind="annotation"),
            _hit("note", "A", 1, 51, kind="note"), _hit("t1", "T", None, 0),
            _hit("t2", "T", None, 1), _hit("p2", "A", 1, 1)]
    pages = by_page(hits)
    assert [h.id for h in pages] == ["p", "ann", "note", "t1", "t2"]
    assert [x.id for x in pages[0].parts] == ["p2"]


def test_a_page_hit_shows_its_chunks_in_reading_order_each_windowed() -> None:
    far = " ".join(["Unrelated filler sentence about staffing levels."] * 30)
    best = _hit("c7", "A", 4, 7, text=far + " The osmium assay found 12 micrograms.")
    follows = _hit("c8", "A", 4, 8, text="Osmium levels fell after the assay.", page_end=5)
    before = _hit("c2", "A", 4, 2, text="An osmium assay was planned.")
    best.parts = [follows, before]
    shown = passage(1, best, 300, query="osmium assay micrograms")
    assert [p["chunk_id"] for p in shown.parts] == ["c2", "c7", "c8"]
    assert shown.chunk_id == "c7" and shown.section_path == "S7"  # the best chunk's
    assert shown.page_start == 4 and shown.page_end == 5  # what the shown text spans
    first, rest = shown.text.split(PART_GAP)  # c2 and c7 are not neighbours: marked
    assert first == "An osmium assay was planned."
    windowed, last = rest.split("\n\n")  # c7 and c8 follow each other
    assert windowed.endswith("12 micrograms.") and windowed.startswith("…")
    assert len(windowed) <= 300 and last == "Osmium levels fell after the assay."
    assert passage(1, follows, 300).parts == []  # a single chunk has no parts


def test_an_answer_over_its_token_budget_drops_its_last_hits_before_cutting_texts() -> None:
    from citeloom.mcp.schema import KEEP_WHOLE, fit_budget

    def answer() -> dict:
        return {"query": "osmium assay", "hits": [
            {"rank": r, "text": f"{r}: " + TEXT} for r in range(1, 9)]}

    whole = fit_budget(answer(), 100_000)
    assert not whole["truncated"] and len(whole["hits"]) == 8
    per_hit = (whole["tokens"] - 20) // 8
    fewer = fit_budget(answer(), per_hit * 6 + 30)  # room for about six whole hits
    assert fewer["truncated"] and KEEP_WHOLE <= len(fewer["hits"]) < 8
    assert [h["rank"] for h in fewer["hits"]] == list(range(1, len(fewer["hits"]) + 1))
    assert all(h["text"].endswith(FACT) and len(h["text"]) > len(TEXT) for h in fewer["hits"])
    cut = fit_budget(answer(), per_hit * 3)  # not even five whole: their windows
    assert cut["truncated"] and cut["tokens"] <= per_hit * 3
    assert all(len(h["text"]) < len(TEXT) and "osmium assay" in h["text"]
               for h in cut["hits"])
