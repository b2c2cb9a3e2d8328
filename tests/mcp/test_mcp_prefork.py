"""`citeloom serve` through the daemon's pre-imported MCP server (daemon/prefork.py), with
real processes: the spawned process hands its stdio, environment and directory to the
zygote, the server is a fork of it and answers with the spawned process's settings; closing
the client or signalling the spawned process ends the server; without a daemon, `serve`
serves by itself."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import site
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from citeloom.daemon import daemon_paths

from ..daemon.test_daemon import _alive, _pid, cli, lib, mcp  # noqa: F401 - lib is a fixture

pytestmark = pytest.mark.slow


def _wait(cond: Any, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not cond():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


def _servers(log: Path) -> list[int]:
    """Pids of the MCP servers that logged their start to ``log``."""
    if not log.exists():
        return []
    return [rec["pid"] for rec in map(json.loads, log.read_text().splitlines())
            if rec.get("msg") == "server starting"]


def _cmdline(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()


def _spawned_serve(log: Path) -> int:
    """The pid of the `citeloom serve` process spawned with CITELOOM_LOG_FILE=log."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
            if (f"CITELOOM_LOG_FILE={log}".encode() in environ
                    and "citeloom.cli serve" in _cmdline(int(entry.name))):
                return int(entry.name)
        except OSError:
            continue
    raise AssertionError("no spawned `citeloom serve` found")


def test_serve_is_forked_from_the_daemon_with_the_clients_settings(
        lib: dict[str, Any]) -> None:  # noqa: F811
    assert cli(lib, "ingest", str(lib["seed"]), "-p", "s", "--json").returncode == 0
    paths = daemon_paths(lib["data"])
    _wait(paths.mcp_socket.exists, 60, "the daemon started no MCP zygote")
    assert stat.S_IMODE(paths.mcp_socket.stat().st_mode) == 0o600
    # Settings only the spawned process has: its log file, and where it may ingest from.
    log = lib["root"] / "claude-window.log"
    allowed = lib["root"] / "allowed"
    allowed.mkdir()
    lib["env"] = {**lib["env"], "CITELOOM_LOG_FILE": str(log),
                  "CITELOOM_ALLOWED_ROOTS": str(allowed)}

    async def session() -> dict[str, Any]:
        async with mcp(lib) as c:
            projects = (await c.call_tool("list_projects", {})).data
            hits = (await c.call_tool("query_hybrid", {"project": "s",
                                                       "text": "heparin"})).data
            outside = await c.call_tool("ingest_from_source", {
                "source": str(lib["batch"]), "project": "s"}, raise_on_error=False)
            relay = _spawned_serve(log)
            return {"projects": projects, "hits": hits, "outside": outside, "relay": relay,
                    "servers": _servers(log)}

    got = asyncio.run(session())
    assert [p["project"] for p in got["projects"]["projects"]] == ["s"]
    assert got["hits"]["hits"]
    # The spawned process's CITELOOM_ALLOWED_ROOTS holds in the server: lib["batch"] is
    # outside it (a server with the daemon's settings would have no such list).
    assert got["outside"].is_error and "PATH_NOT_ALLOWED" in got["outside"].content[0].text
    # The server logged to the spawned process's log file, from another process: a fork
    # of the zygote (it keeps the zygote's command line), not the spawned `citeloom serve`.
    [server] = got["servers"]
    assert server != got["relay"]
    # Client closed: the server and the spawned process are gone.
    _wait(lambda: not _alive(server), 15, "the forked server outlived its client")
    _wait(lambda: not _alive(got["relay"]), 15, "the spawned serve outlived its client")

    # SIGTERM to the spawned process (Claude Desktop quitting) reaches the server.
    async def terminated() -> dict[str, Any]:
        async with mcp(lib) as c:
            await c.call_tool("list_projects", {})
            relay = _spawned_serve(log)
            server = _servers(log)[-1]
            assert "citeloom.mcp.prefork" in _cmdline(server)
            os.kill(relay, signal.SIGTERM)
            _wait(lambda: not _alive(server), 15, "SIGTERM did not reach the server")
            _wait(lambda: not _alive(relay), 15, "the spawned serve did not end")
            return {"server": server}

    try:
        asyncio.run(terminated())
    except AssertionError:
        raise
    except Exception:  # noqa: BLE001, S110 - closing a session whose server is gone
        pass
    assert len(_servers(log)) == 2

    # Another interpreter (or CiteLoom version) than the zygote's: it serves by itself.
    other = lib["root"] / "python-link"
    other.symlink_to(sys.executable)

    async def other_python() -> int:
        import citeloom

        path = [str(Path(citeloom.__file__).parents[1]), *site.getsitepackages()]
        env = {**lib["env"], "PYTHONPATH": os.pathsep.join(path)}
        transport = StdioTransport(command=str(other), args=["-m", "citeloom.cli", "serve"],
                                   env=env, cwd=str(lib["root"]))
        async with Client(transport) as c:
            await c.call_tool("list_projects", {})
            return _spawned_serve(log)

    relay = asyncio.run(other_python())
    assert _servers(log)[-1] == relay


