"""Fault benchmark: SIGKILL a real ``citeloom ingest`` at random moments, N times, then
let a run finish; compare with a clean run into another project.

    .venv/bin/python benchmarks/bench_faults.py [--kills 50] [--seed 16] [--pdf FILE ...]

The kill loop (``kill_loop``) works on a folder of real PDFs that changes between runs
(files added, removed, and replaced by other content under the same name), so kills land
in first ingests, no-op runs, replacements and prunes. Each run is ``citeloom ingest
FOLDER -p k --prune`` in a subprocess with ``CITELOOM_DAEMON=off``; it is killed (SIGKILL,
the main process: its conversion worker is reaped afterwards) either after a random delay
or just after a random number of visible steps (a conversion cached, a catalog row
written) plus a random jitter — seeded, so a failure replays. The conversion cache makes a
re-run cheap, so most of a run is the part that writes.

Then one run is let finish, a clean run ingests the same folder into project ``ref``, and
``compare`` checks: the same chunk ids, no chunk twice, no point without a catalog row
(orphan), every catalog row's chunk count equal to the index's count for its document.
It also measures what the free-space check assumes (``citeloom/space.py``): shard +
catalog bytes on disk per chunk, and conversion cache bytes per page, on ``ref`` and on
the whole pool ingested into one project (from the cache), and the bytes each chunk adds.

``tests/test_kill_loop.py`` runs the same loop with 10 kills. This script writes
benchmarks/results/faults.json.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHARED_PDFS = ROOT.parent / "shared" / "corpus" / "pdfs" / "text"
FIXTURE_PDFS = ROOT / "fixtures" / "pdfs"
#: Quick to convert: 2 fixtures and 3 of the shared corpus (15 s of conversion in all).
SMALL_POOL = [FIXTURE_PDFS / "docling__2305.03393v1-pg9.pdf", FIXTURE_PDFS / "cermine__test1.pdf",
              SHARED_PDFS / "docling__code_and_formula.pdf",
              SHARED_PDFS / "docling__right_to_left_01.pdf",
              SHARED_PDFS / "p2md__Flash-Masques-Temperature.pdf"]


def cli_env(data_dir: Path, models_dir: Path) -> dict[str, str]:
    env = {**os.environ, "CITELOOM_DATA_DIR": str(data_dir),
           "CITELOOM_MODELS_DIR": str(models_dir), "CITELOOM_CONFIG": "",
           "CITELOOM_DAEMON": "off"}
    env.pop("RUST_BACKTRACE", None)
    return env


def ingest_cmd(folder: Path, project: str) -> list[str]:
    return [sys.executable, "-m", "citeloom.cli", "ingest", str(folder), "-p", project,
            "--prune", "--json"]


def _visible(data_dir: Path, project: str) -> tuple[int, float]:
    """What an observer sees of a run's progress: cached conversions, and the catalog's
    newest row (a change of either is a step)."""
    cache = data_dir / "cache" / "conversions"
    cached = len(list(cache.glob("*.json.gz"))) if cache.is_dir() else 0
    catalog = data_dir / "indexes" / project / "catalog.sqlite"
    newest = 0.0
    if catalog.is_file():
        try:
            with sqlite3.connect(f"file:{catalog}?mode=ro", uri=True, timeout=0.2) as db:
                newest = db.execute("SELECT coalesce(max(ingested_at), 0) + count(*) "
                                    "FROM documents").fetchone()[0]
        except sqlite3.Error:
            pass
    return cached, newest


class Folder:
    """The folder being ingested, changed between runs: distinct contents at any time."""

    def __init__(self, path: Path, pool: list[Path], rng: random.Random, start: int = 3):
        self.path, self.pool, self.rng = path, pool, rng
        path.mkdir(parents=True, exist_ok=True)
        self.slots: dict[str, int] = {}  # file name -> pool index of its content
        for i in range(min(start, len(pool))):
            self._put(f"s{i}.pdf", i)

    def _put(self, name: str, content: int) -> None:
        target = self.path / name
        tmp = target.with_suffix(".part")
        shutil.copy(self.pool[content], tmp)
        os.replace(tmp, target)  # a run never sees half a file
        self.slots[name] = content

    def _free_contents(self) -> list[int]:
        return [i for i in range(len(self.pool)) if i not in self.slots.values()]

    def change(self) -> str:
        ops = []
        if self._free_contents():
            ops += ["add", "replace"]
        if len(self.slots) > 2:
            ops.append("remove")
        if not ops:
            return "none"
        op = self.rng.choice(ops)
        if op == "add":
            name = f"s{max(int(n[1:-4]) for n in self.slots) + 1}.pdf"
            self._put(name, self.rng.choice(self._free_contents()))
        elif op == "replace":
            name = self.rng.choice(sorted(self.slots))
            self._put(name, self.rng.choice(self._free_contents()))
        else:
            name = self.rng.choice(sorted(self.slots))
            (self.path / name).unlink()
            del self.slots[name]
        return f"{op} {name}"


def kill_loop(work: Path, models_dir: Path, pool: list[Path], *, kills: int = 10,
              seed: int = 16, max_delay_s: float = 4.0, log: Any = None) -> dict[str, Any]:
    """SIGKILL ``kills`` runs at random moments, then let one finish; then a clean run into
    another project. Returns the runs and the comparison (see ``compare``)."""
    rng = random.Random(seed)
    data = work / "data"
    folder = Folder(work / "papers", pool, rng)
    env = cli_env(data, models_dir)
    runs: list[dict[str, Any]] = []
    started = time.monotonic()
    while sum(r["killed"] for r in runs) < kills:
        change = folder.change() if runs and rng.random() < 0.6 else "none"
        mode = rng.choice(["delay", "steps"])
        delay = rng.uniform(0.05, max_delay_s)
        steps, jitter = rng.randint(1, 2), rng.uniform(0.0, 0.4)
        proc = subprocess.Popen(ingest_cmd(folder.path, "k"), env=env, cwd=work,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        t0 = time.monotonic()
        seen, last = 0, _visible(data, "k")
        while proc.poll() is None:
            now = time.monotonic() - t0
            if mode == "delay" and now >= delay:
                break
            if mode == "steps":
                current = _visible(data, "k")
                if current != last:
                    seen, last = seen + 1, current
                    if seen >= steps:
                        time.sleep(jitter)
                        break
                if now > 120:  # nothing visible happens: the run is stuck or done
                    break
            time.sleep(0.02)
        killed = proc.poll() is None
        if killed:
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)  # the conversion worker it left behind
        run = {"change": change, "mode": mode, "after_s": round(time.monotonic() - t0, 2),
               "steps_seen": seen, "killed": killed, "exit": proc.returncode}
        runs.append(run)
        if log:
            log(f"run {len(runs)}: {run}")
    loop_s = time.monotonic() - started
    final = subprocess.run(ingest_cmd(folder.path, "k"), env=env, cwd=work,
                           capture_output=True, text=True, timeout=900)
    ref = subprocess.run(ingest_cmd(folder.path, "ref"), env=env, cwd=work,
                         capture_output=True, text=True, timeout=900)
    result = {"kills": sum(r["killed"] for r in runs), "runs": runs,
              "loop_seconds": round(loop_s, 1), "final_exit": final.returncode,
              "final_stderr": (final.stdout + final.stderr)[-2000:] if final.returncode else "",
              "ref_exit": ref.returncode, "files": sorted(folder.slots)}
    if final.returncode == 0 and ref.returncode == 0:
        result["compare"] = compare(state(data, models_dir, "k"),
                                    state(data, models_dir, "ref"))
        result["stale_cache_temp_files"] = len(list((data / "cache" / "conversions")
                                                    .glob("*.tmp")))
    return result


def state(data_dir: Path, models_dir: Path, project: str) -> dict[str, Any]:
    """A project's index and catalog as plain data (opened in this process, read only)."""
    from citeloom.config import Settings
    from citeloom.service import CiteLoom

    app = CiteLoom(Settings(data_dir=data_dir, models_dir=models_dir))
    try:
        points = [(h.id, h.payload["doc_id"], h.payload["chunk_index"])
                  for h in app.runtime.projects.index(project).scroll(
                      fields=["doc_id", "chunk_index"])]
        rows = {r.doc_id: r.chunks for r in app.runtime.projects.catalog(project).all()}
    finally:
        app.close()
    return {"points": points, "rows": rows}


