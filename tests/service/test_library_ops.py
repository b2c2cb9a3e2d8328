"""Library operations (issue #15): one question across several projects — through the
service, the CLI and the MCP server — and snapshots that restore: the same chunks and the
same top hits under a new name, consistent while the project is written, and a damaged
archive refused with nothing left half-restored."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import tarfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from citeloom.cli import main
from citeloom.config import DEFAULT_DENSE_MODEL, load_settings
from citeloom.daemon.client import RemoteCiteLoom
from citeloom.daemon.server import operations
from citeloom.embed.rerank import RERANK_MODEL
from citeloom.errors import CODES, InvalidInput, InvalidProject, SnapshotInvalid
from citeloom.index import SearchFilter
from citeloom.index.catalog import Catalog
from citeloom.search.query import QueryResult, SimilarResult
from citeloom.service import CiteLoom, TextDoc
from citeloom.service.api import QueryRequest, SimilarRequest
from citeloom.service.snapshots import verify
from citeloom.sources import TextSource, Unit

from ..conftest import FIXTURE_PDFS

THESIS = [  # default settings: chunk_max_tokens 256
    TextDoc("t-filters", "Vena cava filters",
            "Retrievable inferior vena cava filters migrated in three to eight percent of "
            "patients; occlusion of the vena cava was reported in four to fifteen percent.",
            payload={"citekey": "smith2019", "year": 2019}),
    TextDoc("t-heparin", "Thrombosis prophylaxis after trauma",
            "Low molecular weight heparin prevented deep venous thrombosis after trauma "
            "surgery better than unfractionated heparin did.",
            payload={"citekey": "doe2021", "year": 2021}),
    TextDoc("t-bleeding", "Bleeding on anticoagulants",
            "Major bleeding was rare among patients given prophylactic anticoagulation.",
            payload={"citekey": "roe2017", "year": 2017}),
]
REVIEW = [  # chunk_max_tokens 128: another model lock
    TextDoc("r-tables", "Table structure recognition",
            "TableFormer predicts the structure of tables in document images with a "
            "transformer, cell by cell.", payload={"citekey": "nassar2022", "year": 2022}),
    TextDoc("r-migration", "Filter migration: a review",
            "Across forty studies, vena cava filter migration and fracture were reported "
            "after retrieval attempts.", payload={"citekey": "lee2020", "year": 2020}),
]
COURSE = [  # the same lock as the thesis
    TextDoc("c-anticoag", "Course notes: anticoagulants",
            "Heparin and warfarin are anticoagulants used to treat venous thrombosis.",
            payload={"citekey": "notes2023", "year": 2023}),
]


@pytest.fixture
def lib(models_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """A config with four projects: thesis and course (one lock), review (chunks of 128
    tokens: another lock), dense (no sparse vectors); the CLI reads the same config."""
    data = tmp_path / "data"
    config = tmp_path / "citeloom.toml"
    config.write_text(f'[paths]\ndata_dir = "{data}"\nmodels_dir = "{models_dir}"\n'
                      '[projects.review]\nchunk_max_tokens = 128\n'
                      '[projects.dense]\nsparse_model = "none"\n')
    for var in ("CITELOOM_DATA_DIR", "CITELOOM_MODELS_DIR", "CITELOOM_PROJECT"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("CITELOOM_CONFIG", str(config))
    monkeypatch.setenv("CITELOOM_DAEMON", "off")
    monkeypatch.chdir(tmp_path)
    settings = load_settings(str(config))
    app = CiteLoom(settings, started_by="test")
    for name, docs in (("thesis", THESIS), ("review", REVIEW), ("course", COURSE),
                       ("dense", THESIS[:1])):
        assert app.index_texts(name, docs).outcome == "ok"
    app.close()
    return {"root": tmp_path, "config": config, "settings": settings, "data": data}


@pytest.fixture
def app(lib: dict[str, Any]) -> Iterator[CiteLoom]:
    a = CiteLoom(lib["settings"], started_by="test")
    yield a
    a.close()


# -- 1. one question across projects ------------------------------------------------------------
def test_query_across_projects_merges_by_score_or_by_rank(app: CiteLoom) -> None:
    q = "vena cava filter migration"
    same = app.query(QueryRequest.across_projects(["thesis", "course"],
                                                  "heparin venous thrombosis", top_k=4))
    assert same.merge == "score" and same.projects == ["thesis", "course"] and not same.skipped
    assert {h.project for h in same.hits} == {"thesis", "course"}
    assert [h.score for h in same.hits] == sorted((h.score for h in same.hits), reverse=True)
    assert [h.rank for h in same.hits] == list(range(1, len(same.hits) + 1))

    mixed = app.query(QueryRequest.across_projects(["thesis", "review"], q, top_k=4))
    assert mixed.merge == "rrf" and mixed.project is None
    assert {h.project for h in mixed.hits} == {"thesis", "review"}
    assert mixed.models == {"dense": DEFAULT_DENSE_MODEL, "sparse": "Qdrant/bm25",
                            "rerank": RERANK_MODEL}  # the merged list's first two re-read
    best = {name: app.query(QueryRequest(name, q, top_k=1)).hits[0].chunk_id
            for name in ("thesis", "review")}
    assert {h.chunk_id for h in mixed.hits[:2]} == set(best.values())  # each one's best first
    # single, too
    assert all(h.project == "thesis" for h in app.query(QueryRequest("thesis", q)).hits)

    # Filters apply in each project.
    recent = app.query(
        QueryRequest.across_projects(["thesis", "review"], q, flt=SearchFilter(year_from=2020))
    )
    assert {h.project for h in recent.hits} == {"thesis", "review"}
    assert all(h.year >= 2020 for h in recent.hits)
    keyed = app.query(
        QueryRequest.across_projects(
            ["thesis", "review"], q, flt=SearchFilter(citekeys=["smith2019", "nassar2022"])
        )
    )
    assert {(h.project, h.citekey) for h in keyed.hits} == {("thesis", "smith2019"),
                                                            ("review", "nassar2022")}

    # A project that cannot answer is reported; the others answer.
    partial = app.query(QueryRequest.across_projects(["thesis", "nope", "dense"], q, mode="hybrid"))
    assert partial.projects == ["thesis"] and {h.project for h in partial.hits} == {"thesis"}
    assert [(s["project"], s["code"]) for s in partial.skipped] == [
        ("nope", "INVALID_PROJECT"), ("dense", "HYBRID_NOT_SUPPORTED")]
    assert all(s["message"] and s["hint"] for s in partial.skipped)
    with pytest.raises(InvalidProject, match="no project could answer"):
        app.query(QueryRequest.across_projects(["nope", "gone"], q))

    # Every project; dense mode, so the dense-only project answers too.
    every = app.query(QueryRequest.across_projects(None, q, mode="dense", top_k=10))
    assert sorted(every.projects) == ["course", "dense", "review", "thesis"]
    assert every.merge == "rrf"  # thesis/course/dense share a lock, review does not

    # Find similar across projects: the seed's vector is looked up where it lives.
    seed = best["thesis"]
    sim = app.similar(
        SimilarRequest.across_projects(["thesis", "review", "course"], [seed], top_k=5)
    )
    assert seed not in {h.chunk_id for h in sim.hits}
    assert len({h.project for h in sim.hits}) >= 2 and sim.merge == "rrf"
    with pytest.raises(InvalidInput, match="unknown chunk"):
        app.similar(
            SimilarRequest.across_projects(
                ["review", "course"], ["00000000-0000-0000-0000-000000000000"]
            )
        )


def test_a_project_locked_elsewhere_is_skipped(lib: dict[str, Any]) -> None:
    holder = CiteLoom(lib["settings"])
    asker = CiteLoom(lib["settings"])  # index_wait_s 0: no waiting
    try:
        assert holder.runtime.projects.index("review").count() == 2  # holds the shard open
        result = asker.query(QueryRequest.across_projects(["thesis", "review"], "table structure"))
        assert result.projects == ["thesis"]
        assert [(s["project"], s["code"]) for s in result.skipped] == [
            ("review", "INDEX_UNAVAILABLE")]
    finally:
        asker.close()
        holder.close()


def test_daemon_operations_and_client_mirror_the_service(app: CiteLoom) -> None:
    ops = operations(app)
    q = "vena cava filter migration"
    here = app.query(QueryRequest.across_projects(["thesis", "review"], q, top_k=3))
    there = QueryResult.from_dict(json.loads(json.dumps(ops["query"](json.loads(json.dumps(
        QueryRequest.across_projects(["thesis", "review"], q, top_k=3).to_dict()))))))
    assert [(h.project, h.chunk_id) for h in there.hits] == \
        [(h.project, h.chunk_id) for h in here.hits]
    assert there.merge == "rrf" and there.projects == ["thesis", "review"]
    sim = SimilarResult.from_dict(ops["similar"](SimilarRequest.across_projects(
        None, [here.hits[0].chunk_id], top_k=3).to_dict()))
    assert sim.hits and here.hits[0].chunk_id not in {h.chunk_id for h in sim.hits}
    for name in ("query", "similar", "snapshot", "restore"):
        assert callable(getattr(RemoteCiteLoom, name)) and name in ops


def test_cli_query_across_projects(lib: dict[str, Any],
                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["query", "vena cava filter migration", "-p", "thesis", "-p", "review",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["projects"] == ["thesis", "review"] and data["merge"] == "rrf"
    assert {h["project"] for h in data["hits"]} == {"thesis", "review"}

    assert main(["query", "vena cava filter migration", "-p", "thesis", "-p", "dense"]) == 0
    out, err = capsys.readouterr()
    assert "thesis: 2019 · smith2019" in out and "merged by" in out  # its project first
    assert "skipped dense: HYBRID_NOT_SUPPORTED" in err

    assert main(["query", "anticoagulants", "--all-projects", "--mode", "dense",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert sorted(data["projects"]) == ["course", "dense", "review", "thesis"]

    assert main(["query", "x", "-p", "nope", "-p", "gone"]) == 1
    assert "error: INVALID_PROJECT: no project could answer" in capsys.readouterr().err


def test_mcp_query_tools_take_projects(lib: dict[str, Any]) -> None:
    from fastmcp import Client
    from fastmcp.client.transports import StdioTransport

    env = {**os.environ, "CITELOOM_CONFIG": str(lib["config"]), "CITELOOM_DAEMON": "off",
           "PYTHONUNBUFFERED": "1"}

    async def scenario() -> None:
        transport = StdioTransport(command=sys.executable, env=env, cwd=str(lib["root"]),
                                   args=["-m", "citeloom.cli", "serve"])
        async with Client(transport) as c:
            answer = (await c.call_tool("query_hybrid", {
                "projects": ["thesis", "review", "nope"], "top_k": 4,
                "text": "vena cava filter migration"})).data
            assert answer["projects"] == ["thesis", "review"] and answer["merge"] == "rrf"
            assert {h["project"] for h in answer["hits"]} == {"thesis", "review"}
            assert [s["code"] for s in answer["skipped"]] == ["INVALID_PROJECT"]
            assert answer["truncated"] is False and answer["correlation_id"]

            one = (await c.call_tool("query", {"project": "thesis", "text": "heparin"})).data
            assert one["project"] == "thesis" and one["projects"] == ["thesis"]
            assert {h["project"] for h in one["hits"]} == {"thesis"}

            every = (await c.call_tool("query", {"projects": ["*"], "text": "heparin"})).data
            assert sorted(every["projects"]) == ["course", "dense", "review", "thesis"]

            seed = answer["hits"][0]["chunk_id"]
            sim = (await c.call_tool("find_similar", {
                "project": "thesis", "projects": ["review", "course"],
                "chunk_ids": [seed], "top_k": 5})).data
            assert sim["mode"] == "recommend" and sim["similar_to"] == [seed]
            assert seed not in {h["chunk_id"] for h in sim["hits"]}
            assert set(sim["projects"]) == {"thesis", "review", "course"}

            bad = await c.call_tool("query", {"text": "heparin"}, raise_on_error=False)
            assert bad.is_error
            err = json.loads(bad.content[0].text)
            assert err["code"] == "INVALID_INPUT" and err["code"] in CODES

    asyncio.run(scenario())


# -- 2. snapshot and restore ------------------------------------------------------------------
QUESTION = "How is the structure of tables recognised?"


@pytest.mark.slow
def test_snapshot_restores_same_chunks_and_top_hits(lib: dict[str, Any], app: CiteLoom,
                                                    capsys: pytest.CaptureFixture[str]
                                                    ) -> None:
    pdf = FIXTURE_PDFS / "docling__2305.03393v1-pg9.pdf"
    assert app.ingest([pdf], "papers").outcome == "ok"
    before = app.query(QueryRequest("papers", QUESTION, top_k=3))
    shown = app.inspect("papers", sample=0)
    archive = lib["root"] / "out" / "papers.tar.gz"
    info = app.snapshot("papers", archive)
    assert info["chunks"] == shown["chunks"] > 0 and info["documents"] == 1
    manifest = verify(archive)
    assert manifest["model_lock"] == shown["model_lock"] and manifest["backend"] == "edge"
    assert {"catalog.sqlite", "index/model_lock.json"} <= {f["path"] for f in manifest["files"]}
    assert all(len(f["sha256"]) == 64 for f in manifest["files"])
    assert info["bytes"] < 5e6  # preallocated space is not stored

    restored = app.restore(archive, "copy")
    assert restored["from_project"] == "papers" and not restored["replaced"]
    copy = app.inspect("copy", sample=0)
    assert (copy["chunks"], copy["documents"]) == (shown["chunks"], shown["documents"])
    assert copy["model_lock"] == shown["model_lock"] and copy["config_matches_lock"]
    after = app.query(QueryRequest("copy", QUESTION, top_k=3))
    assert [(h.chunk_id, h.score, h.text) for h in after.hits] == \
        [(h.chunk_id, h.score, h.text) for h in before.hits]
    assert {h.project for h in after.hits} == {"copy"}  # the payload still says "papers"

    # Onto an existing project: refused, then swapped in with --force.
    with pytest.raises(InvalidInput, match="already exists"):
        app.restore(archive, "copy")
    generation = app.runtime.projects.index("copy").generation
    again = app.restore(archive, "copy", force=True)
    assert again["replaced"] and again["generation"] != generation
    assert not (lib["data"] / "indexes" / "copy" / generation).exists()
    assert [h.chunk_id for h in app.query(QueryRequest("copy", QUESTION, top_k=3)).hits] == \
        [h.chunk_id for h in before.hits]

    # The CLI, uncompressed, into a project a fresh process then reads.
    app.close()
    tar = lib["root"] / "papers.tar"
    assert main(["snapshot", "-p", "papers", "-o", str(tar)]) == 0
    assert "papers:" in capsys.readouterr().out and tarfile.is_tarfile(tar)
    assert main(["restore", str(tar), "-p", "copy2"]) == 0
    assert "copy2: restored" in capsys.readouterr().out
    assert main(["restore", str(tar), "-p", "copy2"]) == 1
    assert "INVALID_INPUT" in capsys.readouterr().err
    fresh = CiteLoom(lib["settings"])
    try:
        assert [h.chunk_id for h in fresh.query(QueryRequest("copy2", QUESTION, top_k=3)).hits] == \
            [h.chunk_id for h in before.hits]
        assert fresh.inspect("copy2", sample=0)["documents"] == 1
    finally:
        fresh.close()


class _Recorded(TextSource):
    """Texts written one document per step, each with a catalog row (as files are)."""

    flush_points = 0

    def units(self, ctx: Any) -> Iterator[Unit]:
        for unit in super().units(ctx):
            assert isinstance(unit, Unit)
            unit.record = True
            yield unit


@pytest.mark.slow
def test_a_snapshot_taken_while_the_project_is_written_is_consistent(
        lib: dict[str, Any], app: CiteLoom, monkeypatch: pytest.MonkeyPatch) -> None:
    """Snapshots are taken while an ingest writes, each aimed at the moment a document's
    points are in and its catalog row is being written (a slow disk): each restores a
    project whose index and catalog agree."""
    docs = [TextDoc(f"doc-{i:03d}", f"Note {i}", f"Observation {i} of the filter.")
            for i in range(40)]
    errors: list[BaseException] = []
    writing_row = threading.Event()
    real_put = Catalog.put

    def slow_put(self: Catalog, rec: Any) -> None:
        writing_row.set()
        time.sleep(0.05)
        real_put(self, rec)

    monkeypatch.setattr(Catalog, "put", slow_put)

    def write() -> None:
        try:
            app.run(_Recorded(docs), "live")
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    assert app.run(_Recorded(docs[:1]), "live").outcome == "ok"
    writer = threading.Thread(target=write)
    writer.start()
    taken = []
    while writer.is_alive() and len(taken) < 4:
        if not writing_row.wait(timeout=1.0):
            continue
        writing_row.clear()
        out = lib["root"] / f"live-{len(taken)}.tar"
        app.snapshot("live", out)
        taken.append(out)
    writer.join()
    assert not errors and len(taken) >= 2
    for i, archive in enumerate(taken):
        name = f"live-copy-{i}"
        app.restore(archive, name)
        index, catalog = app.runtime.projects.index(name), app.runtime.projects.catalog(name)
        rows = catalog.all()
        assert index.count() == catalog.total_chunks()  # no points without their row
        assert all(index.count(r.doc_id) == r.chunks for r in rows)
        assert {h.payload["doc_id"] for h in index.scroll()} == {r.doc_id for r in rows}


# -- 3. damaged archives ---------------------------------------------------------------------
def _flip(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x01
    path.write_bytes(bytes(data))


def _content_offset(path: Path) -> int:
    """A byte of a .tar.gz from its middle on whose flipped low bit changes what the archive
    holds. Not every byte does: inside a long run of zeros, a deflate back-reference may
    point at any earlier zero, so some flips decode to the very same bytes (and gzip's CRC,
    taken over them, agrees). Such an archive is not damaged; about one byte in 400 of a
    snapshot is one, so a fixed offset made this test fail now and then."""
    import gzip
    import zlib

    raw = path.read_bytes()
    content = gzip.decompress(raw)
    for offset in range(len(raw) // 2, len(raw)):
        data = bytearray(raw)
        data[offset] ^= 0x01
        try:
            if gzip.decompress(bytes(data)) != content:
                return offset
        except (OSError, EOFError, zlib.error):
            return offset
    raise AssertionError("no byte of the archive changes its content")


def _data_offset(path: Path) -> int:
    """The middle of the largest member's data in a plain tar."""
    with tarfile.open(path) as tar:
        big = max(tar.getmembers(), key=lambda m: m.size)
        return big.offset_data + big.size // 2


