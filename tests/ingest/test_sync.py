"""Incremental sync, model lock through the service, migration, and crash safety, on real
PDFs, real Docling conversions and a real Edge shard."""

from __future__ import annotations

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

from citeloom.config import ProjectConfig
from citeloom.errors import EmbeddingMismatch, IndexUnavailable
from citeloom.runtime import Runtime
from citeloom.service import CiteLoom
from citeloom.service.api import QueryRequest

from ..conftest import CORPUS, FIXTURE_PDFS, ROOT

pytestmark = pytest.mark.slow

ONE_PAGE = CORPUS / "text" / "docling__2305.03393v1-pg9.pdf"
TWO_PAGES = CORPUS / "text" / "docling__code_and_formula.pdf"


def _no_conversion(*_a, **_k):  # type: ignore[no-untyped-def]
    raise AssertionError("a document was converted")


@pytest.fixture
def papers(tmp_path: Path) -> Path:
    d = tmp_path / "papers"
    d.mkdir()
    shutil.copy(ONE_PAGE, d / "a.pdf")
    shutil.copy(TWO_PAGES, d / "b.pdf")
    return d


@pytest.fixture
def optimized(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The projects whose Edge shard ``optimize()`` was called on, in order."""
    from citeloom.index.edge import EdgeIndex

    calls: list[str] = []
    real_optimize = EdgeIndex.optimize

    def spy(index: EdgeIndex) -> None:
        calls.append(index.project)
        real_optimize(index)

    monkeypatch.setattr(EdgeIndex, "optimize", spy)
    return calls


def _state(app: CiteLoom, project: str) -> dict[str, int]:
    """doc_id -> number of chunks, checking no (doc, chunk_index) appears twice."""
    seen: set[tuple[str, int]] = set()
    per_doc: dict[str, int] = {}
    for h in app.runtime.projects.index(project).scroll():
        key = (h.payload["doc_id"], h.payload["chunk_index"])
        assert key not in seen, f"duplicate chunk {key}"
        seen.add(key)
        per_doc[key[0]] = per_doc.get(key[0], 0) + 1
    return per_doc


def test_unchanged_corpus_converts_nothing(make_settings, papers: Path, monkeypatch,
                                           optimized: list[str]) -> None:
    app = CiteLoom(make_settings())
    first = app.ingest([papers], "p")
    assert first.count("indexed") == 2
    assert optimized == ["p"]  # a batch that wrote chunks is optimized, however small
    monkeypatch.setattr("citeloom.convert.converter.convert_file", _no_conversion)
    monkeypatch.setattr(Runtime, "dense", _no_conversion)  # no model is even loaded
    again = app.ingest([papers], "p")
    assert again.count("skipped") == 2 and again.outcome == "ok"
    # Touched (new mtime) but same bytes: hashed, recognised, still not converted.
    os.utime(papers / "a.pdf", ns=(1, 1))
    touched = app.ingest([papers], "p")
    assert touched.count("skipped") == 2
    assert optimized == ["p"]  # nothing written, nothing to optimize
    app.close()


def test_changed_file_is_replaced_without_a_gap(make_settings, papers: Path, monkeypatch) -> None:
    app = CiteLoom(make_settings())
    app.ingest([papers], "p")
    old = {d: n for d, n in _state(app, "p").items()}
    old_a = app.runtime.projects.catalog("p").by_source(str((papers / "a.pdf").resolve()))[0].doc_id
    shutil.copy(FIXTURE_PDFS / "cermine__test1.pdf", papers / "a.pdf")  # new content

    index = app.runtime.projects.index("p")
    real_delete = index.delete_doc
    seen_at_delete: list[dict[str, int]] = []

    def checked_delete(doc_id: str) -> None:
        seen_at_delete.append(_state(app, "p"))
        real_delete(doc_id)

    monkeypatch.setattr(index, "delete_doc", checked_delete)
    report = app.ingest([papers], "p")
    result = {Path(f.path).name: f for f in report.files}
    assert result["a.pdf"].status == "replaced" and result["b.pdf"].status == "skipped"
    new_a = result["a.pdf"].doc_id
    # At the moment the old version was deleted, the new one was already complete.
    assert len(seen_at_delete) == 1
    assert seen_at_delete[0][new_a] == result["a.pdf"].chunks
    assert seen_at_delete[0][old_a] == old[old_a]
    after = _state(app, "p")
    assert old_a not in after and after[new_a] == result["a.pdf"].chunks
    assert len(app.runtime.projects.catalog("p")) == 2
    app.close()


def test_prune_removes_documents_whose_files_are_gone(make_settings, papers: Path) -> None:
    app = CiteLoom(make_settings())
    app.ingest([papers], "p")
    (papers / "b.pdf").unlink()
    assert app.inspect("p")["missing_documents"] == [str((papers / "b.pdf").resolve())]
    kept = app.ingest([papers], "p")  # without --prune nothing is removed
    assert kept.count("removed") == 0 and len(_state(app, "p")) == 2
    pruned = app.ingest([papers], "p", prune=True)
    assert pruned.count("removed") == 1
    assert len(_state(app, "p")) == 1 and len(app.runtime.projects.catalog("p")) == 1
    assert app.inspect("p")["missing_documents"] == []
    app.close()


def test_list_projects_counts_from_catalog_and_idle_index_is_released(
        make_settings, papers: Path, optimized: list[str]) -> None:
    app = CiteLoom(make_settings())
    app.ingest([papers], "p", optimize=False)  # as the MCP server's jobs do
    (papers / "b.pdf").unlink()
    app.ingest([papers], "p", prune=True, optimize=False)
    entry = next(e for e in app.list_projects() if e["project"] == "p")
    assert entry["documents"] == 1 and entry["chunks"] == app.runtime.projects.index("p").count()
    assert app.release_idle(3600) == []  # just used
    assert app.release_idle(0, busy={"p"}) == []  # an ingest job runs on it
    assert optimized == []
    assert app.release_idle(0) == ["p"]
    assert optimized == ["p"]  # written without optimizing: optimized before letting go
    other = CiteLoom(make_settings())  # another process's turn: the shard opens
    assert other.runtime.projects.index("p").count() == entry["chunks"]
    other.close()
    assert app.query(QueryRequest("p", "table structure", top_k=2)).hits  # reopened on use
    app.close()


def test_index_held_by_another_process_is_waited_for(make_settings, papers: Path) -> None:
    app = CiteLoom(make_settings())
    app.ingest([papers], "p")
    chunks = app.runtime.projects.index("p").count()
    shard = app.runtime.projects.index("p").shard_dir  # type: ignore[attr-defined]
    app.close()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time, qdrant_edge as q; "
         "s = q.EdgeShard.load(sys.argv[1]); print('held', flush=True); time.sleep(3); "
         "s.close()", str(shard)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        impatient = CiteLoom(make_settings())
        with pytest.raises(IndexUnavailable, match="another CiteLoom process"):
            impatient.runtime.projects.index("p").count()
        impatient.close()
        started = time.monotonic()
        patient = CiteLoom(make_settings(), index_wait_s=30)
        assert patient.runtime.projects.index("p").count() == chunks
        assert 0.5 < time.monotonic() - started < 30  # it waited, then got in
        patient.close()
    finally:
        holder.wait(timeout=30)


def test_inspect_reports_stale_documents(make_settings, papers: Path) -> None:
    app = CiteLoom(make_settings())
    app.ingest([papers], "p")
    with (papers / "a.pdf").open("ab") as f:
        f.write(b"\n% appended\n")
    info = app.inspect("p", sample=2)
    assert info["stale_documents"] == [str((papers / "a.pdf").resolve())]
    assert len(info["sample"]) == 2 and info["chunks"] > 0
    assert app.inspect("p", sample=0)["sample"] == []
    assert info["model_lock"]["dense_model"] == "BAAI/bge-small-en-v1.5"
    app.close()


def test_other_chunk_settings_are_refused_then_migrated(make_settings, papers: Path,
                                                        monkeypatch) -> None:
    settings = make_settings(projects={"p": ProjectConfig(name="p")})
    app = CiteLoom(settings)
    app.ingest([papers], "p")
    before = sum(_state(app, "p").values())

    settings.projects["p"] = ProjectConfig(name="p", chunk_max_tokens=96)
    with pytest.raises(EmbeddingMismatch, match="citeloom reindex --project p"):
        app.ingest([papers], "p")

    # Queries keep answering while the migration runs, from the old generation.
    monkeypatch.setattr("citeloom.convert.converter.convert_file", _no_conversion)  # cache only
    stop = threading.Event()
    answers: list[int] = []
    errors: list[BaseException] = []

    def ask() -> None:
        while not stop.is_set():
            try:
                answers.append(
                    len(app.query(QueryRequest("p", "table structure recognition", top_k=3)).hits)
                )
            except BaseException as exc:  # noqa: BLE001 - any failure fails the test
                errors.append(exc)

    t = threading.Thread(target=ask)
    t.start()
    report = app.reindex("p")
    time.sleep(0.2)
    stop.set()
    t.join()
    assert not errors and answers and min(answers) > 0
    assert report.count("indexed") == 2
    lock = app.runtime.projects.index("p").lock()
    assert lock is not None and lock.chunk_max_tokens == 96
    after = sum(_state(app, "p").values())
    assert after > before
    assert sum(r.chunks for r in app.runtime.projects.catalog("p").all()) == after
    app.ingest([papers], "p")  # the new settings now write without complaint
    app.close()


@pytest.mark.own_cache  # killed mid-batch: the batch must still be converting
def test_sigkill_mid_batch_then_rerun_is_consistent(models_dir: Path, tmp_path: Path,
                                                    papers: Path) -> None:
    shutil.copy(FIXTURE_PDFS / "cermine__test1.pdf", papers / "c.pdf")
    shutil.copy(FIXTURE_PDFS / "cermine__example2.pdf", papers / "d.pdf")
    env = {**os.environ, "CITELOOM_DATA_DIR": str(tmp_path / "data"),
           "CITELOOM_MODELS_DIR": str(models_dir), "CITELOOM_CONFIG": ""}
    cmd = [sys.executable, "-m", "citeloom.cli", "ingest", str(papers), "-p", "k", "--json"]
    proc = subprocess.Popen(cmd, env=env, cwd=ROOT / "tests", stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    catalog = tmp_path / "data" / "indexes" / "k" / "catalog.sqlite"
    deadline = time.time() + 300
    rows = 0
    while time.time() < deadline and proc.poll() is None:
        if catalog.exists():
            with sqlite3.connect(f"file:{catalog}?mode=ro", uri=True) as db:
                try:
                    rows = db.execute("SELECT count(*) FROM documents").fetchone()[0]
                except sqlite3.OperationalError:
                    rows = 0
            if rows >= 1:
                break
        time.sleep(0.05)
    assert proc.poll() is None, "the batch finished before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert 1 <= rows < 4

    rerun = subprocess.run(cmd, env=env, cwd=ROOT / "tests", capture_output=True, text=True,
                           timeout=600)
    assert rerun.returncode == 0, rerun.stderr
    # The run's audit log: one JSON line per file with its hash, chunks, time and warnings.
    import json

    audit = Path(json.loads(rerun.stdout)["audit_log"])
    lines = [json.loads(line) for line in audit.read_text().splitlines()]
    assert len(lines) == 4 and {Path(x["file"]).name for x in lines} == {
        "a.pdf", "b.pdf", "c.pdf", "d.pdf"}
    assert all(x["doc_id"] and x["chunks"] > 0 and "seconds" in x and "warnings" in x
               for x in lines)

    from citeloom.config import Settings

    app = CiteLoom(Settings(data_dir=tmp_path / "data", models_dir=models_dir))
    state = _state(app, "k")  # opens, and asserts no duplicate chunks
    records = app.runtime.projects.catalog("k").all()
    assert len(records) == 4 and len(state) == 4
    assert all(state[r.doc_id] == r.chunks for r in records)
    app.close()
