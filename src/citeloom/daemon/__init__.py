"""The library daemon: one process owns the indexes of a data dir.

Qdrant Edge shards are single-process, so the CLI and every MCP server (each Claude window
spawns one) are clients of one daemon, over HTTP on a Unix socket in the data dir
(``server.py``; owner-only). The first client that needs it starts it (``client.py``), it
stops after ``[daemon] idle_exit_s`` without calls or jobs, and it watches the folders and
Zotero collections of projects with ``watch = true`` (``watch.py``).

    <data dir>/daemon.sock   the socket (or a short path in /tmp when the data dir's is long)
    <data dir>/daemon.lock   flock'd by the running daemon: one per data dir
    <data dir>/daemon.pid    its pid
    <data dir>/daemon.log    its log
    <data dir>/mcp.sock      the MCP zygote's socket, beside daemon.sock (``prefork.py``)
"""

from __future__ import annotations

import functools
import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

# AF_UNIX paths are limited to 108 bytes on Linux (104 on macOS).
_MAX_SOCKET_PATH = 100


@dataclass(frozen=True)
class DaemonPaths:
    data_dir: Path
    socket: Path
    lock: Path
    pid: Path
    log: Path
    mcp_socket: Path


def daemon_paths(data_dir: Path) -> DaemonPaths:
    data_dir = Path(data_dir).expanduser().absolute()
    socket = data_dir / "daemon.sock"
    if len(str(socket)) > _MAX_SOCKET_PATH:
        key = hashlib.sha256(str(data_dir).encode()).hexdigest()[:16]
        socket = Path(tempfile.gettempdir()) / f"citeloom-{os.getuid()}" / f"{key}.sock"
    mcp = (socket.with_name("mcp.sock") if socket.name == "daemon.sock"
           else socket.with_suffix(".mcp.sock"))
    return DaemonPaths(data_dir, socket, data_dir / "daemon.lock", data_dir / "daemon.pid",
                       data_dir / "daemon.log", mcp)


@functools.cache
def install_fingerprint() -> str:
    """Which code this process runs: a digest of the installed package's Python files (names
    and contents; 7 ms for 87 files). An upgrade, or an edited checkout, changes it even when
    ``__version__`` does not, so a daemon or an MCP zygote started before it is noticed
    (``client.py``, ``prefork.py``). Computed once per process, at its first use: call it
    early in a long-lived process, before the files can change under it."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode() + b"\0")
        try:
            digest.update(path.read_bytes())
        except OSError:  # removed while read: that too is another installation
            digest.update(b"\0missing")
    return digest.hexdigest()[:24]
