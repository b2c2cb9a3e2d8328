"""The retrieval evaluation: metric functions against hand-computed values, and one small
real run on SciFact (relevant abstracts of ten train queries among distractors)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from citeloom.eval import scifact as ev

from ..conftest import shared_settings

L2, L3, L4 = math.log2(2), math.log2(3), math.log2(4)


# -- nDCG@k --------------------------------------------------------------------------------
def test_ndcg_perfect_and_empty() -> None:
    assert ev.ndcg_at_k(["a", "b"], {"a": 1, "b": 1}) == pytest.approx(1.0)
    assert ev.ndcg_at_k(["x", "y"], {"a": 1}) == 0.0
    assert ev.ndcg_at_k(["a"], {}) == 0.0  # no judgements: nothing to find


def test_ndcg_binary_by_hand() -> None:
    # relevant at ranks 2 and 3 of 2 relevant: (1/log2 3 + 1/log2 4) / (1 + 1/log2 3)
    want = (1 / L3 + 1 / L4) / (1 / L2 + 1 / L3)
    assert want == pytest.approx(0.6934264, abs=1e-6)
    assert ev.ndcg_at_k(["x", "b", "c"], {"b": 1, "c": 1}) == pytest.approx(want)


def test_ndcg_graded_uses_linear_gain() -> None:
    # pytrec_eval / BEIR: gain = grade. Ranking x(1), a(2) against ideal a(2), x(1).
    got = ev.ndcg_at_k(["x", "a"], {"a": 2, "x": 1})
    assert got == pytest.approx((1 + 2 / L3) / (2 + 1 / L3))
    assert got == pytest.approx(0.8597186, abs=1e-6)


def test_ndcg_cut_at_k_and_zero_grades() -> None:
    ranked = [f"d{i}" for i in range(20)]
    # the only relevant document at rank 11: outside the top 10
    assert ev.ndcg_at_k(ranked, {"d10": 1}, k=10) == 0.0
    # at rank 10 it counts: 1 / log2(11)
    assert ev.ndcg_at_k(ranked, {"d9": 1}, k=10) == pytest.approx(1 / math.log2(11))
    # a grade of 0 is "judged not relevant": no gain, no part of the ideal
    assert ev.ndcg_at_k(["d0", "d1"], {"d0": 0, "d1": 1}) == pytest.approx(1 / L3)
    # the ideal is cut at k too: 12 relevant, the first 10 found -> 1.0
    rels = {f"d{i}": 1 for i in range(12)}
    assert ev.ndcg_at_k(ranked, rels, k=10) == pytest.approx(1.0)


# -- Recall@k and MRR@k ---------------------------------------------------------------------
def test_recall_by_hand() -> None:
    ranked = [f"d{i}" for i in range(150)]
    assert ev.recall_at_k(ranked, {"d3": 1, "d120": 1}, k=100) == pytest.approx(0.5)
    assert ev.recall_at_k(ranked, {"d3": 1, "d99": 1}, k=100) == pytest.approx(1.0)
    assert ev.recall_at_k(ranked, {"zz": 1}, k=100) == 0.0
    assert ev.recall_at_k(ranked, {"d3": 0}, k=100) == 0.0


def test_mrr_by_hand() -> None:
    assert ev.mrr_at_k(["x", "y", "a", "b"], {"a": 1, "b": 1}) == pytest.approx(1 / 3)
    assert ev.mrr_at_k(["a"], {"a": 1}) == 1.0
    assert ev.mrr_at_k([f"d{i}" for i in range(20)], {"d10": 1}, k=10) == 0.0


def test_score_run_means_over_judged_queries() -> None:
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    top10 = {"q1": ["a", "x"], "q2": ["x", "b"], "q3": ["a"]}  # q3 has no judgements
    deep = {"q1": ["a"], "q2": ["x", "y"]}
    got = ev.score_run(top10, deep, qrels)
    assert got["ndcg@10"] == pytest.approx((1 + 1 / L3) / 2)
    assert got["mrr@10"] == pytest.approx((1 + 0.5) / 2)
    assert got["recall@100"] == pytest.approx(0.5)  # recall from the deep ranking


def test_dedupe_keeps_best_chunk_of_each_document() -> None:
    assert ev.dedupe(["a", "b", "a", "c", "b"]) == ["a", "b", "c"]


# -- fusion helpers -------------------------------------------------------------------------
def test_rrf_by_hand() -> None:
    # k=2, 1 / (k - 1 + rank): a = 1/2 + 1/3, b = 1/3, c = 1/4 + 1/2
    assert ev.rrf([["a", "b", "c"], ["c", "a"]], k=2) == ["a", "c", "b"]
    # k=2, weight 3 on the second list, 1 / (k - 1 + rank / w):
    # a = 1/2 + 1/(1 + 2/3) = 1.1, c = 1/4 + 1/(1 + 1/3) = 1.0, b = 1/3
    assert ev.rrf([["a", "b", "c"], ["c", "a"]], k=2, weights=[1, 3]) == ["a", "c", "b"]
    # k=1: a tie unweighted (1 + 1/2 each); weight 3 on the second list breaks it for c:
    # a = 1/1 + 1/(2/3) = 2.5, c = 1/2 + 1/(1/3) = 3.5
    assert ev.rrf([["a", "c"], ["c", "a"]], k=1, weights=[1, 3]) == ["c", "a"]
    assert ev.rrf([["a", "c"], ["c", "a"]], k=1, weights=[3, 1]) == ["a", "c"]
    # depth 1 keeps only each list's first item
    assert ev.rrf([["a", "b", "c"], ["c", "a"]], k=1, depth=1) == ["a", "c"]


def test_dbsf_by_hand() -> None:
    # one list: normalisation is monotone, order kept
    assert ev.dbsf([[("a", 0.9), ("b", 0.5), ("c", 0.1)]]) == ["a", "b", "c"]
    # two lists: b is second in both and wins on the sum
    got = ev.dbsf([[("a", 1.0), ("b", 0.9), ("c", 0.0)], [("c", 10.0), ("b", 9.0), ("a", 0.0)]])
    assert got[0] == "b"


def test_query_folds_keep_families_of_a_document_together() -> None:
    """On SciFact train, a random split puts queries judged against the same abstract on
    both sides (that is what lets a learned lever look better than it is); the grouped
    split never does, covers every query once, and stays balanced."""
    if not (ev.default_data_dir() / "qrels_train.tsv").is_file():
        pytest.skip("SciFact is not available beside the repository")
    ds = ev.load_scifact()
    qids = sorted(ds.qrels, key=int)

    def crossing(folds: list[list[str]]) -> int:
        fold_of = {q: k for k, fold in enumerate(folds) for q in fold}
        seen: dict[str, set[int]] = {}
        for q in qids:
            for doc in ds.qrels[q]:
                seen.setdefault(doc, set()).add(fold_of[q])
        return sum(len(f) > 1 for f in seen.values())

    grouped = ev.query_folds(ds.qrels, qids, k=5)
    plain = ev.query_folds(ds.qrels, qids, k=5, grouped=False)
    for folds in (grouped, plain):
        assert sorted(q for f in folds for q in f) == sorted(qids)
    assert crossing(plain) > 50
    assert crossing(grouped) == 0
    sizes = [len(f) for f in grouped]
    assert max(sizes) - min(sizes) <= 10
    assert grouped == ev.query_folds(ds.qrels, qids, k=5)  # deterministic


def test_query_folds_by_hand() -> None:
    qrels = {"a": {"d1": 1}, "b": {"d1": 1, "d2": 1}, "c": {"d2": 1}, "d": {"d3": 1},
             "e": {"d4": 0}}
    folds = ev.query_folds(qrels, list(qrels), k=2)
    assert sorted(map(sorted, folds)) == [["a", "b", "c"], ["d", "e"]]


def test_load_qrels_skips_header(tmp_path: Path) -> None:
    f = tmp_path / "qrels.tsv"
    f.write_text("query-id\tcorpus-id\tscore\n1\tA\t1\n1\tB\t2\n2\tC\t0\n")
    assert ev.load_qrels(f) == {"1": {"A": 1, "B": 2}, "2": {"C": 0}}
    g = tmp_path / "noheader.tsv"
    g.write_text("1\tA\t1\n")
    assert ev.load_qrels(g) == {"1": {"A": 1}}


def test_default_data_dir_is_found_from_where_the_user_is(monkeypatch: pytest.MonkeyPatch,
                                                          tmp_path: Path) -> None:
    """Not from the package's own location: an installed CiteLoom finds SciFact beside the
    config file or the working folder, or where CITELOOM_SCIFACT_DIR says."""
    from citeloom.config import load_settings

    repo = Path(__file__).resolve().parents[2]
    shared = (repo.parent / "shared" / "eval" / "scifact").resolve()
    monkeypatch.delenv("CITELOOM_SCIFACT_DIR", raising=False)
    monkeypatch.chdir(repo)
    assert ev.default_data_dir() == shared
    monkeypatch.chdir(tmp_path)  # elsewhere: found beside the config file
    settings = shared_settings(data_dir=tmp_path, models_dir=tmp_path,
                        config_path=repo / "citeloom.toml")
    assert ev.default_data_dir(settings) == shared
    monkeypatch.setenv("CITELOOM_SCIFACT_DIR", "/somewhere/else")
    monkeypatch.setenv("CITELOOM_CONFIG", str(repo / "citeloom.toml"))
    assert ev.default_data_dir(load_settings()) == Path("/somewhere/else")


def test_eval_parser_options() -> None:
    import argparse

    parser = argparse.ArgumentParser()
    ev.add_eval_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["eval", "scifact", "--limit-queries", "5", "--rrf-k", "20",
                              "--prefetch", "50", "--rebuild"])
    assert (args.dataset, args.project, args.limit_queries) == ("scifact", None, 5)
    assert ev.PROJECTS[args.dataset] == "scifact-eval"  # what cmd_eval makes of None
    assert (args.rrf_k, args.prefetch, args.rebuild) == (20, 50, True)
    assert args.out is None  # then <data dir>/eval/scifact_train.json
    with pytest.raises(SystemExit):
        parser.parse_args(["eval", "msmarco"])
    with pytest.raises(ValueError, match="scifact"):
        ev.evaluate(None, dataset="pdfqa")  # type: ignore[arg-type]


# -- a small real run -------------------------------------------------------------------------
N_QUERIES = 10
N_DOCS = 150


@pytest.mark.slow
def test_small_scifact_run(make_settings) -> None:  # type: ignore[no-untyped-def]
    if not (ev.default_data_dir() / "qrels_train.tsv").is_file():
        pytest.skip("SciFact is not available beside the repository")
    from citeloom.service import CiteLoom

    ds = ev.load_scifact()
    qids = sorted(ds.qrels, key=int)[:N_QUERIES]
    relevant = {d for q in qids for d in ds.qrels[q]}
    # The relevant abstracts, then distractors: abstracts relevant to other train queries
    # (on-topic biomedical claims), so the task is not trivially easy.
    others = [d for q in sorted(ds.qrels, key=int)[N_QUERIES:] for d in ds.qrels[q]]
    fill = [d for d in dict.fromkeys(others) if d not in relevant][: N_DOCS - len(relevant)]
    keep = relevant | set(fill)
    ds.corpus = [d for d in ds.corpus if d["_id"] in keep]
    ds.queries = {q: ds.queries[q] for q in qids}
    assert len(ds.corpus) == N_DOCS

    settings = make_settings()
    app = CiteLoom(settings)
    try:
        chunks, _ = ev.build_project(app, "sf-small", ds, log=lambda _: None)
        assert chunks >= N_DOCS
        assert ev.built_chunks(app, "sf-small", ds) == chunks  # the marker says: reuse
        runs = ev.run_queries(app, "sf-small", ds.queries, depth=200, log=lambda _: None)
    finally:
        app.close()

    for label, _, _ in ev.RUNS:
        scores = ev.score_run(runs["top10"][label], runs["deep"][label], ds.qrels)
        for metric in ev.METRICS:
            assert 0.0 <= scores[metric] <= 1.0, (label, metric, scores)
        for qid in qids:
            top = runs["top10"][label][qid]
            assert len(top) == len(set(top)) <= 10  # one entry per document
    hybrid = runs["top10"]["hybrid-rrf"]
    found = sum(1 for q in qids if set(hybrid[q]) & set(ds.qrels[q]))
    assert found >= 8, f"hybrid found a relevant abstract for only {found}/{N_QUERIES}"
    # 100 of 150 abstracts: nearly every relevant one is among them
    assert ev.score_run(hybrid, runs["deep"]["hybrid-rrf"], ds.qrels)["recall@100"] >= 0.9
