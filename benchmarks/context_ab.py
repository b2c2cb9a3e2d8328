"""What the dense model reads with a passage, as an A/B in one run (issue #17, session 8):
the passage alone (chunker v1) against the passage after the last words of the passage
before it in the same document (v2), 40 or 80 words, for every passage or only short ones
(< 500 characters), from any section or only the same one; in the dense input only, or in
the BM25 text too.

Every variant re-embeds the chunks of one real product index (built with chunker v1) with
bge-small-en-v1.5, searches them exhaustively (top ``--depth``), and fuses them by DBSF at
the product's dense weight with the index's own BM25 list (or, for "+ BM25", a BM25 list
recomputed over the same text as the dense input, ``levers_ab.bm25_search``). A control
re-embeds the passages alone the same way. PDF questions one hit per page
(``levers_ab.page_rows``), SciFact train nDCG@10 by document; also the cost of embedding
each variant's texts.

    .venv/bin/python benchmarks/context_ab.py --pdfqa-data /tmp/pdfqa-bge \\
        --scifact-data /tmp/sf-bge [--questions holdout] [--no-scifact]

Writes benchmarks/results/context_ab[_holdout].json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
from levers_ab import ROOT, Setup, bm25_search, fused, page_rows

from citeloom.eval.pdfqa_set import load_devset
from citeloom.eval.scifact import dedupe, load_scifact, machine_summary, ndcg_at_k

BGE = "BAAI/bge-small-en-v1.5"
WEIGHT = 2.0  # bge's weight in the product's DBSF
# name: (words of the passage before, only short passages, only from the same section)
CONTEXTS = {"alone (control)": (0, False, False), "40 words": (40, False, False),
            "80 words": (80, False, False), "80 words, short passages": (80, True, False),
            "80 words, same section": (80, False, True)}
Scored = list[tuple[str, float]]


def inputs(st: Setup, ids: list[str], words: int, short_only: bool, same_section: bool
           ) -> list[str]:
    """Each chunk's headings, the end of the chunk before it (if the variant says so) and
    its text."""
    at = {(p.get("doc_id"), p.get("chunk_index")): i for i, p in st.chunks.items()}
    out = []
    for i in ids:
        p = st.chunks[i]
        heads = p.get("heading_chain") or []
        before = at.get((p.get("doc_id"), (p.get("chunk_index") or 0) - 1))
        context = ""
        if words and before is not None \
                and (not short_only or len(p["chunk_text"]) < 500) \
                and (not same_section
                     or (st.chunks[before].get("heading_chain") or [])[:1] == heads[:1]):
            context = " ".join(st.chunks[before]["chunk_text"].split()[-words:])
        out.append("\n".join(x for x in (*heads, context, p["chunk_text"]) if x))
    return out


def variant_lists(st: Setup, queries: dict[str, str]
                  ) -> tuple[dict[str, dict[str, list[Scored]]], dict[str, float]]:
    """{variant: {query id: [dense list, BM25 list]}}, and passages/s per context."""
    ids = [i for i, p in st.chunks.items() if "reference" not in (p.get("item_labels") or [])]
    dense = st.app.runtime.dense(BGE)
    lists: dict[str, dict[str, list[Scored]]] = {"index (v1)": {
        q: list(st.lists[q]) for q in queries}}
    speed = {}
    for name, spec in CONTEXTS.items():
        texts = inputs(st, ids, *spec)
        t0 = time.perf_counter()
        m = np.vstack([dense.embed(texts[k:k + 256]) for k in range(0, len(texts), 256)])
        speed[name] = round(len(texts) / (time.perf_counter() - t0), 1)
        bm25: Callable[[str], Scored] = bm25_search(dict(zip(ids, texts, strict=True)))
        for q, text in queries.items():
            s = m @ st.qvec[q]
            top = np.argsort(-s)[:100]
            d = [(ids[k], float(s[k])) for k in top]
            lists.setdefault(name, {})[q] = [d, st.lists[q][1]]
            if spec[0]:
                lists.setdefault(name + " + BM25", {})[q] = [d, bm25(text)]
        print(f"  {name}: {speed[name]} passages/s", flush=True)
    return lists, speed


def pdfqa(data: Path, corpus: Path, which: str, depth: int) -> dict[str, Any]:
    questions = load_devset(which)
    queries = {q.id: q.question for q in questions}
    st = Setup(data, "pdfqa-eval", queries, depth,
               lambda p: f"{p.get('doc_id')}#{p.get('page_start')}")
    lists, speed = variant_lists(st, queries)
    out: dict[str, Any] = {"passages_per_s": speed, "ranking": {}}
    for name, per_q in lists.items():
        rows = page_rows(st, questions, {q: fused(v, [WEIGHT, 1.0]) for q, v in per_q.items()},
                         corpus)
        out["ranking"][name] = {
            "page@1": round(statistics.fmean(r == 1 for r, _ in rows), 3),
            "page@5": round(statistics.fmean(bool(r and r <= 5) for r, _ in rows), 3),
            "evidence@5 (3 chunks whole)": round(statistics.fmean(e for _, e in rows), 3),
            "MRR@10": round(statistics.fmean(1 / r if r and r <= 10 else 0
                                             for r, _ in rows), 3),
            "page misses": [q.id for q, (r, _) in zip(questions, rows, strict=True)
                            if not (r and r <= 5)]}
    return out


def scifact(data: Path, depth: int) -> dict[str, Any]:
    ds = load_scifact(None, "train")
    queries = {q: t for q, t in ds.queries.items() if q in ds.qrels}
    st = Setup(data, "scifact-eval", queries, depth, lambda p: p.get("doc_id"))
    lists, speed = variant_lists(st, queries)
    return {"passages_per_s": speed, "ndcg@10": {name: round(statistics.fmean(ndcg_at_k(
        dedupe(st.group[i] for i in fused(per_q[q], [WEIGHT, 1.0]))[:10], ds.qrels[q], 10)
        for q in queries), 4) for name, per_q in lists.items()}}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pdfqa-data", type=Path, default=Path("/tmp/pdfqa-bge"))
    ap.add_argument("--scifact-data", type=Path, default=Path("/tmp/sf-bge"))
    ap.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus" / "pdfs")
    ap.add_argument("--questions", default="dev", help="dev (tuned on) or holdout (blind)")
    ap.add_argument("--depth", type=int, default=100)
    ap.add_argument("--no-scifact", action="store_true")
    args = ap.parse_args()
    result: dict[str, Any] = {"date": date.today().isoformat(), "machine": machine_summary(),
                              "questions": args.questions,
                              "pdfqa": pdfqa(args.pdfqa_data, args.corpus, args.questions,
                                             args.depth)}
    if not args.no_scifact:
        result["scifact_train"] = scifact(args.scifact_data, args.depth)
    suffix = "" if args.questions == "dev" else f"_{args.questions}"
    out = ROOT / "benchmarks" / "results" / f"context_ab{suffix}.json"
    out.write_text(json.dumps(result, indent=2))
    sf = result.get("scifact_train", {}).get("ndcg@10", {})
    for name, r in result["pdfqa"]["ranking"].items():
        print(f"{name:32} page@1 {r['page@1']:.3f} page@5 {r['page@5']:.3f} "
              f"ev@5 {r['evidence@5 (3 chunks whole)']:.3f} MRR {r['MRR@10']:.3f} "
              f"SciFact {sf.get(name, float('nan')):.4f} misses {r['page misses']}")


if __name__ == "__main__":
    main()
