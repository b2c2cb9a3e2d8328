"""Query latency of the product's default query at 10k chunks, embedding included
(issue #17, acceptance 3): ``CiteLoom.query`` end to end — embed, hybrid DBSF search, one
hit per page with its parts, the shown windows — against the same query one hit per chunk.

The 10k chunks are ``bench_index``'s: the SciFact project's real vectors and texts,
replicated with noise, with the product's payload (pages of two chunks each). Each query is
asked once per variant in turn (so both see the same machine), after a warm-up; p50/p95 of
``timings_ms.total`` per pass, median over ``--passes``.

    .venv/bin/python benchmarks/bench_query.py --source-data /tmp/cl-scifact [--size 10000]

Writes ``benchmarks/results/query.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_index import (  # noqa: E402
    BATCH,
    DENSE_MODEL,
    export_source,
    load_source,
    make_points,
    pct,
)

from citeloom.eval.scifact import load_scifact, machine_info  # noqa: E402
from citeloom.payload import PASSAGE_CHARS  # noqa: E402
from citeloom.provision import dense_spec  # noqa: E402
from citeloom.search import query as search  # noqa: E402
from citeloom.service.api import QueryRequest  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
# name -> (one hit per page, hits the cross-encoder re-reads, a page hit may show its whole
# page); the reranked variants are asked only the first --rerank-queries questions (a
# second each on these cores). Page hits show their whole page with the second stage on
# (session 24); "ranked chunks only" is the default query without that.
VARIANTS = {"per page, fast mode (--rerank 0)": (True, 0, True),
            "per chunk": (False, 0, True),
            "per page, cross-encoder top 2 (default)": (True, 2, True),
            "per page, cross-encoder top 2, ranked chunks only": (True, 2, False),
            "per page, cross-encoder top 5": (True, 5, True)}
WHOLE_PAGES = search.whole_pages


def _ranked_only(index, hits, dense_model, flt):  # type: ignore[no-untyped-def]
    return hits


def source_model(data: Path, project: str) -> str:
    """The dense model the source project's vectors come from (its model lock)."""
    from citeloom.index import EdgeStore

    lock = EdgeStore(data / "indexes").open(project).lock()
    return lock.dense_model if lock else DENSE_MODEL


def build(data: Path, src: dict, size: int, model: str) -> None:
    import numpy as np

    from citeloom.index import EdgeStore, IndexParams, ModelLock

    store = EdgeStore(data / "indexes")
    index = store.open("bench", create=True)
    index.ensure(ModelLock(model, 384, "Qdrant/bm25", 256), IndexParams())
    rng = np.random.default_rng(1)
    for start in range(0, size, BATCH):
        index.upsert(make_points(src, start, min(start + BATCH, size), rng))
    assert index.count() == size
    index.optimize()
    index.close()
    store.close()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--source-data", type=Path, default=Path("/tmp/cl-scifact"))
    ap.add_argument("--source-project", default="scifact-eval")
    ap.add_argument("--models-dir", type=Path,
                    default=Path.home() / ".local/share/citeloom/models")
    ap.add_argument("--size", type=int, default=10_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--rerank-queries", type=int, default=40)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/query.json")
    args = ap.parse_args()
    from citeloom.config import Settings
    from citeloom.service import CiteLoom

    work = Path(tempfile.mkdtemp(prefix="cl-bench-query-"))
    src = load_source(export_source(args.source_data, args.source_project,
                                    work / "source.npz"))
    model = source_model(args.source_data, args.source_project)
    build(work / "data", src, args.size, model)
    queries = list(load_scifact(None, "train").queries.values())[: args.queries]
    app = CiteLoom(Settings(data_dir=work / "data", models_dir=args.models_dir))
    for q in queries[:20]:  # warm-up: models loaded, index open, caches warm
        for per_page, rerank, whole in VARIANTS.values():
            search.whole_pages = WHOLE_PAGES if whole else _ranked_only
            app.query(
                QueryRequest(
                    "bench", q, top_k=10, per_page=per_page, max_chars=PASSAGE_CHARS, rerank=rerank
                )
            )
    passes: dict[str, list[dict[str, float]]] = {name: [] for name in VARIANTS}
    parts = []
    for _ in range(args.passes):
        ms: dict[str, list[float]] = {name: [] for name in VARIANTS}
        for n, q in enumerate(queries):
            for name, (per_page, rerank, whole) in VARIANTS.items():
                if rerank and n >= args.rerank_queries:
                    continue
                search.whole_pages = WHOLE_PAGES if whole else _ranked_only
                res = app.query(
                    QueryRequest(
                        "bench",
                        q,
                        top_k=10,
                        per_page=per_page,
                        max_chars=PASSAGE_CHARS,
                        rerank=rerank,
                    )
                )
                ms[name].append(res.timings_ms["total"])
                if per_page and rerank == 2 and whole:
                    parts.append(sum(len(h.parts) or 1 for h in res.hits))
        for name, values in ms.items():
            passes[name].append({"p50": pct(values, 50), "p95": pct(values, 95)})
    app.close()
    result = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine_info(), "load_average_after": os.getloadavg(),
        "dense_model": model, "fusion_weight": dense_spec(model).fusion_weight,
        "size": args.size, "queries": len(queries), "passes": args.passes,
        "chunks_shown_per_answer_mean": round(statistics.fmean(parts), 1),
        "query_ms": {name: {k: round(statistics.median(p[k] for p in ps), 2)
                            for k in ("p50", "p95")} for name, ps in passes.items()},
        "per_pass": passes,
    }
    args.out.write_text(json.dumps(result, indent=2))
    for name, r in result["query_ms"].items():
        print(f"{name:20} p50 {r['p50']:6.2f} ms  p95 {r['p95']:6.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
