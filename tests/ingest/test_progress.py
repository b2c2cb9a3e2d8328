"""Progress a person can plan with (issue #32): pages per second and the time left, counted
from the PDFs' own pages, at the terminal; and an ingest stopped with Ctrl-C resumed by
running the same command, without redoing the files it had finished. Real PDFs, a real
CLI process, a real SIGINT."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from citeloom.report import FileResult, Tally, duration, tally_line

from ..conftest import FIXTURE_PDFS, ROOT


def test_the_tally_counts_pages_and_the_time_left() -> None:
    tally = Tally()
    tally.event("start:3:10", None)
    t0 = tally.started
    assert tally.eta_s(t0 + 1) is None and tally.line(t0 + 1) == "10 pages left"
    # A 4-page paper indexed after 2 s: 2 pages/s, 6 pages left, 3 s to go.
    tally.event("file:4", FileResult("a.pdf", "indexed", pages=4))
    assert tally.pages_per_s(t0 + 2) == 2.0 and tally.pages_left == 6
    assert tally.eta_s(t0 + 2) == 3.0
    # An unchanged paper of 2 pages: nothing done, 2 pages fewer to do.
    tally.event("file:2", FileResult("b.pdf", "skipped"))
    assert tally.pages_done == 4 and tally.pages_left == 4 and tally.eta_s(t0 + 2) == 2.0
    assert tally.to_dict(t0 + 2) == {"pages_done": 4, "pages_total": 10, "pages_left": 4,
                                     "pages_per_s": 2.0, "eta_s": 2}
    assert tally.line(t0 + 2) == "2.0 pages/s · 4 pages left · about 2 s left"
    tally.event("file:4", FileResult("c.pdf", "failed"))
    assert tally.pages_left == 0 and tally.eta_s(t0 + 3) == 0.0
    assert "left" not in tally.line(t0 + 3).replace("0 pages left", "")
    # Done: the rate is the run's, not one that falls while the finished job is looked at.
    assert tally.ended is not None
    assert tally.pages_per_s(t0 + 1000) == tally.pages_per_s() == tally.pages_per_s(t0 + 5)


def test_without_page_counts_the_time_left_goes_by_files() -> None:
    tally = Tally()
    tally.event("start:4:0", None)  # a Zotero source: files only
    tally.event("file:0", FileResult("n1", "indexed", pages=0))
    assert tally.eta_s(tally.started + 5) == 15.0  # 3 files left at 5 s a file
    assert tally_line(tally.to_dict(tally.started + 5)) == "about 15 s left"
    assert duration(59) == "59 s" and duration(600) == "10 min"
    assert duration(2 * 3600 + 5 * 60) == "2 h 05 min"


def _catalog_rows(catalog: Path) -> int:
    if not catalog.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{catalog}?mode=ro", uri=True) as db:
            return db.execute("SELECT count(*) FROM documents").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


@pytest.mark.own_cache  # the stopped run must really be converting
def test_a_stopped_ingest_resumes_without_redoing_finished_files(models_dir: Path,
                                                                 tmp_path: Path) -> None:
    papers = tmp_path / "papers"
    papers.mkdir()
    names = {"a.pdf": "docling__2305.03393v1-pg9.pdf", "b.pdf": "cermine__test1.pdf",
             "c.pdf": "cermine__example2.pdf"}  # 1, 4 and 10 pages, done in this order
    for name, fixture in names.items():
        shutil.copy(FIXTURE_PDFS / fixture, papers / name)
    env = {**os.environ, "CITELOOM_DATA_DIR": str(tmp_path / "data"),
           "CITELOOM_MODELS_DIR": str(models_dir), "CITELOOM_CONFIG": "",
           "TTY_COMPATIBLE": "1", "COLUMNS": "200"}  # the bar as a terminal shows it
    cmd = [sys.executable, "-m", "citeloom.cli", "ingest", str(papers), "-p", "r"]
    proc = subprocess.Popen(cmd, env=env, cwd=tmp_path, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    shown: list[str] = []  # the terminal's bar as it is drawn
    reader = threading.Thread(target=lambda: shown.extend(iter(proc.stderr.readline, "")),
                              daemon=True)
    reader.start()
    catalog = tmp_path / "data" / "indexes" / "r" / "catalog.sqlite"
    deadline = time.monotonic() + 300
    # Stopped once a paper is in the catalog and the bar has counted it (the bar redraws a
    # few times a second, so the row comes first).
    while time.monotonic() < deadline and proc.poll() is None and not (
            _catalog_rows(catalog) and "pages/s" in "".join(shown)):
        time.sleep(0.1)
    assert proc.poll() is None, "the run ended before it could be stopped"
    proc.send_signal(signal.SIGINT)  # Ctrl-C
    proc.wait(timeout=120)
    reader.join(timeout=30)
    err = "".join(shown)
    assert proc.returncode == 130, err[-2000:]
    assert "re-run the same command to continue" in err
    assert "pages/s" in err and "pages left" in err, err[-2000:]  # the bar's tally
    finished = _catalog_rows(catalog)
    assert 1 <= finished < 3

    again = subprocess.run([*cmd, "--json"], env=env, cwd=tmp_path, capture_output=True,
                           text=True, timeout=600)
    assert again.returncode == 0, again.stderr[-2000:]
    report = json.loads(again.stdout)
    status = {Path(f["path"]).name: f for f in report["files"]}
    done_before = [n for n in names if status[n]["status"] == "skipped"]
    assert len(done_before) == finished and "a.pdf" in done_before
    assert all(status[n]["pages"] == 0 for n in done_before)  # not converted again
    redone = [n for n in names if n not in done_before]
    assert all(status[n]["status"] == "indexed" for n in redone)
    assert report["pages"] == sum(status[n]["pages"] for n in redone) > 0
    # The index holds each paper once: the stop left nothing half-written.
    audit = subprocess.run([sys.executable, "-m", "citeloom.cli", "papers", "-p", "r",
                            "--json"], env=env, cwd=ROOT, capture_output=True, text=True,
                           timeout=300)
    assert audit.returncode == 0, audit.stderr[-2000:]
    assert len(json.loads(audit.stdout)["papers"]) == 3
