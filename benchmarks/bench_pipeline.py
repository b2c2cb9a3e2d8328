"""Pipeline benchmark on fixtures/pdfs: ingest throughput, peak RSS, hybrid query latency.

Each ingest runs in a fresh child process with a fresh data dir (so peak RSS is that of one
ingest, models loaded), repeated ``--runs`` times; the median is reported. Query latency is
measured in process, query embedding included, after one warm-up query.

    .venv/bin/python benchmarks/bench_pipeline.py [--runs 3] [--out benchmarks/results]

Writes ``pipeline.json`` and prints a Markdown table for docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

from citeloom.eval.scifact import machine_summary

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures" / "pdfs"
QUESTIONS = [
    "How often do retrievable vena cava filters migrate?",
    "complications of low molecular weight heparin in trauma patients",
    "Which local language was the questionnaire translated into?",
    "barriers to quality improvement in Malawi hospitals",
    "staff shortage and motivation of health workers",
    "hyper parameter optimization on PubTabNet",
    "TED score for simple and complex tables",
    "inferior vena cava filter occlusion rate",
    "pulmonary embolism after major trauma",
    "inference timing on a single CPU core",
]

CHILD = """
import json, resource, sys, time
from pathlib import Path
from citeloom.config import Settings
from citeloom.service import CiteLoom
settings = Settings(data_dir=Path(sys.argv[1]), models_dir=Path(sys.argv[2]))
t0 = time.perf_counter()
app = CiteLoom(settings)
report = app.ingest([Path(sys.argv[3])], "bench")
app.close()
wall = time.perf_counter() - t0
d = report.to_dict()
print(json.dumps({"wall_s": wall, "pages": d["pages"], "chunks": d["chunks"],
                  "failed": d["failed"],
                  # The conversion runs in a worker process: count the larger of the two.
                  "peak_rss_mb": max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                                     resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
                  / 1024,
                  "load_avg": __import__("os").getloadavg()[0]}))
"""


def models_dir() -> Path:
    from citeloom.config import load_settings

    return load_settings().models_dir


def bench_ingest(runs: int, mdir: Path) -> tuple[list[dict], str]:
    results = []
    last_data = ""
    for _ in range(runs):
        data = tempfile.mkdtemp(prefix="citeloom-bench-")
        out = subprocess.run([sys.executable, "-c", CHILD, data, str(mdir), str(FIXTURES)],
                             capture_output=True, text=True, check=True)
        results.append(json.loads(out.stdout.strip().splitlines()[-1]))
        last_data = data
    return results, last_data


def bench_query(data: str, mdir: Path, reps: int) -> dict:
    from citeloom.config import Settings
    from citeloom.service import CiteLoom
    from citeloom.service.api import QueryRequest

    app = CiteLoom(Settings(data_dir=Path(data), models_dir=mdir))
    t0 = time.perf_counter()
    app.query(QueryRequest("bench", "warm-up question", top_k=10))
    first_ms = (time.perf_counter() - t0) * 1000
    times = []
    for _ in range(reps):
        for q in QUESTIONS:
            t = time.perf_counter()
            app.query(QueryRequest("bench", q, top_k=10))
            times.append((time.perf_counter() - t) * 1000)
    app.close()
    times.sort()
    return {
        "queries": len(times),
        "first_query_ms_incl_model_load": round(first_ms, 1),
        "p50_ms": round(statistics.median(times), 2),
        "p95_ms": round(times[int(0.95 * (len(times) - 1))], 2),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--query-reps", type=int, default=10)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = ap.parse_args()
    mdir = models_dir()
    ingest, data = bench_ingest(args.runs, mdir)
    med = {k: statistics.median(r[k] for r in ingest) for k in ("wall_s", "peak_rss_mb")}
    pages, chunks = ingest[0]["pages"], ingest[0]["chunks"]
    result = {
        "date": date.today().isoformat(),
        "machine": machine_summary(),
        "corpus": f"fixtures/pdfs: {len(list(FIXTURES.glob('*.pdf')))} PDFs, {pages} pages",
        "load_avg_1min_during_ingest": [round(r["load_avg"], 2) for r in ingest],
        "ingest_runs": ingest,
        "ingest_median": {
            "wall_s": round(med["wall_s"], 2),
            "pages_per_s": round(pages / med["wall_s"], 2),
            "chunks_per_s": round(chunks / med["wall_s"], 2),
            "chunks": chunks,
            "peak_rss_mb": round(med["peak_rss_mb"]),
        },
        "hybrid_query": bench_query(data, mdir, args.query_reps),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "pipeline.json").write_text(json.dumps(result, indent=2))
    i, q = result["ingest_median"], result["hybrid_query"]
    print(json.dumps(result, indent=2))
    print(f"\n| date | machine | corpus | ingest wall (median of {args.runs}) | pages/s | "
          "chunks/s | peak RSS | hybrid p50 | hybrid p95 |")
    print("|---|---|---|---|---|---|---|---|---|")
    print(f"| {result['date']} | {result['machine']} | {result['corpus']} | {i['wall_s']} s | "
          f"{i['pages_per_s']} | {i['chunks_per_s']} | {i['peak_rss_mb']} MB | "
          f"{q['p50_ms']} ms | {q['p95_ms']} ms |")


if __name__ == "__main__":
    main()
