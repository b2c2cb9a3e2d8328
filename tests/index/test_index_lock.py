"""One process at a time on an Edge index (issue #12), with real processes and real shards.

A second process that merely *tried* to load a shard another process was writing to
truncated the writer's files (``tracker_journal.dat is shorter than expected``) and left the
shard unreadable. Every handle now takes ``<project>/.lock`` with ``flock`` before any Edge
call, so the second process gets ``IndexUnavailable`` without touching the shard.
"""

from __future__ import annotations

import gc
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import citeloom
from citeloom.embed.encoders import SparseEmbedder
from citeloom.errors import IndexUnavailable
from citeloom.index import EdgeStore, ModelLock, PointData
from citeloom.index import proclock as edge_module

LOCK = ModelLock("test/dense", 384, "Qdrant/bm25", 256)
SRC = Path(citeloom.__file__).resolve().parents[1]  # the citeloom under test, for children

# Shared by the child scripts: real 384-d points with real BM25 sparse vectors.
_POINTS = r"""
import json, random, sys, time, uuid
from pathlib import Path
from citeloom.embed.encoders import SparseEmbedder
from citeloom.index import EdgeStore, ModelLock, PointData
LOCK = ModelLock("test/dense", 384, "Qdrant/bm25", 256)
WORDS = ("hybrid retrieval fuses dense and sparse rankings while tesseract reads scanned "
         "pages and tables").split()
_sparse, _rnd = SparseEmbedder(), random.Random(7)
def batch(n, doc):
    out = []
    for _ in range(n):
        text = " ".join(_rnd.choice(WORDS) for _ in range(16))
        out.append(PointData(str(uuid.uuid4()), [_rnd.random() for _ in range(384)],
                             _sparse.embed([text])[0], {"doc_id": doc, "chunk_text": text}))
    return out
"""

# Process A: creates the index, then writes batches until told to stop.
WRITER = _POINTS + r"""
index_dir, stop = Path(sys.argv[1]), Path(sys.argv[2])
store = EdgeStore(index_dir)
index = store.open("p", create=True)
index.ensure(LOCK)
index.upsert(batch(128, "d0"))
written, errors, n = 128, [], 0
print("ready", flush=True)
deadline = time.monotonic() + 60
while not stop.exists() and time.monotonic() < deadline:
    n += 1
    try:
        index.upsert(batch(128, f"d{n}"))
        written += 128
    except Exception as exc:
        errors.append(str(exc)[:300])
try:
    count = index.count()
except Exception as exc:
    count, errors = -1, errors + [str(exc)[:300]]
try:
    store.close()
except Exception as exc:
    errors.append("close: " + str(exc)[:300])
print(json.dumps({"written": written, "batches": n + 1, "count": count, "errors": errors}),
      flush=True)
"""

# Process B: keeps trying to open the same index for a while, counting every Edge call.
PROBER = r"""
import json, sys, time
from pathlib import Path
import qdrant_edge
from citeloom.index import EdgeStore
edge_calls = []
for name in ("load", "create"):
    real = getattr(qdrant_edge.EdgeShard, name)
    def spy(*a, _real=real, _name=name, **k):
        edge_calls.append(_name)
        return _real(*a, **k)
    setattr(qdrant_edge.EdgeShard, name, staticmethod(spy))
index_dir, seconds = Path(sys.argv[1]), float(sys.argv[2])
attempts, opened, errors = 0, 0, {}
end = time.monotonic() + seconds
while time.monotonic() < end:
    store = EdgeStore(index_dir, wait_s=0)
    attempts += 1
    try:
        store.open("p").count()
        opened += 1
    except Exception as exc:
        key = type(exc).__name__ + ": " + str(exc).split(" (lock file")[0][:160]
        errors[key] = errors.get(key, 0) + 1
    finally:
        store.close()
print(json.dumps({"attempts": attempts, "opened": opened, "errors": errors,
                  "edge_calls": len(edge_calls)}), flush=True)
"""

# Opens the index, writes, says so, then holds it until its stdin closes (or it is killed).
HOLDER = _POINTS + r"""
store = EdgeStore(Path(sys.argv[1]))
index = store.open("p", create=True)
index.ensure(LOCK)
index.upsert(batch(int(sys.argv[2]), "held"))
print("held", index.count(), flush=True)
sys.stdin.read()
store.close()
"""

# Another process holding just the lock file (say, one in the middle of creating the index).
RAW_FLOCK = r"""
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.read()
"""


