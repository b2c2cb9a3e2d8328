"""Library daemon benchmark: the CPU an idle daemon costs (it watches a project's folder),
and the time from copying a PDF into a watched folder until a query answers from it.

    .venv/bin/python benchmarks/bench_daemon.py [--idle-s 60] [--runs 3]

A fresh data dir under /tmp, the provisioned models, three PDFs of fixtures/pdfs copied in
one at a time (each: time to searchable, and its conversion time from the audit log).
Writes benchmarks/results/daemon.json.
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
from datetime import date
from pathlib import Path

from citeloom.eval.scifact import machine_summary
from citeloom.service.api import QueryRequest

ROOT = Path(__file__).resolve().parents[1]
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process and its children that were waited for."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / TICK


def tree_cpu(pid: int) -> float:
    """CPU of the daemon and its live children (the conversion worker)."""
    total = cpu_seconds(pid)
    for child in Path(f"/proc/{pid}/task").glob("*/children"):
        for c in child.read_text().split():
            total += cpu_seconds(int(c))
    return total


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--idle-s", type=float, default=60)
    args = ap.parse_args()
    from citeloom.config import load_settings
    from citeloom.daemon.client import RemoteCiteLoom

    work = Path(tempfile.mkdtemp(prefix="cl-daemon-"))
    inbox, data = work / "inbox", work / "data"
    inbox.mkdir()
    models = load_settings(ROOT / "citeloom.toml").models_dir
    config = work / "citeloom.toml"
    config.write_text(f'[paths]\ndata_dir = "{data}"\nmodels_dir = "{models}"\n'
                      f'[projects.w]\nsources = ["{inbox}"]\nwatch = true\n')
    os.environ["CITELOOM_CONFIG"] = str(config)
    for var in ("CITELOOM_DATA_DIR", "CITELOOM_MODELS_DIR", "CITELOOM_DAEMON"):
        os.environ.pop(var, None)
    app = RemoteCiteLoom(load_settings(config))
    app.list_projects()  # starts the daemon
    pid = int((data / "daemon.pid").read_text())
    time.sleep(10)  # let the warm-up finish

    cpu0, t0 = tree_cpu(pid), time.monotonic()
    time.sleep(args.idle_s)
    idle = (tree_cpu(pid) - cpu0) / (time.monotonic() - t0)

    searchable = []
    pdfs = sorted((ROOT / "fixtures" / "pdfs").glob("*.pdf"))
    for pdf in pdfs:
        start = time.monotonic()
        shutil.copy(pdf, inbox / pdf.name)
        while True:
            try:
                hits = app.query(QueryRequest("w", "results", top_k=50)).hits
            except Exception:  # noqa: BLE001 - no index before the first file
                hits = []
            if any(Path(h.source_path).name == pdf.name for h in hits):
                break
            time.sleep(0.25)
        seconds = time.monotonic() - start
        audit = [json.loads(line) for f in (data / "audit").glob("w-*.jsonl")
                 for line in f.read_text().splitlines()]
        convert = max(a["seconds"] for a in audit if a.get("file", "").endswith(pdf.name)
                      and a.get("status") == "indexed")
        searchable.append({"pdf": pdf.name, "copy_to_searchable_s": round(seconds, 2),
                           "ingest_s": convert, "overhead_s": round(seconds - convert, 2)})
    cpu1, t1 = tree_cpu(pid), time.monotonic()
    time.sleep(args.idle_s)
    idle_after = (tree_cpu(pid) - cpu1) / (time.monotonic() - t1)
    subprocess.run([sys.executable, "-m", "citeloom.cli", "daemon", "stop"], check=True,
                   capture_output=True)
    app.close()
    result = {
        "date": date.today().isoformat(), "machine": machine_summary(),
        "load_avg": [round(x, 2) for x in os.getloadavg()],
        "idle_cpu_fraction_of_a_core": round(idle, 4),
        "idle_cpu_after_ingests_fraction_of_a_core": round(idle_after, 4),
        "idle_window_s": args.idle_s,
        "searchable": searchable,
        "median_overhead_s": statistics.median(s["overhead_s"] for s in searchable),
        "targets": {"idle_cpu_fraction_of_a_core": 0.01,
                    "copy_to_searchable_s": "60 + conversion"},
    }
    out = ROOT / "benchmarks" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "daemon.json").write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
