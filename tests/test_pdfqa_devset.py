"""The packaged PDF question dev set (src/citeloom/data/pdfqa_dev.jsonl, docs/PDFQA.md):
its size and spread, and that every evidence phrase is on a page it names, in the PDFs of
../shared/corpus/pdfs (text layer via pypdfium2, compared after citeloom.pdfqa.normalise).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from citeloom.pdfqa import (
    KINDS,
    MAX_WORDS,
    MIN_WORDS,
    load_devset,
    normalise,
    page_texts,
    word_count,
)

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CORPUS = SHARED / "corpus" / "pdfs"

QUESTIONS = load_devset()


def test_at_least_60_questions_over_at_least_12_pdfs() -> None:
    assert len(QUESTIONS) >= 60
    assert len({q.pdf for q in QUESTIONS}) >= 12


def test_every_kind_present() -> None:
    missing = set(KINDS) - {q.kind for q in QUESTIONS}
    assert not missing, f"kinds without a question: {sorted(missing)}"


def test_ids_unique() -> None:
    dupes = [qid for qid, n in Counter(q.id for q in QUESTIONS).items() if n > 1]
    assert not dupes, f"duplicate ids: {dupes}"


def test_evidence_is_5_to_15_words() -> None:
    counts = {q.id: word_count(q.evidence) for q in QUESTIONS}
    bad = {qid: n for qid, n in counts.items() if not MIN_WORDS <= n <= MAX_WORDS}
    assert not bad, f"evidence outside {MIN_WORDS}-{MAX_WORDS} words: {bad}"


@pytest.mark.skipif(
    not SHARED.is_dir(),
    reason=f"needs the shared corpus: {SHARED} (sibling of the repo root) is missing",
)
def test_evidence_found_on_a_listed_page() -> None:
    pages_by_pdf = {
        pdf: [normalise(t) for t in page_texts(CORPUS / pdf)] for pdf in {q.pdf for q in QUESTIONS}
    }
    missing = []
    for q in QUESTIONS:
        pages = pages_by_pdf[q.pdf]
        needle = normalise(q.evidence)
        if not any(needle in pages[p - 1] for p in q.pages if 1 <= p <= len(pages)):
            missing.append(f"{q.id} {q.pdf} pages {list(q.pages)}: {q.evidence!r}")
    assert not missing, "evidence not found on any listed page:\n" + "\n".join(missing)
