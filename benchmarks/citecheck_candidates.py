"""How many other papers should the citation check judge as better sources? (issue #29)

``citeloom check`` looks for better sources only where the cited paper is weak or silent:
the first stage's best ``CANDIDATES`` other papers (one page hit each) are read with the
cited claim by the cross-encoder, and the best three at least ``WEAK`` and above the cited
paper's score are shown. A true paper the first stage ranks below ``CANDIDATES`` can never
be shown.

This script records, for each SciFact train claim cited to its wrong paper (the same draw
as ``eval citecheck``), the first stage's best ``--depth`` other papers with the
cross-encoder's score of each, once; then it replays the rule for every candidate count
and reports ``better_top3`` per half (tune: even claims, check: odd) with its 95 %
bootstrap interval (``eval.pdfqa.bootstrap``), and its paired difference with the count
before (``--was``). The tune half chooses; the check half only confirms.

    CITELOOM_DATA_DIR=<eval data dir> .venv/bin/python benchmarks/citecheck_candidates.py \
        --out benchmarks/results/citecheck_candidates.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path


def shown_true(r: dict, candidates: int, weak: float, better: int) -> float:
    """1.0 when the rule shows the true paper among the better sources of claim ``r``."""
    floor = max(weak, r["wrong"])
    shown = sorted((c for c in r["candidates"][:candidates] if c["score"] >= floor),
                   key=lambda c: -c["score"])[:better]
    return float(any(c["doc_id"] in r["relevant"] for c in shown))


def replay(rows: list[dict], candidates: int, weak: float, better: int, was: int) -> dict:
    """``better_top3`` at ``candidates`` with its 95 % bootstrap interval, and the paired
    difference with ``was`` candidates (the rule before), by claim."""
    from citeloom.eval.pdfqa import bootstrap

    got = [shown_true(r, candidates, weak, better) for r in rows]
    before = [shown_true(r, was, weak, better) for r in rows]
    mean, lo, hi = bootstrap(got)
    diff, dlo, dhi = bootstrap(got, before)
    return {"n": len(rows), "better_top3": mean, "ci95": (lo, hi),
            f"minus_k{was}": diff, f"minus_k{was}_ci95": (dlo, dhi),
            "first_stage_recall": round(statistics.fmean(
                any(c["doc_id"] in r["relevant"] for c in r["candidates"][:candidates])
                for r in rows), 4) if rows else 0.0}


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
    ap.add_argument("--was", type=int, default=4, help="the candidate count compared with")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    from citeloom.service import citecheck as cc

    if args.rows:  # the recording's own date, machine and load stay with its rows
        recorded = json.loads(args.rows.read_text())
        rows = recorded.pop("per_claim")
    else:
        t0 = time.perf_counter()
        rows = record(args)
        recorded = {"date": datetime.now(UTC).isoformat(timespec="seconds"),
                    "machine": {"cpu": platform.processor() or platform.machine(),
                                "cores": os.cpu_count()},
                    "load_average": os.getloadavg(),
                    "seconds_recording": round(time.perf_counter() - t0, 1),
                    "command": " ".join(["citecheck_candidates.py", *sys.argv[1:]])}
    table = {}
    for k in range(1, args.depth + 1):
        table[k] = {h: replay([r for r in rows if r["half"] == h], k, cc.WEAK, cc.BETTER,
                              args.was) for h in ("tune", "check")}
        table[k]["all"] = replay(rows, k, cc.WEAK, cc.BETTER, args.was)
    for k, t in table.items():
        tune, check = t["tune"], t["check"]
        print(f"K={k:2d}  tune {tune['better_top3']:.3f} {tune['ci95']}  "
              f"check {check['better_top3']:.3f} {check['ci95']}  "
              f"check - K{args.was} {check[f'minus_k{args.was}']:+.3f} "
              f"{check[f'minus_k{args.was}_ci95']}  "
              f"recall tune {tune['first_stage_recall']:.3f}")
    head = {k: recorded[k] for k in ("date", "machine", "load_average",
                                     "seconds_recording", "command")}
    head.update(weak=cc.WEAK, better=cc.BETTER, was=args.was, table=table)
    # one claim a line: the file stays readable and half the size
    text = json.dumps(head, indent=1)[:-2] + ',\n "per_claim": [\n'
    args.out.write_text(text + ",\n".join(json.dumps(r) for r in rows) + "\n ]\n}\n")


if __name__ == "__main__":
    main()
