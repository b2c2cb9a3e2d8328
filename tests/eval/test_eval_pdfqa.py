"""`citeloom eval pdfqa`: the metric functions and the page-BM25 baseline against values
worked out by hand, the command's options, and one real run on the three smallest PDFs."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import pytest

from citeloom.eval import pdfqa as ep
from citeloom.eval import scifact as ev
from citeloom.eval.pdfqa_set import Question

from ..conftest import CORPUS


# -- metrics ---------------------------------------------------------------------------------
def test_pages_overlap() -> None:
    assert ep.pages_overlap(3, 3, [3])
    assert ep.pages_overlap(2, 4, [4, 9])  # the span's last page
    assert ep.pages_overlap(2, 4, [1, 3])
    assert not ep.pages_overlap(2, 4, [1, 5])
    assert ep.pages_overlap(5, None, [5])  # no end: one page
    assert not ep.pages_overlap(None, None, [1])  # a hit without a page never counts
    assert not ep.pages_overlap(1, 2, [])


def test_evidence_in_shown_text_is_compared_normalised() -> None:
    ev_phrase = "we calculated the risk of bleeding and HIT"
    # line breaks, a line-end hyphen, case and punctuation do not matter
    assert ep.evidence_in(ev_phrase, "… so, We calcu-\nlated the risk of\nbleeding and HIT to")
    assert ep.evidence_in("the ﬁnal ﬁgure", "THE FINAL FIGURE.")  # NFKC undoes ligatures
    # cut by the shown window: not there
    assert not ep.evidence_in(ev_phrase, "we calculated the risk of …")
    assert not ep.evidence_in("", "anything")  # an empty phrase is never found


def test_ranks_and_mrr() -> None:
    assert ep.first_rank([False, False, True, True]) == 3
    assert ep.first_rank([]) is None
    assert ep.reciprocal_rank(3) == pytest.approx(1 / 3)
    assert ep.reciprocal_rank(None) == 0.0
    assert ep.reciprocal_rank(11) == 0.0  # MRR@10: rank 11 is a miss
    assert ep.reciprocal_rank(10) == pytest.approx(0.1)
    assert ep.hit_at(5, 5) == 1.0 and ep.hit_at(6, 5) == 0.0 and ep.hit_at(None, 1) == 0.0


def test_summarise_by_hand() -> None:
    ranks = [{"page": 1, "evidence": 2, "head": None, "chunk": 1},
             {"page": 4, "evidence": None, "head": None, "chunk": 6},
             {"page": None, "evidence": 5, "head": 5, "chunk": 5},
             {"page": 12, "evidence": 1, "head": 1, "chunk": 1}]
    got = ep.summarise(ranks)
    assert got["page@1"] == pytest.approx(0.25)
    assert got["page@5"] == pytest.approx(0.5)
    assert got["mrr@10"] == pytest.approx(round((1 + 1 / 4) / 4, 4))
    assert got["evidence@5"] == pytest.approx(0.75)
    assert got["evidence@5_head"] == pytest.approx(0.5)
    assert got["evidence@5_chunk"] == pytest.approx(0.75)
    # the baseline has no head / chunk ranks: those metrics are left out
    assert set(ep.summarise([{"page": 1, "evidence": 1}])) == {"page@1", "page@5", "mrr@10",
                                                               "evidence@5"}


def test_bootstrap_intervals_hold_the_mean_and_widen_with_noise() -> None:
    ones = [1.0] * 40
    assert ep.bootstrap(ones) == (1.0, 1.0, 1.0)
    half = [1.0, 0.0] * 20
    mean, low, high = ep.bootstrap(half)
    assert mean == 0.5 and 0.3 < low < 0.5 < high < 0.7
    assert ep.bootstrap(half) == (mean, low, high)  # seeded: the same interval every run
    # paired: the same questions won and lost give a difference of exactly 0
    assert ep.bootstrap(half, half) == (0.0, 0.0, 0.0)
    better = [1.0] * 30 + [0.0] * 10
    worse = [1.0] * 10 + [0.0] * 30
    d, lo, hi = ep.bootstrap(better, worse)
    assert d == 0.5 and lo > 0  # a win the interval holds
    assert ep.bootstrap([]) == (0.0, 0.0, 0.0)


def test_per_question_values_and_halves() -> None:
    ranks = [{"page": 1, "evidence": None}, {"page": 3, "evidence": 5},
             {"page": None, "evidence": 1}]
    assert ep.per_question(ranks, "page@1") == [1.0, 0.0, 0.0]
    assert ep.per_question(ranks, "page@5") == [1.0, 1.0, 0.0]
    assert ep.per_question(ranks, "mrr@10") == pytest.approx([1.0, 1 / 3, 0.0])
    assert ep.per_question(ranks, "evidence@5") == [0.0, 1.0, 1.0]
    qs = [Question(f"q{i}", "a.pdf", (1,), "e", "q", "topic", half=h)
          for i, h in enumerate(["tune", "check", "tune"])]
    got = ep.halves(qs)
    assert [q.id for q in got["tune"]] == ["q0", "q2"] and [q.id for q in got["check"]] == [
        "q1"] and len(got["all"]) == 3
    assert list(ep.halves([Question("x", "a.pdf", (1,), "e", "q", "topic")])) == ["all"]


# -- the page-BM25 baseline -----------------------------------------------------------------
def test_tokens() -> None:
    assert ep.tokens("Heparin-induced (HIT) rates: 3.9%") == ["heparin", "induced", "hit",
                                                              "rates", "3", "9"]


def test_bm25_by_hand() -> None:
    docs = [["apple", "banana", "apple"], ["banana", "cherry"], ["cherry", "date", "elder"]]
    bm = ep.BM25(docs)
    n, avg = 3, 8 / 3
    idf_apple = math.log(1 + (n - 1 + 0.5) / (1 + 0.5))
    idf_banana = math.log(1 + (n - 2 + 0.5) / (2 + 0.5))
    norm0 = 1.2 * (1 - 0.75 + 0.75 * 3 / avg)
    norm1 = 1.2 * (1 - 0.75 + 0.75 * 2 / avg)
    want0 = idf_apple * 2 * 2.2 / (2 + norm0) + idf_banana * 1 * 2.2 / (1 + norm0)
    want1 = idf_banana * 1 * 2.2 / (1 + norm1)
    got = bm.scores(["apple", "banana", "apple", "unknown"])  # repeats count once
    assert got == pytest.approx([want0, want1, 0.0])
    assert bm.rank(["apple", "banana"]) == [0, 1]  # the document without a term is left out
    assert bm.rank(["cherry"]) == [1, 2]  # the shorter document first
    assert bm.rank(["nothing"]) == []


def test_baseline_ranks_on_a_tiny_corpus() -> None:
    texts = {"a.pdf": ["Introduction to the cohort.", "The hazard ratio was 2.1 for men."],
             "b.pdf": ["Hazard ratios of smokers.", "Unrelated text about birds."]}
    qs = [Question("q1", "a.pdf", (2,), "hazard ratio was 2.1", "What hazard ratio for men?",
                   "number"),
          Question("q2", "b.pdf", (1,), "about birds", "What about birds?", "topic")]
    got = ep.baseline_ranks(qs, texts)
    assert got["q1"] == {"page": 1, "evidence": 1}  # a.pdf p2 holds "men", "hazard", "ratio"
    assert got["q2"]["page"] is None  # the answer is on p2, p1 never ranks (no term)
    assert got["q2"]["evidence"] == 1


# -- the command -----------------------------------------------------------------------------
def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    ev.add_eval_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["eval", *argv])


def test_pdfqa_parser_options() -> None:
    args = _parse(["pdfqa", "--limit-pdfs", "2", "--corpus-dir", "/x"])
    assert (args.dataset, args.limit_pdfs, args.corpus_dir) == ("pdfqa", 2, Path("/x"))
    assert args.project is None  # then pdfqa-eval
    assert ev.PROJECTS["pdfqa"] == ep.DEFAULT_PROJECT


def test_select_smallest_pdfs(tmp_path: Path) -> None:
    for name, size in (("big.pdf", 300), ("small.pdf", 10), ("mid.pdf", 100)):
        (tmp_path / name).write_bytes(b"x" * size)
    qs = [Question(f"q{i}", pdf, (1,), "e", "q", "topic")
          for i, pdf in enumerate(["big.pdf", "small.pdf", "mid.pdf", "small.pdf"])]
    pdfs, kept = ep.select(qs, tmp_path, 2)
    assert pdfs == ["small.pdf", "mid.pdf"] and [q.id for q in kept] == ["q1", "q2", "q3"]
    assert ep.select(qs, tmp_path, None)[0] == ["big.pdf", "small.pdf", "mid.pdf"]
    (tmp_path / "mid.pdf").unlink()
    from citeloom.errors import InvalidInput

    with pytest.raises(InvalidInput, match="not in"):
        ep.select(qs, tmp_path, None)


@pytest.mark.slow
def test_small_pdfqa_run(make_settings, tmp_path: Path,  # type: ignore[no-untyped-def]
                         capsys: pytest.CaptureFixture[str]) -> None:
    if not (CORPUS / "text").is_dir():
        pytest.skip("the PDF corpus is not available beside the repository")
    out = tmp_path / "report.json"
    args = _parse(["pdfqa", "--limit-pdfs", "3", "--corpus-dir", str(CORPUS), "--out",
                   str(out)])
    assert ev.cmd_eval(args, make_settings()) == 0
    report = json.loads(out.read_text())
    printed = capsys.readouterr().out
    assert "page-bm25" in printed and "hybrid-dbsf" in printed

    assert report["dataset"] == "pdfqa" and report["settings"]["project"] == "pdfqa-eval"
    assert report["corpus"]["pdfs"] == 3 and not report["corpus"]["failed"]
    n = report["questions"]
    assert n == len(report["per_question"]) >= 5
    assert list(report["results"]) == [label for label, _, _ in ep.PDFQA_RUNS]
    for label, r in {**report["results"], **report["baseline"]}.items():
        assert r["n"] == n
        for metric in ("page@1", "page@5", "mrr@10", "evidence@5"):
            assert 0.0 <= r[metric] <= 1.0, (label, metric)
        assert r["page@1"] <= r["page@5"]
        assert sum(k["n"] for k in r["by_kind"].values()) == n
        assert r["page@5"] > 0, label
    for r in report["results"].values():
        assert r["evidence@5"] <= r["evidence@5_chunk"]  # shown text is part of the chunk
        assert r["query_ms_p50"] > 0
    assert {"date", "machine", "load_average", "command"} <= set(report)
    # halves (this set's questions are split tune / check), each with intervals and the
    # paired difference with page BM25
    halves = report["halves"]
    assert set(halves) <= {"tune", "check", "all"} and halves["all"]["n"] == n
    for half in halves.values():
        ci = half["hybrid-dbsf"]["ci95"]
        assert ci["page@1"][1] <= ci["page@1"][0] <= ci["page@1"][2]
        assert "page@1 - page-bm25" in ci and "page@1 - page-bm25" not in half[
            "page-bm25"]["ci95"]
    assert "paired with page-bm25" in printed

    # a second run skips the unchanged PDFs
    assert ev.cmd_eval(_parse(["pdfqa", "--limit-pdfs", "3", "--corpus-dir", str(CORPUS),
                               "--out", str(out)]), make_settings()) == 0
    again = json.loads(out.read_text())
    assert again["corpus"]["skipped"] == 3 and again["corpus"]["converted_now"] == 0
