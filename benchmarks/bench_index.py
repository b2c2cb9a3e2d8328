"""Index benchmark: Edge shards of 10k and 100k chunks built from real SciFact vectors.

Source: the SciFact evaluation project (``citeloom eval scifact`` builds it): its real dense
(all-MiniLM-L6-v2) and sparse (Qdrant/bm25) vectors and chunk texts. Replica r > 0 of a
chunk gets Gaussian noise on the dense vector (sigma 0.025 per dimension, renormalised:
cosine ~0.9 to the original), 10 % of its BM25 terms dropped and the rest reweighted by
U(0.8, 1.2), and a payload like the product's (doc_id, year, tags, authors, ...).

Each size is built and measured in a fresh child process (so peak RSS is that size's),
``--repeats`` times; medians over repeats are reported. In the child:

* upsert: ``EdgeIndex.upsert`` in batches of 256 points (the batch ``index_texts`` uses),
  each an atomic WAL write plus flush; points/s over the upsert calls only.
* queries: real SciFact train queries; each query is embedded (DenseEmbedder +
  SparseEmbedder) and searched as ``CiteLoom.query(top_k=10, group_by_doc=True)`` does it
  (hybrid RRF, limit 50 chunks, prefetch 100, reference chunks excluded: the "default
  filter"), with a year range or a set of 20 doc_ids added, and once with no filter at all;
  ``--passes`` passes over the queries after a warm-up, p50/p95 per pass, median over
  passes.
* ``optimize()``: queries are measured before it (appendable segments, as the product
  leaves a shard today) and after it (HNSW and indexed segments); its time is reported.
* dense HNSW recall@10 against exact search, after optimize.

    .venv/bin/python benchmarks/bench_index.py [--sizes 10000 100000] [--repeats 3]

Writes ``benchmarks/results/index.json`` and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
import zlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from citeloom.eval.scifact import machine_info

ROOT = Path(__file__).resolve().parents[1]
NS = uuid.UUID("2b0f5a5e-8d0e-4c8e-9b59-6a3e0e1c7f21")
DENSE_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
BATCH = 256
RAW = "no filter at all"
DENSE_SIGMA = 0.025
SPARSE_DROP = 0.10
PAYLOAD_FIELDS = ["doc_id", "title", "chunk_text", "chunk_index", "doc_chunk_count",
                  "section_path", "heading_chain", "item_labels"]
TAGS = ["oncology", "immunology", "genetics", "neuroscience", "cardiology", "epidemiology",
        "microbiology", "metabolism", "stem-cells", "pharmacology", "to-read", "cited",
        "methods", "review", "clinical-trial", "mouse-model", "in-vitro", "meta-analysis",
        "aging", "infection"]
SURNAMES = ["Smith", "Müller", "Wang", "Garcia", "Kim", "Rossi", "Nguyen", "Ivanova", "Sato",
            "Okafor", "Dubois", "Kowalski", "Silva", "Cohen", "Patel", "Andersen"]


# -- source vectors ---------------------------------------------------------------------------
def export_source(data_dir: Path, project: str, cache: Path) -> Path:
    """Dense + sparse vectors and payloads of every chunk of the source project, as .npz."""
    import numpy as np

    from citeloom.index import EdgeStore

    if cache.is_file():
        return cache
    import qdrant_edge as q

    store = EdgeStore(data_dir / "indexes")
    index = store.open(project)
    shard = index._open()  # noqa: SLF001 - a benchmark reads the shard directly
    dense, s_idx, s_val, s_off, payloads = [], [], [], [0], []
    offset = None
    while True:
        records, offset = shard.scroll(q.ScrollRequest(
            offset=offset, limit=1000, with_payload=PAYLOAD_FIELDS, with_vector=True))
        for r in records:
            dense.append(r.vector["dense"])
            sv = r.vector["sparse"]
            s_idx.extend(sv.indices)
            s_val.extend(sv.values)
            s_off.append(len(s_idx))
            payloads.append(dict(r.payload or {}))
        if offset is None:
            break
    store.close()
    index.close()
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.savez(cache, dense=np.asarray(dense, dtype=np.float32),
             s_idx=np.asarray(s_idx, dtype=np.uint32), s_val=np.asarray(s_val, dtype=np.float32),
             s_off=np.asarray(s_off, dtype=np.int64),
             payloads=np.asarray([json.dumps(p) for p in payloads]))
    return cache


def load_source(path: Path) -> dict[str, Any]:
    import numpy as np

    z = np.load(path)
    return {"dense": z["dense"], "s_idx": z["s_idx"], "s_val": z["s_val"], "s_off": z["s_off"],
            "payloads": [json.loads(p) for p in z["payloads"]]}


# -- synthetic points ------------------------------------------------------------------------
def _crc(text: str) -> int:
    return zlib.crc32(text.encode())


def doc_payload(doc_id: str) -> dict[str, Any]:
    """Per-document metadata, the same for every chunk of the document."""
    h = _crc(doc_id)
    year = 1990 + h % 35
    tags = sorted({TAGS[(h >> s) % len(TAGS)] for s in (3, 9, 15)[: 1 + (h >> 21) % 3]})
    authors = [f"{SURNAMES[(h >> s) % len(SURNAMES)]}, {chr(65 + (h >> (s + 4)) % 26)}."
               for s in (2, 10, 18)[: 1 + (h >> 25) % 3]]
    first = authors[0].split(",")[0].lower()
    return {"citekey": f"{first}{year}{doc_id[-4:]}", "year": year, "tags": tags,
            "authors": authors, "collections": [TAGS[h % 5]], "doi": f"10.9999/{doc_id}",
            "zotero_key": f"Z{h % 10**7:07d}", "language": "en"}


def make_points(src: dict[str, Any], start: int, stop: int, rng: Any) -> list[Any]:
    import numpy as np

    from citeloom.embed.encoders import Sparse
    from citeloom.index import PointData

    n_src = len(src["payloads"])
    out = []
    for i in range(start, stop):
        r, j = divmod(i, n_src)
        base = src["payloads"][j]
        dense = src["dense"][j]
        lo, hi = src["s_off"][j], src["s_off"][j + 1]
        idx, val = src["s_idx"][lo:hi], src["s_val"][lo:hi]
        if r:
            dense = dense + rng.normal(0.0, DENSE_SIGMA, dense.shape).astype(np.float32)
            dense = dense / np.linalg.norm(dense)
            keep = rng.random(len(idx)) >= SPARSE_DROP
            if not keep.any():
                keep[0] = True
            idx = idx[keep]
            val = val[keep] * rng.uniform(0.8, 1.2, int(keep.sum())).astype(np.float32)
        doc_id = base["doc_id"] if r == 0 else f"{base['doc_id']}~{r}"
        payload = {
            "project_id": "bench",
            "doc_id": doc_id,
            "title": base.get("title", ""),
            "source_path": f"/library/{doc_id}.pdf",
            "section_path": base.get("section_path", ""),
            "section_prefixes": [base.get("section_path", "")],
            "heading_chain": base.get("heading_chain", []),
            "page_start": 1 + base.get("chunk_index", 0) // 2,
            "page_end": 1 + base.get("chunk_index", 0) // 2,
            "chunk_index": base.get("chunk_index", 0),
            "doc_chunk_count": base.get("doc_chunk_count", 1),
            "chunk_text": base.get("chunk_text", ""),
            "content_hash": f"{_crc(doc_id):08x}" * 8,
            "item_labels": base.get("item_labels", ["text"]),
            "embed_model": DENSE_MODEL,
            **doc_payload(doc_id),
        }
        out.append(PointData(
            id=str(uuid.uuid5(NS, f"{doc_id}:{payload['chunk_index']}")),
            dense=dense.tolist(),
            sparse=Sparse([int(x) for x in idx], [float(x) for x in val]),
            payload=payload,
        ))
    return out


# -- measuring ---------------------------------------------------------------------------------
def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    pos = (len(ordered) - 1) * p / 100
    lo, hi = int(pos), min(int(pos) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def dir_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 2**20


def measure_queries(index: Any, dense_m: Any, sparse_m: Any, queries: list[str],
                    filters: dict[str, Any], passes: int) -> dict[str, Any]:
    """Per filter: p50/p95 of (embed + search) per pass, median over passes; plus the
    embed-only and search-only p50."""
    import dataclasses

    from citeloom.index import SearchFilter

    out: dict[str, Any] = {}
    for name, flt in filters.items():
        base: SearchFilter | None = None
        if name != RAW:
            base = dataclasses.replace(flt) if flt else SearchFilter()
            base.exclude_labels = ["reference"]  # what CiteLoom.query adds by default
        for text in queries[:5]:  # warm-up
            index.search(dense=dense_m.embed_query(text), sparse=sparse_m.embed_query(text),
                         mode="hybrid", limit=50, flt=base, fusion="rrf", rrf_k=60, prefetch=100)
        p50s, p95s, emb50, srch50, hits = [], [], [], [], []
        for _ in range(passes):
            total, emb, srch = [], [], []
            for text in queries:
                t0 = time.perf_counter()
                dv = dense_m.embed_query(text)
                sv = sparse_m.embed_query(text)
                t1 = time.perf_counter()
                res = index.search(dense=dv, sparse=sv, mode="hybrid", limit=50, flt=base,
                                   fusion="rrf", rrf_k=60, prefetch=100)
                t2 = time.perf_counter()
                total.append((t2 - t0) * 1000)
                emb.append((t1 - t0) * 1000)
                srch.append((t2 - t1) * 1000)
                hits.append(len(res))
            p50s.append(statistics.median(total))
            p95s.append(pct(total, 95))
            emb50.append(statistics.median(emb))
            srch50.append(statistics.median(srch))
        out[name] = {"p50_ms": round(statistics.median(p50s), 2),
                     "p95_ms": round(statistics.median(p95s), 2),
                     "embed_p50_ms": round(statistics.median(emb50), 2),
                     "search_p50_ms": round(statistics.median(srch50), 2),
                     "mean_hits": round(statistics.fmean(hits), 1)}
    return out


def dense_recall(shard: Any, dense_m: Any, queries: list[str], k: int = 10) -> float:
    """Top-k overlap of the HNSW dense search with exact search."""
    import qdrant_edge as q

    found = 0
    for text in queries:
        v = dense_m.embed_query(text)
        approx = shard.query(q.QueryRequest(limit=k, query=q.Query.Nearest(v, using="dense")))
        exact = shard.query(q.QueryRequest(limit=k, query=q.Query.Nearest(v, using="dense"),
                                           params=q.SearchParams(exact=True)))
        found += len({p.id for p in approx} & {p.id for p in exact})
    return found / (k * len(queries))


def child(args: argparse.Namespace) -> dict[str, Any]:
    import numpy as np

    from citeloom.embed.encoders import DenseEmbedder, SparseEmbedder
    from citeloom.index import EdgeIndex, IndexParams, ModelLock, SearchFilter
    from citeloom.provision import use_offline_runtime

    rss0 = rss_mb()
    use_offline_runtime(args.models_dir)
    dense_m = DenseEmbedder(args.models_dir, DENSE_MODEL, threads=args.threads)
    sparse_m = SparseEmbedder()
    dense_m.embed_query("warm up")
    src = load_source(args.source_npz)
    queries = json.loads(args.queries.read_text())[: args.n_queries]
    rss_models = rss_mb()

    root = args.work / f"n{args.size}"
    shutil.rmtree(root, ignore_errors=True)
    index = EdgeIndex(root, "bench", "g0001")
    index.ensure(ModelLock(DENSE_MODEL, 384, "Qdrant/bm25", 256), IndexParams())
    rng = np.random.default_rng(args.seed)
    upsert_s = 0.0
    for start in range(0, args.size, BATCH):
        points = make_points(src, start, min(start + BATCH, args.size), rng)
        t0 = time.perf_counter()
        index.upsert(points)
        upsert_s += time.perf_counter() - t0
    count = index.count()
    assert count == args.size, (count, args.size)
    rss_built = rss_mb()

    # Filters: a year range (~14 % of the documents) and 20 documents by doc_id.
    doc_ids = sorted({p["doc_id"] for p in src["payloads"]})
    pick = np.random.default_rng(7).choice(len(doc_ids), 20, replace=False)
    filters = {"none": None,
               "year 2010-2014": SearchFilter(year_from=2010, year_to=2014),
               "20 doc_ids": SearchFilter(doc_ids=[doc_ids[i] for i in pick]),
               RAW: None}
    shard = index._open()  # noqa: SLF001
    segments_before = shard.info().segments_count
    load_before = os.getloadavg()[0]
    before = measure_queries(index, dense_m, sparse_m, queries, filters, args.passes)
    t0 = time.perf_counter()
    shard.optimize()
    optimize_s = time.perf_counter() - t0
    segments_after = shard.info().segments_count
    after = measure_queries(index, dense_m, sparse_m, queries, filters, args.passes)
    load_after = os.getloadavg()[0]
    recall = dense_recall(shard, dense_m, queries[:50])
    index.close()
    # Reopening the optimized shard: what a new process pays before its first query.
    t0 = time.perf_counter()
    reopened = EdgeIndex(root, "bench", "g0001")
    reopened.count()
    load_s = time.perf_counter() - t0
    reopened.close()
    disk = dir_mb(root)
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    return {
        "size": args.size,
        "upsert_points_per_s": round(args.size / upsert_s, 1),
        "upsert_s": round(upsert_s, 2),
        "optimize_s": round(optimize_s, 2),
        "load_s": round(load_s, 3),
        "disk_mb": round(disk, 1),
        "segments": {"before_optimize": segments_before, "after_optimize": segments_after},
        "load_avg_1min": {"before_queries": round(load_before, 2),
                          "after_queries": round(load_after, 2)},
        "before_optimize": before,
        "after_optimize": after,
        "dense_hnsw_recall@10": round(recall, 4),
        "rss_mb": {"start": round(rss0, 1), "models_loaded": round(rss_models, 1),
                   "built": round(rss_built, 1), "peak": round(peak_rss_mb(), 1)},
    }


# -- parent --------------------------------------------------------------------------------------
def median_of(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Field-wise median of the children's reports (nested dicts followed)."""
    first = runs[0]
    out: dict[str, Any] = {}
    for key, value in first.items():
        if isinstance(value, dict):
            out[key] = median_of([r[key] for r in runs])
        elif isinstance(value, int | float) and not isinstance(value, bool):
            out[key] = round(statistics.median(r[key] for r in runs), 4)
        else:
            out[key] = value
    return out


