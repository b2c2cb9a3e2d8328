"""The daemon process: HTTP over a Unix socket (uvicorn + starlette), one ``CiteLoom`` that
owns every index of the data dir, a job manager (one writer per project, queries never
wait for jobs), the folder and Zotero watchers, and an idle timer.

    GET  /health                      pid, data dir, version
    POST /call/<operation>            query, similar, query_many, similar_many,
                                      list_projects, inspect, cite, list_annotations,
                                      check_writable, optimize, snapshot, restore, repair,
                                      list_papers, remove_documents, delete_project
                                      (JSON arguments)
    POST /jobs                        start an ingest, Zotero or reindex job
    GET  /jobs[?project=]             the jobs
    GET  /jobs/<id>?wait=S&seen=N     a job, waiting up to S seconds for news; its file
                                      results after the first N
    POST /jobs/<id>/cancel

Errors are ``{"error": {code, message, hint}}`` with status 400 (a CiteLoom error) or 500.
"""

from __future__ import annotations

import contextlib
import faulthandler
import fcntl
import json
import logging
import os
import signal
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citeloom import __version__
from citeloom.config import Settings
from citeloom.daemon import DaemonPaths, agree, daemon_paths, install_fingerprint
from citeloom.errors import CiteLoomError, IndexUnavailable, InvalidInput, as_error
from citeloom.payload import PASSAGE_CHARS, hit_json
from citeloom.service.api import QueryRequest, SimilarRequest

if TYPE_CHECKING:
    from citeloom.service.app import CiteLoom

log = logging.getLogger("citeloom.daemon")
ZYGOTE_AFTER_S = 5.0  # the MCP zygote starts this long after the daemon (prefork.py)


def operations(app: CiteLoom) -> dict[str, Callable[[dict[str, Any]], Any]]:
    """What a client may call, each taking the JSON arguments and giving a JSON answer."""
    return {
        "query": lambda a: app.query(QueryRequest.from_dict(a)).to_dict(),
        "similar": lambda a: app.similar(SimilarRequest.from_dict(a)).to_dict(),
        "list_projects": lambda a: app.list_projects(),
        "inspect": lambda a: app.inspect(a["project"], a.get("sample", 3)),
        "health": lambda a: app.health(a["project"], a.get("worst")),
        "check": lambda a: app.check(a["text"], a["fmt"], a.get("projects"),
                                     a.get("draft", "draft")),
        "cite": lambda a: app.cite(a["citekeys"], a.get("fmt", "bibtex"), a.get("project")),
        "list_annotations": lambda a: [hit_json(p) for p in app.list_annotations(
            a["project"], a["citekey"], a.get("kinds"), a.get("max_chars", PASSAGE_CHARS))],
        "check_writable": lambda a: app.check_writable(a["project"]),
        "optimize": lambda a: app.optimize(a["project"]),
        "snapshot": lambda a: app.snapshot(a["project"], Path(a["out"])),
        "restore": lambda a: app.restore(Path(a["archive"]), a["project"],
                                         force=a.get("force", False)),
        "repair": lambda a: app.repair(a["project"]),
        "list_papers": lambda a: app.list_papers(a["project"]),
        "remove_documents": lambda a: app.remove_documents(a["project"], a["refs"]),
        "delete_project": lambda a: app.delete_project(a["project"]),
    }


