"""The packaged PDF question sets (src/citeloom/data/pdfqa_dev.jsonl, pdfqa_dev2.jsonl and
the blind pdfqa_holdout.jsonl, docs/PDFQA.md, docs/PDFQA_DEV2.md): their size, spread and
halves, and that every evidence phrase is on a page it names, in the PDFs of ../shared
(text layer via pypdfium2, compared after citeloom.eval.pdfqa_set.normalise).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from citeloom.eval.pdfqa_set import (
    HALVES,
    KINDS,
    MAX_WORDS,
    MIN_WORDS,
    SETS,
    Question,
    load_devset,
    normalise,
    page_texts,
    set_name,
    word_count,
)

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
SIZES = {"dev": 60, "dev2": 80, "holdout": 45}  # at least this many, over at least 12 PDFs


@pytest.fixture(scope="module", params=SETS)
def qset(request: pytest.FixtureRequest) -> tuple[str, list[Question]]:
    return request.param, load_devset(request.param)


def test_question_sets_by_size_and_spread(qset: tuple[str, list[Question]]) -> None:
    name, questions = qset
    assert len(questions) >= SIZES[name]
    assert len({q.pdf for q in questions}) >= 12


def test_dev_sets_have_a_tune_and_a_check_half_of_every_kind() -> None:
    for name in ("dev", "dev2"):
        questions = load_devset(name)
        assert {q.half for q in questions} == set(HALVES), name
        for half in HALVES:
            part = [q for q in questions if q.half == half]
            assert len(part) >= 0.4 * len(questions), (name, half, len(part))
            assert {q.kind for q in part} == set(KINDS), (name, half)


def test_set_names() -> None:
    assert load_devset() == load_devset("dev")
    assert [set_name(None), set_name("holdout"), set_name("/x/pdfqa_mine.jsonl")] == [
        "dev", "holdout", "mine"]


def test_every_kind_present(qset: tuple[str, list[Question]]) -> None:
    _, QUESTIONS = qset
    missing = set(KINDS) - {q.kind for q in QUESTIONS}
    assert not missing, f"kinds without a question: {sorted(missing)}"


def test_ids_unique() -> None:
    QUESTIONS = [q for name in SETS for q in load_devset(name)]  # unique across the sets too
    dupes = [qid for qid, n in Counter(q.id for q in QUESTIONS).items() if n > 1]
    assert not dupes, f"duplicate ids: {dupes}"


def test_evidence_is_5_to_15_words(qset: tuple[str, list[Question]]) -> None:
    _, QUESTIONS = qset
    counts = {q.id: word_count(q.evidence) for q in QUESTIONS}
    bad = {qid: n for qid, n in counts.items() if not MIN_WORDS <= n <= MAX_WORDS}
    assert not bad, f"evidence outside {MIN_WORDS}-{MAX_WORDS} words: {bad}"


@pytest.mark.skipif(
    not SHARED.is_dir(),
    reason=f"needs the shared corpus: {SHARED} (sibling of the repo root) is missing",
)
def test_evidence_found_on_a_listed_page(qset: tuple[str, list[Question]]) -> None:
    name, QUESTIONS = qset
    corpus = SHARED / SETS[name]
    pages_by_pdf = {
        pdf: [normalise(t) for t in page_texts(corpus / pdf)] for pdf in {q.pdf for q in QUESTIONS}
    }
    missing = []
    for q in QUESTIONS:
        pages = pages_by_pdf[q.pdf]
        needle = normalise(q.evidence)
        if not any(needle in pages[p - 1] for p in q.pages if 1 <= p <= len(pages)):
            missing.append(f"{q.id} {q.pdf} pages {list(q.pages)}: {q.evidence!r}")
    assert not missing, "evidence not found on any listed page:\n" + "\n".join(missing)