def markdown(report: dict[str, Any]) -> str:
    cols = [("none", "default filter"), (RAW, "no filter at all"),
            ("year 2010-2014", "year 2010-2014"), ("20 doc_ids", "20 doc_ids")]
    lines = [
        "| chunks | shard | " + " | ".join(f"{t} p50 / p95 ms" for _, t in cols)
        + " | embed p50 ms | search p50 ms (default) |",
        "|---:|---|" + "---:|" * (len(cols) + 2),
    ]
    for r in report["sizes"]:
        for phase, key in (("as written", "before_optimize"),
                           ("after optimize()", "after_optimize")):
            q = r[key]
            cells = [f"{q[c]['p50_ms']:.1f} / {q[c]['p95_ms']:.1f}" for c, _ in cols]
            d = q["none"]
            lines.append(f"| {r['size']:,} | {phase} | " + " | ".join(cells)
                         + f" | {d['embed_p50_ms']:.1f} | {d['search_p50_ms']:.1f} |")
    lines += ["", "| chunks | upsert points/s | optimize() s | segments before / after "
              "| reopen s | disk MB | RSS models loaded MB | RSS built MB | peak RSS MB "
              "| dense HNSW recall@10 |",
              "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in report["sizes"]:
        m, seg = r["rss_mb"], r["segments"]
        lines.append(f"| {r['size']:,} | {r['upsert_points_per_s']:,.0f} | {r['optimize_s']:.1f}"
                     f" | {seg['before_optimize']:.0f} / {seg['after_optimize']:.0f}"
                     f" | {r['load_s']:.2f} | {r['disk_mb']:.0f} | {m['models_loaded']:.0f}"
                     f" | {m['built']:.0f} | {m['peak']:.0f} | {r['dense_hnsw_recall@10']:.3f} |")
    lines += ["", "Each repeat (default filter, after optimize(): p50 ms, embed p50 ms, "
              "1-min load average while querying):", ""]
    for r in report["sizes"]:
        reps = [f"{x['after_optimize']['none']['p50_ms']:.1f} ms (embed "
                f"{x['after_optimize']['none']['embed_p50_ms']:.1f}, load "
                f"{x.get('load_avg_1min', {}).get('after_queries', float('nan')):.1f})"
                for x in r.get("repeats", [])]
        lines.append(f"- {r['size']:,}: " + "; ".join(reps))
    return "\n".join(lines)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    p.add_argument("--repeats", type=int, default=3, help="child processes per size")
    p.add_argument("--passes", type=int, default=3, help="passes over the queries per phase")
    p.add_argument("--n-queries", type=int, default=100)
    p.add_argument("--source-data", type=Path, default=Path("/tmp/scifact-data"),
                   help="data dir holding the SciFact evaluation project")
    p.add_argument("--source-project", default="scifact-eval")
    p.add_argument("--scifact-dir", type=Path, default=None,
                   help="SciFact folder, for the query texts (default <repo>/../shared/...)")
    p.add_argument("--models-dir", type=Path, default=None)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--work", type=Path, default=None, help="scratch folder (default: a tmp dir)")
    p.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "index.json")
    p.add_argument("--keep", action="store_true", help="keep the built shards")
    p.add_argument("--seed", type=int, default=1)
    # internal: one size in this process
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--size", type=int, help=argparse.SUPPRESS)
    p.add_argument("--source-npz", type=Path, help=argparse.SUPPRESS)
    p.add_argument("--queries", type=Path, help=argparse.SUPPRESS)
    p.add_argument("--result", type=Path, help=argparse.SUPPRESS)
    p.add_argument("--table", type=Path, metavar="JSON",
                   help="only print the Markdown table of an earlier results file")
    args = p.parse_args()
    if args.table:
        print(markdown(json.loads(args.table.read_text())))
        return 0

    if args.models_dir is None:
        from citeloom.config import load_settings

        args.models_dir = load_settings().models_dir
    if args.child:
        args.result.write_text(json.dumps(child(args)))
        return 0

    from citeloom.eval.scifact import load_scifact

    work = args.work or Path(tempfile.mkdtemp(prefix="bench-index-"))
    work.mkdir(parents=True, exist_ok=True)
    t_start = time.perf_counter()
    npz = export_source(args.source_data, args.source_project, work / "source.npz")
    n_src = len(load_source(npz)["payloads"])
    qpath = work / "queries.json"
    qpath.write_text(json.dumps(list(load_scifact(args.scifact_dir).queries.values())))
    load_before = os.getloadavg()
    sizes = []
    for size in args.sizes:
        runs = []
        for rep in range(args.repeats):
            result = work / f"result-{size}-{rep}.json"
            cmd = [sys.executable, __file__, "--child", "--size", str(size),
                   "--source-npz", str(npz), "--queries", str(qpath), "--result", str(result),
                   "--models-dir", str(args.models_dir), "--work", str(work),
                   "--n-queries", str(args.n_queries), "--passes", str(args.passes),
                   "--threads", str(args.threads), "--seed", str(args.seed + rep)]
            if args.keep:
                cmd.append("--keep")
            subprocess.run(cmd, check=True)
            runs.append(json.loads(result.read_text()))
            print(f"size {size:,} repeat {rep + 1}/{args.repeats}: "
                  f"{runs[-1]['after_optimize']['none']['p50_ms']} ms p50 after optimize",
                  file=sys.stderr, flush=True)
        sizes.append({**median_of(runs), "repeats": runs})
    report = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine_info(),
        "load_average_at_start": [round(x, 2) for x in load_before],
        "source": {"project": args.source_project, "chunks": n_src,
                   "dense_sigma": DENSE_SIGMA, "sparse_drop": SPARSE_DROP},
        "settings": {"batch": BATCH, "repeats": args.repeats, "passes": args.passes,
                     "queries": args.n_queries, "threads": args.threads, "limit": 50,
                     "prefetch": 100, "rrf_k": 60, "hnsw": {"m": 16, "ef_construct": 100}},
        "sizes": sizes,
        "seconds": round(time.perf_counter() - t_start, 1),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(markdown(report))
    if args.work is None and not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
