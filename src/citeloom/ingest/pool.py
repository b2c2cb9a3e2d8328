"""A local pool of worker processes: ``citeloom ingest --workers N``.

Each worker is a process of its own that converts, restructures, chunks and embeds whole
documents (``tasks.run_task``), loading Docling and the models once. The driver — the
pipeline's process, the one writer of the project — hands a job to each idle worker, keeps
a deadline per worker (the project's ``conversion_timeout_s``, as for the in-process
worker) and writes each document as soon as it is ready, so the workers never wait for the
index. A worker past its deadline is killed; a worker that dies (a native crash, the OOM
killer) takes only its own document with it: that document fails with the reason, and a
fresh worker takes the next job.

Outcomes come back in the order documents finish, not the order they were listed; nothing
written depends on that order (chunk ids come from the document and the chunk's place in
it). Workers are started as jobs need them (a one-file ingest starts one) and stopped when
the run ends.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import TYPE_CHECKING, Any

from citeloom.errors import ConversionFailed
from citeloom.ingest.executor import Executor, Job, Outcome
from citeloom.ingest.tasks import Done, Task, finish, to_task
from citeloom.report import FileResult
from citeloom.system import long_document, peak_rss_mb, trim_heap, worker_context, worn

if TYPE_CHECKING:
    from citeloom.config import ProjectConfig
    from citeloom.runtime import Runtime

#: Peak resident memory of one worker converting a text PDF, models loaded, measured on
#: the benchmark set (docs/BENCHMARKS.md, "Scale"); the default rule keeps this much free
#: per worker.
PEAK_WORKER_MB = 1200
#: Left for the driver (the writer, its models for reading back, the index) and the rest.
RESERVED_MB = 1500


def available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def available_memory_mb() -> int:
    """MemAvailable from /proc/meminfo (what can be used without swapping)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    return 4096


