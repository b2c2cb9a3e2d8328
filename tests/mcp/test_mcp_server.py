"""The real MCP server, spawned as `citeloom serve` and driven by fastmcp's Client over
stdio: every tool, an error per code, path escapes, a query during an ingest job, a
cancelled job, and a server that keeps serving after bad calls."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from citeloom.config import ProjectConfig
from citeloom.errors import CODES
from citeloom.service import CiteLoom

from ..conftest import CORPUS, FIXTURE_PDFS, ROOT, shared_settings

pytestmark = pytest.mark.slow

TOOLS = {"ingest_from_source", "query", "query_hybrid", "inspect", "list_projects",
         "ingest_status", "cancel_ingest", "find_similar"}


@pytest.fixture(scope="module")
def world(models_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A config with four projects, three of them indexed before the server starts."""
    root = tmp_path_factory.mktemp("mcp")
    papers, allowed, outside = root / "papers", root / "allowed", root / "outside"
    for d in (papers, allowed, outside):
        d.mkdir()
    shutil.copy(FIXTURE_PDFS / "cermine__test1.pdf", papers)
    shutil.copy(CORPUS / "text" / "docling__2305.03393v1-pg9.pdf", allowed / "pg9.pdf")
    shutil.copy(CORPUS / "text" / "docling__code_and_formula.pdf", allowed / "formula.pdf")
    for name in ("cermine__example2.pdf", "cermine__test2.pdf"):
        shutil.copy(FIXTURE_PDFS / name if (FIXTURE_PDFS / name).exists()
                    else CORPUS / "text" / name, allowed / name)
    shutil.copy(CORPUS / "text" / "docling__2305.03393v1-pg9.pdf", outside / "secret.pdf")
    (allowed / "escape").symlink_to(outside)
    config = root / "citeloom.toml"
    config.write_text(f"""
[paths]
data_dir = "{root / 'data'}"
models_dir = "{models_dir}"
[mcp]
allowed_roots = ["{allowed}"]
[projects.lib]
sources = ["{papers}"]
[projects.mm]
chunk_max_tokens = 128
[projects.dense]
sparse_model = "none"
""")
    data = root / "data"
    build = shared_settings(data_dir=data, models_dir=models_dir, projects={
        "dense": ProjectConfig(name="dense", sparse_model="none")})
    app = CiteLoom(build)
    assert app.ingest([papers], "lib").outcome == "ok"
    assert app.ingest([allowed / "pg9.pdf"], "mm").outcome == "ok"  # 256 tokens: mismatch
    assert app.ingest([allowed / "pg9.pdf"], "dense").outcome == "ok"
    app.close()
    env = {**os.environ, "CITELOOM_CONFIG": str(config), "PYTHONUNBUFFERED": "1"}
    env.pop("CITELOOM_DATA_DIR", None)
    env.pop("CITELOOM_MODELS_DIR", None)
    return {"root": root, "config": config, "env": env, "allowed": allowed,
            "outside": outside, "papers": papers, "data": data}


def client(world: dict[str, Any], **env: str) -> Client:
    return Client(StdioTransport(command=sys.executable, args=["-m", "citeloom.cli", "serve"],
                                 env={**world["env"], **env}, cwd=str(world["root"])))


