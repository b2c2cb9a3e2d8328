"""A page's own evidence (issue #17, session 9) as an A/B in one run: each variant ranks
the same scored candidate lists (``fusion_ab.candidates``: dense and sparse, 100 chunks
each, the product's filter), fused as the index fuses them (DBSF, the dense list
``dense_weight`` times), then one hit per page with the product's own ``by_page``:

* ``best chunk``: a page ranks by its best chunk's fused score (the default before);
* ``evidence w``: a page scores ``service.ranking.page_evidence`` with weight ``w``: its best
  chunk's fused score plus ``w`` times what it gains when each list counts the page's
  best chunk in that list (``w`` = 1: each list's best chunk on the page, summed);

on the PDF question dev set (page@1, page@5, MRR@10, evidence in the best three chunks of
a top-5 page, whole) and on SciFact train, where the same rule groups by paper (nDCG@10;
the product's SciFact query is one passage per paper, which this rule does not change).

    .venv/bin/python benchmarks/page_evidence_ab.py --scifact-data /tmp/sf-v2 \
        --pdfqa-data /tmp/pdfqa-v2

Writes benchmarks/results/page_evidence_ab.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from datetime import date
from pathlib import Path
from typing import Any

from levers_ab import ROOT, Scored, Setup, page_rows

from citeloom.evaluate import dedupe, load_scifact, machine_summary, ndcg_at_k
from citeloom.index import Hit
from citeloom.pdfqa import load_devset
from citeloom.service import ranking
from citeloom.service.ranking import Evidence, by_page, normalised

WEIGHTS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.75, 1.0)
LIMIT = 50  # fused chunks a top-10 query groups into pages (search_index: top_k x 5)


def ranked(st: Setup, lists: tuple[Scored, Scored], dense_weight: float,
           weight: float | None, group: dict[str, str]) -> list[str]:
    """Chunk ids, best page first (each page's chunks in fused order), then the rest."""
    d, s = (normalised(r) for r in lists)
    fused = {i: dense_weight * d.get(i, 0.0) + s.get(i, 0.0) for i in d.keys() | s.keys()}
    order = sorted(fused, key=lambda i: -fused[i])
    # the page key is the group (a PDF page, or a SciFact paper)
    hits = [Hit(i, fused[i], {"doc_id": group[i], "page_start": 0, "kind": "passage"})
            for i in order[:LIMIT]]
    evidence = None
    if weight is not None:
        ranking.PAGE_EVIDENCE = weight
        evidence = Evidence([d, s], [dense_weight, 1.0])
    pages = by_page(hits, evidence=evidence)
    head = [i for p in pages for i in
            [p.id, *(h.id for h in hits if h.payload["doc_id"] == p.payload["doc_id"]
                     and h.id != p.id)]]
    return head + order[LIMIT:]


def variants() -> dict[str, float | None]:
    return {"best chunk (before)": None, **{f"evidence {w}": w for w in WEIGHTS}}


def pdfqa(data: Path, corpus: Path, questions: str) -> dict[str, Any]:
    qs = load_devset(questions)
    st = Setup(data, "pdfqa-eval", {q.id: q.question for q in qs}, 100,
               lambda p: f"{p.get('doc_id')}#{p.get('page_start')}")
    out = {}
    for name, w in variants().items():
        orders = {q.id: ranked(st, st.lists[q.id], 2.0, w, st.group) for q in qs}
        rows = page_rows(st, qs, orders, corpus)
        out[name] = {
            "page@1": round(statistics.fmean(r == 1 for r, _ in rows), 3),
            "page@5": round(statistics.fmean(bool(r and r <= 5) for r, _ in rows), 3),
            "mrr@10": round(statistics.fmean(1 / r if r and r <= 10 else 0.0
                                             for r, _ in rows), 3),
            "evidence@5 (3 chunks whole)": round(statistics.fmean(e for _, e in rows), 3),
            "page misses@5": [q.id for q, (r, _) in zip(qs, rows, strict=True)
                              if not (r and r <= 5)]}
    return out


def scifact(data: Path) -> dict[str, float]:
    ds = load_scifact(None, "train")
    queries = {q: t for q, t in ds.queries.items() if q in ds.qrels}
    st = Setup(data, "scifact-eval", queries, 100, lambda p: p.get("doc_id"))
    return {name: round(statistics.fmean(ndcg_at_k(dedupe(
        st.group[i] for i in ranked(st, st.lists[q], 2.0, w, st.group))[:10],
        ds.qrels[q], 10) for q in queries), 4) for name, w in variants().items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scifact-data", type=Path, default=Path("/tmp/sf-v2"))
    ap.add_argument("--pdfqa-data", type=Path, default=Path("/tmp/pdfqa-v2"))
    ap.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus" / "pdfs")
    ap.add_argument("--questions", default="dev", help="dev (the tuning set) or holdout")
    args = ap.parse_args()
    t0 = time.perf_counter()
    result = {"date": date.today().isoformat(), "machine": machine_summary(),
              "questions": args.questions,
              "pdfqa": pdfqa(args.pdfqa_data, args.corpus, args.questions),
              "scifact_train_ndcg@10": scifact(args.scifact_data)}
    result["seconds"] = round(time.perf_counter() - t0, 1)
    out = ROOT / "benchmarks" / "results" / "page_evidence_ab.json"
    out.write_text(json.dumps(result, indent=2))
    print(f"{'variant':22} {'page@1':>7} {'page@5':>7} {'MRR':>7} {'ev@5':>7} {'SciFact':>8}")
    for name, r in result["pdfqa"].items():
        print(f"{name:22} {r['page@1']:7.3f} {r['page@5']:7.3f} {r['mrr@10']:7.3f} "
              f"{r['evidence@5 (3 chunks whole)']:7.3f} "
              f"{result['scifact_train_ndcg@10'][name]:8.4f}  {r['page misses@5']}")


if __name__ == "__main__":
    main()
