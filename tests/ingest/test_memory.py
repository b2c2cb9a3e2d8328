"""Bounded memory (issue #32): a conversion worker is let go after its share of documents
or once its memory passes the limit, and a fresh one converts the next; a pool's workers
likewise; each ingest reports the peak memory of its process tree. Real Docling workers,
real pool processes, real PDFs."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from citeloom.config import ProjectConfig
from citeloom.ingest.pool import Pool
from citeloom.service import CiteLoom
from citeloom.system import rss_mb, tree_rss_mb

from ..conftest import FIXTURE_PDFS

ONE_PAGE = FIXTURE_PDFS / "docling__2305.03393v1-pg9.pdf"
PDFS = sorted(FIXTURE_PDFS.glob("*.pdf"))


def _text(converted: bytes) -> list[str]:
    doc = json.loads(gzip.decompress(converted))
    return [t["text"] for t in doc["texts"]]


def test_a_worker_is_replaced_after_its_share_and_the_next_converts_alike(make_settings
                                                                          ) -> None:
    app = CiteLoom(make_settings(worker_max_documents=2))
    try:
        worker = app.runtime.models.worker(ProjectConfig(name="m"))
        first = worker.convert(ONE_PAGE)
        pid = worker._proc.pid
        assert worker.documents == 1 and worker.replaced == 0
        worker.convert(ONE_PAGE)  # its second: let go
        assert worker._proc is None and worker.replaced == 1
        third = worker.convert(ONE_PAGE)
        assert worker._proc.pid != pid and worker.documents == 1
        assert _text(third) == _text(first)  # a fresh process reads the page the same
        assert worker.peak_rss_mb > 100  # Docling and its layout model were in memory
    finally:
        app.close()


def _environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode().split("=", 1) for item in raw if b"=" in item)


def test_a_worker_starts_with_two_malloc_arenas_unless_the_user_chose(
        make_settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """glibc's per-thread heaps are what a long conversion leaves fragmented: a worker
    starts with MALLOC_ARENA_MAX=2; a value the user set is kept."""
    app = CiteLoom(make_settings())
    try:
        worker = app.runtime.models.worker(ProjectConfig(name="m"))
        for chosen, expected in ((None, "2"), ("4", "4")):
            if chosen is None:
                monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)
            else:
                monkeypatch.setenv("MALLOC_ARENA_MAX", chosen)
            assert _text(worker.convert(ONE_PAGE))
            assert _environ(worker._proc.pid)["MALLOC_ARENA_MAX"] == expected
            worker.stop()
    finally:
        app.close()


def test_a_worker_past_the_memory_limit_is_let_go_after_its_document(make_settings) -> None:
    app = CiteLoom(make_settings(worker_max_rss_mb=100))  # less than Docling needs
    try:
        worker = app.runtime.models.worker(ProjectConfig(name="m"))
        for n in (1, 2):
            assert _text(worker.convert(ONE_PAGE))
            assert worker._proc is None and worker.replaced == n
    finally:
        app.close()


def test_pool_workers_are_replaced_and_the_report_has_the_peak(make_settings,
                                                               started_pools: list[Pool]
                                                               ) -> None:
    pools = started_pools
    app = CiteLoom(make_settings(worker_max_documents=1))
    try:
        report = app.ingest(PDFS, "m", workers=2)
    finally:
        app.close()
    assert report.count("indexed") == len(PDFS), report.to_dict()
    assert pools and pools[0].replaced == len(PDFS)  # one document each
    assert pools[0].peak_rss_mb > 100  # a worker held the models
    assert report.peak_rss_mb >= 0.5 * rss_mb()  # this process at least (and its workers)
    assert report.to_dict()["peak_rss_mb"] == round(report.peak_rss_mb)


def test_the_tree_counts_the_children() -> None:
    """``system.tree_rss_mb``, which the report's peak is made of, adds the descendants."""
    child = subprocess.Popen([sys.executable, "-c",
                              "import time; b = b'x' * (300 * 2**20); "
                              "print('ready', flush=True); time.sleep(60)"],
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        assert rss_mb(child.pid) > 250
        assert tree_rss_mb() - rss_mb() > 250
    finally:
        child.kill()
        child.wait()


def test_the_limits_are_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from citeloom.config import load_settings
    from citeloom.errors import ConfigError

    monkeypatch.setenv("CITELOOM_DATA_DIR", str(tmp_path))
    config = tmp_path / "citeloom.toml"
    config.write_text("[defaults]\nworker_max_documents = 7\nworker_max_rss_mb = 900\n")
    s = load_settings(config)
    assert (s.worker_max_documents, s.worker_max_rss_mb) == (7, 900)
    config.write_text("[defaults]\nworker_max_documents = 0\n")
    with pytest.raises(ConfigError, match="worker_max_documents"):
        load_settings(config)
