"""Ingest jobs: long ingests run in a thread of the process that owns the indexes (the
daemon, or an in-process MCP server), so the caller answers at once with a job id, queries
keep answering from the same open index, and a caller that goes away does not stop the work.

One writer per project: a job waits (``queued``) while another job writes to its project,
and runs when that one ends; queries never wait for jobs. A job keeps each file's result as
it comes, so a follower (the CLI's progress bar) can stream them with :meth:`Job.since`.

Job threads are not daemons: when the server's main loop ends the process stays until the
running jobs are done. An interrupted job is safe to re-run: the catalog makes the ingest
resume where it stopped.
"""

from __future__ import annotations

import threading
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from citeloom.errors import InvalidInput, as_error
from citeloom.report import PLANNED, Tally
from citeloom.service import CiteLoom, FileResult, IngestReport

JobState = Literal["queued", "running", "done", "failed", "cancelled"]
JobKind = Literal["ingest", "zotero", "reindex"]


class Cancelled(Exception):
    """Raised inside a job between two files when it was asked to stop."""


@dataclass
class Job:
    id: str
    project: str
    source: str
    kind: JobKind = "ingest"
    state: JobState = "queued"
    total: int | None = None
    done: int = 0
    current: str = ""
    started: float = field(default_factory=time.time)
    finished: float | None = None
    report: dict[str, Any] | None = None
    error: dict[str, str] | None = None
    results: list[dict[str, Any]] = field(default_factory=list, repr=False)
    tally: Tally = field(default_factory=Tally, repr=False)  # pages/s and time left
    cancel: threading.Event = field(default_factory=threading.Event, repr=False)
    changed: threading.Condition = field(default_factory=threading.Condition, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "job_id": self.id, "project": self.project, "source": self.source,
            "kind": self.kind, "state": self.state, "files_done": self.done,
            "files_total": self.total, "current": self.current, "started": self.started,
            "finished": self.finished, "report": self.report, "error": self.error,
            **self.tally.to_dict(),
        }

    def since(self, n: int) -> list[dict[str, Any]]:
        """The file results after the first ``n``."""
        with self.changed:
            return list(self.results[n:])


class JobManager:
    def __init__(self, app: CiteLoom) -> None:
        self.app = app
        self.jobs: dict[str, Job] = {}
        self._lock = threading.Lock()
        self._writers: dict[str, threading.Lock] = {}  # one writer per project

    def start(self, project: str, source: str, kind: JobKind = "ingest",
              args: dict[str, Any] | None = None) -> Job:
        """Run a job: ``ingest`` (``paths``, ``prune``), ``zotero`` (``collection``,
        ``include_subcollections``, ``tags_include``, ``tags_exclude``, ``annotations``) or
        ``reindex``; each may carry ``workers`` or ``ray`` (the executor)."""
        if kind not in ("ingest", "zotero", "reindex"):
            raise InvalidInput(f"unknown job kind {kind!r}", "use ingest, zotero or reindex")
        job = Job(id=uuid.uuid4().hex[:12], project=project, source=source, kind=kind)
        with self._lock:
            self.jobs[job.id] = job
            writer = self._writers.setdefault(project, threading.Lock())
        thread = threading.Thread(target=self._run, args=(job, writer, dict(args or {})),
                                  name=f"ingest-{job.id}", daemon=False)
        thread.start()
        return job

    def _run(self, job: Job, writer: threading.Lock, args: dict[str, Any]) -> None:
        def progress(event: str, result: FileResult | None) -> None:
            with job.changed:
                job.tally.event(event, result)
                if event.startswith("start:"):
                    job.total = int(event.split(":")[1])
                elif result is not None:
                    job.done += 1
                    job.current = Path(result.path).name
                    # the pages the plan counted for it ride along for a follower's tally
                    job.results.append({**asdict(result), PLANNED: event.partition(":")[2]})
                job.changed.notify_all()
            if job.cancel.is_set():
                raise Cancelled

        try:
            with writer:
                if job.cancel.is_set():
                    raise Cancelled
                with job.changed:
                    job.state = "running"
                    job.changed.notify_all()
                report = self._work(job, args, progress)
            job.report, job.state = report.to_dict(), "done"
        except Cancelled:
            job.state = "cancelled"
        except Exception as exc:  # reported in the job, never raised into the server
            job.state = "failed"
            job.error = as_error(exc).to_dict()
        finally:
            with job.changed:
                job.finished = time.time()
                job.changed.notify_all()

    def _work(self, job: Job, args: dict[str, Any], progress: Any) -> IngestReport:
        # No optimize() here: Edge's holds the GIL and would stall every query answered
        # meanwhile; the owner optimizes once the project is idle (release_idle).
        by = args.pop("started_by", None)
        # The executor the caller asked for (--workers, --ray), else the owner's defaults.
        scale = {"workers": args.pop("workers", None), "ray": args.pop("ray", None)}
        if job.kind == "zotero":
            return self.app.ingest_zotero(job.project, progress=progress, optimize=False,
                                          started_by=by, **scale, **args)
        if job.kind == "reindex":
            return self.app.reindex(job.project, progress=progress, started_by=by,
                                    dense_model=args.get("dense_model"), **scale)
        return self.app.ingest([Path(p) for p in args.get("paths", [])], job.project,
                               progress=progress, prune=bool(args.get("prune")),
                               optimize=False, started_by=by, **scale)

    def get(self, job_id: str) -> Job | None:
        return self.jobs.get(job_id)

    def cancel(self, job_id: str) -> Job | None:
        job = self.jobs.get(job_id)
        if job is not None:
            job.cancel.set()
        return job

    def wait(self, job: Job, seconds: float, seen: int | None = None) -> None:
        """Block until the job changes (finishes, or has more than ``seen`` file results
        when given) or ``seconds`` pass."""
        with job.changed:
            job.changed.wait_for(
                lambda: job.finished is not None
                or (seen is not None and len(job.results) > seen), timeout=seconds)

    def active(self) -> list[Job]:
        return [j for j in self.jobs.values() if j.finished is None]

    def for_project(self, project: str | None = None) -> list[dict[str, Any]]:
        return [j.to_dict() for j in self.jobs.values()
                if project is None or j.project == project]


class LocalJobs:
    """The job manager as plain dicts: the face the MCP server uses, the same as the
    daemon's (``daemon.client.RemoteJobs``)."""

    def __init__(self, manager: JobManager, started_by: str) -> None:
        self.manager = manager
        self.started_by = started_by

    def start(self, project: str, source: str, kind: JobKind = "ingest",
              args: dict[str, Any] | None = None) -> dict[str, Any]:
        args = {**(args or {}), "started_by": self.started_by}
        return self.manager.start(project, source, kind, args).to_dict()

    def _job(self, job_id: str) -> Job:
        job = self.manager.get(job_id)
        if job is None:
            raise InvalidInput(f"no job {job_id!r}", "list jobs with list_projects")
        return job

    def get(self, job_id: str, wait: float = 0.0, seen: int = -1) -> dict[str, Any]:
        job = self._job(job_id)
        if wait > 0:
            self.manager.wait(job, wait, seen if seen >= 0 else None)
        return {**job.to_dict(), **({"results": job.since(seen)} if seen >= 0 else {})}

    def cancel(self, job_id: str) -> dict[str, Any]:
        job = self._job(job_id)
        job.cancel.set()
        return job.to_dict()

    def for_project(self, project: str | None = None) -> list[dict[str, Any]]:
        return self.manager.for_project(project)
