"""Ingest on Ray: ``citeloom ingest --ray ADDRESS`` (or ``[cluster] address``).

Conversion, chunking and embedding run in a pool of Ray actors, each holding Docling and the
models, loaded once (``tasks.WorkerSide``); the driver — this process, the project's one
writer — sends each actor one document at a time (the file's bytes travel with it, so the
nodes need no shared disk, and the cached conversion when there is one), writes each
prepared document as it comes back (the pipeline batches the points) and keeps the
conversion cache under the same keys as an in-process ingest.

A document whose actor dies (a node lost, the OOM killer, ``ray.kill``) is sent once more,
to another actor (the dead one is replaced by a new actor, wherever Ray places it); if that
one dies too, the document fails with the reason and the run goes on. A document past the
project's ``conversion_timeout_s`` has its actor killed and fails, as in a local worker.
Actors that keep dying without finishing anything stop the run with ``CONFIG_INVALID``
(typically: CiteLoom or its models are missing on the nodes).

``local`` starts a Ray instance for the run, sized to this machine and bound to loopback,
and shuts it down at the end; any other address joins a running cluster (``auto``, a
``host:port`` of its head, or ``ray://host:10001`` through Ray Client). A process that
already called ``ray.init`` keeps its own connection.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from citeloom.errors import CiteLoomError, ConfigError, ConversionFailed, InternalError
from citeloom.ingest.executor import Executor, Job, Outcome
from citeloom.ingest.pool import available_cores, available_memory_mb
from citeloom.ingest.tasks import Done, Task, finish, to_task
from citeloom.report import FileResult

if TYPE_CHECKING:
    from citeloom.config import ProjectConfig
    from citeloom.runtime import Runtime

START_GRACE_S = 120  # a new actor's first document may wait for Docling and models to load
_log = logging.getLogger(__name__)


def import_ray() -> Any:
    # Runtime stays offline: Ray's usage-stats report (to a Ray server on the web) is off
    # unless the user turned it on; a cluster started with `ray start` is set apart.
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    try:
        import ray
    except ImportError:
        raise ConfigError("Ray is not installed", "install the extra: pip install "
                          "'citeloom[ray]' (make setup installs it)") from None
    return ray


_session = {"users": 0, "ours": False}  # Ray connections of this process's runs
_session_lock = threading.Lock()


def connect(address: str) -> None:
    """Connect to Ray for a run (see the module's docstring). Runs at once in one process
    (two daemon jobs) share the connection; the last one out shuts down a Ray this
    process started (:func:`release`)."""
    ray = import_ray()
    with _session_lock:
        _session["users"] += 1
        if ray.is_initialized():
            return
        quiet: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                 "logging_level": logging.ERROR}
        try:
            if address == "local":
                ray.init(num_cpus=available_cores(), _node_ip_address="127.0.0.1",
                         object_store_memory=_object_store_bytes(),
                         **quiet)
            else:
                quiet.pop("include_dashboard")  # a cluster's own settings decide
                ray.init(address=address, **quiet)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            _session["users"] -= 1
            raise ConfigError(f"cannot reach the Ray cluster at {address!r}: {exc}",
                              "start it (`ray start --head` on the head node), or check "
                              "[cluster] address; `--ray local` runs on this machine") from None
        _session["ours"] = True


def release() -> None:
    """A run is done with Ray; the last one shuts down a Ray this process started."""
    ray = import_ray()
    with _session_lock:
        _session["users"] -= 1
        if _session["users"] <= 0 and _session["ours"]:
            ray.shutdown()
            _session["users"], _session["ours"] = 0, False


def _object_store_bytes() -> int:
    """A local instance's object store: an eighth of the free memory, 80 MB to 2 GB (it
    only holds the files and results in flight)."""
    return max(80 << 20, min(2 << 30, (available_memory_mb() << 20) // 8))


class PrepareActor:
    """One Ray actor: Docling and the models, loaded on first use, kept for its life."""

    def __init__(self, models_dir: str, threads: int) -> None:
        from citeloom.ingest.tasks import WorkerSide

        self.side = WorkerSide(models_dir, threads)
        self.peak_mb = 0.0  # what its documents' steps peaked at (VmHWM restarts per step)

    def pid(self) -> int:
        return os.getpid()

    def usage(self) -> tuple[float, float]:
        """Peak RSS (MB) and CPU seconds of this actor's process so far."""
        import resource

        from citeloom.system import peak_rss_mb

        ru = resource.getrusage(resource.RUSAGE_SELF)
        return max(peak_rss_mb(), self.peak_mb), ru.ru_utime + ru.ru_stime

    def prepare(self, task: Task, project: ProjectConfig) -> Done:
        from citeloom.ingest.tasks import run_task

        done = run_task(task, project, self.side)
        self.peak_mb = max(self.peak_mb, done.convert_mb, done.prepare_mb)
        return done


