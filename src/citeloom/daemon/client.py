"""A client of the library daemon, with the service's own face: :class:`RemoteCiteLoom` has
the methods the CLI and the MCP server call on ``service.CiteLoom`` (query, ingest, …), so
the shells do not care which one they hold. The first call starts the daemon when none
answers (the way ssh-agent or a build server is started), and an ingest is a job in the
daemon that the client follows, reporting each file as it is done."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citeloom.config import Settings
from citeloom.daemon import DaemonPaths, agree, daemon_paths, install_fingerprint
from citeloom.errors import CiteLoomError, IndexUnavailable, from_dict
from citeloom.payload import PASSAGE_CHARS, Passage
from citeloom.report import PLANNED, FileResult, IngestReport

if TYPE_CHECKING:
    from citeloom.search.query import QueryResult, SimilarResult
    from citeloom.service.api import Library, QueryRequest, SimilarRequest

START_TIMEOUT_S = 60.0  # a cold start imports the service: seconds on a slow machine


class DaemonClient:
    """HTTP over the daemon's Unix socket."""

    def __init__(self, settings: Settings, *, spawn: bool = True) -> None:
        import httpx

        self.settings = settings
        self.paths: DaemonPaths = daemon_paths(settings.data_dir)
        self.spawn = spawn
        self._view: dict[str, Any] | None = None
        self._install_checked = False
        self._http = httpx.Client(transport=httpx.HTTPTransport(uds=str(self.paths.socket)),
                                  base_url="http://citeloom.daemon", timeout=None)

    def close(self) -> None:
        self._http.close()

    def agreeing(self, payload: dict[str, Any]) -> dict[str, Any]:
        """``payload`` with this command's settings, which the daemon checks against its
        own (``agree.py``)."""
        if self._view is None:
            self._view = agree.view(self.settings)
        return {**payload, agree.KEY: self._view}

    def _send(self, method: str, url: str, **kw: Any) -> Any:
        import httpx

        if self.spawn and not self._install_checked:
            self._install_checked = True
            self._same_install()
        try:
            response = self._http.request(method, url, **kw)
        except (httpx.ConnectError, httpx.RemoteProtocolError, FileNotFoundError):
            if not self.spawn:
                raise IndexUnavailable("the CiteLoom daemon is not running",
                                       "run any citeloom command to start it") from None
            self.start()
            response = self._http.request(method, url, **kw)
        data = response.json()
        if "error" in data:
            raise from_dict(data["error"])
        return data["result"]

    def get(self, url: str, **params: Any) -> Any:
        return self._send("GET", url, params=params)

    def post(self, url: str, payload: dict[str, Any] | None = None) -> Any:
        return self._send("POST", url, json=payload or {})

    def health(self) -> dict[str, Any] | None:
        """The daemon's health, or None when none answers (nothing is started)."""
        import httpx

        try:
            data = self._http.get("/health", timeout=5.0).json()
        except (httpx.HTTPError, FileNotFoundError, ValueError):
            return None
        return data.get("result")

    def _same_install(self) -> None:
        """A daemon that runs another installation's code (CiteLoom was upgraded, or the
        checkout edited, since it started) is stopped if it has no job running, so that
        this command, and the MCP windows after it, are served by today's code; with a job
        running it serves on, and stops when idle."""
        import signal

        health = self.health()
        if not health or health.get("install") == install_fingerprint() or health.get("jobs"):
            return
        with contextlib.suppress(ProcessLookupError, KeyError, ValueError):
            os.kill(int(health["pid"]), signal.SIGTERM)
        deadline = time.monotonic() + 30
        while self.health() is not None and time.monotonic() < deadline:
            time.sleep(0.1)

    def start(self) -> None:
        """Start a daemon for this data dir (if two clients race, one daemon wins the
        lock and the other exits) and wait until it answers."""
        self.paths.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        env = dict(os.environ)
        if self.settings.config_path:
            env["CITELOOM_CONFIG"] = str(self.settings.config_path)
        env["CITELOOM_DATA_DIR"] = str(self.paths.data_dir)
        env["CITELOOM_MODELS_DIR"] = str(self.settings.models_dir)

        def spawn() -> subprocess.Popen:
            fd = os.open(self.paths.log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            with os.fdopen(fd, "ab") as log:
                return subprocess.Popen(  # noqa: S603 - our own interpreter and module
                    [sys.executable, "-m", "citeloom.cli", "daemon", "run"], env=env,
                    stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)

        proc = spawn()
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.health() is not None:
                return
            code = proc.poll()
            if code not in (None, 0):
                break
            if code == 0:  # the lock was held: by a daemon starting, or one still stopping
                time.sleep(0.5)
                if self.health() is None:
                    proc = spawn()
                continue
            time.sleep(0.05)
        raise IndexUnavailable(f"the CiteLoom daemon did not start (log: {self.paths.log})",
                               "read the log; `citeloom validate` checks the installation")


class RemoteJobs:
    """The daemon's jobs, as plain dicts (``jobs.Job.to_dict()``)."""

    def __init__(self, client: DaemonClient, started_by: str) -> None:
        self.client = client
        self.started_by = started_by

    def start(self, project: str, source: str, kind: str = "ingest",
              args: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.client.post("/jobs", self.client.agreeing({
            "project": project, "source": source, "kind": kind, "args": args or {},
            "started_by": self.started_by}))

    def get(self, job_id: str, wait: float = 0.0, seen: int = -1) -> dict[str, Any]:
        return self.client.get(f"/jobs/{job_id}", wait=wait, seen=seen)

    def cancel(self, job_id: str) -> dict[str, Any]:
        return self.client.post(f"/jobs/{job_id}/cancel")

    def for_project(self, project: str | None = None) -> list[dict[str, Any]]:
        return self.client.get("/jobs", **({"project": project} if project else {}))


class RemoteCiteLoom:
    """``service.CiteLoom``'s operations, carried out by the daemon."""

    def __init__(self, settings: Settings, *, started_by: str = "cli",
                 spawn: bool = True) -> None:
        self.settings = settings
        self.client = DaemonClient(settings, spawn=spawn)
        self.jobs = RemoteJobs(self.client, started_by)

    def close(self) -> None:
        self.client.close()

    def _call(self, op: str, **args: Any) -> Any:
        return self.client.post(f"/call/{op}", self.client.agreeing(args))

    # -- queries and the library ----------------------------------------------------------
    def query(self, request: QueryRequest) -> QueryResult:
        from citeloom.search.query import QueryResult

        return QueryResult.from_dict(self._call("query", **self._named(request.to_dict())))

    def similar(self, request: SimilarRequest) -> SimilarResult:
        from citeloom.search.query import SimilarResult

        return SimilarResult.from_dict(self._call("similar", **self._named(request.to_dict())))

    def _named(self, request: dict[str, Any]) -> dict[str, Any]:
        """A request whose one project is named as this command's settings name it (the
        default project when none is given)."""
        if not (request["projects"] is not None or request["all_projects"]):
            request["project"] = self._name(request["project"])
        return request

    def snapshot(self, project_name: str | None, out: Path) -> dict[str, Any]:
        return self._call("snapshot", project=self._name(project_name),
                          out=str(Path(out).expanduser().absolute()))

    def restore(self, archive: Path, project_name: str | None, *,
                force: bool = False) -> dict[str, Any]:
        return self._call("restore", archive=str(Path(archive).expanduser().absolute()),
                          project=self._name(project_name), force=force)

    def list_projects(self) -> list[dict[str, Any]]:
        return self._call("list_projects")

    def health(self, project_name: str | None, worst: int | None = None) -> dict[str, Any]:
        return self._call("health", project=self._name(project_name), worst=worst)

    def check(self, text: str, fmt: str, projects: list[str] | None = None,
              draft: str = "draft") -> dict[str, Any]:
        return self._call("check", text=text, fmt=fmt, projects=projects, draft=draft)

    def inspect(self, project_name: str | None, sample: int = 3) -> dict[str, Any]:
        return self._call("inspect", project=self._name(project_name), sample=sample)

    def cite(self, citekeys: list[str], fmt: str = "bibtex",
             project_name: str | None = None) -> str:
        return self._call("cite", citekeys=citekeys, fmt=fmt, project=project_name)

    def list_annotations(self, project_name: str | None, citekey: str,
                         kinds: list[str] | None = None, max_chars: int = PASSAGE_CHARS
                         ) -> list[Passage]:
        hits = self._call("list_annotations", project=self._name(project_name),
                          citekey=citekey, kinds=kinds, max_chars=max_chars)
        return [Passage(**h) for h in hits]

    def check_writable(self, project_name: str) -> None:
        self._call("check_writable", project=self._name(project_name))

    def optimize(self, project_name: str | None) -> float:
        return self._call("optimize", project=self._name(project_name))

    def repair(self, project_name: str | None) -> dict[str, Any]:
        return self._call("repair", project=self._name(project_name))

    def list_papers(self, project_name: str | None) -> list[dict[str, Any]]:
        return self._call("list_papers", project=self._name(project_name))

    def remove_documents(self, project_name: str | None, refs: list[str]) -> dict[str, Any]:
        # A path is resolved here, where the user typed it (the daemon's cwd differs).
        return self._call("remove_documents", project=self._name(project_name), refs=[
            str(Path(r).expanduser().absolute()) if os.sep in r else r for r in refs])

    def delete_project(self, name: str) -> dict[str, Any]:
        return self._call("delete_project", project=self._name(name))

    def _scale(self, workers: int | None, ray: str | None) -> dict[str, Any]:
        """The executor options for the job spec: the command's workers (its flag, else its
        [defaults] workers) and Ray address; the daemon runs the pool or the Ray driver in
        its job thread, and options left out get its configured defaults."""
        workers = workers if workers is not None else self.settings.workers
        return {k: v for k, v in (("workers", workers), ("ray", ray)) if v is not None}

    def _name(self, project_name: str | None) -> str:
        return self.settings.project(project_name, create=True).name

    # -- ingest: jobs in the daemon, followed here ----------------------------------------
    def ingest(self, paths: list[Path], project_name: str | None, progress: Any = None,
               prune: bool = False, optimize: bool = True, workers: int | None = None,
               ray: str | None = None) -> IngestReport:
        files = [str(Path(p).expanduser().absolute()) for p in paths]
        return self._job(project_name, ", ".join(files), "ingest",
                         {"paths": files, "prune": prune,
                          **self._scale(workers, ray)}, progress)

    def ingest_zotero(self, project_name: str | None, collection: str | None, *,
                      include_subcollections: bool = False,
                      tags_include: list[str] | None = None,
                      tags_exclude: list[str] | None = None, annotations: bool = True,
                      progress: Any = None, optimize: bool = True, workers: int | None = None,
                      ray: str | None = None) -> IngestReport:
        args = {"collection": collection, "include_subcollections": include_subcollections,
                "tags_include": tags_include or [], "tags_exclude": tags_exclude or [],
                "annotations": annotations, **self._scale(workers, ray)}
        return self._job(project_name, f"zotero:{collection or 'library'}", "zotero", args,
                         progress)

    def reindex(self, project_name: str | None, progress: Any = None,
                workers: int | None = None, ray: str | None = None,
                dense_model: str | None = None) -> IngestReport:
        args = {**self._scale(workers, ray),
                **({"dense_model": dense_model} if dense_model else {})}
        return self._job(project_name, "reindex", "reindex", args, progress)

    def _job(self, project_name: str | None, source: str, kind: str, args: dict[str, Any],
             progress: Any) -> IngestReport:
        job = self.jobs.start(self._name(project_name), source, kind, args)
        seen, announced = 0, False
        try:
            while True:
                try:
                    state = self.jobs.get(job["job_id"], wait=1.0, seen=seen)
                except CiteLoomError as exc:  # a new daemon does not know the job
                    if exc.code == "INVALID_INPUT" and "no job" in exc.message:
                        raise IndexUnavailable(
                            "the CiteLoom daemon stopped while the job ran",
                            "re-run the same command: the files already indexed are "
                            "kept and skipped") from None
                    raise
                if progress and not announced and state["files_total"] is not None:
                    progress(f"start:{state['files_total']}:{state.get('pages_total') or 0}",
                             None)
                    announced = True
                for r in state.get("results", []):
                    seen += 1
                    planned = r.pop(PLANNED, "")
                    if progress:
                        progress(f"file:{planned}", FileResult(**r))
                if state["finished"] is not None:
                    break
        except KeyboardInterrupt:  # stop the job after its current file, then stop here
            with contextlib.suppress(Exception):
                self.jobs.cancel(job["job_id"])
            raise
        if state["state"] == "failed":
            raise from_dict(state["error"])
        if state["state"] == "cancelled":
            raise KeyboardInterrupt
        return IngestReport.from_dict(state["report"])


def connect(settings: Settings, *, started_by: str, index_wait_s: float) -> Library:
    """The service a shell talks to, decided in one place: the library daemon's (a client;
    the daemon is started when none runs), or with ``[daemon] enabled = false`` one in this
    process, which waits ``index_wait_s`` for an index another process has open."""
    if settings.daemon:
        return RemoteCiteLoom(settings, started_by=started_by)
    from citeloom.service import CiteLoom

    return CiteLoom(settings, index_wait_s=index_wait_s, started_by=started_by)