class Daemon:
    def __init__(self, settings: Settings) -> None:
        from citeloom.service import CiteLoom
        from citeloom.service.jobs import JobManager

        self.settings = settings
        self.paths: DaemonPaths = daemon_paths(settings.data_dir)
        # The daemon waits a little for an index an in-process user (a test, `--no-daemon`
        # tooling) has open; its own clients never hold one.
        self.app = CiteLoom(settings, index_wait_s=10.0, started_by="daemon")
        self.jobs = JobManager(self.app)
        self.ops = operations(self.app)
        # What is queued and running shows in the project listings.
        self.ops["list_projects"] = lambda a: [
            {**p, "jobs": self._active(p["project"])} for p in self.app.list_projects()]
        self.ops["inspect"] = lambda a: {**self.app.inspect(a["project"], a.get("sample", 3)),
                                         "jobs": self._active(a["project"])}
        self.ops["validate"] = self._validate
        for op in ("repair", "delete_project", "remove_documents"):  # not under a job
            self.ops[op] = self._not_while_writing(self.ops[op])
        self._view = agree.view(settings)  # what each request's settings must share
        self._reloading = threading.Lock()
        self._stamp = self._config_stamp()
        self.last_call = time.monotonic()
        self.started = time.time()
        self.server: Any = None
        self.watcher: Any = None
        self.zygote: Any = None
        self._zygote_started = 0.0

    # -- HTTP ----------------------------------------------------------------------------
    def asgi(self) -> Any:
        from starlette.applications import Starlette
        from starlette.requests import Request
        from starlette.responses import JSONResponse
        from starlette.routing import Route

        async def run(fn: Callable[[], Any]) -> JSONResponse:
            import anyio

            self.last_call = time.monotonic()
            try:
                result = await anyio.to_thread.run_sync(fn)
                return JSONResponse({"result": result})
            except CiteLoomError as exc:
                return JSONResponse({"error": exc.to_dict()}, status_code=400)
            except Exception as exc:  # noqa: BLE001 - a bug, reported as one
                log.exception("unexpected error")
                return JSONResponse({"error": as_error(exc).to_dict()}, status_code=500)
            finally:
                self.last_call = time.monotonic()

        async def body(request: Request) -> dict[str, Any]:
            raw = await request.body()
            return json.loads(raw) if raw else {}

        async def health(request: Request) -> JSONResponse:
            return await run(lambda: {"pid": os.getpid(), "version": __version__,
                                      "install": install_fingerprint(),
                                      "jobs": len(self.jobs.active()),
                                      "data_dir": str(self.settings.data_dir),
                                      "config": str(self.settings.config_path or ""),
                                      "started": self.started,
                                      "watching": self.watcher.describe()
                                      if self.watcher else []})

        async def call(request: Request) -> JSONResponse:
            name = request.path_params["op"]
            args = await body(request)
            op = self.ops.get(name)
            if op is None:
                return await run(lambda: _raise(InvalidInput(f"no operation {name!r}")))
            return await run(lambda: op(self.agreed(args)))

        async def start_job(request: Request) -> JSONResponse:
            a = await body(request)
            return await run(lambda: self.start_job(self.agreed(a)))

        async def list_jobs(request: Request) -> JSONResponse:
            project = request.query_params.get("project")
            return await run(lambda: self.jobs.for_project(project))

        async def get_job(request: Request) -> JSONResponse:
            wait = min(float(request.query_params.get("wait", 0)), 30.0)
            seen = int(request.query_params.get("seen", -1))
            job_id = request.path_params["job"]
            return await run(lambda: self.follow(job_id, wait, seen))

        async def cancel_job(request: Request) -> JSONResponse:
            job_id = request.path_params["job"]
            return await run(lambda: self._job(self.jobs.cancel(job_id), job_id).to_dict())

        return Starlette(routes=[
            Route("/health", health), Route("/call/{op}", call, methods=["POST"]),
            Route("/jobs", start_job, methods=["POST"]), Route("/jobs", list_jobs),
            Route("/jobs/{job}", get_job), Route("/jobs/{job}/cancel", cancel_job,
                                                 methods=["POST"])])

    def _validate(self, a: dict[str, Any]) -> list[dict[str, Any]]:
        """``citeloom validate``'s index and catalog checks, run here where they are open."""
        from citeloom.service.validate import project_checks

        where = f" (checked in the daemon, process {os.getpid()})"
        return [c.__dict__ for c in project_checks(self.app, self.settings,
                                                   a.get("project"), where)]

    def agreed(self, args: dict[str, Any]) -> dict[str, Any]:
        """``args`` without the command's settings, once they agree with this daemon's
        (``agree.py``); the daemon's own config file is re-read first if it changed."""
        self.refresh()
        command = args.pop(agree.KEY, None)
        agree.check(self._view, command, agree.touched(args))
        return args

    def _not_while_writing(self, op: Callable[[dict[str, Any]], Any]
                           ) -> Callable[[dict[str, Any]], Any]:
        """``op`` refused while a job writes to the project (repair, remove)."""
        def guarded(a: dict[str, Any]) -> Any:
            if self._active(a["project"]):
                raise IndexUnavailable(f"a job is writing to project {a['project']!r}",
                                       "run this again once the job is done "
                                       "(`citeloom projects` shows it)")
            return op(a)

        return guarded

    def _active(self, project: str) -> list[dict[str, Any]]:
        return [j.to_dict() for j in self.jobs.active() if j.project == project]

    def start_job(self, a: dict[str, Any]) -> dict[str, Any]:
        project = self.settings.project(a.get("project"), create=True).name
        kind = a.get("kind", "ingest")
        args = dict(a.get("args") or {})
        args["started_by"] = a.get("started_by", "client")
        if kind != "reindex":
            self.app.check_writable(project)
        return self.jobs.start(project, a.get("source", ""), kind, args).to_dict()

    @staticmethod
    def _job(job: Any, job_id: str) -> Any:
        if job is None:
            raise InvalidInput(f"no job {job_id!r}", "list jobs with list_projects")
        return job

    def follow(self, job_id: str, wait: float, seen: int) -> dict[str, Any]:
        job = self._job(self.jobs.get(job_id), job_id)
        if wait > 0:
            self.jobs.wait(job, wait, seen if seen >= 0 else None)
        out = job.to_dict()
        if seen >= 0:
            out["results"] = job.since(seen)
        return out

    # -- life ------------------------------------------------------------------------------
    def idle(self) -> bool:
        return (not self.jobs.active()
                and time.monotonic() - self.last_call > self.settings.daemon_idle_s)

    def _housekeeping(self) -> None:
        """Stop when idle; optimize and release indexes nobody used for a while (so an
        in-process user can open them)."""
        while self.server is None or not self.server.should_exit:
            time.sleep(1.0)
            self.refresh()
            self._keep_zygote()
            release = self.settings.release_idle_s
            if self.idle():
                log.info("idle: stopping")
                self.server.should_exit = True
                return
            if release > 0:
                busy = {j.project for j in self.jobs.active()}
                with contextlib.suppress(Exception):
                    self.app.release_idle(release, busy)

    def refresh(self) -> None:
        """Reload citeloom.toml if it changed since it was read (at most one thread)."""
        with self._reloading:
            stamp = self._config_stamp()
            if stamp != self._stamp:
                self._stamp = stamp
                self.reload()

    def _config_stamp(self) -> int | None:
        path = self.settings.config_path
        try:
            return path.stat().st_mtime_ns if path else None
        except OSError:
            return None

    def reload(self) -> None:
        """citeloom.toml changed: take its projects (a new watched folder, say) without a
        restart. A file that no longer loads is reported in the log and ignored."""
        from citeloom.config import load_settings

        try:
            new = load_settings(self.settings.config_path)
        except CiteLoomError as exc:
            log.warning("citeloom.toml changed but cannot be used: %s", exc)
            return
        if new.data_dir != self.settings.data_dir:
            log.warning("citeloom.toml now names another data dir; this daemon keeps %s "
                        "until it stops", self.settings.data_dir)
            return
        self.settings = self.app.settings = new
        self._view = agree.view(new)
        self._start_watching()
        log.info("citeloom.toml reloaded")

    def _start_watching(self) -> None:
        if self.watcher is not None:
            self.watcher.stop()
            self.watcher = None
        if any(p.watch for p in self.settings.projects.values()):
            from citeloom.daemon.watch import Watcher

            self.watcher = Watcher(self)
            self.watcher.start()

    def _warm_up(self) -> None:
        """Load the query models now, so the first query does not pay for them."""
        try:
            self.app.warm_up()
        except Exception:  # noqa: BLE001 - reported when a call needs the model
            log.warning("warm-up failed", exc_info=True)

    def _keep_zygote(self) -> None:
        """A zygote that ended (it met a newer installation's `serve`, or crashed) is
        replaced by a fresh one, which imports the code installed now; at most every
        ZYGOTE_AFTER_S * 6 seconds, so one that cannot start does not spin."""
        zygote = self.zygote
        if (zygote is None or zygote.poll() is None
                or time.monotonic() - self._zygote_started < ZYGOTE_AFTER_S * 6):
            return
        log.info("the MCP zygote ended (code %s): starting a fresh one", zygote.returncode)
        self._start_zygote()

    def _start_zygote(self) -> None:
        """The process ``citeloom serve`` hands its stdio to, for a start-up without the
        imports (``prefork.py``). Without it, servers start the slow way: not an error."""
        import subprocess
        import sys

        if not self.settings.mcp_prefork or self.server is None or self.server.should_exit:
            return
        self._zygote_started = time.monotonic()
        try:
            self.zygote = subprocess.Popen(  # noqa: S603 - our own interpreter and module
                [sys.executable, "-m", "citeloom.mcp.prefork", str(self.paths.mcp_socket),
                 str(os.getpid())], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=None)
        except OSError:
            log.warning("the MCP zygote did not start", exc_info=True)

    def serve(self) -> None:
        import uvicorn

        sock = self.paths.socket
        sock.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with contextlib.suppress(FileNotFoundError):
            sock.unlink()  # a dead daemon's: we hold the lock, nobody else serves it
        # Bound here rather than by uvicorn, which would make the socket world-writable.
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(sock))
        os.chmod(sock, 0o600)
        config = uvicorn.Config(self.asgi(), lifespan="off", log_level="warning",
                                access_log=False)
        self.server = uvicorn.Server(config)
        threading.Thread(target=self._housekeeping, name="housekeeping", daemon=True).start()
        threading.Thread(target=self._warm_up, name="warm-up", daemon=True).start()
        self._start_watching()
        # The zygote's imports would compete with the first answers and the warm-up of a
        # daemon just started (the cold start of a Claude window): it starts a little later.
        later = threading.Timer(ZYGOTE_AFTER_S, self._start_zygote)
        later.daemon = True
        later.start()
        try:
            self.server.run(sockets=[listener])
        finally:
            later.cancel()
            if self.zygote is not None:
                self.zygote.terminate()  # (the MCP servers it forked keep running)
                with contextlib.suppress(Exception):
                    self.zygote.wait(timeout=10)
            if self.watcher is not None:
                self.watcher.stop()
            with contextlib.suppress(FileNotFoundError):
                sock.unlink()
            self.paths.pid.unlink(missing_ok=True)
            for job in self.jobs.active():  # finish what was started, then close
                with job.changed:
                    job.changed.wait_for(lambda j=job: j.finished is not None)
            self.app.close()


def _raise(exc: Exception) -> Any:
    raise exc


def run_daemon(settings: Settings) -> int:
    """Run the daemon of ``settings.data_dir`` in this process until it is idle (exit 0),
    or return 0 at once when another daemon already owns the data dir."""
    paths = daemon_paths(settings.data_dir)
    old = os.umask(0o077)  # socket, pid, log, indexes: owner-only
    try:
        paths.data_dir.mkdir(parents=True, exist_ok=True)
        os.chmod(paths.data_dir, 0o700)
        fd = os.open(paths.lock, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            log.info("a daemon already serves %s", paths.data_dir)
            return 0
        paths.pid.write_text(f"{os.getpid()}\n")
        install_fingerprint()  # the code this daemon runs, before the files can change
        # `kill -USR1 PID` prints every thread's stack to daemon.log: a hang explains itself.
        faulthandler.register(signal.SIGUSR1, all_threads=True)
        daemon = Daemon(settings)
        log.info("daemon %d serving %s on %s", os.getpid(), paths.data_dir, paths.socket)
        daemon.serve()
        os.close(fd)
        return 0
    finally:
        os.umask(old)