def _child(script: str, *args: object, stdin: bool = False) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(SRC), *filter(None, [os.environ.get("PYTHONPATH")])])}
    return subprocess.Popen([sys.executable, "-c", script, *map(str, args)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL)


def _line(proc: subprocess.Popen[str]) -> str:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line:
        proc.wait(timeout=30)
        raise AssertionError(f"child exited {proc.returncode}: {proc.stderr.read()}")  # type: ignore[union-attr]
    return line.strip()


def _hold(script: str, *args: object) -> subprocess.Popen[str]:
    proc = _child(script, *args, stdin=True)
    assert _line(proc).startswith("held")
    return proc


def _let_go(proc: subprocess.Popen[str]) -> None:
    assert proc.stdin is not None
    proc.stdin.close()
    assert proc.wait(timeout=60) == 0, proc.stderr.read()  # type: ignore[union-attr]


class _EdgeSpy:
    """Counts calls into Edge that would open or create a shard, in this process."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import qdrant_edge

        self.calls: list[str] = []
        for name in ("load", "create"):
            real = getattr(qdrant_edge.EdgeShard, name)

            def spy(*a, _real=real, _name=name, **k):  # type: ignore[no-untyped-def]
                self.calls.append(_name)
                return _real(*a, **k)

            monkeypatch.setattr(qdrant_edge.EdgeShard, name, staticmethod(spy))


def _points(n: int, doc: str = "d") -> list[PointData]:
    import random
    import uuid

    rnd, sparse = random.Random(3), SparseEmbedder()
    return [PointData(str(uuid.uuid4()), [rnd.random() for _ in range(384)],
                      sparse.embed([f"fusion of rankings {i}"])[0], {"doc_id": doc})
            for i in range(n)]


def test_a_second_process_never_touches_a_shard_being_written(tmp_path: Path) -> None:
    """The measured defect: B trying to open while A writes broke A's writes. Now A's
    writes all land and B only ever gets IndexUnavailable, without one Edge call."""
    index_dir, stop = tmp_path / "indexes", tmp_path / "stop"
    writer = _child(WRITER, index_dir, stop)
    try:
        assert _line(writer) == "ready"
        prober = _child(PROBER, index_dir, 1.5)
        out, err = prober.communicate(timeout=120)
        assert prober.returncode == 0, err
        probe = json.loads(out)
    finally:
        stop.touch()
    out, err = writer.communicate(timeout=120)
    assert writer.returncode == 0, err
    wrote = json.loads(out)

    assert wrote["errors"] == [], wrote["errors"][:2]
    assert wrote["batches"] > 1 and wrote["count"] == wrote["written"]
    assert probe["attempts"] >= 5 and probe["opened"] == 0
    assert list(probe["errors"]) == [
        "IndexUnavailable: INDEX_UNAVAILABLE: cannot open the index of project 'p': it is "
        f"open in process {writer.pid}"], probe["errors"]
    assert probe["edge_calls"] == 0
    after = EdgeStore(index_dir)  # and the shard A left behind is whole
    assert after.open("p").count() == wrote["written"]
    after.close()


def test_waits_for_the_lock_then_opens(tmp_path: Path, caplog: pytest.LogCaptureFixture,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    index_dir = tmp_path / "indexes"
    holder = _hold(HOLDER, index_dir, 64)
    edge = _EdgeSpy(monkeypatch)
    timer = None
    try:
        started = time.monotonic()
        with pytest.raises(IndexUnavailable, match="another CiteLoom process") as exc:
            EdgeStore(index_dir, wait_s=0.5).open("p").count()
        assert 0.4 < time.monotonic() - started < 5
        assert f"process {holder.pid}" in str(exc.value) and ".lock" in str(exc.value)
        assert "waiting up to" in caplog.text  # the existing warning
        # A migration takes the lock too, before it removes or creates anything.
        with pytest.raises(IndexUnavailable):
            EdgeStore(index_dir, wait_s=0).new_generation("p")
        assert sorted(p.name for p in (index_dir / "p").iterdir()) == [
            ".lock", "CURRENT", "g0001"]
        assert edge.calls == []  # never called into Edge while the lock was held
        # The holder lets go in a second; a patient opener gets in then.
        timer = threading.Timer(1.0, _let_go, [holder])
        timer.start()
        patient = EdgeStore(index_dir, wait_s=30)
        started = time.monotonic()
        assert patient.open("p").count() == 64
        assert 0.8 < time.monotonic() - started < 30
        assert edge.calls == ["load"]
        patient.close()
    finally:
        if timer is None:
            _let_go(holder)
        else:
            timer.join()
    assert holder.returncode == 0


def test_creating_a_shard_takes_the_lock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                         ) -> None:
    """Another process in the middle of creating a project: ``ensure`` on the brand-new
    project waits for it rather than creating a second shard beside it."""
    index_dir = tmp_path / "indexes"
    (index_dir / "new").mkdir(parents=True)
    raw = _hold(RAW_FLOCK, index_dir / "new" / ".lock")
    edge = _EdgeSpy(monkeypatch)
    store = EdgeStore(index_dir, wait_s=0)
    try:
        with pytest.raises(IndexUnavailable, match="it is open in"):
            store.open("new", create=True).ensure(LOCK)
        assert not (index_dir / "new" / "g0001").exists() and edge.calls == []
    finally:
        _let_go(raw)
    index = store.open("new", create=True)
    index.ensure(LOCK)
    assert edge.calls == ["create"] and index.count() == 0
    store.close()


def test_sigkilled_holder_frees_the_index(tmp_path: Path) -> None:
    index_dir = tmp_path / "indexes"
    holder = _hold(HOLDER, index_dir, 200)
    try:
        with pytest.raises(IndexUnavailable):
            EdgeStore(index_dir, wait_s=0).open("p").count()
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(timeout=30)
    assert holder.returncode == -signal.SIGKILL
    store = EdgeStore(index_dir, wait_s=0)  # the kernel dropped the flock with the process
    index = store.open("p")
    assert index.count() == 200
    index.upsert(_points(8))
    assert index.count() == 208
    store.close()


def test_one_process_reindexes_under_its_own_lock(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A migration opens the old generation and builds the new one in the same process:
    the lock is shared (no deadlock with itself), held throughout, and released with the
    last handle. A second handle of an open generation in the same process is refused
    without an Edge call, as another process would be."""
    index_dir = tmp_path / "indexes"
    store = EdgeStore(index_dir, wait_s=0)
    old = store.open("p", create=True)
    old.ensure(LOCK)
    old.upsert(_points(10))
    assert old.count() == 10

    edge = _EdgeSpy(monkeypatch)
    twin = EdgeStore(index_dir, wait_s=0)
    with pytest.raises(IndexUnavailable, match="g0001 is already open in this process"):
        twin.open("p").count()
    assert edge.calls == []

    new = store.new_generation("p")
    assert new.generation == "g0002"
    new.ensure(LOCK)
    new.upsert(_points(4))
    assert old.count() == 10  # both generations open at once
    probe = _child(PROBER, index_dir, 0.3)  # another process, mid-migration
    assert json.loads(probe.communicate(timeout=60)[0])["opened"] == 0
    store.promote("p", new)  # closes and removes the old generation; the lock stays
    assert store.open("p").count() == 4
    probe = _child(PROBER, index_dir, 0.3)
    assert json.loads(probe.communicate(timeout=60)[0])["opened"] == 0
    aborted = store.new_generation("p")
    aborted.ensure(LOCK)
    store.drop("p", aborted)
    assert not (index_dir / "p" / aborted.generation).exists()

    store.close()  # the last handle here: other processes get in
    probe = _child(PROBER, index_dir, 0.3)
    result = json.loads(probe.communicate(timeout=60)[0])
    assert result["opened"] >= 1 and result["errors"] == {}
    assert twin.open("p").count() == 4  # and so does another handle in this process
    twin.close()


def test_a_handle_dropped_without_close_lets_go(tmp_path: Path) -> None:
    index_dir = tmp_path / "indexes"
    store = EdgeStore(index_dir)
    index = store.open("p", create=True)
    index.ensure(LOCK)
    folder = Path(os.path.realpath(index_dir / "p"))
    assert folder in edge_module._held  # noqa: SLF001
    del store, index
    gc.collect()
    assert folder not in edge_module._held  # noqa: SLF001
    probe = _child(PROBER, index_dir, 0.3)
    assert json.loads(probe.communicate(timeout=60)[0])["opened"] >= 1


def test_service_writes_survive_a_prober(make_settings, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The issue's case through the service, real embeddings: this process indexes text
    batches (as a CLI ingest does) while another keeps trying to open the project."""
    from citeloom.service import CiteLoom, TextDoc

    app = CiteLoom(make_settings())
    words = ["dense", "retrieval", "sparse", "lexical", "fusion", "reciprocal", "rank",
             "calibration", "table", "structure", "recognition", "optical", "character",
             "scanned", "page", "heading"]

    def docs(n: int, start: int) -> list[TextDoc]:
        return [TextDoc(f"t{start + i}", f"Note {start + i}", " ".join(
            words[(start + i + j) % len(words)] for j in range(40))) for i in range(n)]

    def chunks(report) -> int:  # type: ignore[no-untyped-def]
        assert report.outcome == "ok", report.to_dict()
        return sum(f.chunks for f in report.files)

    total = chunks(app.index_texts("p", docs(4, 0)))
    prober = _child(PROBER, app.settings.index_dir, 1.5)
    n = 4
    while prober.poll() is None:
        total += chunks(app.index_texts("p", docs(4, n)))
        n += 4
    probe = json.loads(prober.communicate(timeout=60)[0])
    assert n > 4 and app.runtime.projects.index("p").count() == total
    assert probe["attempts"] >= 5 and probe["opened"] == 0 and probe["edge_calls"] == 0
    assert all(k.startswith("IndexUnavailable") for k in probe["errors"]), probe["errors"]
    app.close()
    again = CiteLoom(make_settings())
    assert again.runtime.projects.index("p").count() == total
    again.close()
