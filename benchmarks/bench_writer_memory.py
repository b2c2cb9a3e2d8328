"""What the ingesting process's memory does as its Edge index grows (issue #32, item 1).

An ingest's parent process writes every passage into one Edge shard. This benchmark isolates
that writer: real passages (dense and sparse vectors and
payloads, read from existing projects) are written into a fresh Edge index through
``citeloom.index.edge``, one document's worth of points per upsert as the pipeline writes
them, and the process's resident memory (anonymous and file-backed, from /proc) is read
every ``--every`` points. Each variant runs in a fresh process.

    .venv/bin/python benchmarks/bench_writer_memory.py dump --data-dir D -p A -p B --out P.pkl
    .venv/bin/python benchmarks/bench_writer_memory.py run P.pkl --points 52000 \\
        --variant legacy+trim --variant optimize:8000+trim --out results/writer_memory.json

Variants, ``+``-joined: ``plain`` (the index as CiteLoom creates it, no optimize until the
end), ``legacy`` (the index as created before session 20: Edge's memory defaults, segments
without a size cap), ``optimize:N`` (optimize after every N points, as the pipeline does
with ``EdgeIndex.optimize_every``), ``segkb:N`` (segments capped at N KB of vectors),
``trim`` (glibc ``malloc_trim(0)`` after every upsert and optimize, as the pipeline does).
Points past the source's count are its points again under new ids (the text and vectors
repeat; the index grows as with new ones). After the last write, 200 hybrid queries (the
source's own vectors) are timed, a second round after a first that reads the files in.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def status_mb() -> dict[str, float]:
    out = {}
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "RssAnon", "RssFile", "VmHWM"):
                out[key] = round(int(rest.split()[0]) / 1024, 1)
    return out


def dump(args: argparse.Namespace) -> None:
    import numpy as np
    import qdrant_edge as q

    from citeloom.index.edgefaults import read_current

    ids, dense, sparse, payloads, doc_sizes = [], [], [], [], []
    for project in args.project:
        root = args.data_dir / "indexes" / project
        gen = read_current(root / "CURRENT", project)
        shard = q.EdgeShard.load(str(root / gen / "shard"))
        offset, per_doc = None, {}
        while True:
            records, offset = shard.scroll(q.ScrollRequest(
                offset=offset, limit=1000, with_payload=True, with_vector=True))
            for r in records:
                vec = r.vector
                ids.append(str(r.id))
                dense.append(np.asarray(vec["dense"], dtype=np.float32))
                sp = vec["sparse"]
                sparse.append((np.asarray(sp.indices, dtype=np.int32),
                               np.asarray(sp.values, dtype=np.float32)))
                payload = dict(r.payload or {})
                payloads.append(payload)
                doc = payload.get("doc_id", "")
                per_doc[doc] = per_doc.get(doc, 0) + 1
            if offset is None:
                break
        shard.close()
        doc_sizes.extend(per_doc.values())
        print(f"{project}: {sum(per_doc.values())} points, {len(per_doc)} documents")
    with args.out.open("wb") as f:
        pickle.dump({"ids": ids, "dense": np.stack(dense), "sparse": sparse,
                     "payloads": payloads, "doc_sizes": doc_sizes,
                     "projects": args.project}, f, protocol=5)


def one(args: argparse.Namespace) -> None:
    """A single variant, in this (fresh) process; prints its JSON."""
    from citeloom.embed.encoders import Sparse
    from citeloom.index.base import IndexParams, ModelLock, PointData
    from citeloom.index.edge import EdgeStore
    from citeloom.system import trim_heap

    with args.source.open("rb") as f:
        src = pickle.load(f)
    parts = args.variant.split("+")
    every_opt = next((int(p.split(":")[1]) for p in parts if p.startswith("optimize:")), 0)
    every_reopen = next((int(p.split(":")[1]) for p in parts if p.startswith("reopen:")), 0)
    trim = "trim" in parts
    n_src = len(src["ids"])
    per_upsert = args.per_upsert
    from citeloom.index import edge

    seg_kb = next((int(p.split(":")[1]) for p in parts if p.startswith("segkb:")), None)
    if seg_kb:
        edge.MAX_SEGMENT_KB = seg_kb
    if "legacy" in parts:  # the layout before session 20: Edge's memory defaults, no cap
        edge.COLD, edge.MAX_SEGMENT_KB = False, None
    work = Path(tempfile.mkdtemp(prefix="citeloom-writer-mem-"))
    store = EdgeStore(work / "indexes")
    index = store.open("mem", create=True)
    lock = ModelLock("BAAI/bge-small-en-v1.5", int(src["dense"].shape[1]), "Qdrant/bm25", 512)
    index.ensure(lock, IndexParams())
    base = status_mb()
    series = [{"points": 0, **base, "s": 0.0}]
    started = time.perf_counter()
    written, next_mark, next_opt = 0, args.every, every_opt or None
    next_reopen = every_reopen or None
    while written < args.points:
        batch = []
        for _ in range(min(per_upsert, args.points - written)):
            i = written % n_src
            ind, val = src["sparse"][i]
            batch.append(PointData(str(uuid.uuid4()) if written >= n_src else src["ids"][i],
                                   src["dense"][i].tolist(),
                                   Sparse(ind.tolist(), val.tolist()), src["payloads"][i]))
            written += 1
        index.upsert(batch)
        if trim:
            trim_heap()
        if next_opt is not None and written >= next_opt:
            index.optimize()
            if trim:
                trim_heap()
            next_opt += every_opt
        if next_reopen is not None and written >= next_reopen:
            store.close()  # the shard's maps and in-memory parts go; loaded again on use
            index = store.open("mem")
            if trim:
                trim_heap()
            next_reopen += every_reopen
        if written >= next_mark:
            series.append({"points": written, **status_mb(),
                           "s": round(time.perf_counter() - started, 1)})
            next_mark += args.every
    t_opt = time.perf_counter()
    index.optimize()
    if trim:
        trim_heap()
    end = {"points": written, **status_mb(), "s": round(time.perf_counter() - started, 1),
           "final_optimize_s": round(time.perf_counter() - t_opt, 1)}
    # Queries against the index as written: hybrid (DBSF, dense ×2, as the default query
    # asks), the source's first points' own vectors as the questions; twice, the second
    # round timed (the first reads the files in).
    lat = []
    for rnd in range(2):
        for i in range(min(args.queries, n_src)):
            ind, val = src["sparse"][i]
            t = time.perf_counter()
            index.search(dense=src["dense"][i].tolist(), sparse=Sparse(ind.tolist(), val.tolist()),
                         mode="hybrid", limit=50, fusion="dbsf", dense_weight=2)
            if rnd:
                lat.append((time.perf_counter() - t) * 1000)
    lat.sort()
    end["query_p50_ms"] = round(lat[len(lat) // 2], 2) if lat else None
    end["query_p95_ms"] = round(lat[int(len(lat) * 0.95)], 2) if lat else None
    end["after_queries"] = status_mb()
    segments = work / "indexes" / "mem" / "g0001" / "shard" / "segments"
    end["segments"] = len(list(segments.iterdir())) if segments.is_dir() else None
    store.close()
    files = [p.stat() for p in (work / "indexes").rglob("*") if p.is_file()]
    disk = sum(st.st_size for st in files)
    allocated = sum(st.st_blocks * 512 for st in files)  # what the disk holds (sparse files)
    shutil.rmtree(work, ignore_errors=True)
    print(json.dumps({"variant": args.variant, "per_upsert": per_upsert, "base": base,
                      "series": series, "after_optimize": end,
                      "index_mb_on_disk": round(disk / 2**20, 1),
                      "index_mb_allocated": round(allocated / 2**20, 1)}))


def run(args: argparse.Namespace) -> None:
    results = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
               "load_before": os.getloadavg()[0], "points": args.points, "every": args.every,
               "source": str(args.source), "variants": []}
    for variant in args.variant:
        cmd = [sys.executable, __file__, "one", str(args.source), "--variant", variant,
               "--points", str(args.points), "--every", str(args.every),
               "--per-upsert", str(args.per_upsert), "--queries", str(args.queries)]
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "CITELOOM_DAEMON": "off"}
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
        if out.returncode != 0:
            results["variants"].append({"variant": variant, "error": out.stderr[-2000:]})
            continue
        r = json.loads(out.stdout.strip().splitlines()[-1])
        results["variants"].append(r)
        last = r["series"][-1]
        print(f"{variant}: RSS {r['base']['VmRSS']} → {last['VmRSS']} MB at {last['points']} "
              f"points (anon {last['RssAnon']}, file {last['RssFile']}); after the final "
              f"optimize {r['after_optimize']['VmRSS']} MB; {last['s']} s; hybrid query p50 "
              f"{r['after_optimize'].get('query_p50_ms')} ms, "
              f"{r['after_optimize'].get('segments')} segments", flush=True)
    results["load_after"] = os.getloadavg()[0]
    args.out.write_text(json.dumps(results, indent=1) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump", help="read projects' points into a pickle")
    d.add_argument("--data-dir", type=Path, required=True)
    d.add_argument("-p", "--project", action="append", required=True)
    d.add_argument("--out", type=Path, required=True)
    r = sub.add_parser("run", help="write the points under each variant, one process each")
    r.add_argument("source", type=Path)
    r.add_argument("--variant", action="append", required=True)
    r.add_argument("--points", type=int, default=52000)
    r.add_argument("--every", type=int, default=2000, help="read the RSS every N points")
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--queries", type=int, default=200, help="hybrid searches timed at the end")
    r.add_argument("--per-upsert", type=int, default=57,
                   help="points per upsert: one document's (default 57, the 1,000 TeX Live "
                        "PDFs' mean: 52,245 passages from 922 documents)")
    o = sub.add_parser("one")
    o.add_argument("source", type=Path)
    o.add_argument("--variant", required=True)
    o.add_argument("--points", type=int, required=True)
    o.add_argument("--every", type=int, required=True)
    o.add_argument("--per-upsert", type=int, required=True)
    o.add_argument("--queries", type=int, required=True)
    args = ap.parse_args()
    {"dump": dump, "run": run, "one": one}[args.cmd](args)


if __name__ == "__main__":
    main()
