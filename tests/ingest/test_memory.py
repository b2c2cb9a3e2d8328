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
    for f in report.to_dict()["files"]:  # each document's worker peak, by step
        assert set(f["worker_mb"]) == {"convert", "prepare"}, f
        assert f["worker_mb"]["prepare"] > 100, f  # the models were held at least


def test_a_peak_can_be_started_again() -> None:
    """``system.reset_peak_rss``: a worker's peak per document, not since it started."""
    code = ("from citeloom.system import peak_rss_mb, reset_peak_rss, rss_mb\n"
            "b = bytearray(400 * 2**20); del b\n"
            "before = peak_rss_mb(); reset_peak_rss()\n"
            "print(round(before), round(peak_rss_mb()), round(rss_mb()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    before, after, now = map(int, out)
    assert before > 400 and after < before - 300 and after <= now + 5, out


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


LONG = FIXTURE_PDFS / "cermine__example2.pdf"  # 10 pages
SHORT = [FIXTURE_PDFS / "docling__2305.03393v1-pg9.pdf", FIXTURE_PDFS / "cermine__test1.pdf"]


def test_a_long_document_starts_on_a_fresh_worker(make_settings,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker grown by its earlier documents does not also take a long one: the long
    one goes to a fresh process (issue #32: the tree's peak was a grown worker reading a
    190-page document)."""
    monkeypatch.setattr("citeloom.system.LONG_DOCUMENT_PAGES", 10)
    app = CiteLoom(make_settings())
    try:
        worker = app.runtime.models.worker(ProjectConfig(name="m"))
        worker.convert(SHORT[0])
        pid = worker._proc.pid
        worker.convert(SHORT[1])  # short: the same process goes on
        assert worker._proc.pid == pid and worker.documents == 2 and worker.replaced == 0
        assert _text(worker.convert(LONG))
        assert worker._proc.pid != pid and worker.replaced == 1 and worker.documents == 1
        worker.stop()
        worker.convert(LONG)  # on a fresh worker: nobody is let go for it
        assert worker.replaced == 1
    finally:
        app.close()


@pytest.mark.own_cache  # the long document must really be converted
def test_a_pool_gives_a_long_document_a_fresh_worker(make_settings, started_pools: list[Pool],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("citeloom.system.LONG_DOCUMENT_PAGES", 10)
    app = CiteLoom(make_settings())  # default limits: 20 documents, 1,200 MB
    try:
        report = app.ingest([*SHORT, LONG], "m", workers=2)  # the long one third
        assert report.count("indexed") == 3, report.to_dict()
        assert started_pools[0].replaced == 1  # the worker that took it had done one already
        # Its conversion is cached now: a second project converts nothing, and no worker
        # is let go for it.
        again = app.ingest([*SHORT, LONG], "m2", workers=2)
        assert again.count("indexed") == 3 and started_pools[1].replaced == 0
    finally:
        app.close()


def _papers() -> list:  # type: ignore[type-arg]
    from citeloom.sources import TextDoc

    topics = ["wash water temperature for cloth masks", "hand hygiene on hospital wards",
              "dementia risk after stressful life events", "table structure recognition",
              "sparse matrices in R", "error correction model for consumption",
              "Bayesian hierarchical models of reading times", "OCR of scanned theses"]
    return [TextDoc(f"d{i}", f"Paper {i}", f"This paper is about {t}. " * 3 +
                    f"We measured {t} in {i + 2} studies and report the effect sizes.")
            for i, t in enumerate(topics)]


def test_a_long_ingest_optimizes_as_it_writes_and_answers_alike(
        make_settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Edge writer optimizes every ``optimize_every`` points, so the segment it holds in
    memory stays small; the index answers as one written in a single run does."""
    from citeloom.index.edge import EdgeIndex
    from citeloom.service.api import QueryRequest
    from citeloom.sources import TextSource

    docs = _papers()
    calls: list[str] = []
    optimize = EdgeIndex.optimize
    monkeypatch.setattr(EdgeIndex, "optimize",
                        lambda self: (calls.append(self.project), optimize(self))[1])
    monkeypatch.setattr(TextSource, "flush_points", 1)  # a write per document
    app = CiteLoom(make_settings())
    try:
        app.index_texts("whole", docs)
        monkeypatch.setattr(EdgeIndex, "optimize_every", 2)
        app.index_texts("rolled", docs)
        assert calls.count("whole") == 1  # once, at the end
        assert calls.count("rolled") >= 4  # every two documents, and at the end
        for question in ("How hot should the water be to wash masks?",
                         "consumption function", "reading times"):
            got = {name: [(h.doc_id, h.chunk_id) for h in
                          app.query(QueryRequest(name, question, top_k=5)).hits]
                   for name in ("whole", "rolled")}
            assert got["whole"] and got["whole"] == got["rolled"]
    finally:
        app.close()


def test_an_optimize_without_room_is_left_for_later_and_said_once(
        make_settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """A long run whose optimizes find the disk short writes every document and warns once,
    with the command that optimizes later."""
    from citeloom import system
    from citeloom.errors import DiskFull
    from citeloom.index.edge import EdgeIndex
    from citeloom.sources import TextSource

    require = system.require
    asked: list[str] = []

    def short_for_optimizing(path, need, what, margin=system.WRITE_MARGIN):  # type: ignore[no-untyped-def]
        if what.startswith("optimizing"):
            asked.append(what)
            raise DiskFull(f"{path}: 1 MB free, {what} needs more")
        return require(path, need, what, margin)

    monkeypatch.setattr(system, "require", short_for_optimizing)
    monkeypatch.setattr(EdgeIndex, "optimize_every", 2)
    monkeypatch.setattr(TextSource, "flush_points", 1)
    app = CiteLoom(make_settings())
    try:
        report = app.index_texts("short", _papers())
    finally:
        app.close()
    assert report.count("indexed") == len(_papers())
    full = [w for w in report.warnings if w["code"] == "DISK_FULL"]
    assert len(full) == 1 and "citeloom optimize -p short" in full[0]["hint"]
    assert len(asked) == 2  # the first on the way (then no more on the way), and the last


def test_a_new_generation_is_optimized_on_the_way_and_an_old_one_at_the_end(
        tmp_path: Path) -> None:
    """Only a generation with capped segments (made since session 20) is optimized while a
    long ingest writes it; one made before (its shard's config without optimizers) merges
    all it holds on each optimize, so it is optimized once, at the end."""
    from citeloom.index.base import ModelLock
    from citeloom.index.edge import OPTIMIZE_EVERY, EdgeStore

    store = EdgeStore(tmp_path / "indexes")
    index = store.open("p", create=True)
    assert index.optimize_every is None  # nothing created yet
    index.ensure(ModelLock("BAAI/bge-small-en-v1.5", 384, "Qdrant/bm25", 256))
    assert index.optimize_every == OPTIMIZE_EVERY
    store.close()
    config = tmp_path / "indexes" / "p" / "g0001" / "shard" / "edge_config.json"
    saved = json.loads(config.read_text())
    assert saved["optimizers"]["max_segment_size"] and saved["vectors"]["dense"]["memory"]
    del saved["optimizers"]  # as a generation made before the cap
    config.write_text(json.dumps(saved))
    assert EdgeStore(tmp_path / "indexes").open("p").optimize_every is None


def test_an_encrypted_long_document_is_counted_with_the_project_password(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``system.long_document`` counts an encrypted PDF's pages with the project's password;
    without it the pages are unknown and the file is not called long (no fresh worker for a
    guess from its size)."""
    from citeloom import system

    from ..conftest import CORPUS

    locked = CORPUS / "edge" / "docling__2206.01062_pg3_password.pdf"  # password 1234
    assert system.counted_pages(locked) == 0
    pages = system.counted_pages(locked, "1234")
    assert pages and pages >= 1
    monkeypatch.setattr(system, "LONG_DOCUMENT_PAGES", pages)
    assert system.long_document(locked, "1234")
    assert not system.long_document(locked)
    assert not system.long_document(locked, "4321")
    monkeypatch.setattr(system, "LONG_DOCUMENT_PAGES", pages + 1)
    assert not system.long_document(locked, "1234")
