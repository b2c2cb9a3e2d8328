"""How a conversion worker's memory grows with the documents it has converted, and what a
fresh worker costs: the figures behind ``worker_max_documents`` and ``worker_max_rss_mb``
(issue #32, docs/DECISIONS.md "Bounded memory").

N PDFs under a folder, picked deterministically (sorted paths, ``random.Random(seed)``),
are converted one after another by one real conversion worker (the process an in-process
ingest uses) under the given limits (by default none, to see the growth). After each
document: the worker's resident memory (VmRSS) and its peak (VmHWM), the seconds, the pages,
whether the worker was let go. Writes JSON and prints a line per ten documents.

    .venv/bin/python benchmarks/bench_memory.py /work/texlive-sample/root --n 60 \\
        --out benchmarks/results/memory_worker.json
    .venv/bin/python benchmarks/bench_memory.py /work/texlive-sample/root --n 60 \\
        --max-documents 50 --max-rss-mb 1800 --out benchmarks/results/memory_worker_limits.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import tempfile
import time
from pathlib import Path

from citeloom.config import ProjectConfig, Settings, default_models_dir
from citeloom.errors import CiteLoomError
from citeloom.runtime import Runtime
from citeloom.system import pdf_pages, peak_rss_mb, rss_mb


def pick(folder: Path, n: int, seed: int) -> list[Path]:
    pdfs = sorted(folder.rglob("*.pdf"))
    return sorted(random.Random(seed).sample(pdfs, min(n, len(pdfs))))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-documents", type=int, default=100_000)
    ap.add_argument("--max-rss-mb", type=int, default=1_000_000)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()

    files = pick(args.folder, args.n, args.seed)
    with tempfile.TemporaryDirectory(prefix="citeloom-memory-") as tmp:
        settings = Settings(data_dir=Path(tmp), models_dir=default_models_dir(),
                            worker_max_documents=args.max_documents,
                            worker_max_rss_mb=args.max_rss_mb)
        rt = Runtime(settings)
        project = ProjectConfig(name="memory", conversion_timeout_s=args.timeout)
        worker = rt.models.worker(project)
        rows = []
        started = time.perf_counter()
        try:
            for i, path in enumerate(files, 1):
                t = time.perf_counter()
                fresh = worker._proc is None
                error = None
                try:
                    worker.convert(path)
                except CiteLoomError as exc:
                    error = exc.code
                alive = worker._proc is not None
                pid = worker._proc.pid if alive else None
                rows.append({
                    "n": i, "file": str(path.relative_to(args.folder)),
                    "pages": pdf_pages(path), "seconds": round(time.perf_counter() - t, 2),
                    "started_worker": fresh, "error": error,
                    "rss_mb": round(rss_mb(pid)) if pid else None,
                    "peak_rss_mb": round(peak_rss_mb(pid)) if pid else None,
                    "let_go": not alive and error is None,
                    "driver_rss_mb": round(rss_mb()),
                })
                if i % 10 == 0 or i == len(files):
                    r = rows[-1]
                    print(f"{i:4d} docs  {time.perf_counter() - started:7.0f}s  worker rss "
                          f"{r['rss_mb']} MB (peak {r['peak_rss_mb']})  replaced "
                          f"{worker.replaced}", flush=True)
        finally:
            rt.close()
    pages = sum(r["pages"] for r in rows if r["error"] is None)
    seconds = time.perf_counter() - started
    first = [r["seconds"] for r in rows if r["started_worker"]]
    out = {
        "date": time.strftime("%Y-%m-%dT%H:%M%z"),
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
                   f"Python {platform.python_version()}",
        "load_before_after": os.getloadavg(),
        "command": " ".join(sys.argv),
        "n": len(files), "pages": pages, "seconds": round(seconds, 1),
        "pages_per_s": round(pages / seconds, 3) if seconds else None,
        "limits": {"max_documents": args.max_documents, "max_rss_mb": args.max_rss_mb},
        "replaced": worker.replaced,
        "peak_worker_rss_mb": round(worker.peak_rss_mb),
        "failed": sum(1 for r in rows if r["error"]),
        "seconds_of_documents_that_started_a_worker": first,
        "documents": rows,
    }
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps({k: v for k, v in out.items() if k != "documents"}, indent=1))


if __name__ == "__main__":
    main()