def compare(got: dict[str, Any], clean: dict[str, Any]) -> dict[str, Any]:
    """The killed project against the clean one: what must hold, each as a count of
    offenders (0 everywhere is a pass)."""
    ids = {p[0] for p in got["points"]}
    clean_ids = {p[0] for p in clean["points"]}
    keys = Counter((doc, idx) for _, doc, idx in got["points"])
    per_doc = Counter(doc for _, doc, _ in got["points"])
    rows = got["rows"]
    return {
        "chunks": len(got["points"]), "clean_chunks": len(clean["points"]),
        "documents": len(rows), "clean_documents": len(clean["rows"]),
        "ids_missing": len(clean_ids - ids), "ids_extra": len(ids - clean_ids),
        "duplicates": sum(n - 1 for n in keys.values() if n > 1),
        "orphan_documents": len(set(per_doc) - set(rows)),
        "rows_with_wrong_count": sum(1 for d, n in rows.items() if per_doc.get(d, 0) != n),
        "catalog_differs": int(rows != clean["rows"]),
    }


def passed(result: dict[str, Any]) -> bool:
    c = result.get("compare")
    return bool(c) and all(c[k] == 0 for k in ("ids_missing", "ids_extra", "duplicates",
                                                "orphan_documents", "rows_with_wrong_count",
                                                "catalog_differs"))


