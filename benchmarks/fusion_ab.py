"""Ranking levers as an A/B in one run (issue #17): fusion rules and weights, prefetch depth,
and page-level evidence, on SciFact train (nDCG@10 by document) and the PDF question dev set
(page-hit@1/@5, evidence in the chunk @5).

Each query is embedded once and searched once per mode (dense and sparse, ``--depth``
chunks, the product's filter: no reference-list chunks); every fusion is then computed
here from those scored lists, so the variants differ in nothing else. ``rrf`` and ``dbsf``
reproduce Qdrant's own (``evaluate.rrf``/``dbsf``, checked against the engine: the
``edge-rrf``/``edge-dbsf`` rows are the engine's answers to the same queries).

    .venv/bin/python benchmarks/fusion_ab.py --scifact-data /tmp/cl-scifact \
        --pdfqa-data /tmp/pdfqa-data [--limit 300]

Both data dirs must hold the built evaluation projects (``citeloom eval scifact`` and
``citeloom eval pdfqa`` make them). Writes benchmarks/results/fusion_ab.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable, Sequence
from datetime import date
from pathlib import Path
from typing import Any

from citeloom.config import Settings
from citeloom.eval.pdfqa import evidence_in, first_rank, pages_overlap
from citeloom.eval.pdfqa_set import load_devset
from citeloom.eval.scifact import dbsf, dedupe, load_scifact, machine_summary, ndcg_at_k, rrf
from citeloom.index import SearchFilter
from citeloom.service import CiteLoom

ROOT = Path(__file__).resolve().parents[1]
MODELS = Path.home() / ".local/share/citeloom/models"
Scored = list[tuple[str, float]]


def convex(lists: Sequence[Scored], weights: Sequence[float], depth: int | None = None
           ) -> list[str]:
    """Min-max normalised scores, weighted sum (missing from a list: 0)."""
    scores: dict[str, float] = {}
    for w, items in zip(weights, lists, strict=True):
        items = list(items[:depth] if depth else items)
        if not items:
            continue
        hi, lo = items[0][1], items[-1][1]
        for item, s in items:
            scores[item] = scores.get(item, 0.0) + w * ((s - lo) / (hi - lo) if hi > lo else 1)
    return sorted(scores, key=lambda i: -scores[i])


def zscore(lists: Sequence[Scored], weights: Sequence[float], depth: int | None = None
           ) -> list[str]:
    scores: dict[str, float] = {}
    for w, items in zip(weights, lists, strict=True):
        items = list(items[:depth] if depth else items)
        vals = [s for _, s in items]
        if len(vals) < 2:
            continue
        mean, sd = statistics.fmean(vals), statistics.pstdev(vals) or 1.0
        floor = (vals[-1] - mean) / sd
        for item, s in items:
            scores[item] = scores.get(item, 0.0) + w * ((s - mean) / sd - floor)
    return sorted(scores, key=lambda i: -scores[i])


def variants(depth_default: int) -> dict[str, Callable[[Scored, Scored], list[str]]]:
    out: dict[str, Callable[[Scored, Scored], list[str]]] = {
        "dense": lambda d, s: [i for i, _ in d],
        "sparse": lambda d, s: [i for i, _ in s],
    }
    for k in (60, 20, 5):
        out[f"rrf k={k}"] = lambda d, s, k=k: rrf([[i for i, _ in d], [i for i, _ in s]], k=k)
    for w in (0.5, 1.0, 1.5, 2.0):
        out[f"dbsf ws={w}"] = lambda d, s, w=w: dbsf([d, s], weights=[1.0, w])
    for depth in (20, 50):
        out[f"dbsf depth={depth}"] = lambda d, s, depth=depth: dbsf([d, s], depth=depth)
    for w in (0.5, 1.0, 1.5):
        out[f"convex ws={w}"] = lambda d, s, w=w: convex([d, s], [1.0, w])
        out[f"z ws={w}"] = lambda d, s, w=w: zscore([d, s], [1.0, w])
    return out


def dbsf_scores(lists: Sequence[Scored], weights: Sequence[float]) -> dict[str, float]:
    scores: dict[str, float] = {}
    for w, items in zip(weights, lists, strict=True):
        vals = [v for _, v in items]
        if not vals:
            continue
        mean = statistics.fmean(vals)
        sd = statistics.pstdev(vals) if len(vals) > 1 else 0.0
        low, high = mean - 3 * sd, mean + 3 * sd
        for item, v in items:
            scores[item] = scores.get(item, 0.0) + w * (
                (v - low) / (high - low) if high > low else 0.5)
    return scores


def grouped(scores: dict[str, float], group: dict[str, str], lam: float, fold: bool
            ) -> list[str]:
    """Each chunk's score plus ``lam`` x the scores of the other chunks of its group (a
    document, a page); with ``fold``, only the best chunk of each group."""
    total: dict[str, float] = {}
    for i, v in scores.items():
        total[group[i]] = total.get(group[i], 0.0) + v
    boosted = {i: v + lam * (total[group[i]] - v) for i, v in scores.items()}
    order = sorted(boosted, key=lambda i: -boosted[i])
    if not fold:
        return order
    seen: set[str] = set()
    return [i for i in order if not (group[i] in seen or seen.add(group[i]))]


def group_variants() -> dict[str, tuple[float, bool]]:
    return {f"dbsf+group lam={lam}{' fold' if fold else ''}": (lam, fold)
            for lam in (0.0, 0.1, 0.25, 0.5) for fold in (False, True)}


PRF = [(3, 0.3), (3, 0.6), (5, 0.5), (10, 0.5)]


def prf_lists(app: CiteLoom, project: str, text: str, depth: int, d: list[Any],
              s: list[Any]) -> dict[str, tuple[Scored, Scored]]:
    """Dense pseudo-relevance feedback: the query vector moved toward the top-n chunks of
    the DBSF ranking (Rocchio, weight b), searched again; the sparse list unchanged."""
    import numpy as np

    index = app.runtime.projects.index(project)
    cfg = app.settings.project(project, create=True)
    lock = index.lock() or app.runtime.models.model_lock(cfg)
    q = np.asarray(app.runtime.dense(lock.dense_model).embed_query(text), dtype=np.float32)
    fused = dbsf([[(h.id, h.score) for h in d], [(h.id, h.score) for h in s]])
    vecs = index.dense_vectors(fused[:max(n for n, _ in PRF)])
    out = {}
    for n, b in PRF:
        top = [np.asarray(vecs[i], dtype=np.float32) for i in fused[:n] if i in vecs]
        moved = q + b * np.mean(top, axis=0)
        moved /= np.linalg.norm(moved)
        d2 = index.search(dense=moved.tolist(), sparse=None, mode="dense", limit=depth,
                          flt=SearchFilter(exclude_labels=["reference"]))
        out[f"dbsf prf n={n} b={b}"] = ([(h.id, h.score) for h in d2],
                                        [(h.id, h.score) for h in s])
        for h in d2:
            d.append(h) if h.id not in {x.id for x in d} else None
    return out


def candidates(app: CiteLoom, project: str, text: str, depth: int
               ) -> tuple[list[Any], list[Any]]:
    cfg = app.settings.project(project, create=True)
    lock = app.runtime.projects.index(project).lock() or app.runtime.models.model_lock(cfg)
    dvec = app.runtime.dense(lock.dense_model).embed_query(text)
    svec = app.runtime.sparse().embed_query(text)
    flt = SearchFilter(exclude_labels=["reference"])
    index = app.runtime.projects.index(project)
    d = index.search(dense=dvec, sparse=None, mode="dense", limit=depth, flt=flt)
    s = index.search(dense=None, sparse=svec, mode="sparse", limit=depth, flt=flt)
    return d, s


def scifact(data: Path, limit: int | None, depth: int) -> dict[str, dict[str, float]]:
    app = CiteLoom(Settings(data_dir=data, models_dir=MODELS))
    ds = load_scifact(None, "train")
    queries = dict(list(ds.queries.items())[:limit] if limit else ds.queries.items())
    runs = variants(depth)
    ranked: dict[str, dict[str, list[str]]] = {name: {} for name in runs}
    for qid, text in queries.items():
        d, s = candidates(app, "scifact-eval", text, depth)
        doc = {h.id: h.payload.get("doc_id", h.id) for h in [*d, *s]}
        ds_, ss_ = [(h.id, h.score) for h in d], [(h.id, h.score) for h in s]
        for name, fuse in runs.items():
            ranked[name][qid] = dedupe(doc[i] for i in fuse(ds_, ss_))[:10]
        fused = dbsf_scores([ds_, ss_], [1.0, 1.0])
        for name, (lam, fold) in group_variants().items():
            ranked.setdefault(name, {})[qid] = dedupe(
                doc[i] for i in grouped(fused, doc, lam, fold))[:10]
        for name, (dl, sl) in prf_lists(app, "scifact-eval", text, depth, d, s).items():
            doc.update({h.id: h.payload.get("doc_id", h.id) for h in d})
            ranked.setdefault(name, {})[qid] = dedupe(doc[i] for i in dbsf([dl, sl]))[:10]
    app.close()
    qids = [q for q in queries if q in ds.qrels]
    return {name: {"ndcg@10": round(statistics.fmean(
        ndcg_at_k(r[q], ds.qrels[q], 10) for q in qids), 4)} for name, r in ranked.items()}


def pdfqa(data: Path, corpus: Path, depth: int) -> dict[str, dict[str, float]]:
    app = CiteLoom(Settings(data_dir=data, models_dir=MODELS))
    questions = load_devset()
    runs = variants(depth)
    ranks: dict[str, list[dict[str, int | None]]] = {name: [] for name in runs}
    for q in questions:
        source = str((corpus / q.pdf).resolve())
        d, s = candidates(app, "pdfqa-eval", q.question, depth)
        hit = {h.id: h for h in [*d, *s]}
        ds_, ss_ = [(h.id, h.score) for h in d], [(h.id, h.score) for h in s]
        orders = {name: fuse(ds_, ss_) for name, fuse in runs.items()}
        page = {i: f"{h.payload.get('source_path')}#{h.payload.get('page_start')}"
                for i, h in hit.items()}
        fused = dbsf_scores([ds_, ss_], [1.0, 1.0])
        for name, (lam, fold) in group_variants().items():
            orders[name] = grouped(fused, page, lam, fold)
        for name, (dl, sl) in prf_lists(app, "pdfqa-eval", q.question, depth, d, s).items():
            hit.update({h.id: h for h in d})
            orders[name] = dbsf([dl, sl])
        for name, order in orders.items():
            top = [hit[i].payload for i in order[:10]]
            ranks.setdefault(name, []).append({
                "page": first_rank(p.get("source_path") == source and pages_overlap(
                    p.get("page_start"), p.get("page_end"), q.pages) for p in top),
                "chunk": first_rank(evidence_in(q.evidence, p.get("chunk_text", ""))
                                    for p in top)})
    app.close()

    def at(rs: list[dict[str, int | None]], key: str, k: int) -> float:
        return round(statistics.fmean(1.0 if r[key] and r[key] <= k else 0.0 for r in rs), 3)

    return {name: {"page@1": at(rs, "page", 1), "page@5": at(rs, "page", 5),
                   "evidence_in_chunk@5": at(rs, "chunk", 5)} for name, rs in ranks.items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scifact-data", type=Path, default=Path("/tmp/cl-scifact"))
    ap.add_argument("--pdfqa-data", type=Path, default=Path("/tmp/pdfqa-data"))
    ap.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus" / "pdfs")
    ap.add_argument("--limit", type=int, default=None, help="SciFact queries (default all)")
    ap.add_argument("--depth", type=int, default=100, help="chunks per mode (prefetch)")
    args = ap.parse_args()
    t0 = time.perf_counter()
    result = {"date": date.today().isoformat(), "machine": machine_summary(),
              "depth": args.depth, "pdfqa": pdfqa(args.pdfqa_data, args.corpus, args.depth),
              "scifact_train": scifact(args.scifact_data, args.limit, args.depth)}
    result["seconds"] = round(time.perf_counter() - t0, 1)
    out = ROOT / "benchmarks" / "results" / "fusion_ab.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    print(f"{'variant':16} {'page@1':>7} {'page@5':>7} {'ev@5':>7} {'sf ndcg':>8}")
    for name in result["pdfqa"]:
        p, s = result["pdfqa"][name], result["scifact_train"][name]
        print(f"{name:16} {p['page@1']:7.3f} {p['page@5']:7.3f} "
              f"{p['evidence_in_chunk@5']:7.3f} {s['ndcg@10']:8.4f}")


if __name__ == "__main__":
    main()
