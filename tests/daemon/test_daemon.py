"""The library daemon with real processes: Claude Desktop's MCP servers (`citeloom serve`,
driven over stdio) and terminal commands (`citeloom ingest/query`) on one data dir, in both
orders and all at once; a daemon SIGKILLed mid-job; who may reach the socket."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from ..conftest import CORPUS, FIXTURE_PDFS, shared_settings

pytestmark = pytest.mark.slow

PDFS = [CORPUS / "text" / "docling__2305.03393v1-pg9.pdf",
        CORPUS / "text" / "p2md__Flash-Masques-Temperature.pdf",
        CORPUS / "text" / "docling__code_and_formula.pdf",
        FIXTURE_PDFS / "cermine__example2.pdf"]
SEED = FIXTURE_PDFS / "cermine__test1.pdf"


def _pid(data: Path) -> int | None:
    try:
        return int((data / "daemon.pid").read_text())
    except (OSError, ValueError):
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is not alive, but the leader turns Z as soon as the main thread exits, while
    # the process's other threads still run and hold its files (a flock among them): it is
    # alive until every thread is a zombie.
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return False
    for task in tasks:
        try:
            if (task / "stat").read_text().split(") ")[1][0] != "Z":
                return True
        except OSError:  # that thread is gone
            continue
    return False


@pytest.fixture
def lib(models_dir: Path, tmp_path: Path) -> Any:
    root = tmp_path
    batch, seed = root / "batch", root / "seed"
    for d in (batch, seed):
        d.mkdir()
    for pdf in PDFS:
        (batch / pdf.name).write_bytes(pdf.read_bytes())
    (seed / SEED.name).write_bytes(SEED.read_bytes())
    data = root / "data"
    config = root / "citeloom.toml"
    config.write_text(f'[paths]\ndata_dir = "{data}"\nmodels_dir = "{models_dir}"\n'
                      '[daemon]\nenabled = true\nidle_exit_s = 120\n')
    # A user's environment: nothing of the test process's offline set-up is inherited, so
    # every process must find its models (and tokenizers) from the config alone.
    env = {k: v for k, v in os.environ.items()
           if k not in ("CITELOOM_DATA_DIR", "CITELOOM_MODELS_DIR", "CITELOOM_PROJECT",
                        "TIKTOKEN_CACHE_DIR", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
    env.update(CITELOOM_CONFIG=str(config), CITELOOM_DAEMON="on", PYTHONUNBUFFERED="1")
    world = {"root": root, "data": data, "env": env, "batch": batch, "seed": seed}
    yield world
    pid = _pid(data)
    if pid and _alive(pid):
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 30
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)


def cli(world: dict[str, Any], *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "citeloom.cli", *args], env=world["env"],
                          cwd=world["root"], capture_output=True, text=True, timeout=timeout)


def cli_bg(world: dict[str, Any], *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "citeloom.cli", *args], env=world["env"],
                            cwd=world["root"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def mcp(world: dict[str, Any]) -> Client:
    return Client(StdioTransport(command=sys.executable, args=["-m", "citeloom.cli", "serve"],
                                 env=world["env"], cwd=str(world["root"])))


async def query_while(c: Client, project: str, proc: subprocess.Popen,
                      every: float = 1.0) -> dict[str, Any]:
    """query_hybrid every ``every`` s until ``proc`` ends: errors, answers, documents seen."""
    errors: list[str] = []
    seen_before_end: set[str] = set()
    answers = 0
    while proc.poll() is None:
        result = await c.call_tool("query_hybrid", {"project": project, "top_k": 20,
                                                    "text": "table structure temperature"},
                                   raise_on_error=False)
        if result.is_error:
            errors.append(result.content[0].text)
        else:
            answers += 1
            seen_before_end |= {h["doc_id"] for h in result.data["hits"]}
        await asyncio.sleep(every)
    return {"errors": errors, "answers": answers, "docs": seen_before_end}


def _report(proc: subprocess.Popen) -> dict[str, Any]:
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    return json.loads(out)


def test_terminal_and_claude_share_a_library_in_both_orders(lib: dict[str, Any]) -> None:
    for project in ("conc", "conc2"):
        seeded = cli(lib, "ingest", str(lib["seed"]), "-p", project, "--json")
        assert seeded.returncode == 0, seeded.stderr

    async def server_first() -> dict[str, Any]:
        async with mcp(lib) as c:
            await c.call_tool("query_hybrid", {"project": "conc", "text": "heparin"})
            proc = cli_bg(lib, "ingest", str(lib["batch"]), "-p", "conc", "--json")
            seen = await query_while(c, "conc", proc)
            seen["report"] = _report(proc)
            after = (await c.call_tool("list_projects", {})).data
            seen["documents"] = {p["project"]: p.get("documents") for p in after["projects"]}
            return seen

    first = asyncio.run(server_first())
    assert first["errors"] == [] and first["answers"] >= 3
    assert first["report"]["indexed"] == len(PDFS) and first["report"]["failed"] == 0
    assert first["documents"]["conc"] == len(PDFS) + 1
    assert len(first["docs"]) > 1  # documents were answered as they landed, mid-batch

    async def ingest_first() -> dict[str, Any]:
        proc = cli_bg(lib, "ingest", str(lib["batch"]), "-p", "conc2", "--json")
        async with mcp(lib) as c:
            seen = await query_while(c, "conc2", proc, every=0.5)
            seen["report"] = _report(proc)
            final = (await c.call_tool("query_hybrid", {"project": "conc2", "top_k": 20,
                                                        "text": "table structure"})).data
            seen["final"] = {h["doc_id"] for h in final["hits"]}
            return seen

    second = asyncio.run(ingest_first())
    assert second["errors"] == [] and second["answers"] >= 1
    assert second["report"]["indexed"] == len(PDFS) and second["report"]["failed"] == 0
    assert len(second["final"]) > 1

    # Two Claude windows and two terminals at once: every answer arrives, and the two
    # ingests into one project take turns (one writer per project).
    async def everyone() -> dict[str, Any]:
        async with mcp(lib) as a, mcp(lib) as b:
            first_cli = cli_bg(lib, "ingest", str(lib["batch"]), "-p", "both", "--json")
            second_cli = cli_bg(lib, "ingest", str(lib["batch"]), str(lib["seed"]),
                                "-p", "both", "--json")
            qa, qb = await asyncio.gather(query_while(a, "conc", second_cli),
                                          query_while(b, "conc2", second_cli))
            return {"a": qa, "b": qb, "reports": [_report(first_cli), _report(second_cli)]}

    all_at_once = asyncio.run(everyone())
    assert all_at_once["a"]["errors"] == [] == all_at_once["b"]["errors"]
    assert all_at_once["a"]["answers"] >= 1 and all_at_once["b"]["answers"] >= 1
    one, two = all_at_once["reports"]
    assert one["failed"] == 0 == two["failed"]
    # Whichever wrote first indexed the batch; the other skipped it as unchanged.
    assert one["indexed"] + two["indexed"] == len(PDFS) + 1
    inspect = json.loads(cli(lib, "inspect", "-p", "both", "--json").stdout)
    assert inspect["documents"] == len(PDFS) + 1
    jobs = json.loads(cli(lib, "daemon", "status", "--json").stdout)
    assert jobs["running"] and jobs["pid"] == _pid(lib["data"])

    # Other phrasings travel through the daemon, from the terminal and from Claude.
    also = ["thrombose veineuse profonde, héparine"]
    term = json.loads(cli(lib, "query", "heparin", "-p", "conc", "--also", also[0],
                          "--json").stdout)
    assert term["also"] == also and term["hits"]

    async def translated() -> dict[str, Any]:
        async with mcp(lib) as c:
            return (await c.call_tool("query_hybrid", {"project": "conc", "text": "heparin",
                                                       "also": also})).data

    answer = asyncio.run(translated())
    assert answer["also"] == also and answer["hits"]


@pytest.mark.own_cache  # killed mid-batch: the batch must still be converting
def test_daemon_killed_mid_job_is_replaced_and_nothing_is_lost(lib: dict[str, Any]) -> None:
    proc = cli_bg(lib, "ingest", str(lib["batch"]), "-p", "k", "--json")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # the first file is in: kill mid-batch
        pid = _pid(lib["data"])
        status = cli(lib, "daemon", "status", "--json") if pid else None
        if status and status.returncode == 0:
            jobs = json.loads(status.stdout)
            if jobs.get("running"):
                out = subprocess.run(["ls", str(lib["data"] / "indexes")], capture_output=True)
                if b"k" in out.stdout and _files_done(lib) >= 1:
                    break
        time.sleep(0.3)
    pid = _pid(lib["data"])
    assert pid and _alive(pid)
    os.kill(pid, signal.SIGKILL)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode != 0, err
    assert "re-run" in json.loads(out)["error"]["hint"]  # it says what to do (--json: JSON)

    again = cli(lib, "ingest", str(lib["batch"]), "-p", "k", "--json")  # a new daemon
    assert again.returncode == 0, again.stderr
    report = json.loads(again.stdout)
    assert report["failed"] == 0 and report["indexed"] + report["skipped"] == len(PDFS)
    assert report["indexed"] >= 1  # the interrupted files were redone
    new_pid = _pid(lib["data"])
    assert new_pid and new_pid != pid
    info = json.loads(cli(lib, "inspect", "-p", "k", "--json", "--sample", "0").stdout)
    assert info["documents"] == len(PDFS)
    # Every document once: the points are exactly the catalog's chunks (no orphans).
    cli(lib, "daemon", "stop")
    stopping = time.monotonic()
    while _alive(new_pid) and time.monotonic() < stopping + 180:  # slow under CI load
        time.sleep(0.2)
    if _alive(new_pid):  # say where it hangs: its threads' stacks, from daemon.log
        os.kill(new_pid, signal.SIGUSR1)
        time.sleep(3)
        log = (lib["data"] / "daemon.log").read_text(errors="replace")[-6000:]
        raise AssertionError(f"the daemon did not stop within 180 s of `daemon stop`:\n{log}")
    print(f"daemon stopped in {time.monotonic() - stopping:.1f} s")
    from citeloom.config import load_settings
    from citeloom.service import CiteLoom

    os.environ["CITELOOM_CONFIG"] = lib["env"]["CITELOOM_CONFIG"]
    try:
        # As a user's next command would, wait a little for the exiting daemon to let go.
        app = CiteLoom(load_settings(), index_wait_s=30.0)
        index, catalog = app.runtime.projects.index("k"), app.runtime.projects.catalog("k")
        docs = {h.payload["doc_id"] for h in index.scroll(fields=["doc_id"])}
        assert docs == {r.doc_id for r in catalog.all()}
        assert index.count() == sum(r.chunks for r in catalog.all())
        for rec in catalog.all():
            assert index.count(rec.doc_id) == rec.chunks
        app.close()
    finally:
        os.environ.pop("CITELOOM_CONFIG", None)


def _files_done(world: dict[str, Any]) -> int:
    from citeloom.daemon.client import DaemonClient

    client = DaemonClient(shared_settings(data_dir=world["data"], models_dir=world["data"]),
                          spawn=False)
    try:
        jobs = client.get("/jobs")
    except Exception:  # noqa: BLE001 - not up yet
        return 0
    finally:
        client.close()
    return max((j["files_done"] for j in jobs), default=0)


def test_socket_and_data_dir_are_owner_only_and_no_tcp(lib: dict[str, Any]) -> None:
    assert cli(lib, "ingest", str(lib["seed"]), "-p", "s", "--json").returncode == 0
    from citeloom.daemon import daemon_paths

    paths = daemon_paths(lib["data"])
    assert stat.S_IMODE(paths.socket.stat().st_mode) == 0o600
    assert stat.S_IMODE(lib["data"].stat().st_mode) == 0o700
    assert stat.S_IMODE(paths.log.stat().st_mode) == 0o600
    pid = _pid(lib["data"])
    assert pid and _alive(pid)
    assert _tcp_listeners(pid) == set()


def _tcp_listeners(pid: int) -> set[str]:
    """TCP sockets the process listens on (from /proc: its socket inodes in LISTEN)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            parts = line.split()
            if parts[3] == "0A" and parts[9] in inodes:  # 0A: LISTEN
                found.add(parts[1])
    return found


