"""Ingest at scale (issue #14): the same chunks from every executor — in process, a pool of
worker processes, Ray actors — and a Ray actor killed mid-batch.

Real components throughout: five real PDFs, real Docling in the workers and actors, a real
local Ray instance (started by the executor, ``--ray local``, two CPUs here), a real
SIGKILL of an actor's process. The in-process run converts and fills its cache; the pool
run and the killed-actor run convert for themselves (a fresh cache each), so conversion in
a worker process and in a Ray actor are both compared with the in-process one; the Ray run
of the first test reuses the in-process cache, which also covers a cached conversion
shipped to an actor.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from citeloom.ingest.pool import Pool, default_workers, threads_per_worker
from citeloom.service import CiteLoom

from ..clirun import run_cli
from ..conftest import CORPUS

PDFS = [CORPUS / "text" / name for name in (
    "cermine__test1.pdf",  # 4 pages: the longest, listed first so an actor is busy with it
    "docling__2305.03393v1-pg9.pdf",
    "docling__code_and_formula.pdf",
    "docling__right_to_left_01.pdf",
    "p2md__Flash-Masques-Temperature.pdf",
)]
PROJECT = "scale"
# Each executor converts and embeds for itself here (a cache per data dir, as users have).
pytestmark = pytest.mark.own_cache
SMALL = {"max_actors": 2}  # a local Ray of two actors, however many cores CI has


def _ingest(settings, **scale):  # type: ignore[no-untyped-def]
    app = CiteLoom(settings)
    try:
        report = app.ingest(PDFS, PROJECT, **scale)
        index = app.runtime.projects.index(PROJECT)
        points = {h.id: h.payload for h in index.scroll()}
        vectors = index.dense_vectors(sorted(points))
        rows = {r.doc_id: r.chunks for r in app.runtime.projects.catalog(PROJECT).all()}
    finally:
        app.close()
    return report, (points, vectors), rows


@pytest.fixture(scope="module")
def plain(models_dir: Path, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """The in-process ingest (one conversion worker): the reference."""
    from citeloom.config import Settings

    data = tmp_path_factory.mktemp("plain")
    report, points, rows = _ingest(Settings(data_dir=data, models_dir=models_dir), workers=1)
    assert report.executor == "in process"
    assert report.count("indexed") == len(PDFS), report.to_dict()
    return data, report, points, rows


def _same_as(plain, report, points, rows) -> None:  # type: ignore[no-untyped-def]
    _, ref_report, ref_points, ref_rows = plain
    assert report.count("indexed") == len(PDFS), report.to_dict()
    by_path = {f.path: (f.doc_id, f.chunks, f.pages) for f in ref_report.files}
    assert {f.path: (f.doc_id, f.chunks, f.pages) for f in report.files} == by_path
    (payloads, vectors), (ref_payloads, ref_vectors) = points, ref_points
    assert sorted(payloads) == sorted(ref_payloads)  # the same chunk ids, no more, no fewer
    assert rows == ref_rows  # one catalog row per document, the same chunk counts
    for pid, payload in payloads.items():
        assert payload == ref_payloads[pid]
        assert np.allclose(vectors[pid], ref_vectors[pid], atol=1e-4)


def test_default_worker_rule() -> None:
    # One per two cores, within the memory (1.2 GB a worker, 1.5 GB kept), at least one.
    assert default_workers(cores=2, memory_mb=16_000) == 1
    assert default_workers(cores=16, memory_mb=64_000) == 8
    assert default_workers(cores=16, memory_mb=4_000) == 2
    assert default_workers(cores=1, memory_mb=500) == 1
    assert threads_per_worker(2, threads=2, cores=2) == 1
    assert threads_per_worker(4, threads=2, cores=16) == 2


@pytest.mark.slow
def test_every_executor_gives_the_same_chunks(plain, make_settings, tmp_path: Path,
                                              started_pools: list[Pool]) -> None:
    pool_settings = make_settings(data_dir=tmp_path / "pool")
    started = started_pools
    report, points, rows = _ingest(pool_settings, workers=2)
    assert report.executor.startswith("2 worker processes")
    _same_as(plain, report, points, rows)
    # It converted for itself (its own cache), in the workers.
    assert len(list((tmp_path / "pool" / "cache" / "conversions").glob("*.json.gz"))) == 5
    assert started and 0 < started[0].peak_rss_mb < 4000

    ray_data = tmp_path / "ray"
    shutil.copytree(plain[0] / "cache", ray_data / "cache")  # cached conversions, shipped
    report, points, rows = _ingest(make_settings(data_dir=ray_data, cluster=SMALL), ray="local")
    assert report.executor.startswith("ray local")
    _same_as(plain, report, points, rows)
    import ray

    assert not ray.is_initialized()  # the Ray it started for the run is shut down


@pytest.mark.slow
def test_ray_actor_killed_mid_batch(plain, make_settings, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """SIGKILL an actor while it converts a document: that document is sent to another
    actor, every document ends up in the index exactly once, with the same chunks."""
    from citeloom.ingest.ray import RayExecutor

    app = CiteLoom(make_settings(data_dir=tmp_path / "killed", cluster=SMALL))
    ex = RayExecutor(app.runtime, "local")
    monkeypatch.setattr(app, "executor", lambda workers=None, ray=None: ex)
    killed: list[tuple[int, str]] = []

    def killer() -> None:  # the first actor seen busy with a document, once its pid is known
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and not killed:
            try:
                busy = [(ex.actor_pids.get(a, 0), label) for a, label in list(ex.busy.items())]
            except RuntimeError:  # changed while read
                continue
            for pid, label in busy:
                if pid:
                    time.sleep(1.0)  # well into loading Docling or converting
                    os.kill(pid, signal.SIGKILL)
                    killed.append((pid, label))
                    return
            time.sleep(0.1)

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    try:
        report = app.ingest(PDFS, PROJECT)
        index = app.runtime.projects.index(PROJECT)
        payloads = {h.id: h.payload for h in index.scroll()}
        points = (payloads, index.dense_vectors(sorted(payloads)))
        rows = {r.doc_id: r.chunks for r in app.runtime.projects.catalog(PROJECT).all()}
    finally:
        app.close()
    thread.join(5)
    assert killed, "no actor was seen busy"
    label = killed[0][1]
    assert label in ex.retried
    result = next(f for f in report.files if f.path == label)
    assert result.status == "indexed" and "sent again after its Ray worker died" in result.note
    # Every document once: the same ids as in process, each document's points all there.
    _same_as(plain, report, points, rows)
    per_doc: dict[str, int] = {}
    for payload in payloads.values():
        per_doc[payload["doc_id"]] = per_doc.get(payload["doc_id"], 0) + 1
    assert per_doc == rows and len(per_doc) == len(PDFS)


@pytest.mark.slow
def test_job_spec_carries_the_executor(plain, make_settings, tmp_path: Path) -> None:
    """A daemon job (or an in-process MCP server's) runs with the executor its spec names:
    ``--workers`` and ``--ray`` reach the owner of the indexes, not only an in-process CLI
    (and Ray starts from the job's thread, not the main one)."""
    from citeloom.service.jobs import JobManager

    data = tmp_path / "jobs"
    shutil.copytree(plain[0] / "cache", data / "cache")  # the executor is the point here
    app = CiteLoom(make_settings(data_dir=data, cluster=SMALL))
    jobs = []
    try:
        manager = JobManager(app)
        for name, scale in (("pool", {"workers": 2}), ("ray", {"ray": "local"})):
            jobs.append(manager.start(f"{PROJECT}-{name}", name, "ingest",
                                      {"paths": [str(p) for p in PDFS[1:3]], **scale}))
            while jobs[-1].finished is None:
                manager.wait(jobs[-1], 5)
    finally:
        app.close()
    for job, executor in zip(jobs, ("2 worker processes", "ray local"), strict=True):
        assert job.state == "done", job.error
        assert job.report is not None and job.report["indexed"] == 2
        assert job.report["executor"].startswith(executor)


@pytest.mark.slow
def test_pool_worker_killed_or_late_fails_only_its_document(make_settings, tmp_path: Path,
                                                            started_pools: list[Pool]) -> None:
    """Crash isolation: SIGKILL of the worker converting one document fails that document
    (with the reason) while the other is indexed; the re-run converts it. Each worker has
    its own deadline: past it, the document fails and the worker is gone."""
    pools = started_pools
    app = CiteLoom(make_settings(data_dir=tmp_path / "crash"))
    files = PDFS[:2]
    killed: list[str] = []

    def killer() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not killed:
            slots = list(pools[0]._slots) if pools else []
            busy = [s for s in slots if s.job is not None and s.job.unit.path == files[0]]
            if busy:
                time.sleep(1.0)
                os.kill(busy[0].proc.pid, signal.SIGKILL)
                killed.append(busy[0].job.unit.label)
                return
            time.sleep(0.05)

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    try:
        report = app.ingest(files, PROJECT, workers=2)
        thread.join(5)
        assert killed
        by_path = {Path(f.path).name: f for f in report.files}
        hit = by_path[files[0].name]
        assert hit.status == "failed" and "SIGKILL" in hit.error["message"], hit
        assert by_path[files[1].name].status == "indexed"
        again = app.ingest(files, PROJECT, workers=2)
        assert sorted(f.status for f in again.files) == ["indexed", "skipped"]
    finally:
        app.close()
    assert all(not s.proc.is_alive() for p in pools for s in p._slots)

    late = make_settings(data_dir=tmp_path / "late")
    late.projects[PROJECT] = late.project(PROJECT, create=True).model_copy(
        update={"conversion_timeout_s": 1.0, "conversion_page_s": 0})
    app = CiteLoom(late)
    try:
        report = app.ingest(files, PROJECT, workers=2)
    finally:
        app.close()
    assert [f.status for f in report.files] == ["failed", "failed"]
    assert all("took longer than 1 s" in f.error["message"] for f in report.files)
    assert not pools[-1]._slots  # every worker past its deadline was killed


def test_server_collection_for_a_bulk_load(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A server project at scale: the collection is made with its shards, replicas and
    on-disk storage, without HNSW while it is filled; optimize() turns indexing on. (The
    suite has no Qdrant server: qdrant-client's local mode, whose calls are recorded.)"""
    from qdrant_client import models as m

    from citeloom.index import IndexParams, ModelLock
    from citeloom.index.server import INDEXING_THRESHOLD, ServerStore

    store = ServerStore(path=str(tmp_path / "qdrant"))
    made: dict = {}
    updated: list = []
    create = store.client.create_collection
    monkeypatch.setattr(store.client, "create_collection",
                        lambda name, **kw: (made.update(kw), create(name, **kw))[1])
    monkeypatch.setattr(store.client, "update_collection",
                        lambda name, **kw: updated.append(kw))
    idx = store.open("big", create=True)
    idx.ensure(ModelLock("test/dense", 3, "Qdrant/bm25", 256),
               IndexParams(shards=6, replicas=2, on_disk=True, defer_indexing=True))
    assert (made["shard_number"], made["replication_factor"]) == (6, 2)
    assert made["on_disk_payload"] and made["vectors_config"]["dense"].on_disk
    assert made["sparse_vectors_config"]["sparse"].index.on_disk
    assert made["optimizers_config"].indexing_threshold == 0
    idx.optimize()
    assert updated == [{"optimizers_config": m.OptimizersConfigDiff(
        indexing_threshold=INDEXING_THRESHOLD)}]
    store.close()


def _cli(args: list[str], data: Path, models_dir: Path, cwd: Path
         ) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CITELOOM_CONFIG"}
    env.update(CITELOOM_DATA_DIR=str(data), CITELOOM_MODELS_DIR=str(models_dir),
               CITELOOM_DAEMON="off", COLUMNS="1000")
    return run_cli(args, env, cwd)


@pytest.mark.slow
def test_cli_workers_option(plain, models_dir: Path, tmp_path: Path) -> None:
    data = tmp_path / "cli"
    shutil.copytree(plain[0] / "cache", data / "cache")
    files = [str(p) for p in PDFS[1:3]]
    out = _cli(["ingest", *files, "-p", PROJECT, "--workers", "2", "--json"], data,
               models_dir, tmp_path)
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert summary["executor"].startswith("2 worker processes") and summary["indexed"] == 2
    bad = _cli(["ingest", *files, "-p", PROJECT, "--workers", "2", "--ray", "local"], data,
               models_dir, tmp_path)
    assert bad.returncode == 1 and "--workers and --ray both given" in bad.stderr
    zero = _cli(["ingest", *files, "-p", PROJECT, "--workers", "0"], data, models_dir,
                tmp_path)
    assert zero.returncode == 1 and "at least one worker" in zero.stderr


def test_validate_names_the_executor(make_settings, monkeypatch: pytest.MonkeyPatch) -> None:
    from citeloom.service.validate import _executor

    assert "in process" in _executor(make_settings()).detail or default_workers() > 1
    assert _executor(make_settings(workers=3)).detail.startswith("3 worker(s)")
    cluster = make_settings(cluster={"address": "ray://head:10001"})
    assert _executor(cluster).status == "pass"
    monkeypatch.setitem(sys.modules, "ray", None)  # as if the extra were not installed
    check = _executor(cluster)
    assert check.status == "fail" and "citeloom[ray]" in check.fix
