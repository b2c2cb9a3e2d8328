"""Incremental sync benchmark: a no-op re-ingest of N unchanged PDFs.

Makes N distinct real PDFs (a one-page paper with a different trailing comment each, so
each has its own content hash), ingests them once, then times re-running the same ingest:
in process (`CiteLoom.ingest`) and as a whole CLI command in a fresh process (Python start,
imports, index open included). Medians over several runs.

    .venv/bin/python benchmarks/bench_sync.py [--docs 100] [--runs 5]

Writes benchmarks/results/sync.json. Target: a no-op re-ingest of 100 PDFs in < 2 s.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

from citeloom.eval.scifact import machine_summary

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT.parent / "shared" / "corpus" / "pdfs" / "text" / "docling__2305.03393v1-pg9.pdf"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", type=int, default=100)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    from citeloom.config import Settings, load_settings
    from citeloom.service import CiteLoom

    work = Path(tempfile.mkdtemp(prefix="citeloom-sync-"))
    papers = work / "papers"
    papers.mkdir()
    body = SOURCE.read_bytes()
    for i in range(args.docs):
        (papers / f"paper-{i:03d}.pdf").write_bytes(body + f"\n%citeloom-bench {i}\n".encode())
    models_dir = load_settings().models_dir
    settings = Settings(data_dir=work / "data", models_dir=models_dir)
    app = CiteLoom(settings)
    t = time.perf_counter()
    first = app.ingest([papers], "sync")
    first_s = time.perf_counter() - t
    assert first.count("indexed") == args.docs, first.to_dict()
    in_process = []
    for _ in range(args.runs):
        t = time.perf_counter()
        again = app.ingest([papers], "sync")
        in_process.append(time.perf_counter() - t)
        assert again.count("skipped") == args.docs
    app.close()
    env = {**os.environ, "CITELOOM_DATA_DIR": str(work / "data"),
           "CITELOOM_MODELS_DIR": str(models_dir), "CITELOOM_CONFIG": ""}
    cli = []
    for _ in range(args.runs):
        t = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", "citeloom.cli", "ingest", str(papers),
                              "-p", "sync", "--json"], env=env, capture_output=True,
                             text=True, cwd=work, check=True)
        cli.append(time.perf_counter() - t)
        assert json.loads(out.stdout)["skipped"] == args.docs
    result = {
        "date": date.today().isoformat(),
        "machine": machine_summary(),
        "docs": args.docs,
        "first_ingest_s": round(first_s, 1),
        "noop_in_process_s": {"median": round(statistics.median(in_process), 3),
                              "runs": [round(x, 3) for x in in_process]},
        "noop_cli_process_s": {"median": round(statistics.median(cli), 3),
                               "runs": [round(x, 3) for x in cli]},
        "target_s": 2.0,
    }
    out_dir = ROOT / "benchmarks" / "results"
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "sync.json").write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