def default_workers(cores: int | None = None, memory_mb: int | None = None) -> int:
    """Workers when none are asked for: one per two cores (each runs two threads), and no
    more than the memory holds at :data:`PEAK_WORKER_MB` each after :data:`RESERVED_MB`;
    at least one. On two cores that is one, the in-process path: two workers were 7-9 %
    faster there for 45 % more memory, and the in-process worker stays loaded between a
    daemon's jobs (docs/DECISIONS.md, docs/BENCHMARKS.md)."""
    cores = available_cores() if cores is None else cores
    memory_mb = available_memory_mb() if memory_mb is None else memory_mb
    by_memory = (memory_mb - RESERVED_MB) // PEAK_WORKER_MB
    return max(1, min(cores // 2, by_memory))


def threads_per_worker(workers: int, threads: int, cores: int | None = None) -> int:
    """The threads each worker's models use: the configured ``threads``, but no more than
    the worker's share of the cores (more would only make them fight)."""
    cores = available_cores() if cores is None else cores
    return max(1, min(threads, cores // max(1, workers)))


def _serve(conn: Connection, models_dir: str, threads: int, cache_dir: str) -> None:
    """A worker's loop: tasks in, ``Done`` out, until the driver sends None."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the driver decides when to stop
    from citeloom.ingest.tasks import WorkerSide, run_task

    side = WorkerSide(models_dir, threads, cache_dir=cache_dir)
    while True:
        try:
            message = conn.recv()
        except EOFError:
            return
        if message is None:
            return
        task, project = message
        done = run_task(task, project, side)
        conn.send(done)
        del done
        trim_heap()  # what the document left allocated and freed goes back


@dataclass
class _Slot:
    proc: Any
    conn: Connection
    job: Job | None = None
    deadline: float = 0.0
    limit_s: float = 0.0  # the job's allowance (convert.worker.deadline_s)
    peak_rss_mb: float = 0.0
    documents: int = 0  # done by this process


class Pool(Executor):
    """``workers`` processes, each with its own deadline and crash isolation."""

    def __init__(self, rt: Runtime, workers: int) -> None:
        self.rt = rt
        self.workers = workers
        self.threads = threads_per_worker(workers, rt.settings.threads)
        self.name = f"{workers} worker processes ({self.threads} threads each)"
        self.peak_rss_mb: float = 0.0  # the largest worker's, for the benchmark
        self.replaced = 0  # workers let go for their age or memory, or before a long document
        self.seconds: dict[str, float] = {}  # workers' time converting, preparing in all
        self._slots: list[_Slot] = []
        self._more, self._keys = True, 0  # jobs left to take; tasks sent

    def _start(self) -> _Slot:
        ctx = worker_context()
        parent, child = ctx.Pipe()
        settings = self.rt.settings
        proc = ctx.Process(target=_serve, args=(child, str(settings.models_dir), self.threads,
                                                str(settings.cache_root)),
                           name="citeloom-prepare", daemon=True)
        proc.start()
        child.close()
        slot = _Slot(proc, parent)
        self._slots.append(slot)
        return slot

    def _stop(self, slot: _Slot, *, kill: bool = False) -> None:
        self._note_rss(slot)
        if not kill and slot.proc.is_alive():
            with contextlib.suppress(OSError):
                slot.conn.send(None)
            slot.proc.join(2)
        if slot.proc.is_alive():
            slot.proc.kill()
            slot.proc.join(5)
        slot.conn.close()
        if slot in self._slots:
            self._slots.remove(slot)

    def _note_rss(self, slot: _Slot, *reported: float) -> None:
        """Peak RSS of a live worker (VmHWM), kept for the benchmark's figures, with the
        peaks it reported for its last document (it starts VmHWM again for each step)."""
        rss = max([peak_rss_mb(slot.proc.pid), *reported])
        slot.peak_rss_mb = max(slot.peak_rss_mb, rss)
        self.peak_rss_mb = max(self.peak_rss_mb, rss)

    def run(self, work: Iterable[Job | FileResult], project: ProjectConfig
            ) -> Iterator[Outcome | FileResult]:
        jobs = iter(work)
        self._more, self._keys = True, 0
        try:
            while True:
                yield from self._fill(jobs, project)
                busy = [s for s in self._slots if s.job is not None]
                if not busy:
                    if self._more:
                        continue
                    return
                ready = wait([s.conn for s in busy], timeout=0.5)
                finished: list[Outcome] = []
                for slot in busy:
                    if slot.conn in ready:
                        finished.extend(self._receive(slot, project))
                    elif not slot.proc.is_alive() or time.monotonic() > slot.deadline:
                        finished.append(self._lost(slot, project))
                # The freed workers start on their next documents before these are written.
                yield from self._fill(jobs, project)
                yield from finished
        finally:
            for slot in list(self._slots):
                self._stop(slot)

    def _fill(self, jobs: Iterator[Job | FileResult], project: ProjectConfig
              ) -> Iterator[Outcome | FileResult]:
        """Give every idle worker a job, starting workers as jobs need them (up to N)."""
        while self._more:
            slot = next((s for s in self._slots if s.job is None), None)
            if slot is not None and not slot.proc.is_alive():  # died while idle
                self._stop(slot, kill=True)
                slot = None
            if slot is None and len(self._slots) >= self.workers:
                return
            try:
                job = next(jobs)  # DISK_FULL raised in planning stops the run
            except StopIteration:
                self._more = False
                return
            if isinstance(job, FileResult):
                yield job
                continue
            self._keys += 1
            try:
                task = to_task(self._keys, job, self.rt, project, ship=False)
            except OSError as exc:
                yield job, ConversionFailed(f"{job.unit.label}: {exc}",
                                            "check the file, then ingest again")
                continue
            if (slot is not None and slot.documents and task.cached is None
                    and long_document(job.unit.path, project.pdf_password_text)):
                self._stop(slot)  # a long document starts on a fresh worker
                self.replaced += 1
                slot = None
            yield from self._send(slot or self._start(), task, job, project)

    def _send(self, slot: _Slot, task: Task, job: Job, project: ProjectConfig
              ) -> Iterator[Outcome]:
        from citeloom.convert.worker import deadline_s

        slot.job, slot.limit_s = job, deadline_s(job.unit.path, project)
        slot.deadline = time.monotonic() + slot.limit_s
        try:
            slot.conn.send((task, project))
        except OSError:  # died since its last document: a fresh one takes this
            self._stop(slot, kill=True)
            fresh = self._start()
            fresh.job, fresh.deadline, fresh.limit_s = slot.job, slot.deadline, slot.limit_s
            try:
                fresh.conn.send((task, project))
            except OSError:
                yield self._lost(fresh, project)

    def _receive(self, slot: _Slot, project: ProjectConfig) -> Iterator[Outcome]:
        job, slot.job = slot.job, None
        assert job is not None
        try:
            done: Done = slot.conn.recv()
        except (EOFError, OSError):
            slot.job = job
            yield self._lost(slot, project)
            return
        self._note_rss(slot, done.convert_mb, done.prepare_mb)
        outcome = finish(done, job, self.rt, project, self.seconds)
        slot.documents += 1
        limits = self.rt.settings
        if worn(slot.proc.pid, slot.documents, limits.worker_max_documents,
                limits.worker_max_rss_mb):
            self._stop(slot)  # worn: the next job starts a fresh one
            self.replaced += 1
        yield job, outcome

    def _lost(self, slot: _Slot, project: ProjectConfig) -> Outcome:
        """The job of a worker that died or ran out of time: killed, replaced on demand,
        and its document failed with the reason."""
        job, slot.job = slot.job, None
        assert job is not None
        late = time.monotonic() > slot.deadline
        if not late:  # it is dying (its pipe closed): let it go, for its own exit code
            slot.proc.join(2)
        self._stop(slot, kill=True)
        from citeloom.convert.worker import crashed, timed_out

        name = job.unit.path.name if job.unit.path else job.unit.label
        if late:
            return job, timed_out(name, slot.limit_s)
        return job, crashed(name, slot.proc.exitcode)
