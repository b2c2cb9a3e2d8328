"""A fast MCP start-up: the MCP server pre-imported, forked for each Claude window.

Claude Desktop spawns ``citeloom serve`` for each window and waits for its first answer. A
fresh Python needs about a second only to import FastMCP and its stack, before CiteLoom's
own code runs. So while the daemon runs, it keeps a *zygote*: a single-threaded process
that has imported the MCP server and everything a first answer needs, and waits on
``mcp.sock`` beside the daemon's socket. ``citeloom serve`` (stdio, daemon on) then does
little more than load its settings and hand the zygote its stdin, stdout and stderr
(``SCM_RIGHTS``), its environment, working directory and arguments. The zygote forks
(twice, so the server is nobody's zombie), and the fork becomes that MCP server, with the
spawned process's own environment and config: it is what ``citeloom serve`` would have
been, minus the imports. The spawned process stays as its stand-in: it forwards signals to
the server and exits when the server does, so Claude Desktop sees one process as before.

Without a zygote (no daemon yet, or ``[daemon] enabled = false``) ``citeloom serve`` runs
the server itself, as before; its first tool call starts the daemon, and with it the zygote
for the next window. Only the owner may connect (the socket is 0600 in an owner-only
directory, and the peer's uid is checked where the OS tells it).
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import struct
import sys
import time
from pathlib import Path
from typing import Any

_FORKED_ENV = "CITELOOM_MCP_FORKED"  # in a forked server's environment, for its children
_HEADER = struct.Struct("!I")


def _peer_is_owner(conn: socket.socket) -> bool:
    cred = getattr(socket, "SO_PEERCRED", None)
    if cred is None:  # (not Linux: the socket's mode and directory guard it)
        return True
    _pid, uid, _gid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, cred, 12))
    return uid == os.getuid()


# -- the spawned `citeloom serve`: hand over, then stand in ---------------------------------
def relay(socket_path: Path, config: str | None = None) -> int | None:
    """Hand this process's stdio to the zygote at ``socket_path`` and wait for the server it
    forks. None when no zygote answers (nothing was handed over: serve here instead)."""
    if os.environ.get(_FORKED_ENV):
        return None  # a process a forked server started: never relay in a loop
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(2.0)
    try:
        conn.connect(str(socket_path))
        umask = os.umask(0o077)
        os.umask(umask)
        body = json.dumps({"config": config, "env": dict(os.environ), "cwd": os.getcwd(),
                           "umask": umask, "python": sys.executable,
                           "version": _version()}).encode()
        sys.stdout.flush()
        socket.send_fds(conn, [_HEADER.pack(len(body)) + body], [0, 1, 2])
    except OSError:
        conn.close()
        return None
    # From here the server may be reading our stdin: there is no way back to serving here.
    try:
        conn.settimeout(30.0)
        reply = json.loads(_read_message(conn))
    except (OSError, ValueError) as exc:
        print(f"citeloom serve: the daemon's MCP zygote did not start a server ({exc}); "
              "run `citeloom daemon stop` and start Claude Desktop again", file=sys.stderr)
        return 1
    finally:
        conn.close()
    if "error" in reply:
        if reply.get("nothing_taken"):  # refused before forking: nobody reads our stdin
            return None
        print(f"citeloom serve: {reply['error']}", file=sys.stderr)
        return 1
    return _stand_in(int(reply["pid"]))


def _stand_in(pid: int) -> int:
    """Forward signals to the server ``pid`` and return when it has ended."""
    def forward(signum: int, _frame: Any) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signum)

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, forward)
    try:
        fd = os.pidfd_open(pid)  # readable once the process has ended (Linux ≥ 5.3)
    except (AttributeError, OSError):
        fd = None
    while True:
        if fd is not None:
            with contextlib.suppress(InterruptedError):
                if select.select([fd], [], [], 3600)[0]:
                    return 0
        else:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return 0
            time.sleep(0.2)


def _version() -> str:
    """This process's code: the installation's fingerprint, not a version string that an
    upgrade or an edited checkout may leave as it was."""
    from citeloom.daemon import install_fingerprint

    return install_fingerprint()


def _read_message(conn: socket.socket) -> bytes:
    head = _recv_exact(conn, _HEADER.size)
    return _recv_exact(conn, _HEADER.unpack(head)[0])


def _recv_exact(conn: socket.socket, n: int) -> bytes:
    out = b""
    while len(out) < n:
        part = conn.recv(n - len(out))
        if not part:
            raise ConnectionError("the connection closed early")
        out += part
    return out


# -- the zygote -------------------------------------------------------------------------------
def _preload() -> None:
    """Import what a server's start and first answers need (not models: the daemon has them)."""
    import citeloom.config  # noqa: F401
    import citeloom.daemon.client  # noqa: F401
    import citeloom.mcp.server  # noqa: F401
    import citeloom.provision  # noqa: F401

    for name in ("anyio.to_thread", "mcp.server.stdio", "tiktoken"):
        with contextlib.suppress(ImportError):
            __import__(name)


