"""The cross-encoder's second look at the first N documents of the default query on SciFact's
train queries (issue #28, rule 3 of docs/DECISIONS.md "How much a tuned-on set weighs"):
nDCG@10 and MRR@10 per depth, and the paired 95 % bootstrap interval of the nDCG@10
difference with depth 0, over the queries.

    CITELOOM_DATA_DIR=<eval data dir> .venv/bin/python benchmarks/scifact_rerank.py \\
        --depths 0,2 --out benchmarks/results/scifact_rerank.json

The project is the one `citeloom eval scifact` built (``scifact-eval``); the query is the
one that eval scores: ``CiteLoom.query(top_k=10, group_by_doc=True)``, default mode.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from citeloom.eval.pdfqa import bootstrap
from citeloom.eval.scifact import default_data_dir, load_scifact, mrr_at_k, ndcg_at_k
from citeloom.service.api import QueryRequest


def main() -> None:
    from citeloom.config import load_settings
    from citeloom.service import CiteLoom

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--depths", default="0,2")
    ap.add_argument("--project", default="scifact-eval")
    ap.add_argument("--data-dir", type=Path, default=None)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    depths = [int(d) for d in args.depths.split(",")]
    settings = load_settings()
    ds = load_scifact(args.data_dir or default_data_dir(settings))
    queries = {q: t for q, t in ds.queries.items() if q in ds.qrels}
    app = CiteLoom(settings)
    started = time.strftime("%Y-%m-%dT%H:%M%z")
    rows = []
    try:
        app.query(QueryRequest(args.project, "warm up", top_k=1, rerank=max(depths)))
        for qid, text in queries.items():
            row: dict = {"id": qid}
            for d in depths:
                res = app.query(QueryRequest(args.project, text, top_k=10, group_by_doc=True,
                                             rerank=d))
                ranked = [h.doc_id for h in res.hits]
                row[f"ndcg{d}"] = ndcg_at_k(ranked, ds.qrels[qid])
                row[f"mrr{d}"] = mrr_at_k(ranked, ds.qrels[qid])
                row[f"ms{d}"] = res.timings_ms["total"]
            rows.append(row)
    finally:
        app.close()
    table = {}
    for d in depths:
        nd = [r[f"ndcg{d}"] for r in rows]
        entry = {"ndcg@10": round(statistics.fmean(nd), 4),
                 "mrr@10": round(statistics.fmean(r[f"mrr{d}"] for r in rows), 4),
                 "p50_ms": round(statistics.median(r[f"ms{d}"] for r in rows), 1)}
        if d != depths[0]:
            entry["ndcg_diff"] = bootstrap(nd, [r[f"ndcg{depths[0]}"] for r in rows])
        table[d] = entry
        print(d, entry)
    args.out.write_text(json.dumps({"started": started, "queries": len(rows), "table": table,
                                    "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