class _Running:
    """A document on an actor."""

    def __init__(self, job: Job, actor: Any, deadline: float, attempt: int,
                 limit_s: float) -> None:
        self.job, self.actor, self.deadline, self.attempt = job, actor, deadline, attempt
        self.limit_s = limit_s  # the document's allowance (convert.worker.deadline_s)


class RayExecutor(Executor):
    """A pool of :class:`PrepareActor` on the Ray cluster at ``address``."""

    def __init__(self, rt: Runtime, address: str) -> None:
        self.rt = rt
        self.address = address
        self.cluster = rt.settings.cluster
        self.retried: list[str] = []  # documents sent again after their actor died
        self.actor_pids: dict[Any, int] = {}  # live actors' pids (a test kills one)
        self.busy: dict[Any, str] = {}  # actor -> the label of the document it holds
        self.name = f"ray {address}"
        self.reserve = self.cluster.actor_memory_mb << 20  # memory Ray holds for an actor
        self.peak_rss_mb: float = 0.0  # the largest actor's, for the benchmark
        self.cpu_s = 0.0  # the actors' CPU seconds (those alive at the end), likewise
        self.size = 0  # actors at most, once running
        self._cls: Any = None  # PrepareActor as a Ray actor class
        self.seconds: dict[str, float] = {}  # actors' time converting, preparing in all

    def _size(self, ray: Any) -> int:
        """How many actors: the cluster's CPUs over ``cpus_per_actor``, no more than its
        memory holds at ``actor_memory_mb`` each, at most ``max_actors`` (when set). Where
        the cluster has less memory than one actor's share, one actor asks for what there
        is (rather than waiting for memory that never comes)."""
        res = ray.cluster_resources()
        self.reserve = min(self.cluster.actor_memory_mb << 20, int(res.get("memory", 1 << 40)))
        by_cpu = int(res.get("CPU", 1) // self.cluster.cpus_per_actor)
        by_memory = int(res.get("memory", 1 << 40) // max(1, self.reserve))
        n = max(1, min(by_cpu, by_memory))
        return min(n, self.cluster.max_actors) if self.cluster.max_actors else n

    def run(self, work: Iterable[Job | FileResult], project: ProjectConfig
            ) -> Iterator[Outcome | FileResult]:
        ray = import_ray()
        connect(self.address)
        try:
            yield from self._run(ray, work, project)
        finally:
            actors = list(self.actor_pids)
            try:  # for the benchmark's figures
                usage = ray.get([a.usage.remote() for a in actors], timeout=10)
                self.peak_rss_mb = max([self.peak_rss_mb, *(rss for rss, _ in usage)])
                self.cpu_s += sum(cpu for _, cpu in usage)
            except Exception as exc:  # noqa: BLE001 - only figures
                _log.debug("peak RSS of the actors: %s", exc)
            for actor in actors:
                self._kill(ray, actor)
            release()

    def _new_actor(self, ray: Any) -> Any:
        cpus = self.cluster.cpus_per_actor
        if self._cls is None:  # Ray never restarts an actor, nor replays its calls: we do
            self._cls = ray.remote(num_cpus=cpus, memory=self.reserve,
                                   max_restarts=0, max_task_retries=0)(PrepareActor)
        actor = self._cls.remote(str(self.rt.settings.models_dir), cpus)
        self.actor_pids[actor] = 0
        return actor

    def _kill(self, ray: Any, actor: Any) -> None:
        self.actor_pids.pop(actor, None)
        self.busy.pop(actor, None)
        try:
            ray.kill(actor)
        except Exception as exc:  # noqa: BLE001 - already gone
            _log.debug("ray.kill: %s", exc)

    def _run(self, ray: Any, work: Iterable[Job | FileResult], project: ProjectConfig
             ) -> Iterator[Outcome | FileResult]:
        from citeloom.convert.worker import deadline_s, timed_out

        size = self.size = self._size(ray)
        self.name = (f"ray {self.address}: up to {size} actors "
                     f"({self.cluster.cpus_per_actor} CPU each)")
        jobs = iter(work)
        more = True
        retry: deque[tuple[Job, int]] = deque()
        running: dict[Any, _Running] = {}  # object ref -> the document it prepares
        idle: list[Any] = []
        fresh: set[Any] = set()  # actors that have not finished a document yet
        deaths_in_a_row = 0
        pid_refs: dict[Any, Any] = {}  # pid() call -> actor
        key = 0

        def fill() -> Iterator[Outcome | FileResult]:
            """Retries first, then new jobs, while an actor is free or may start."""
            nonlocal more, key
            while (retry or more) and (idle or len(self.actor_pids) < size):
                if retry:
                    job, attempt = retry.popleft()
                else:
                    try:
                        item = next(jobs)  # DISK_FULL raised in planning stops the run
                    except StopIteration:
                        more = False
                        return
                    if isinstance(item, FileResult):
                        yield item
                        continue
                    job, attempt = item, 1
                try:
                    task = to_task(key, job, self.rt, project, ship=True)
                except OSError as exc:
                    yield job, ConversionFailed(f"{job.unit.label}: {exc}",
                                                "check the file, then ingest again")
                    continue
                key += 1
                if idle:
                    actor = idle.pop()
                else:
                    actor = self._new_actor(ray)
                    fresh.add(actor)
                    pid_refs[actor.pid.remote()] = actor
                grace = START_GRACE_S if actor in fresh else 0
                ref = actor.prepare.remote(task, project)
                limit = deadline_s(job.unit.path, project)
                running[ref] = _Running(job, actor, time.monotonic() + grace + limit,
                                        attempt, limit)
                self.busy[actor] = job.unit.label

        while True:
            yield from fill()
            if not running:
                if more or retry:
                    continue
                return
            ready, _ = ray.wait(list(running) + list(pid_refs), num_returns=1, timeout=0.5)
            finished: list[Outcome] = []
            for ref in ready:
                if ref in pid_refs:
                    actor = pid_refs.pop(ref)
                    try:
                        if actor in self.actor_pids:
                            self.actor_pids[actor] = ray.get(ref)
                    except Exception:  # noqa: BLE001 - its document's call says what happened
                        pass
                    continue
                run = running.pop(ref)
                self.busy.pop(run.actor, None)
                try:
                    done: Done = ray.get(ref)
                except ray.exceptions.RayActorError as exc:
                    self._kill(ray, run.actor)
                    deaths_in_a_row += 1
                    if deaths_in_a_row > 2 * size + 2:
                        raise ConfigError(
                            f"Ray actors keep dying before finishing a document: {exc}",
                            "check that CiteLoom (with its models: citeloom models "
                            "provision) is installed on every node; see docs/CLUSTER.md"
                        ) from None
                    finished.extend(self._died(run, retry, exc))
                    continue
                except ray.exceptions.RayError as exc:
                    idle.append(run.actor)
                    finished.append((run.job, InternalError(f"{run.job.unit.label}: {exc}")))
                    continue
                deaths_in_a_row = 0
                fresh.discard(run.actor)
                idle.append(run.actor)
                finished.append((run.job, finish(done, run.job, self.rt, project,
                                                 self.seconds)))
            now = time.monotonic()
            for ref, run in list(running.items()):
                if now > run.deadline:  # the hard timeout: the actor goes with its document
                    running.pop(ref)
                    self._kill(ray, run.actor)
                    name = run.job.unit.path.name if run.job.unit.path else run.job.unit.label
                    finished.append((run.job, timed_out(name, run.limit_s)))
            # The freed actors start on their next documents before these are written.
            yield from fill()
            yield from finished

    def _died(self, run: _Running, retry: deque[tuple[Job, int]], exc: Exception
              ) -> Iterator[Outcome]:
        """The actor holding ``run`` died: once more elsewhere, else the document fails."""
        job = run.job
        name = job.unit.path.name if job.unit.path else job.unit.label
        if run.attempt < 2:
            _log.warning("%s: its Ray actor died; sending it to another", name)
            self.retried.append(job.unit.label)
            note = "sent again after its Ray worker died"
            job.unit.note = f"{job.unit.note}; {note}" if job.unit.note else note
            retry.append((job, run.attempt + 1))
            return
        why = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        error: CiteLoomError = ConversionFailed(
            f"{name}: the Ray worker converting it died twice ({why})",
            "ingest the file again on its own; if it fails again, it may be damaged or too "
            "large for the nodes' memory")
        yield job, error

