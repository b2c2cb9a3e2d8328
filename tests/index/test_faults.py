"""Faults with a clear answer and a way back (issue #16), on a real project.

Each damaged file, one test each, through the CLI (run in process, CITELOOM_DAEMON=off):
ingest, query, inspect and validate exit 1 with the file's code and the fix (``citeloom
repair -p NAME``), never a traceback; then ``repair`` puts the project back. A killed run's
leftovers are swept by the next run. A full disk (a small loop or tmpfs filesystem, when
this process may mount one): ingest stops with DISK_FULL before writing, whole documents
only; query and inspect keep working with no free byte at all.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest

from citeloom import system as space
from citeloom.config import Settings
from citeloom.errors import CatalogDamaged, DiskFull
from citeloom.index.catalog import Catalog, DocRecord
from citeloom.runtime import Runtime
from citeloom.service import CiteLoom
from citeloom.service.api import QueryRequest

from ..clirun import run_cli
from ..conftest import CORPUS, FIXTURE_PDFS

pytestmark = pytest.mark.slow

ONE_PAGE = CORPUS / "text" / "docling__2305.03393v1-pg9.pdf"
TWO_PAGES = CORPUS / "text" / "docling__code_and_formula.pdf"
FOUR_PAGES = FIXTURE_PDFS / "cermine__test1.pdf"
# The cache is part of what each test damages, repairs and copies: the data dir keeps it.
pytestmark = pytest.mark.own_cache
COMMANDS = {
    "ingest": ["ingest", "{papers}", "-p", "p"],
    "query": ["query", "table structure recognition", "-p", "p", "-k", "2"],
    "inspect": ["inspect", "-p", "p"],
    "validate": ["validate", "-p", "p"],
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, models_dir: Path) -> Path:
    """A project ``p`` of two real PDFs, made once; each test damages its own copy."""
    root = tmp_path_factory.mktemp("faults")
    papers = root / "papers"
    papers.mkdir()
    shutil.copy(ONE_PAGE, papers / "a.pdf")
    shutil.copy(TWO_PAGES, papers / "b.pdf")
    app = CiteLoom(Settings(data_dir=root / "data", models_dir=models_dir))
    assert app.ingest([papers], "p").count("indexed") == 2
    app.close()
    return root


class World:
    def __init__(self, data: Path, papers: Path, models: Path, cwd: Path) -> None:
        self.data, self.papers, self.models, self.cwd = data, papers, models, cwd
        self.project = data / "indexes" / "p"
        self.env = {**os.environ, "CITELOOM_DATA_DIR": str(data),
                    "CITELOOM_MODELS_DIR": str(models), "CITELOOM_CONFIG": "",
                    "CITELOOM_DAEMON": "off"}
        self.env.pop("RUST_BACKTRACE", None)

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return run_cli(list(args), self.env, self.cwd)

    def command(self, name: str) -> subprocess.CompletedProcess[str]:
        return self.cli(*(a.format(papers=self.papers) for a in COMMANDS[name]))

    def state(self) -> dict[str, Any]:
        """Point ids per document and catalog rows, read in this process (then closed)."""
        app = CiteLoom(Settings(data_dir=self.data, models_dir=self.models))
        try:
            per_doc: dict[str, set[str]] = {}
            for h in app.runtime.projects.index("p").scroll(fields=["doc_id"]):
                per_doc.setdefault(h.payload["doc_id"], set()).add(h.id)
            rows = {r.doc_id: r.chunks for r in app.runtime.projects.catalog("p").all()}
        finally:
            app.close()
        return {"points": per_doc, "rows": rows}


@pytest.fixture
def world(built: Path, tmp_path: Path, models_dir: Path) -> World:
    space.copy_sparse_tree(built / "data", tmp_path / "data")
    return World(tmp_path / "data", built / "papers", models_dir, tmp_path)


def assert_coded(world: World, code: str, commands: list[str] | None = None) -> None:
    """Each command exits 1 with ``code`` and the repair command, and no traceback."""
    for name in commands or list(COMMANDS):
        done = world.command(name)
        out = done.stdout + done.stderr
        assert done.returncode == 1, (name, done.returncode, out[-2000:])
        assert code in (done.stdout if name == "validate" else done.stderr), (name, out[-2000:])
        assert "Traceback" not in out, (name, out[-3000:])
        if code != "CONFIG_INVALID":
            assert "citeloom repair -p p" in out, (name, out[-2000:])  # names the fix


def repaired(world: World) -> dict[str, Any]:
    done = world.cli("repair", "-p", "p", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] and report["found"] and report["done"], report
    return report


def no_op_ingest(world: World) -> None:
    """An ingest that converts nothing: every file skipped, no page converted, the cache as
    it was."""
    cache = world.data / "cache" / "conversions"
    before = {p.name: p.stat().st_mtime_ns for p in cache.iterdir()}
    done = world.cli("ingest", str(world.papers), "-p", "p", "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert [f["status"] for f in report["files"]] == ["skipped", "skipped"], report["files"]
    assert report["pages"] == 0
    assert {p.name: p.stat().st_mtime_ns for p in cache.iterdir()} == before


# -- damaged files, one test each ---------------------------------------------------------
def test_damaged_catalog_is_named_and_rebuilt_from_the_index(world: World) -> None:
    before = world.state()
    (world.project / "catalog.sqlite").write_bytes(os.urandom(8192))
    assert_coded(world, "CATALOG_DAMAGED", ["ingest", "inspect", "validate"])
    # A query answers from the index (intact), and says what is wrong with its code and fix.
    answered = world.command("query")
    assert answered.returncode == 0 and "Traceback" not in answered.stderr
    assert "CATALOG_DAMAGED" in answered.stderr and "citeloom repair -p p" in answered.stderr
    assert re.search(r"· [1-9]\d* hits?", answered.stdout), answered.stdout
    as_json = world.cli(*COMMANDS["query"], "--json")
    data = json.loads(as_json.stdout)
    assert data["hits"] and [w["code"] for w in data["warnings"]] == ["CATALOG_DAMAGED"]
    report = repaired(world)
    assert any("catalog" in line for line in report["done"])
    assert world.state() == before
    no_op_ingest(world)


def test_deleted_catalog_is_rebuilt_so_that_an_ingest_converts_nothing(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    before = world.state()
    for f in world.project.glob("catalog.sqlite*"):
        f.unlink()
    app = CiteLoom(Settings(data_dir=world.data, models_dir=world.models))
    report = app.repair("p")
    assert report["ok"] and report["documents"] == 2, report
    assert any("no catalog" in line for line in report["found"]), report
    app.close()

    def converted(*_a: Any, **_k: Any) -> None:
        raise AssertionError("a document was converted")

    monkeypatch.setattr("citeloom.convert.converter.convert_file", converted)
    monkeypatch.setattr(Runtime, "convert", converted)
    monkeypatch.setattr(Runtime, "dense", converted)  # not even a model is loaded
    app = CiteLoom(Settings(data_dir=world.data, models_dir=world.models))
    again = app.ingest([world.papers], "p")
    assert again.count("skipped") == 2 and again.outcome == "ok"
    app.close()
    assert world.state() == before


def test_damaged_model_lock_is_named_and_rewritten(world: World) -> None:
    (world.project / "g0001" / "model_lock.json").write_text('{"dense_model": ')
    assert_coded(world, "INDEX_DAMAGED")
    report = repaired(world)
    assert any("model lock rewritten" in line for line in report["done"])
    assert world.command("query").returncode == 0
    no_op_ingest(world)


@pytest.mark.parametrize("content", [b"\x00\xff garbage\n", b"g0009\n"],
                         ids=["garbage", "missing-generation"])
def test_damaged_current_pointer_is_named_and_pointed_back(world: World,
                                                           content: bytes) -> None:
    before = world.state()
    (world.project / "CURRENT").write_bytes(content)
    assert_coded(world, "INDEX_DAMAGED")
    report = repaired(world)
    assert any("CURRENT now names g0001" in line for line in report["done"])
    assert world.state() == before
    no_op_ingest(world)


def test_damaged_shard_is_named_and_rebuilt_from_the_cache(world: World) -> None:
    before = world.state()
    flags = list(world.project.glob("g0001/shard/segments/*/vector_storage-dense/deleted/"
                                    "status.dat"))
    assert flags, "the shard's layout changed: pick another segment file to truncate"
    for f in flags:
        f.write_bytes(b"")  # truncated: Edge panics when it loads the segment
    assert_coded(world, "INDEX_DAMAGED")
    report = repaired(world)
    assert any("rebuilt as g0002" in line for line in report["done"]), report
    after = world.state()
    assert after == before  # same documents, same chunk ids
    assert not (world.project / "g0001").exists()
    no_op_ingest(world)


def test_damaged_cache_entry_is_remade_and_dropped_by_repair(world: World) -> None:
    entries = sorted((world.data / "cache" / "conversions").glob("*.json.gz"))
    assert len(entries) == 2
    entry = entries[0]
    entry.write_bytes(entry.read_bytes()[:500])  # a torn entry
    # No command needs it (a no-op ingest skips by stat, a query reads the index): all
    # answer; inspect and validate name it with its code and the fix.
    for name in ("ingest", "query", "inspect"):
        done = world.command(name)
        assert done.returncode == 0, (name, done.stderr[-2000:])
        assert ("CACHE_DAMAGED" in done.stderr) == (name == "inspect"), (name, done.stderr)
    inspected = json.loads(world.cli(*COMMANDS["inspect"], "--json").stdout)
    assert [w["code"] for w in inspected["warnings"]] == ["CACHE_DAMAGED"]
    assert entry.name in inspected["warnings"][0]["message"]
    checked = world.command("validate")
    assert checked.returncode == 1 and "conversion cache p" in checked.stdout
    assert "citeloom repair -p p" in checked.stdout and "Traceback" not in checked.stderr
    # A reindex needs it: the unreadable entry is converted again from the file, and said.
    redone = world.cli("reindex", "-p", "p")
    assert redone.returncode == 0, redone.stderr[-2000:]
    assert "CACHE_DAMAGED" in redone.stdout + redone.stderr, redone.stdout + redone.stderr
    json.loads(gzip.decompress(entry.read_bytes()))
    assert json.loads(world.cli(*COMMANDS["inspect"], "--json").stdout)["warnings"] == []
    entry.write_bytes(b"\x1f\x8b not gzip")
    report = repaired(world)
    assert any("did not decompress" in line for line in report["found"])
    assert not entry.exists()


def test_damaged_config_is_config_invalid_everywhere(world: World) -> None:
    config = world.cwd / "citeloom.toml"
    config.write_text("[paths\ndata_dir = 'unterminated\n")
    world.env["CITELOOM_CONFIG"] = str(config)
    assert_coded(world, "CONFIG_INVALID")


def test_a_full_disk_opens_the_index_from_a_read_only_copy(world: World,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """Below the read margin the shard is read from a copy elsewhere; a write is DISK_FULL
    until there is room, then goes to the shard in place."""
    real = space.free_bytes
    full = {"yes": True}
    monkeypatch.setattr(space, "free_bytes", lambda path: 0 if full["yes"] and str(
        path).startswith(str(world.data)) else real(path))
    app = CiteLoom(Settings(data_dir=world.data, models_dir=world.models))
    index = app.runtime.projects.index("p")
    chunks = index.count()
    copy = index._scratch  # type: ignore[attr-defined]
    assert copy is not None and copy.is_dir() and not copy.is_relative_to(world.data)
    assert app.query(QueryRequest("p", "table structure recognition", top_k=2)).hits
    doc = app.runtime.projects.catalog("p").all()[0].doc_id
    with pytest.raises(DiskFull):
        index.delete_doc(doc)
    assert index.count() == chunks
    full["yes"] = False
    index.delete_doc(doc)  # room again: reopened in place, the copy removed
    assert index._scratch is None and not copy.exists()  # type: ignore[attr-defined]
    assert index.count(doc) == 0 < index.count()
    app.close()


def test_the_catalog_opens_read_only_on_a_full_disk(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "catalog.sqlite"
    first = Catalog(path, "p")
    first.put(DocRecord("d1", "/a.pdf", "h1", 1, 1, 3, 1))
    first.close()
    real = Catalog._connect

    def no_room(self: Catalog) -> Any:
        exc = sqlite3.OperationalError("disk I/O error")
        exc.sqlite_errorname = "SQLITE_IOERR_SHMSIZE"  # what SQLite says on a full disk
        raise exc

    monkeypatch.setattr(Catalog, "_connect", no_room)
    catalog = Catalog(path, "p")
    assert catalog.readonly and [r.doc_id for r in catalog.all()] == ["d1"]
    with pytest.raises(DiskFull):
        catalog.put(DocRecord("d2", "/b.pdf", "h2", 1, 1, 3, 1))
    monkeypatch.setattr(Catalog, "_connect", real)
    catalog.put(DocRecord("d2", "/b.pdf", "h2", 1, 1, 3, 1))  # room again
    assert not catalog.readonly and len(catalog) == 2
    catalog.close()
    path.write_bytes(b"not a database" * 100)
    with pytest.raises(CatalogDamaged, match="citeloom repair -p p"):
        Catalog(path, "p")


# -- a killed run -------------------------------------------------------------------------
def test_a_run_after_a_killed_one_sweeps_its_leftovers(world: World) -> None:
    """What a kill can leave: a document's points without its row (killed between the two
    writes; its file then gone), and a row whose points were deleted (a replacement killed
    between deleting the old points and the old row). The next run finds the mark the
    killed one left and settles both."""
    before = world.state()
    app = CiteLoom(Settings(data_dir=world.data, models_dir=world.models))
    catalog = app.runtime.projects.catalog("p")
    rows = catalog.all()
    orphan, emptied = rows[0], rows[1]
    catalog.delete(orphan.doc_id)  # points, no row
    app.runtime.projects.index("p").delete_doc(emptied.doc_id)  # row, no points
    app.close()
    (world.project / "INGESTING").write_text("killed\n")
    papers = world.cwd / "papers"
    papers.mkdir()
    shutil.copy(Path(emptied.source_path), papers / Path(emptied.source_path).name)
    done = world.cli("ingest", str(papers), "-p", "p", "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    after = world.state()
    assert orphan.doc_id not in after["points"] and orphan.doc_id not in after["rows"]
    assert after["points"][emptied.doc_id] == before["points"][emptied.doc_id]
    assert all(len(after["points"][d]) == n for d, n in after["rows"].items())
    assert not (world.project / "INGESTING").exists()


# -- disk full ----------------------------------------------------------------------------
def _run(*cmd: str) -> None:
    subprocess.run(cmd, check=True, capture_output=True, text=True)


@pytest.fixture
def small_fs(tmp_path: Path) -> Any:
    """A 200 MB ext4 loop filesystem (or a tmpfs) mounted for this test; skipped, with the
    reason, where this process may not mount."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small filesystem needs root")
    mnt = tmp_path / "fs"
    mnt.mkdir()
    image = tmp_path / "fs.img"
    reasons = []
    try:
        with image.open("wb") as f:
            f.truncate(200 * space.MB)
        _run("mkfs.ext4", "-q", "-m", "0", str(image))
        _run("mount", "-o", "loop", str(image), str(mnt))
    except (OSError, subprocess.CalledProcessError) as exc:
        reasons.append(f"loop ext4: {getattr(exc, 'stderr', '') or exc}")
        try:
            _run("mount", "-t", "tmpfs", "-o", "size=300m", "tmpfs", str(mnt))
        except (OSError, subprocess.CalledProcessError) as exc2:
            reasons.append(f"tmpfs: {getattr(exc2, 'stderr', '') or exc2}")
            pytest.skip("cannot mount a small filesystem: " + "; ".join(reasons))
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)
        image.unlink(missing_ok=True)


