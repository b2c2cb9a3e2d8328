"""How many other papers should the citation check judge as better sources? (issue #29)

``citeloom check`` looks for better sources only where the cited paper is weak or silent:
the first stage's best ``CANDIDATES`` other papers (one page hit each) are read with the
cited claim by the cross-encoder, and the best three at least ``WEAK`` and above the cited
paper's score are shown. A true paper the first stage ranks below ``CANDIDATES`` can never
be shown.

This script records, for each SciFact train claim cited to its wrong paper (the same draw
as ``eval citecheck``), the first stage's best ``--depth`` other papers with the
cross-encoder's score of each, once; then it replays the rule for every candidate count
and reports ``better_top3`` per half (tune: even claims, check: odd), with 95 % Wilson
intervals, and the cost in cross-encoder calls. The tune half chooses; the check half only
confirms.

    CITELOOM_DATA_DIR=<eval data dir> .venv/bin/python benchmarks/citecheck_candidates.py \
        --out benchmarks/results/citecheck_candidates.json
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (0.0, 0.0)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (round(centre - half, 3), round(centre + half, 3))


def replay(rows: list[dict], candidates: int, weak: float, better: int) -> dict:
    hits = 0
    for r in rows:
        floor = max(weak, r["wrong"])
        shown = sorted((c for c in r["candidates"][:candidates] if c["score"] >= floor),
                       key=lambda c: -c["score"])[:better]
        hits += any(c["doc_id"] in r["relevant"] for c in shown)
    n = len(rows)
    return {"n": n, "better_top3": round(hits / n, 4) if n else 0.0,
            "ci95": wilson(hits, n),
            "first_stage_recall": round(statistics.fmean(
                any(c["doc_id"] in r["relevant"] for c in r["candidates"][:candidates])
                for r in rows), 4) if n else 0.0}


def record(args: argparse.Namespace) -> list[dict]:
    from citeloom.config import load_settings
    from citeloom.eval.citecheck import wrong_paper
    from citeloom.eval.scifact import DEFAULT_PROJECT, default_data_dir, load_scifact
    from citeloom.index import SearchFilter
    from citeloom.search import query as search
    from citeloom.service import CiteLoom
    from citeloom.service import citecheck as cc

    settings = load_settings(None)
    ds = load_scifact(default_data_dir(settings), "train")
    claims = [(q, t) for q, t in ds.queries.items() if q in ds.qrels]
    if args.limit:
        claims = claims[:args.limit]
    corpus_ids = [d["_id"] for d in ds.corpus]
    app = CiteLoom(settings, started_by="eval")
    rt = app.runtime
    rows = []
    try:
        for n, (qid, claim) in enumerate(claims):
            relevant = set(ds.qrels[qid])
            wrong = wrong_paper(qid, corpus_ids, relevant)
            got = cc.judge(rt, DEFAULT_PROJECT, claim, SearchFilter(doc_ids=[wrong]),
                           cc.PASSAGES)
            res = search.query(rt, DEFAULT_PROJECT, claim, top_k=args.depth,
                               flt=SearchFilter(exclude_doc_ids=[wrong]),
                               group_by_doc=True, rerank=0)
            hits = res.hits[:args.depth]
            scores = rt.models.reranker().score(claim, [h.text for h in hits]) if hits else []
            rows.append({"id": qid, "half": "tune" if n % 2 == 0 else "check",
                         "relevant": sorted(relevant),
                         "wrong": round(got[0].score if got else cc.WEAK - 10, 3),
                         "candidates": [{"doc_id": h.doc_id, "score": round(float(s), 3)}
                                        for h, s in zip(hits, scores, strict=True)]})
            if (n + 1) % 50 == 0:
                print(f"  {n + 1}/{len(claims)} claims", file=sys.stderr, flush=True)
    finally:
        app.close()
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--depth", type=int, default=16, help="other papers recorded per claim")
    ap.add_argument("--limit", type=int, default=0, help="first N claims only")
    ap.add_argument("--rows", type=Path, help="replay recorded rows instead of recording")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    from citeloom.service import citecheck as cc

    t0 = time.perf_counter()
    rows = json.loads(args.rows.read_text())["per_claim"] if args.rows else record(args)
    seconds = time.perf_counter() - t0
    table = {}
    for k in range(1, args.depth + 1):
        table[k] = {h: replay([r for r in rows if r["half"] == h], k, cc.WEAK, cc.BETTER)
                    for h in ("tune", "check")}
        table[k]["all"] = replay(rows, k, cc.WEAK, cc.BETTER)
    for k, t in table.items():
        print(f"K={k:2d}  tune {t['tune']['better_top3']:.3f} {t['tune']['ci95']}  "
              f"check {t['check']['better_top3']:.3f} {t['check']['ci95']}  "
              f"recall tune {t['tune']['first_stage_recall']:.3f}")
    args.out.write_text(json.dumps({
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {"cpu": platform.processor() or platform.machine(),
                    "cores": os.cpu_count()},
        "load_average": os.getloadavg(), "seconds_recording": round(seconds, 1),
        "weak": cc.WEAK, "better": cc.BETTER, "table": table, "per_claim": rows,
        "command": " ".join(["citecheck_candidates.py", *sys.argv[1:]])}, indent=1))


if __name__ == "__main__":
    main()
