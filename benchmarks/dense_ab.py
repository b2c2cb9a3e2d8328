"""The dense model and its weight in DBSF as an A/B in one run (issue #17, session 7):
all-MiniLM-L6-v2 against bge-small-en-v1.5 (int8), each fused with the same BM25 list at
dense weights 1-3, from the scored candidate lists of real product indexes of the same
corpus (``fusion_ab.candidates``: ``--depth`` chunks each of dense and sparse, the
product's filter). PDF questions one hit per page (``levers_ab.page_rows``), SciFact train
nDCG@10 by document.

The weight is chosen on the dev set and SciFact train; ``--questions holdout`` reads the
blind set (never tuned on) for the record.

    .venv/bin/python benchmarks/dense_ab.py \
        --minilm /tmp/cl-scifact /tmp/pdfqa-data --bge /tmp/sf-bge /tmp/pdfqa-bge

Each folder pair is a data dir with the ``scifact-eval`` project and one with
``pdfqa-eval``, built with that model (`citeloom eval scifact|pdfqa`, or `citeloom reindex
--dense-model`). Writes benchmarks/results/dense_ab[_holdout].json.
"""

from __future__ import annotations

import argparse
import json
import statistics
from datetime import date
from pathlib import Path
from typing import Any

from levers_ab import ROOT, Setup, fused, page_rows

from citeloom.eval.pdfqa_set import load_devset
from citeloom.eval.scifact import dedupe, load_scifact, ndcg_at_k

WEIGHTS = (1.0, 1.5, 2.0, 2.5, 3.0)


def pdfqa(data: Path, corpus: Path, questions: list[Any], depth: int) -> dict[str, Any]:
    st = Setup(data, "pdfqa-eval", {q.id: q.question for q in questions}, depth,
               lambda p: f"{p.get('doc_id')}#{p.get('page_start')}")
    out = {}
    for w in WEIGHTS:
        orders = {q.id: fused(list(st.lists[q.id]), [w, 1.0]) for q in questions}
        rows = page_rows(st, questions, orders, corpus)
        out[f"dense x{w:g}"] = {
            "page@1": round(statistics.fmean(r == 1 for r, _ in rows), 3),
            "page@5": round(statistics.fmean(bool(r and r <= 5) for r, _ in rows), 3),
            "evidence@5 (3 chunks whole)": round(statistics.fmean(e for _, e in rows), 3)}
    return out


def scifact(data: Path, depth: int) -> dict[str, float]:
    ds = load_scifact(None, "train")
    queries = {q: t for q, t in ds.queries.items() if q in ds.qrels}
    st = Setup(data, "scifact-eval", queries, depth, lambda p: p.get("doc_id"))
    return {f"dense x{w:g}": round(statistics.fmean(ndcg_at_k(
        dedupe(st.group[i] for i in fused(list(st.lists[q]), [w, 1.0]))[:10],
        ds.qrels[q], 10) for q in queries), 4) for w in WEIGHTS}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--minilm", nargs=2, type=Path, metavar=("SCIFACT_DATA", "PDFQA_DATA"),
                    default=[Path("/tmp/cl-scifact"), Path("/tmp/pdfqa-data")])
    ap.add_argument("--bge", nargs=2, type=Path, metavar=("SCIFACT_DATA", "PDFQA_DATA"),
                    default=[Path("/tmp/sf-bge"), Path("/tmp/pdfqa-bge")])
    ap.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus" / "pdfs")
    ap.add_argument("--questions", default="dev", help="dev (tuned on) or holdout (blind)")
    ap.add_argument("--depth", type=int, default=100)
    ap.add_argument("--no-scifact", action="store_true")
    args = ap.parse_args()
    questions = load_devset(args.questions)
    result: dict[str, Any] = {"date": date.today().isoformat(), "questions": args.questions,
                              "depth": args.depth, "pdfqa": {}, "scifact_train_ndcg@10": {}}
    for model, (sf_data, pq_data) in (("all-MiniLM-L6-v2", args.minilm),
                                      ("bge-small-en-v1.5", args.bge)):
        result["pdfqa"][model] = pdfqa(pq_data, args.corpus, questions, args.depth)
        if not args.no_scifact:
            result["scifact_train_ndcg@10"][model] = scifact(sf_data, args.depth)
        for name, row in result["pdfqa"][model].items():
            sf = result["scifact_train_ndcg@10"].get(model, {}).get(name, "")
            print(f"{model:18} {name:9} " + " ".join(f"{k} {v:.3f}" for k, v in row.items())
                  + (f"  SciFact {sf:.4f}" if sf else ""), flush=True)
    suffix = "" if args.questions == "dev" else f"_{args.questions}"
    out = ROOT / "benchmarks" / "results" / f"dense_ab{suffix}.json"
    out.write_text(json.dumps(result, indent=2))
    print(f"written to {out}")


if __name__ == "__main__":
    main()
