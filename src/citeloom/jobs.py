"""Ingest jobs for the MCP server: long ingests run in a thread of the server process, so
the tool answers at once with a job id, queries keep answering from the same open index,
and a client that goes away does not stop the work.

Job threads are not daemons: when the client closes stdin the server's main loop ends, and
the process stays until the running jobs are done. An interrupted job is safe to re-run:
the catalog makes the ingest resume where it stopped.
"""

from __future__ import annotations

import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .errors import as_error
from .service import CiteLoom, FileResult, IngestReport

JobState = Literal["running", "done", "failed", "cancelled"]


class Cancelled(Exception):
    """Raised inside a job between two files when it was asked to stop."""


@dataclass
class Job:
    id: str
    project: str
    source: str
    state: JobState = "running"
    total: int | None = None
    done: int = 0
    current: str = ""
    started: float = field(default_factory=time.time)
    finished: float | None = None
    report: dict[str, Any] | None = None
    error: dict[str, str] | None = None
    cancel: threading.Event = field(default_factory=threading.Event, repr=False)
    changed: threading.Condition = field(default_factory=threading.Condition, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "job_id": self.id, "project": self.project, "source": self.source,
            "state": self.state, "files_done": self.done, "files_total": self.total,
            "current": self.current, "started": self.started, "finished": self.finished,
            "report": self.report, "error": self.error,
        }


class JobManager:
    def __init__(self, app: CiteLoom) -> None:
        self.app = app
        self.jobs: dict[str, Job] = {}
        self._lock = threading.Lock()

    def start(self, project: str, source: str, paths: list[Path], prune: bool = False,
              zotero: dict[str, Any] | None = None) -> Job:
        """Run an ingest of ``paths`` (or, with ``zotero``, of a Zotero collection)."""
        job = Job(id=uuid.uuid4().hex[:12], project=project, source=source)
        with self._lock:
            self.jobs[job.id] = job
        thread = threading.Thread(target=self._run, args=(job, paths, prune, zotero),
                                  name=f"ingest-{job.id}", daemon=False)
        thread.start()
        return job

    def _run(self, job: Job, paths: list[Path], prune: bool,
             zotero: dict[str, Any] | None) -> None:
        def progress(event: str, result: FileResult | None) -> None:
            with job.changed:
                if event.startswith("start:"):
                    job.total = int(event.split(":")[1])
                elif result is not None:
                    job.done += 1
                    job.current = Path(result.path).name
                job.changed.notify_all()
            if job.cancel.is_set():
                raise Cancelled

        try:
            report: IngestReport = (
                # No optimize() here: Edge's holds the GIL and would stall every query the
                # server answers meanwhile; the server optimizes once the project is idle.
                self.app.ingest_zotero(job.project, progress=progress, optimize=False, **zotero)
                if zotero else self.app.ingest(paths, job.project, progress=progress,
                                               prune=prune, optimize=False))
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

    def get(self, job_id: str) -> Job | None:
        return self.jobs.get(job_id)

    def wait(self, job: Job, seconds: float) -> None:
        """Block until the job changes state or ``seconds`` pass."""
        with job.changed:
            if job.finished is None:
                job.changed.wait(timeout=seconds)

    def for_project(self, project: str | None = None) -> list[dict[str, Any]]:
        return [j.to_dict() for j in self.jobs.values()
                if project is None or j.project == project]
