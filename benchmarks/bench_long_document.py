"""One document through a pool worker's steps, its memory sampled every 0.25 s with each step
marked (issue #32, item 1): where a long document's peak comes from.

The steps are those of ``ingest.tasks.run_task`` in this process, as a pool worker runs
them (two malloc arenas, ``--threads`` model threads): convert, the conversion serialised
for the cache, chunking, metadata, embedding.

    .venv/bin/python benchmarks/bench_long_document.py FILE.pdf [--threads 1] [--out R.json]
"""

from __future__ import annotations

import os

os.environ.setdefault("MALLOC_ARENA_MAX", "2")  # as system.worker_context gives a worker

import argparse  # noqa: E402
import json  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from citeloom.config import ProjectConfig, default_models_dir  # noqa: E402
from citeloom.system import rss_mb  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pdf", type=Path)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()

    import citeloom.convert.converter as converter
    import citeloom.embed.encoders as encoders
    import citeloom.ingest.executor as executor
    from citeloom.ingest import tasks

    t0 = time.perf_counter()
    marks: list[tuple[float, str, float]] = []
    series: list[tuple[float, float]] = []
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            series.append((round(time.perf_counter() - t0, 2), round(rss_mb(os.getpid()))))
            stop.wait(0.25)

    def mark(name: str) -> None:
        marks.append((round(time.perf_counter() - t0, 2), name, round(rss_mb(os.getpid()))))
        print(*marks[-1], flush=True)

    def wrap(owner: Any, name: str) -> None:
        inner = getattr(owner, name)

        def timed(*a: Any, **k: Any) -> Any:
            mark(f"{name} start")
            try:
                return inner(*a, **k)
            finally:
                mark(f"{name} end")

        setattr(owner, name, timed)

    wrap(converter, "convert_file")
    wrap(executor, "chunk_document")
    wrap(executor, "file_metadata")
    wrap(encoders.DenseEmbedder, "embed_passages")
    wrap(tasks.gzip, "compress")
    threading.Thread(target=sample, daemon=True).start()
    side = tasks.WorkerSide(default_models_dir(), args.threads)
    mark("ready")
    task = tasks.Task(1, "d" * 32, "h" * 64, args.pdf.name, path=str(args.pdf),
                      name=args.pdf.name)
    done = tasks.run_task(task, ProjectConfig(name="long"), side)
    mark("done")
    stop.set()
    peak = max(series, key=lambda r: r[1])
    result = {"pdf": str(args.pdf), "threads": args.threads, "error": done.error,
              "chunks": len(done.prepared.chunks) if done.prepared else None,
              "peak": peak, "marks": marks, "series": series}
    print("peak", peak, "chunks", result["chunks"], "error", done.error)
    if args.out:
        args.out.write_text(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