def _fill(mnt: Path, leave: int) -> None:
    """Take the filesystem's free space down to ``leave`` bytes (0: not one block left)."""
    n = len(list(mnt.glob("filler*")))
    take = space.free_bytes(mnt) - max(leave, space.MB)  # the file's own extents need room
    if take > 0:
        fd = os.open(mnt / f"filler{n}", os.O_CREAT | os.O_WRONLY, 0o600)
        try:
            os.posix_fallocate(fd, 0, take)
        finally:
            os.close(fd)
    with (mnt / f"filler{n}-tail").open("wb", buffering=0) as f:  # the rest, in pieces
        for piece in (65536, 4096, 512, 1):
            try:
                while space.free_bytes(mnt) > leave:
                    f.write(b"\0" * piece)
            except OSError:
                continue
    if leave == 0:
        assert space.free_bytes(mnt) < 4096, space.free_bytes(mnt)  # not a block left


def _whole(state: dict[str, Any]) -> None:
    """Every catalog row's document whole in the index, and no points without a row."""
    assert set(state["points"]) == set(state["rows"]), state["rows"]
    assert all(len(state["points"][d]) == n for d, n in state["rows"].items())


def test_disk_full_stops_before_writing_and_reads_keep_working(small_fs: Path,
                                                               models_dir: Path) -> None:
    papers = small_fs.parent / "papers"
    papers.mkdir()
    shutil.copy(ONE_PAGE, papers / "a.pdf")
    world = World(small_fs / "data", papers, models_dir, small_fs.parent)
    first = world.cli("ingest", str(papers), "-p", "p")
    assert first.returncode == 0, first.stderr[-2000:]
    before = world.state()
    shutil.copy(TWO_PAGES, papers / "b.pdf")
    shutil.copy(FOUR_PAGES, papers / "c.pdf")

    # Room for b.pdf's estimate (2 pages) and not for c.pdf's (4) on top of the margin.
    _fill(small_fs, space.WRITE_MARGIN + space.document_need(pages=2) + 32 * 1024)
    stopped = world.cli("ingest", str(papers), "-p", "p")
    assert stopped.returncode == 1, stopped.stderr[-2000:]
    assert "DISK_FULL" in stopped.stderr and "Traceback" not in stopped.stderr
    message = " ".join(stopped.stderr.split())
    assert str(world.data / "indexes") in message  # the path
    assert re.search(r"needs \d+(\.\d)? MB", message), message  # the space needed
    after = world.state()
    _whole(after)  # whole documents only
    assert set(before["rows"]) <= set(after["rows"]) and len(after["rows"]) < 3
    assert all(after["points"][d] == ids for d, ids in before["points"].items())

    # Not one byte free: the reads still answer, the writes still refuse cleanly.
    _fill(small_fs, 0)
    asked = world.cli("query", "table structure recognition", "-p", "p", "--json")
    assert asked.returncode == 0, asked.stderr[-2000:]
    assert json.loads(asked.stdout)["hits"]
    looked = world.cli("inspect", "-p", "p", "--json")
    assert looked.returncode == 0, looked.stderr[-2000:]
    assert json.loads(looked.stdout)["documents"] == len(after["rows"])
    refused = world.cli("ingest", str(papers), "-p", "p")
    assert refused.returncode == 1 and "DISK_FULL" in refused.stderr
    assert world.state() == after

    for filler in small_fs.glob("filler*"):
        filler.unlink()
    resumed = world.cli("ingest", str(papers), "-p", "p")
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    final = world.state()
    _whole(final)
    assert len(final["rows"]) == 3