def _leftovers(index_dir: Path) -> list[str]:
    return sorted(p.name for p in index_dir.iterdir() if p.name.startswith("."))


@pytest.mark.parametrize("suffix", [".tar", ".tar.gz"])
def test_a_damaged_archive_is_refused_and_nothing_is_left(
        lib: dict[str, Any], app: CiteLoom, suffix: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    index_dir = lib["data"] / "indexes"
    good = lib["root"] / f"review{suffix}"
    dead = index_dir / ".restore-999999999-copy-x1y2"  # left by a process that died
    (dead / "index").mkdir(parents=True)
    app.snapshot("review", good)
    assert not dead.exists()  # swept by the next snapshot or restore
    before_dirs = sorted(p.name for p in index_dir.iterdir())
    hits = [h.chunk_id for h in app.query(QueryRequest("review", "table structure")).hits]
    generation = app.runtime.projects.index("review").generation

    flipped = lib["root"] / f"flipped{suffix}"
    shutil.copy(good, flipped)
    _flip(flipped, _data_offset(good) if suffix == ".tar" else _content_offset(good))
    cut = lib["root"] / f"cut{suffix}"
    cut.write_bytes(good.read_bytes()[: good.stat().st_size // 2])

    for damaged in (flipped, cut):
        with pytest.raises(SnapshotInvalid) as caught:
            app.restore(damaged, "copy")
        assert caught.value.code == "SNAPSHOT_INVALID" and "nothing was restored" in \
            caught.value.hint
        assert "copy" not in app.runtime.projects.stored_projects()
        assert not (index_dir / "copy").exists() and not _leftovers(index_dir)
        # --force onto an existing project: refused too, and the project is untouched.
        with pytest.raises(SnapshotInvalid):
            app.restore(damaged, "review", force=True)
        assert app.runtime.projects.index("review").generation == generation
        assert [
            h.chunk_id for h in app.query(QueryRequest("review", "table structure")).hits
        ] == hits
        assert sorted(p.name for p in index_dir.iterdir()) == before_dirs
    app.close()
    assert main(["restore", str(flipped), "-p", "copy"]) == 1
    err = capsys.readouterr().err
    assert "error: SNAPSHOT_INVALID: " in err and "Traceback" not in err
    assert not (index_dir / "copy").exists() and not _leftovers(index_dir)


def test_every_changed_byte_of_a_member_is_caught(lib: dict[str, Any], app: CiteLoom) -> None:
    good = lib["root"] / "course.tar"
    app.snapshot("course", good)
    with tarfile.open(good) as tar:
        members = [m for m in tar.getmembers() if m.size]
    assert {"manifest.json", "manifest.sha256", "catalog.sqlite"} <= {m.name for m in members}
    for m in members:  # the first, middle and last byte of each member's data
        for at in {0, m.size // 2, m.size - 1}:
            bad = lib["root"] / "bad.tar"
            shutil.copy(good, bad)
            _flip(bad, m.offset_data + at)
            with pytest.raises(SnapshotInvalid):
                verify(bad)
    # A header changed: the member list no longer matches the manifest.
    shutil.copy(good, bad)
    _flip(bad, members[-1].offset + 10)  # in the last member's name
    with pytest.raises(SnapshotInvalid):
        verify(bad)
    (lib["root"] / "not.tar").write_text("hello")
    with pytest.raises(SnapshotInvalid, match="not a readable CiteLoom snapshot"):
        verify(lib["root"] / "not.tar")


def test_server_backend_snapshot_through_the_service(
        lib: dict[str, Any], make_settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server backend's snapshots go through Qdrant's snapshot API, which qdrant-client's
    local mode lacks: with it emulated (tests/index/test_index_contract.py), the service's steps
    around it — archive, checks, a new generation, the alias moved — run for real."""
    from citeloom.config import ProjectConfig

    from ..index.test_index_contract import emulate_server_snapshots

    settings = make_settings(qdrant_url=f"file://{lib['root'] / 'qdrant'}", projects={
        name: ProjectConfig(name=name, backend="server") for name in ("srv", "srv2")})
    app = CiteLoom(settings)
    try:
        assert app.index_texts("srv", THESIS).outcome == "ok"
        store = app.runtime.projects.store(settings.project("srv"))
        emulate_server_snapshots(monkeypatch, store)
        before = [h.chunk_id for h in app.query(QueryRequest("srv", "vena cava filters")).hits]
        archive = lib["root"] / "srv.tar.gz"
        info = app.snapshot("srv", archive)
        manifest = verify(archive)
        assert manifest["backend"] == "server" and info["chunks"] == 3
        assert "index/collection.snapshot" in {f["path"] for f in manifest["files"]}
        app.restore(archive, "srv2")
        assert [
            h.chunk_id for h in app.query(QueryRequest("srv2", "vena cava filters")).hits
        ] == before
        assert store.current_generation("srv2") == "g0001"
        app.restore(archive, "srv2", force=True)
        assert store.current_generation("srv2") == "g0002"
        names = {c.name for c in store.client.get_collections().collections}  # type: ignore[attr-defined]
        assert names == {"citeloom__srv__g0001", "citeloom__srv2__g0002"}
        # An Edge project's archive does not restore into a server project, and back.
        with pytest.raises(InvalidInput, match="edge backend"):
            app.restore(archive, "papers")
    finally:
        app.close()


@pytest.mark.slow
def test_through_the_daemon(lib: dict[str, Any]) -> None:
    """The same commands when a library daemon owns the indexes (RemoteCiteLoom)."""
    import subprocess

    env = {**os.environ, "CITELOOM_CONFIG": str(lib["config"]), "CITELOOM_DAEMON": "on"}

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "citeloom.cli", *args], env=env,
                              cwd=lib["root"], capture_output=True, text=True, timeout=300)

    try:
        out = cli("query", "vena cava filter migration", "-p", "thesis", "-p", "review",
                  "--json")
        assert out.returncode == 0, out.stderr
        data = json.loads(out.stdout)
        assert data["merge"] == "rrf" and {h["project"] for h in data["hits"]} == {
            "thesis", "review"}
        seed = data["hits"][0]["chunk_id"]
        out = cli("query", "x", "--similar-to", seed, "--all-projects", "--json")
        assert out.returncode == 0, out.stderr
        assert seed not in {h["chunk_id"] for h in json.loads(out.stdout)["hits"]}
        archive = lib["root"] / "review.tar.gz"
        out = cli("snapshot", "-p", "review", "-o", str(archive), "--json")
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout)["chunks"] == 2 and archive.is_file()
        out = cli("restore", str(archive), "-p", "review2", "--json")
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout)["chunks"] == 2
        out = cli("query", "table structure", "-p", "review2", "--json")
        assert [h["project"] for h in json.loads(out.stdout)["hits"]][:1] == ["review2"]
        cut = lib["root"] / "cut.tar.gz"
        cut.write_bytes(archive.read_bytes()[:100])
        out = cli("restore", str(cut), "-p", "review3")
        assert out.returncode == 1 and "SNAPSHOT_INVALID" in out.stderr
    finally:
        cli("daemon", "stop")
        pid_file = lib["data"] / "daemon.pid"
        deadline = time.monotonic() + 30
        while pid_file.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