def measure_space(data_dir: Path, project: str) -> dict[str, Any]:
    """What the free-space check assumes, measured on ``project`` (see citeloom/space.py)."""
    from citeloom import system as space

    root = data_dir / "indexes" / project
    gen = root / (root / "CURRENT").read_text().strip()
    audit = [json.loads(line) for f in (data_dir / "audit").glob(f"{project}-*.jsonl")
             for line in f.read_text().splitlines()]
    pages = sum(a.get("pages", 0) for a in audit if a.get("status") == "indexed")
    with sqlite3.connect(root / "catalog.sqlite") as db:
        chunks = db.execute("SELECT sum(chunks) FROM documents").fetchone()[0] or 0
        hashes = [r[0] for r in db.execute("SELECT content_hash FROM documents")]
    shard = space.allocated_bytes(gen)
    catalog = space.allocated_bytes(root / "catalog.sqlite")
    entries = [data_dir / "cache" / "conversions" / f"{h}.json.gz" for h in hashes]
    cache = sum(e.stat().st_size for e in entries if e.is_file())
    return {"chunks": chunks, "pages_converted": pages, "shard_bytes": shard,
            "shard_apparent_bytes": space.apparent_bytes(gen), "catalog_bytes": catalog,
            "bytes_per_chunk": round((shard + catalog) / chunks) if chunks else None,
            "cache_bytes_per_page": round(cache / pages) if pages else None,
            "assumed": {"bytes_per_chunk": space.BYTES_PER_CHUNK,
                        "cache_bytes_per_page": space.CACHE_BYTES_PER_PAGE,
                        "write_margin": space.WRITE_MARGIN}}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kills", type=int, default=50)
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--max-delay-s", type=float, default=6.0)
    ap.add_argument("--pdf", type=Path, action="append",
                    help="PDFs to ingest (default: fixtures/pdfs and the shared text PDFs)")
    args = ap.parse_args()
    from citeloom.config import load_settings
    from citeloom.eval.scifact import machine_summary

    pool = args.pdf or sorted({*FIXTURE_PDFS.glob("*.pdf"), *SHARED_PDFS.glob("*.pdf")},
                              key=lambda p: p.name)
    pool = list({p.name: p for p in pool}.values())  # fixtures are in the corpus too
    models = load_settings(ROOT / "citeloom.toml").models_dir
    work = Path(tempfile.mkdtemp(prefix="cl-faults-"))
    try:
        result = kill_loop(work, models, pool, kills=args.kills, seed=args.seed,
                           max_delay_s=args.max_delay_s, log=print)
        space = {"ref": measure_space(work / "data", "ref")}
        # The whole pool in one project (from the cache): the figures space.py assumes.
        every = work / "all"
        every.mkdir()
        for pdf in pool:
            shutil.copy(pdf, every / pdf.name)
        subprocess.run(ingest_cmd(every, "all"), env=cli_env(work / "data", models),
                       cwd=work, capture_output=True, check=True, timeout=3600)
        space["all"] = big = measure_space(work / "data", "all")
        small = space["ref"]
        if big["chunks"] > small["chunks"]:
            space["bytes_per_added_chunk"] = round(
                (big["shard_bytes"] - small["shard_bytes"]) / (big["chunks"] - small["chunks"]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    runs = result.pop("runs")
    out = {"date": date.today().isoformat(), "machine": machine_summary(),
           "load_avg": [round(x, 2) for x in os.getloadavg()], "seed": args.seed,
           "pdfs": [p.name for p in pool], "passed": passed(result), **result,
           "runs_total": len(runs), "runs_finished_unkilled": sum(not r["killed"] for r in runs),
           "kill_moments_s": sorted(r["after_s"] for r in runs if r["killed"]),
           "changes": Counter(r["change"].split()[0] for r in runs), "space": space}
    dest = ROOT / "benchmarks" / "results"
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "faults.json").write_text(json.dumps(out, indent=2))
    print(json.dumps(out, indent=2))
    if not out["passed"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