def test_http_transport_needs_a_token_beyond_loopback(lib: dict[str, Any]) -> None:
    refused = cli(lib, "serve", "--transport", "http", "--host", "0.0.0.0", "--port", "18766",
                  timeout=60)
    assert refused.returncode == 1 and "CONFIG_INVALID" in refused.stderr
    assert "CITELOOM_MCP_TOKEN" in refused.stderr
    token = "t0k3n-" + os.urandom(8).hex()
    env = {**lib["env"], "CITELOOM_MCP_TOKEN": token}
    server = subprocess.Popen([sys.executable, "-m", "citeloom.cli", "serve", "--transport",
                               "http", "--host", "0.0.0.0", "--port", "18766"], env=env,
                              cwd=lib["root"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        import httpx

        url = "http://127.0.0.1:18766/mcp"
        deadline = time.monotonic() + 60
        while True:
            try:
                anonymous = httpx.post(url, json={}, timeout=5)
                break
            except httpx.ConnectError:
                assert time.monotonic() < deadline, "the HTTP server did not start"
                time.sleep(0.3)
        assert anonymous.status_code == 401

        async def with_token() -> Any:
            async with Client(url, auth=token) as c:
                return (await c.call_tool("list_projects", {})).data

        assert "projects" in asyncio.run(with_token())
    finally:
        server.terminate()
        server.wait(30)


def test_daemon_keeps_a_projects_model_across_a_config_reload_and_migrates_it(
        lib: dict[str, Any]) -> None:
    """A library built with MiniLM, its config pin then removed while the daemon runs: the
    reloaded daemon still writes with the index's model (no EMBEDDING_MISMATCH), and
    `reindex --dense-model` migrates the project as a daemon job."""
    minilm, bge = "sentence-transformers/all-MiniLM-L6-v2", "BAAI/bge-small-en-v1.5"
    config = Path(lib["env"]["CITELOOM_CONFIG"])
    plain = config.read_text()
    config.write_text(plain + f'[projects.m]\ndense_model = "{minilm}"\n')
    seeded = cli(lib, "ingest", str(lib["seed"]), "-p", "m", "--json")
    assert seeded.returncode == 0, seeded.stderr
    config.write_text(plain)  # the pin removed, as after an upgrade
    time.sleep(3)  # the daemon notices the change within a second or two and reloads
    more = cli(lib, "ingest", str(lib["batch"] / PDFS[0].name), "-p", "m", "--json")
    assert more.returncode == 0, more.stderr + more.stdout
    info = json.loads(cli(lib, "inspect", "-p", "m", "--json").stdout)
    assert info["model_lock"]["dense_model"] == minilm and info["documents"] == 2
    assert info["dense_model_upgrade"]["to"] == bge
    moved = cli(lib, "reindex", "-p", "m", "--dense-model", bge, "--json")
    assert moved.returncode == 0, moved.stderr
    assert json.loads(moved.stdout)["indexed"] == 2
    info = json.loads(cli(lib, "inspect", "-p", "m", "--json").stdout)
    assert info["model_lock"]["dense_model"] == bge and info["dense_model_upgrade"] is None
