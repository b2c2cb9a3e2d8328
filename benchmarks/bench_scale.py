"""Scale benchmark (issue #14): the same PDFs ingested in process, with ``--workers 2`` and
with ``--ray local``, in one run.

Each ingest runs in a fresh child process with a fresh data dir (nothing cached, models
loaded as a user's first ingest loads them); the modes take turns within each round, so a
change in the machine's load touches them alike; the median over ``--runs`` rounds is
reported. Peak RSS: the driver's (the writer, with its models), one worker's (the largest
conversion worker, pool process or Ray actor: ``VmHWM``), and the run's total (driver +
every worker at its peak: an upper bound). ``convert`` / ``prepare`` are the workers' own
seconds converting and preparing (conversion + chunks + vectors), added over documents.

    .venv/bin/python benchmarks/bench_scale.py [--runs 3] [--out benchmarks/results]

Writes ``scale.json`` and prints a Markdown table for docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

from citeloom.eval.scifact import machine_info, machine_summary

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "pdfs" / "text"
# Eight text PDFs, 36 pages: long and short, so that two workers can share them.
PDFS = ["cermine__example2.pdf", "cermine__example1.pdf", "cermine__test2.pdf",
        "cermine__test1.pdf", "p2md__Flash-Masques-Temperature.pdf",
        "docling__code_and_formula.pdf", "docling__2305.03393v1-pg9.pdf",
        "docling__right_to_left_01.pdf"]
MODES = {"plain": {"workers": 1}, "workers2": {"workers": 2}, "ray_local": {"ray": "local"}}

CHILD = """
import json, os, resource, sys, time
from pathlib import Path
from citeloom.config import Settings
from citeloom.service import CiteLoom
data, models = sys.argv[1], sys.argv[2]
pdfs, scale = json.loads(sys.argv[3]), json.loads(sys.argv[4])
app = CiteLoom(Settings(data_dir=Path(data), models_dir=Path(models)))
made = []
real = app.executor
def spy(workers=None, ray=None):
    made.append(real(workers, ray))
    return made[-1]
app.executor = spy
t0 = time.perf_counter()
report = app.ingest([Path(p) for p in pdfs], "bench", **scale)
wall = time.perf_counter() - t0
app.close()
ex = made[0]
me = resource.getrusage(resource.RUSAGE_SELF)
kids = resource.getrusage(resource.RUSAGE_CHILDREN)  # conversion or pool workers (joined)
worker = getattr(ex, "peak_rss_mb", 0.0) or kids.ru_maxrss / 1024  # in process: its worker
# CPU seconds: the driver's, and the workers' (children, or the Ray actors' own count).
cpu_driver = me.ru_utime + me.ru_stime
cpu_workers = kids.ru_utime + kids.ru_stime + getattr(ex, "cpu_s", 0.0)
d = report.to_dict()
print(json.dumps({"wall_s": wall, "pages": d["pages"], "chunks": d["chunks"],
                  "failed": d["failed"], "executor": d["executor"],
                  "workers": getattr(ex, "workers", None) or getattr(ex, "size", 1),
                  "driver_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "worker_rss_mb": worker, "seconds": getattr(ex, "seconds", {}),
                  "cpu_driver_s": cpu_driver, "cpu_workers_s": cpu_workers,
                  "load_avg": os.getloadavg()[0]}))
