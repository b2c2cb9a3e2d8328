"""The process lock of an Edge project: ``<index_dir>/<project>/.lock``, ``flock``-ed by the
one process that uses the project's index, before any call into Edge (loading a shard
another process writes to corrupts it, issue #12). Shared by that process's handles of any
generation, reference-counted, and released when the last one closes or the process dies.
See docs/DECISIONS.md, "Index"."""

from __future__ import annotations

import contextlib
import errno
import itertools
import logging
import os
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from citeloom.errors import IndexUnavailable

_log = logging.getLogger("citeloom.index.edge")

PROCESS_LOCK = ".lock"  # in the project folder: flock-ed by the one process using the index
_POLL_S = 0.1


_HINT_HELD = ("another CiteLoom process holds it. The library daemon holds the indexes it "
              "serves: run the command with the daemon on (the default; [daemon] enabled, "
              "CITELOOM_DAEMON) so it goes through it, or `citeloom daemon stop` first. "
              "A process run without the daemon (an ingest, "
              "an MCP server with [daemon] enabled = false, which lets go after [mcp] "
              "release_idle_s seconds without queries) holds it until it ends: retry then")


class _Held:
    """This process's flock on one project folder's lock file, and who shares it."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.leases: dict[int, str | None] = {}  # lease number -> the generation it claims


_held: dict[Path, _Held] = {}  # project folder (real path) -> this process's lock on it
_held_guard = threading.Lock()
_numbers = itertools.count()
_collected: list[tuple[Path, int]] = []  # leases of handles garbage-collected unclosed


@contextmanager
def _registry() -> Iterator[None]:
    """``_held`` to read or change, after and before dropping the leases of collected
    handles (a collection can run anywhere, even inside this block: see _on_collect)."""
    with _held_guard:
        try:
            _reap()
            yield
        finally:
            _reap()


def _reap() -> None:
    while _collected:
        _drop(*_collected.pop())


def _drop(folder: Path, number: int) -> None:
    """Give up one lease (if held); the last one of a folder closes the fd, unlocking it.
    Call with ``_held_guard`` held."""
    held = _held.get(folder)
    if held is None or number not in held.leases:
        return
    del held.leases[number]
    if not held.leases:
        del _held[folder]
        os.close(held.fd)


def _on_collect(folder: Path, number: int) -> None:
    """A handle dropped without close() lets go when collected, as an Edge shard does. The
    collection may run while this thread holds the guard: then the lease is only queued,
    and dropped when that block ends."""
    _collected.append((folder, number))
    if _held_guard.acquire(blocking=False):
        try:
            _reap()
        finally:
            _held_guard.release()


def _try_flock(path: Path) -> int | None:
    """An fd holding an exclusive flock on ``path``, or None when another process holds it.
    Retries if the file was replaced between open and flock (a project folder removed and
    made again), so the fd always locks the file now at ``path``."""
    import fcntl  # POSIX (Linux, macOS); imported here so the package still imports elsewhere

    path.parent.mkdir(parents=True, exist_ok=True)
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                return None
            raise
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(path))
        except FileNotFoundError:
            same = False
        if same:
            pid = f"{os.getpid()}\n".encode()  # who holds it, for the error message only:
            with contextlib.suppress(OSError):  # a full disk may refuse it
                os.pwrite(fd, pid, 0)
                os.ftruncate(fd, len(pid))
            return fd
        os.close(fd)


def _holder(path: Path) -> str:
    """Who holds the lock, as far as this system says: the process and what it runs."""
    try:
        pid = path.read_text().strip()
    except OSError:
        pid = ""
    if not pid.isdigit():
        return "another process"
    try:  # Linux: what that process runs
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return f"process {pid}"
    words = [a.decode(errors="replace") for a in argv]
    if "daemon" in words and "run" in words:
        return f"process {pid}, the CiteLoom daemon of this data dir"
    if "serve" in words:
        return f"process {pid}, a CiteLoom MCP server"
    return f"process {pid}"


class Lease:
    """One holder's share of this process's lock on a project folder, optionally claiming
    one generation (which no other lease in the process may claim meanwhile).

    The first lease of a project in a process takes the flock; the last one released
    closes the fd, which lets other processes in. Taking a lease never calls into Edge."""

    def __init__(self, project_dir: Path, project: str, generation: str | None,
                 wait_s: float) -> None:
        self.dir = Path(os.path.realpath(project_dir))  # one key per folder, however spelt
        self.path = self.dir / PROCESS_LOCK
        self.project = project
        self.generation = generation
        self.wait_s = wait_s
        self.held = False
        self._warned = False
        self._number = next(_numbers)
        weakref.finalize(self, _on_collect, self.dir, self._number)

    def wait(self, deadline: float, why: str) -> None:
        """Sleep a poll interval, or raise IndexUnavailable once ``deadline`` has passed."""
        if time.monotonic() >= deadline:
            raise IndexUnavailable(
                f"cannot open the index of project {self.project!r}: {why}", _HINT_HELD)
        if not self._warned:
            _log.warning("the index of project %r is open in another process "
                         "(the MCP server lets go of it when idle); waiting "
                         "up to %.0f s", self.project, self.wait_s)
            self._warned = True
        time.sleep(_POLL_S)

    def acquire(self, deadline: float | None = None) -> None:
        """Hold the lease, waiting until ``deadline`` (default: ``wait_s`` from now)."""
        if deadline is None:
            deadline = time.monotonic() + self.wait_s
        while not self._try():
            held_here = self.dir in _held
            self.wait(deadline, f"generation {self.generation} is already open in this "
                                "process" if held_here else
                                f"it is open in {_holder(self.path)} (lock file {self.path})")

    def _try(self) -> bool:
        with _registry():
            if self.held:
                return True
            held = _held.get(self.dir)
            if held is None:
                try:
                    fd = _try_flock(self.path)
                except OSError as exc:
                    raise IndexUnavailable(
                        f"cannot lock the index of project {self.project!r}: {exc}",
                        f"check that {self.dir} is writable") from None
                if fd is None:
                    return False
                held = _held[self.dir] = _Held(fd)
            if self.generation is not None and self.generation in held.leases.values():
                return False
            held.leases[self._number] = self.generation
            self.held = True
            return True

    def release(self) -> None:
        with _registry():
            _drop(self.dir, self._number)
            self.held = False


def claimed(project_dir: Path) -> set[str]:
    """The generations of a project that this process has open (or is building)."""
    with _registry():
        held = _held.get(Path(os.path.realpath(project_dir)))
        return {g for g in held.leases.values() if g} if held else set()