async def error_of(c: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await c.call_tool(tool, args, raise_on_error=False)
    assert result.is_error, f"{tool} {args} did not fail"
    return json.loads(result.content[0].text)


def run(coro: Any) -> Any:
    return asyncio.run(coro)


SECRET = "qdrant-secret-7f3a9c"


def test_tools_answers_and_errors(world: dict[str, Any]) -> None:
    log_file = world["root"] / "server.log"
    seen: list[str] = []

    async def scenario() -> None:
        async with client(world, QDRANT_API_KEY=SECRET, CITELOOM_LOG_FILE=str(log_file)) as c:
            tools = {t.name: t for t in await c.list_tools()}
            assert set(tools) >= TOOLS
            schema = tools["query_hybrid"].input_schema
            assert schema["properties"]["top_k"]["maximum"] == 50
            assert "description" in schema["properties"]["text"]

            projects = (await c.call_tool("list_projects", {})).data
            names = {p["project"] for p in projects["projects"]}
            assert {"lib", "mm", "dense"} <= names

            answer = (await c.call_tool("query_hybrid", {
                "project": "lib", "top_k": 3,
                "text": "How often did retrievable vena cava filters migrate?"})).data
            assert answer["mode"] == "hybrid" and answer["fusion"] == "dbsf"
            assert answer["models"]["dense"] == "BAAI/bge-small-en-v1.5"
            assert answer["correlation_id"] and answer["timings_ms"]["total"] > 0
            assert answer["truncated"] is False and len(answer["hits"]) == 3
            hit = answer["hits"][0]
            assert {"citekey", "title", "authors", "year", "page_start", "page_end",
                    "section_path", "text", "score", "doc_id", "chunk_id"} <= set(hit)
            assert any(h["page_start"] <= 2 <= h["page_end"] for h in answer["hits"])

            dense = (await c.call_tool("query", {"project": "lib", "text": "heparin",
                                                 "filters": {"year_from": 2011}})).data
            assert dense["mode"] == "dense"
            # The file states its year (2010) on its first page, without Zotero: a later
            # year_from leaves it out, and the empty answer says why.
            assert dense["hits"] == [] and dense["reason"]["code"] == "FILTERED_OUT"

            # Collections filter: files outside Zotero belong to none, and it says so.
            none = (await c.call_tool("query_hybrid", {
                "project": "lib", "text": "heparin", "filters": {"collections": ["Thesis"]}}
            )).data
            assert none["hits"] == [] and none["excluded"] == {"collections": 1}

            like = (await c.call_tool("find_similar", {
                "project": "lib", "chunk_ids": [hit["chunk_id"]], "top_k": 2})).data
            assert len(like["hits"]) == 2 and like["correlation_id"]
            assert hit["chunk_id"] not in {h["chunk_id"] for h in like["hits"]}
            assert {"citekey", "page_start", "section_path", "text"} <= set(like["hits"][0])
            unlike = (await c.call_tool("find_similar", {
                "project": "lib", "chunk_ids": [hit["chunk_id"]],
                "filters": {"year_from": 2011}})).data
            assert unlike["hits"] == [] and unlike["reason"]["code"] == "FILTERED_OUT"

            info = (await c.call_tool("inspect", {"project": "lib", "sample": 1})).data
            assert info["chunks"] > 0 and len(info["sample"]) == 1
            assert info["payload_indexes"]["doc_id"] == "keyword"

            # One error per code; the server keeps serving after each.
            cases = [
                ("query_hybrid", {"project": "nope", "text": "x"}, "INVALID_PROJECT"),
                ("query_hybrid", {"project": "lib", "text": "x", "top_k": 99}, "INVALID_INPUT"),
                ("query", {"project": "lib", "text": "   "}, "INVALID_INPUT"),
                ("find_similar", {"project": "lib", "chunk_ids": ["not-an-id"]},
                 "INVALID_INPUT"),
                ("find_similar", {"project": "lib",
                                  "chunk_ids": ["00000000-0000-0000-0000-000000000000"]},
                 "INVALID_INPUT"),
                ("query_hybrid", {"project": "dense", "text": "tables"},
                 "HYBRID_NOT_SUPPORTED"),
                ("ingest_from_source", {"project": "mm", "source": str(world["allowed"])},
                 "EMBEDDING_MISMATCH"),
                ("ingest_from_source", {"project": "lib",
                                        "source": str(world["allowed"] / "nothing.pdf")},
                 "SOURCE_NOT_FOUND"),
                ("ingest_from_source", {"project": "lib",
                                        "source": str(world["allowed"]) + "/../outside"},
                 "PATH_NOT_ALLOWED"),
                ("ingest_from_source", {"project": "lib",
                                        "source": str(world["outside"] / "secret.pdf")},
                 "PATH_NOT_ALLOWED"),
                ("ingest_from_source", {"project": "lib",
                                        "source": str(world["allowed"] / "escape")},
                 "PATH_NOT_ALLOWED"),
                ("ingest_from_source", {"project": "lib", "source": "/etc/passwd"},
                 "PATH_NOT_ALLOWED"),
                ("ingest_status", {"job_id": "nope"}, "INVALID_INPUT"),
            ]
            for tool, args, code in cases:
                err = await error_of(c, tool, args)
                seen.append(json.dumps(err))
                assert err["code"] == code, (tool, args, err)
                assert err["code"] in CODES  # declared in errors.py, with its hint
                assert err["hint"] and err["correlation_id"]
                assert "API_KEY" not in json.dumps(err)
            alive = (await c.call_tool("list_projects", {})).data
            assert alive["projects"]

            mismatch = await error_of(c, "ingest_from_source",
                                      {"project": "mm", "source": str(world["allowed"])})
            assert "citeloom reindex --project mm" in mismatch["hint"]
            seen.extend(json.dumps(x) for x in (projects, answer, dense, info, alive))

    run(scenario())
    # Logs are JSON lines in the file (stdout carried only the protocol), and no secret
    # appears in them or in any answer.
    lines = log_file.read_text().splitlines()
    assert lines and all(json.loads(line)["level"] for line in lines)
    assert any(json.loads(line).get("code") == "PATH_NOT_ALLOWED" for line in lines)
    assert SECRET not in log_file.read_text()
    assert not any(SECRET in s for s in seen)


def test_cli_json_and_mcp_answer_hits_alike(world: dict[str, Any]) -> None:
    """One serialiser (payload.hit_json) for `citeloom query --json` and the MCP tools."""
    question = "How often did retrievable vena cava filters migrate?"
    out = subprocess.run([sys.executable, "-m", "citeloom.cli", "query", question, "-p", "lib",
                          "-k", "3", "--json"], env=world["env"], cwd=world["root"],
                         capture_output=True, text=True, timeout=120, check=True)
    cli_hits = json.loads(out.stdout)["hits"]

    async def scenario() -> list[dict[str, Any]]:
        async with client(world) as c:
            return (await c.call_tool("query_hybrid", {"project": "lib", "text": question,
                                                       "top_k": 3})).data["hits"]

    mcp_hits = run(scenario())
    assert len(cli_hits) == 3 and cli_hits == mcp_hits


def test_query_answers_while_ingest_job_runs_and_job_completes(world: dict[str, Any]) -> None:
    async def scenario() -> None:
        async with client(world) as c:
            progress: list[float] = []
            messages: list[str] = []

            async def on_progress(done: float, total: float | None, msg: str | None) -> None:
                progress.append(done)
                messages.append(msg or "")

            await c.call_tool("list_projects", {})  # the server is up and has its state
            # Its models loaded (the default query's cross-encoder too), so that a query
            # takes what it takes while an ingest runs, not a model's first load.
            await c.call_tool("query_hybrid", {"project": "lib", "text": "thrombosis"})
            started = time.monotonic()
            job = (await c.call_tool("ingest_from_source", {
                "project": "grow", "source": str(world["allowed"]),
                "options": {"wait_seconds": 0}}, progress_handler=on_progress)).data
            assert time.monotonic() - started < 2.0  # answers with a job id, not the result
            assert job["state"] == "running" and job["job_id"]
            answers = 0
            while True:
                answer = (await c.call_tool("query_hybrid", {
                    "project": "lib", "text": "deep venous thrombosis prophylaxis"})).data
                assert answer["hits"]
                answers += 1
                status = (await c.call_tool("ingest_status", {
                    "job_id": job["job_id"], "wait_seconds": 0.25},
                    progress_handler=on_progress)).data
                if status["state"] != "running":
                    break
                if status["files_done"]:  # pages/s and the time left, once a file is in
                    assert status["pages_per_s"] > 0 and status["eta_s"] is not None, status
            assert answers >= 2 and status["state"] == "done", status
            assert status["report"]["indexed"] == 4 and status["report"]["failed"] == 0
            # The four PDFs' pages, counted before conversion, all done, none left.
            assert status["pages_total"] == status["pages_done"] == status["report"]["pages"]
            assert status["pages_left"] == 0 and status["eta_s"] == 0
            assert any("pages/s" in m for m in messages), messages
            # The service wrote the audit log, as for a CLI ingest.
            audit = [json.loads(line) for line in
                     Path(status["report"]["audit_log"]).read_text().splitlines()]
            assert sorted(Path(a["file"]).name for a in audit) == sorted(
                p.name for p in world["allowed"].glob("*.pdf"))
            assert {(a["status"], a["started_by"]) for a in audit} == {("indexed", "mcp")}
            assert progress and max(progress) >= 1
            listed = (await c.call_tool("list_projects", {})).data
            assert any(j["job_id"] == job["job_id"] for j in listed["jobs"])
            grown = (await c.call_tool("query_hybrid", {
                "project": "grow", "text": "table structure recognition"})).data
            assert grown["hits"]

    run(scenario())


def test_cancelled_job_stops_between_files(world: dict[str, Any]) -> None:
    async def scenario() -> None:
        async with client(world) as c:
            job = (await c.call_tool("ingest_from_source", {
                "project": "cancelme", "source": str(world["allowed"]),
                "options": {"wait_seconds": 0}})).data
            cancel = (await c.call_tool("cancel_ingest", {"job_id": job["job_id"]})).data
            assert cancel["cancel_requested"]
            status = (await c.call_tool("ingest_status", {"job_id": job["job_id"],
                                                          "wait_seconds": 60})).data
            assert status["state"] == "cancelled"
            assert status["files_done"] < 4

    run(scenario())


def test_timeout_and_unavailable_index(world: dict[str, Any], tmp_path: Path) -> None:
    slow = tmp_path / "slow.toml"
    slow.write_text(world["config"].read_text().replace(
        "[mcp]\n", "[mcp]\nquery_timeout_s = 0.001\n"))

    async def timeout() -> None:
        async with client(world, CITELOOM_CONFIG=str(slow)) as c:
            err = await error_of(c, "query_hybrid", {"project": "lib", "text": "heparin"})
            assert err["code"] == "TIMEOUT"

    run(timeout())

    # Another process holds the shard (its WAL lock is exclusive).
    holder = CiteLoom(shared_settings(data_dir=world["data"], models_dir=Path(
        world["config"].read_text().split('models_dir = "')[1].split('"')[0])))
    holder.runtime.projects.index("lib").count()

    async def unavailable() -> None:
        async with client(world) as c:
            err = await error_of(c, "query_hybrid", {"project": "lib", "text": "heparin"})
            assert err["code"] == "INDEX_UNAVAILABLE"
            assert "another CiteLoom process" in err["hint"]

    try:
        run(unavailable())
    finally:
        holder.close()


def _shard_free(world: dict[str, Any], project: str) -> bool:
    """Whether another process could open the project's Edge index right now: its process
    lock is free (probing with the lock, never with Edge itself, which would disturb a
    holder's writes)."""
    import fcntl

    fd = os.open(world["data"] / "indexes" / project / ".lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)  # closing releases a lock taken here
    return True


@pytest.mark.parametrize("entry", ["citeloom serve", "fastmcp run fastmcp.json"])
def test_server_lets_go_of_idle_index(world: dict[str, Any], tmp_path: Path,
                                      entry: str) -> None:
    """list_projects opens no shard; a queried index is held, then released after
    release_idle_s so a CLI ingest can run beside Claude Desktop, and reopens on use. The
    same server, background threads included, whichever way it was started (fastmcp.json
    is run by absolute path from another directory, as a client would)."""
    idle_s = 3.0
    quick = tmp_path / "quick.toml"
    quick.write_text(world["config"].read_text().replace(
        "[mcp]\n", f"[mcp]\nrelease_idle_s = {idle_s}\n"))
    env = {**world["env"], "CITELOOM_CONFIG": str(quick)}
    if entry == "citeloom serve":
        transport = StdioTransport(command=sys.executable, args=["-m", "citeloom.cli", "serve"],
                                   env=env, cwd=str(tmp_path))
    else:
        transport = StdioTransport(command=str(Path(sys.executable).parent / "fastmcp"),
                                   args=["run", str(ROOT / "fastmcp.json")], env=env,
                                   cwd=str(tmp_path))
    question = {"project": "lib", "text": "vena cava filter migration"}

    async def released_in_time() -> None:
        deadline = time.monotonic() + idle_s + 15
        while not _shard_free(world, "lib"):
            assert time.monotonic() < deadline, "the server never let go of the index"
            await asyncio.sleep(0.5)

    async def scenario() -> None:
        async with Client(transport) as c:
            assert {t.name for t in await c.list_tools()} >= TOOLS
            listed = (await c.call_tool("list_projects", {})).data
            lib = next(p for p in listed["projects"] if p["project"] == "lib")
            assert lib["chunks"] > 0 and lib["documents"] == 1
            assert _shard_free(world, "lib")
            assert (await c.call_tool("query_hybrid", question)).data["hits"]  # loads models
            await released_in_time()
            # Reopened on use, and held while in use: the server cannot have let go
            # before idle_s after the call began. Under load a call can outlast idle_s;
            # then whether it is still held says nothing, and is not asserted.
            began = time.monotonic()
            assert (await c.call_tool("query_hybrid", question)).data["hits"]
            held = not _shard_free(world, "lib")
            if time.monotonic() - began < idle_s:
                assert held
            await released_in_time()

    run(scenario())


def test_bad_config_is_a_coded_error_and_the_server_stays_up(world: dict[str, Any],
                                                             tmp_path: Path) -> None:
    """`citeloom serve` refuses a bad citeloom.toml before starting; `fastmcp run` cannot,
    so the server starts and every tool answers CONFIG_INVALID with the fix."""
    bad = tmp_path / "bad.toml"
    bad.write_text("[projects.lib]\nchunk_max_tokens = 'many'\n")
    transport = StdioTransport(command=str(Path(sys.executable).parent / "fastmcp"),
                               args=["run", str(ROOT / "fastmcp.json")],
                               env={**world["env"], "CITELOOM_CONFIG": str(bad)},
                               cwd=str(tmp_path))

    async def scenario() -> None:
        async with Client(transport) as c:
            for tool, args in (("list_projects", {}),
                               ("query_hybrid", {"project": "lib", "text": "heparin"}),
                               ("inspect", {"project": "lib"}),
                               ("ingest_from_source", {"project": "lib", "source": "x.pdf"})):
                err = await error_of(c, tool, args)
                assert err["code"] == "CONFIG_INVALID", (tool, err)
                assert "chunk_max_tokens" in err["message"] and err["hint"]

    run(scenario())
