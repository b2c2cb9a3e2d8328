"""``citeloom eval citecheck``: the citation check (``service/citecheck.py``) on SciFact's
claims, each checked twice: cited to its true paper (its first relevant abstract), and
cited to a wrong one (an abstract drawn with a generator seeded by the claim's id, so
every run draws the same). Reported:

* ``found_true``: share of true citations judged ``found``;
* ``flagged_wrong``: share of wrong citations judged ``weak`` or ``not found``;
* ``better_top3``: share of wrong citations whose better sources (at most three) hold the
  true paper;
* ``s_per_claim``: seconds per claim for the two checks and the better sources.

Claims alternate between a ``tune`` half (thresholds are chosen on it) and a ``check``
half; each half is reported, with every claim's two scores, so thresholds can be swept.
The project is ``eval scifact``'s (built here when missing).
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from citeloom.index import SearchFilter
from citeloom.service.api import QueryRequest

if TYPE_CHECKING:
    from citeloom.config import Settings


def wrong_paper(claim_id: str, corpus_ids: list[str], relevant: set[str]) -> str:
    """A paper the claim does not cite, the same in every run."""
    rng = random.Random(f"citecheck:{claim_id}")
    while True:
        pick = rng.choice(corpus_ids)
        if pick not in relevant:
            return pick


def summarise(rows: list[dict[str, Any]], found: float) -> dict[str, Any]:
    if not rows:
        return {"n": 0}
    return {
        "n": len(rows),
        "found_true": round(statistics.fmean(r["true"] >= found for r in rows), 4),
        "flagged_wrong": round(statistics.fmean(r["wrong"] < found for r in rows), 4),
        "better_top3": round(statistics.fmean(r["better_has_true"] for r in rows), 4),
        "s_per_claim": round(statistics.fmean(r["seconds"] for r in rows), 3),
    }


def evaluate_citecheck(settings: Settings, ds: Any, *, project: str,
                       ensure_built: Callable[[Any], None],
                       limit_queries: int | None = None,
                       log: Callable[[str], None] = print) -> dict[str, Any]:
    """``ds``: SciFact (``evaluate.load_scifact``); ``ensure_built(app)`` builds the
    project from it when missing (``evaluate`` owns both, so this module does not import
    it)."""
    from citeloom.service import CiteLoom
    from citeloom.service import citecheck as cc

    claims = [(q, t) for q, t in ds.queries.items() if q in ds.qrels]
    if limit_queries:
        claims = claims[:limit_queries]
    corpus_ids = [d["_id"] for d in ds.corpus]
    app = CiteLoom(settings, started_by="eval")
    rows = []
    try:
        ensure_built(app)
        app.query(QueryRequest(project, "warm up", top_k=1))
        app.runtime.models.reranker().score("warm up", ["warm up"])
        for n, (qid, claim) in enumerate(claims):
            relevant = set(ds.qrels[qid])
            true = sorted(relevant)[0]
            wrong = wrong_paper(qid, corpus_ids, relevant)
            t0 = time.perf_counter()
            got_true = cc.judge(app.runtime, project, claim, SearchFilter(doc_ids=[true]),
                                cc.PASSAGES)
            got_wrong = cc.judge(app.runtime, project, claim, SearchFilter(doc_ids=[wrong]),
                                 cc.PASSAGES)
            w = got_wrong[0].score if got_wrong else cc.WEAK - 10
            better = cc.better_sources(app.runtime, [project], claim, {wrong}, w)
            seconds = time.perf_counter() - t0
            rows.append({"id": qid, "half": "tune" if n % 2 == 0 else "check",
                         "true_doc": true, "wrong_doc": wrong,
                         "true": got_true[0].score if got_true else cc.WEAK - 10,
                         "wrong": w,
                         "better": [b.passage.doc_id for b in better],
                         "better_has_true": bool(relevant & {b.passage.doc_id for b in better}),
                         "seconds": round(seconds, 3)})
            if (n + 1) % 50 == 0:
                log(f"  {n + 1}/{len(claims)} claims")
    finally:
        app.close()
    halves = {h: summarise([r for r in rows if r["half"] == h], cc.FOUND)
              for h in ("tune", "check")}
    return {"dataset": "citecheck", "split": ds.split, "project": project,
            "thresholds": {"found": cc.FOUND, "weak": cc.WEAK},
            **summarise(rows, cc.FOUND), "halves": halves, "per_claim": rows}


def format_table(report: dict[str, Any]) -> str:
    rows = [f"citecheck on SciFact {report['split']}: {report['n']} claims, thresholds "
            f"found ≥ {report['thresholds']['found']}, weak ≥ {report['thresholds']['weak']}",
            f"{'':<8} {'n':>5} {'found_true':>11} {'flagged_wrong':>14} {'better_top3':>12} "
            f"{'s/claim':>8}"]
    for name, r in [("all", report), *report["halves"].items()]:
        if r.get("n"):
            rows.append(f"{name:<8} {r['n']:>5} {r['found_true']:>11.3f} "
                        f"{r['flagged_wrong']:>14.3f} {r['better_top3']:>12.3f} "
                        f"{r['s_per_claim']:>8.2f}")
    return "\n".join(rows)