"""


def models_dir() -> Path:
    from citeloom.config import load_settings

    return load_settings().models_dir


def run_one(mode: str, mdir: Path, pdfs: list[str]) -> dict:
    data = tempfile.mkdtemp(prefix=f"citeloom-scale-{mode}-")
    out = subprocess.run([sys.executable, "-c", CHILD, data, str(mdir), json.dumps(pdfs),
                          json.dumps(MODES[mode])], capture_output=True, text=True)
    shutil.rmtree(data, ignore_errors=True)
    if out.returncode:
        raise SystemExit(f"{mode} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = ap.parse_args()
    modes = args.modes.split(",")
    pdfs = [str(CORPUS / p) for p in PDFS]
    mdir = models_dir()
    load_before = [round(x, 2) for x in os.getloadavg()]
    started = time.time()
    runs: dict[str, list[dict]] = {m: [] for m in modes}
    for r in range(args.runs):
        for mode in modes:
            res = run_one(mode, mdir, pdfs)
            print(f"round {r + 1} {mode}: {res['wall_s']:.1f} s, {res['pages']} pages, "
                  f"worker {res['worker_rss_mb']:.0f} MB, load {res['load_avg']:.2f}",
                  file=sys.stderr)
            runs[mode].append(res)
    summary = {}
    for mode, rs in runs.items():
        wall = statistics.median(r["wall_s"] for r in rs)
        pages, chunks = rs[0]["pages"], rs[0]["chunks"]
        workers = rs[0]["workers"]
        driver = statistics.median(r["driver_rss_mb"] for r in rs)
        worker = statistics.median(r["worker_rss_mb"] for r in rs)
        def med(key: str, rs: list[dict] = rs) -> float | None:
            vals = [r["seconds"][key] for r in rs if key in r["seconds"]]
            return round(statistics.median(vals), 1) if vals else None

        cpu_d = statistics.median(r["cpu_driver_s"] for r in rs)
        cpu_w = statistics.median(r["cpu_workers_s"] for r in rs)
        summary[mode] = {
            "executor": rs[0]["executor"], "workers": workers,
            "wall_s_median": round(wall, 2), "wall_s_runs": [round(r["wall_s"], 2) for r in rs],
            "pages": pages, "chunks": chunks, "failed": rs[0]["failed"],
            "pages_per_s": round(pages / wall, 2), "chunks_per_s": round(chunks / wall, 2),
            "driver_peak_rss_mb": round(driver), "worker_peak_rss_mb": round(worker),
            "total_peak_rss_mb": round(driver + workers * worker),
            # In the workers, summed over documents (wall and CPU seconds; 0 in process):
            "worker_convert_s": med("convert_s"), "worker_prepare_s": med("prepare_s"),
            "worker_convert_cpu_s": med("convert_cpu_s"),
            "worker_prepare_cpu_s": med("prepare_cpu_s"),
            # CPU seconds of the whole run (model loading included), and per page:
            "cpu_driver_s": round(cpu_d, 1), "cpu_workers_s": round(cpu_w, 1),
            "cpu_s_per_page": round((cpu_d + cpu_w) / pages, 3),
            "load_avg_1min": [round(r["load_avg"], 2) for r in rs],
        }
    result = {
        "date": datetime.now().strftime("%Y-%m-%d %H:%M"),
        "machine": machine_summary(), "cores": machine_info()["cores"],
        "corpus": f"{len(PDFS)} text PDFs from shared/corpus/pdfs/text, "
                  f"{summary[modes[0]]['pages']} pages",
        "runs": args.runs, "minutes": round((time.time() - started) / 60, 1),
        "load_before": load_before, "load_after": [round(x, 2) for x in os.getloadavg()],
        "modes": summary, "raw": runs,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "scale.json").write_text(json.dumps(result, indent=2))
    print(json.dumps({k: v for k, v in result.items() if k != "raw"}, indent=2))
    print(f"\nMeasured {result['date']} on {result['machine']}; {result['corpus']}; median of "
          f"{args.runs}; load average before {load_before}, after {result['load_after']}.\n")
    print("| mode | executor | wall (s) | pages/s | chunks/s | CPU s/page | driver peak RSS "
          "| worker peak RSS | total peak RSS | load (1 min) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for mode, s in summary.items():
        print(f"| {mode} | {s['executor']} | {s['wall_s_median']} | {s['pages_per_s']} | "
              f"{s['chunks_per_s']} | {s['cpu_s_per_page']} | {s['driver_peak_rss_mb']} MB | "
              f"{s['worker_peak_rss_mb']} MB | {s['total_peak_rss_mb']} MB | "
              f"{', '.join(str(x) for x in s['load_avg_1min'])} |")


if __name__ == "__main__":
    main()
