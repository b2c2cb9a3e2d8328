"""The cross-encoder's second look at the first N page hits of the default query, as the
product runs it (`QueryRequest.rerank`), against none and against page BM25, per half of
both PDF dev sets, with paired 95 % bootstrap intervals (issue #28).

    CITELOOM_DATA_DIR=<eval data dir> .venv/bin/python benchmarks/rerank_depth_ab.py \\
        --depths 0,2,5 --out benchmarks/results/rerank_depth_ab.json

The projects are the eval's own (`citeloom eval pdfqa` made them), given per set with
``--project dev=NAME``; by default the chunker-v3 ones (`pdfqa-eval-v3`,
`pdfqa-eval-dev2-v3`). A set that is not packaged (the third, over papers fetched by
``benchmarks/fetch_dev3.sh``) comes with ``--questions dev3=FILE --corpus dev3=DIR``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

import pdfsets

from citeloom.eval.pdfqa import (
    TOP_K,
    baseline_ranks,
    bootstrap,
    first_rank,
    hit_at,
    pages_overlap,
)
from citeloom.eval.pdfqa_set import page_texts
from citeloom.service.api import QueryRequest


def run_set(app: Any, src: pdfsets.Source, depths: list[int]) -> dict[str, Any]:
    questions, corpus = src.load()
    project = src.project
    texts = {q.pdf: page_texts(corpus / q.pdf) for q in questions}
    bm25 = baseline_ranks(questions, texts)
    app.query(QueryRequest(project, "warm up", top_k=1, rerank=max(depths)))
    rows = []
    for q in questions:
        source = str((corpus / q.pdf).resolve())
        row: dict[str, Any] = {"id": q.id, "kind": q.kind, "half": q.half,
                               "page-bm25": bm25[q.id]["page"]}
        for depth in depths:
            res = app.query(QueryRequest(project, q.question, top_k=TOP_K, rerank=depth))
            row[f"ce{depth}"] = first_rank(
                h.source_path == source and pages_overlap(h.page_start, h.page_end, q.pages)
                for h in res.hits)
            row[f"ce{depth}_ms"] = res.timings_ms["total"]
        rows.append(row)
    return {"set": src.name, "project": project, "questions": rows}


def table(result: dict[str, Any], depths: list[int]) -> list[str]:
    out = []
    for half in ("tune", "check", "all"):
        rows = [r for r in result["questions"] if half == "all" or r["half"] == half]
        base = [hit_at(r["ce0"], 1) for r in rows] if 0 in depths else None
        cells = []
        for system in ["page-bm25", *(f"ce{d}" for d in depths)]:
            p1 = [hit_at(r[system], 1) for r in rows]
            p5 = statistics.fmean(hit_at(r[system], 5) for r in rows)
            text = f"{statistics.fmean(p1):.3f} / {p5:.3f}"
            if base is not None and system not in ("ce0", "page-bm25"):
                d, lo, hi = bootstrap(p1, base)
                text += f" ({d:+.3f} [{lo:+.2f}, {hi:+.2f}])"
            if system != "page-bm25":
                ms = statistics.median(r[f"{system}_ms"] for r in rows)
                text += f", p50 {ms:.0f} ms"
            cells.append(text)
        out.append(f"| {result['set']} {half} ({len(rows)}) | " + " | ".join(cells) + " |")
    return out


def main() -> None:
    from citeloom.config import load_settings
    from citeloom.service import CiteLoom

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--depths", default="0,2,5")
    pdfsets.add_options(ap, sets="dev,dev2")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    depths = [int(d) for d in args.depths.split(",")]
    app = CiteLoom(load_settings())
    started = time.strftime("%Y-%m-%dT%H:%M%z")
    try:
        results = [run_set(app, src, depths) for src in pdfsets.chosen(args)]
    finally:
        app.close()
    lines = ["| set, half | page BM25 | " + " | ".join(f"rerank {d}" for d in depths) + " |",
             "|---|" + "---|" * (len(depths) + 1)]
    for r in results:
        lines += table(r, depths)
    print("\n".join(lines))
    args.out.write_text(json.dumps({"started": started, "depths": depths, "table": lines,
                                    "results": results}, indent=1) + "\n")


if __name__ == "__main__":
    main()