def test_without_a_daemon_serve_serves_by_itself(lib: dict[str, Any]) -> None:  # noqa: F811
    log = lib["root"] / "window.log"
    lib["env"] = {**lib["env"], "CITELOOM_LOG_FILE": str(log)}
    paths = daemon_paths(lib["data"])
    assert _pid(lib["data"]) is None and not paths.mcp_socket.exists()

    async def session() -> int:
        async with mcp(lib) as c:
            await c.call_tool("list_projects", {})  # (this starts the daemon)
            return _spawned_serve(log)

    relay = asyncio.run(session())
    assert _servers(log) == [relay]  # no zygote yet: the spawned process served
    _wait(paths.mcp_socket.exists, 60, "the daemon started no MCP zygote")
    zygote = int(subprocess.run(["pgrep", "-f", f"citeloom.mcp.prefork {paths.mcp_socket}"],
                                capture_output=True, text=True).stdout.split()[0])
    # The daemon stops: so does its zygote, and its socket goes.
    assert cli(lib, "daemon", "stop").returncode == 0
    _wait(lambda: not _alive(zygote), 30, "the zygote outlived the daemon")
    assert not paths.mcp_socket.exists()
    assert sys.executable  # (the next `serve` starts the slow way again, as above)


def test_a_changed_installation_reaches_the_next_window(lib: dict[str, Any]) -> None:  # noqa: F811
    """Issue #31: an upgrade that keeps ``__version__`` (here: an edited copy of the package)
    reaches the next Claude window without anybody restarting the daemon."""
    import shutil

    import citeloom

    copy = lib["root"] / "site"
    shutil.copytree(Path(citeloom.__file__).parent, copy / "citeloom",
                    ignore=shutil.ignore_patterns("__pycache__"))
    lib["env"] = {**lib["env"], "PYTHONPATH": str(copy)}  # every process runs the copy
    assert cli(lib, "ingest", str(lib["seed"]), "-p", "s", "--json").returncode == 0
    paths = daemon_paths(lib["data"])
    _wait(paths.mcp_socket.exists, 60, "the daemon started no MCP zygote")
    daemon = _pid(lib["data"])

    def window(name: str) -> dict[str, Any]:
        log = lib["root"] / f"{name}.log"
        world = {**lib, "env": {**lib["env"], "CITELOOM_LOG_FILE": str(log)}}

        async def session() -> dict[str, Any]:
            async with mcp(world) as c:
                projects = (await c.call_tool("list_projects", {})).data
                return {"instructions": c.instructions,
                        "projects": [p["project"] for p in projects["projects"]],
                        "relay": _spawned_serve(log)}

        got = asyncio.run(session())
        [got["server"]] = _servers(log)
        return got

    first = window("first")
    assert first["server"] != first["relay"]  # a fork of the zygote
    assert first["instructions"].startswith("CiteLoom searches")

    schema = copy / "citeloom" / "mcp" / "schema.py"  # "the upgrade": other code, same version
    schema.write_text(schema.read_text().replace('INSTRUCTIONS = """CiteLoom',
                                                 'INSTRUCTIONS = """Upgraded. CiteLoom', 1))
    second = window("second")
    assert second["instructions"].startswith("Upgraded.")  # the new code answered
    assert second["server"] == second["relay"]  # the stale zygote handed it back
    assert second["projects"] == ["s"]
    # Its first call found the daemon on the old code and idle: that daemon was replaced.
    new = _pid(lib["data"])
    assert new and new != daemon and not _alive(daemon)
    _wait(paths.mcp_socket.exists, 60, "the new daemon started no MCP zygote")
    third = window("third")
    assert third["instructions"].startswith("Upgraded.")
    assert third["server"] != third["relay"]  # forked again, from a zygote of the new code