def serve_zygote(socket_path: Path, parent: int) -> None:
    """Fork an MCP server for each ``citeloom serve`` that connects, until ``parent`` (the
    daemon) is gone, this process is told to stop, or a ``serve`` of another installation
    connects: that one serves by itself, and this zygote, whose code is now stale, ends (the
    daemon starts a fresh one)."""
    _version()  # the code about to be imported, before it can change
    _preload()
    with contextlib.suppress(FileNotFoundError):
        socket_path.unlink()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o077)
    try:
        listener.bind(str(socket_path))
    finally:
        os.umask(old)
    os.chmod(socket_path, 0o600)
    listener.listen(8)
    listener.settimeout(2.0)
    try:
        while os.getppid() == parent:
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            with conn:
                if _fork_server(listener, conn) == "stale":
                    return
    finally:
        with contextlib.suppress(FileNotFoundError):
            socket_path.unlink()


def _fork_server(listener: socket.socket, conn: socket.socket) -> str | None:
    """Fork a server for the ``serve`` on ``conn``; "stale" when it runs another
    installation's code than this zygote."""
    fds: list[int] = []
    try:
        conn.settimeout(10.0)
        if not _peer_is_owner(conn):
            return None
        msg, fds, _flags, _addr = socket.recv_fds(conn, 1 << 20, 3)
        while len(msg) < _HEADER.size or len(msg) < _HEADER.size + _HEADER.unpack(
                msg[:_HEADER.size])[0]:
            part = conn.recv(1 << 20)
            if not part:
                return None
            msg += part
        request = json.loads(msg[_HEADER.size:])
        if len(fds) != 3:
            conn.sendall(_message({"error": "expected stdin, stdout and stderr",
                                   "nothing_taken": True}))
            return None
        if (request.get("python"), request.get("version")) != (sys.executable, _version()):
            # Another interpreter or installation spawned it: it serves by itself.
            conn.sendall(_message({"error": "another CiteLoom", "nothing_taken": True}))
            return "stale" if request.get("python") == sys.executable else None
        pid = os.fork()
        if pid == 0:  # the first child: fork the server, and go (init reaps the server)
            try:
                if os.fork() == 0:
                    _become_server(listener, conn, request, fds)
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
    except (OSError, ValueError):
        return None
    finally:
        for fd in fds:
            os.close(fd)
    return None


def _message(data: dict[str, Any]) -> bytes:
    body = json.dumps(data).encode()
    return _HEADER.pack(len(body)) + body


def _become_server(listener: socket.socket, conn: socket.socket, request: dict[str, Any],
                   fds: list[int]) -> None:
    """In the forked process: take the spawned process's stdio, environment and directory,
    and serve MCP on stdio as the spawned ``citeloom serve`` would have."""
    code = 1
    try:
        listener.close()
        os.setsid()  # its own session: a signal to the zygote's group does not reach it
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for sig in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.environ.clear()
        os.environ.update(request["env"], **{_FORKED_ENV: "1"})
        os.chdir(request["cwd"])
        os.umask(int(request.get("umask", 0o022)))
        conn.sendall(_message({"pid": os.getpid()}))
        conn.close()
        if request.get("config"):  # (`serve --config`: the server reads $CITELOOM_CONFIG)
            os.environ["CITELOOM_CONFIG"] = request["config"]
        sys.argv = ["citeloom", "serve"]
        from citeloom.mcp.server import serve

        serve("stdio")
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # noqa: BLE001 - on the client's stderr, then out
        import traceback

        traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def main() -> None:
    """``python -m citeloom.mcp.prefork SOCKET PARENT_PID`` (the daemon starts it)."""
    from citeloom.mcp import prefork

    prefork.serve_zygote(Path(sys.argv[1]), int(sys.argv[2]))


if __name__ == "__main__":
    main()
