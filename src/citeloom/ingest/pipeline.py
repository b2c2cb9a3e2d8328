"""The ingest loop: one for every source.

    source.plan ─► for each unit: skip if unchanged ─► executor (convert, chunk, embed)
                ─► write points ─► catalog row ─► drop the replaced document
    source.finish (prune) ─► optimize ─► audit log

Writes keep the catalog's promise: a document's row is written only after all of its
points are in the index, and a changed file's new points go in before its old ones go out,
so a killed ingest leaves whole documents and is safe to re-run.

Free space is checked before each document is converted (an estimate from its pages) and
before its points are written (from its chunks): short of it, the run stops with
``DISK_FULL`` — the documents written so far are whole, the audit log says what was done
(``space.py``). A damaged index stops the run too (``INDEX_DAMAGED``).

A run marks the project (``INGESTING`` beside the catalog) until it ends; a run that finds
the mark left by a killed one sweeps, once its own writes are done: points no catalog row
vouches for (written just before the kill, or a replaced version whose delete was cut
short) go, and so do rows whose points are not all there.
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from citeloom import system as space
from citeloom.errors import CiteLoomError, DiskFull, IndexDamaged, SourceNotFound, as_error
from citeloom.index import Index, PointData
from citeloom.index.catalog import Catalog, DocRecord, catalogued
from citeloom.ingest.executor import Executor, InProcess, Job, Prepared
from citeloom.payload import chunk_id, chunk_payload, merge_metadata
from citeloom.provision import sha256_file
from citeloom.report import FileResult, IngestReport, write_audit
from citeloom.sources import Context, Source, Unit
from citeloom.structure.citekeys import ensure_citekey

if TYPE_CHECKING:
    from citeloom.config import ProjectConfig
    from citeloom.runtime import Runtime

ProgressFn = Callable[[str, FileResult | None], None]
MARK = "INGESTING"  # beside the catalog while a run writes; left behind by a killed one
_log = logging.getLogger(__name__)


class Pipeline:
    """One ingest run of one source into one project's index.

    ``catalog_writes=False`` (reindex into a new generation) keeps the catalog as it is and
    collects the rows in :attr:`records`, to be written once the generation is promoted."""

    def __init__(self, rt: Runtime, project: ProjectConfig, index: Index, catalog: Catalog,
                 executor: Executor, *, catalog_writes: bool = True) -> None:
        self.rt = rt  # the service: its swap lock, data dir, unoptimized set
        self.project = project
        self.index = index
        self.catalog = catalog
        self.executor = executor
        self.catalog_writes = catalog_writes
        self.records: list[DocRecord] = []
        self._pending: list[tuple[Job, FileResult, list[PointData], DocRecord | None]] = []
        self._unoptimized = 0  # points written since the last optimize
        self._no_room = False  # an optimize found no room: said once

    def run(self, source: Source, *, progress: ProgressFn | None = None,
            optimize: bool = True, started_by: str = "api") -> IngestReport:
        started = time.perf_counter()
        report = IngestReport(self.project.name, source=source.name,
                              executor=self.executor.name)
        ctx = Context(self.project, self.index, self.catalog, report)
        self._report, self._progress, self._source = report, progress, source
        total = source.plan(ctx)
        self._planned: dict[str, int] = {}
        if progress:  # files, and pages when the source can count them (report.Tally)
            self._planned = source.pages()
            progress(f"start:{total}:{sum(self._planned.values())}", None)
        killed_before = self._mark()
        outcomes = self.executor.run(self._jobs(source, ctx), self.project)
        try:
            for out in outcomes:
                if isinstance(out, FileResult):
                    self._emit(out)
                else:
                    self._write(*out)
                    report.peak_rss_mb = max(report.peak_rss_mb, space.tree_rss_mb())
            self._flush()
        except (DiskFull, IndexDamaged) as exc:  # no point going on: say so, with the log
            raise self._stopped(exc, started, started_by) from None
        finally:  # an executor's workers stop now, also when the run stops early
            if hasattr(outcomes, "close"):
                outcomes.close()
        with self.rt.projects.swap:
            if killed_before:
                self._sweep()
            finished = list(source.finish(ctx))
        for res in finished:
            self._emit(res)
        if any(f.chunks for f in report.files if f.status in ("indexed", "replaced")):
            # A server's optimize() is one settings call (turning indexing on after a
            # bulk load), never a rewrite in this process: always done.
            if optimize or source.always_optimize or not self.index.exclusive:
                with self.rt.projects.swap:  # a write step too (it rewrites segments)
                    self._optimize()
            else:  # the MCP server optimizes once the project is idle
                self.rt.projects.unoptimized.add(self.index.project)
        report.seconds = time.perf_counter() - started
        report.executor = self.executor.name
        self._audit(started_by)
        if self.catalog_writes:
            self.catalog.path.with_name(MARK).unlink(missing_ok=True)
        return report

    def _mark(self) -> bool:
        """Mark the project as being written; True when a killed run left its mark."""
        if not self.catalog_writes:
            return False  # a reindex writes a generation nobody reads until it is whole
        mark = self.catalog.path.with_name(MARK)
        found = mark.exists()
        with contextlib.suppress(OSError):  # a full disk: the checks before writes say so
            mark.write_text(f"{time.time()}\n")
        return found

    def _sweep(self) -> None:
        """After a killed run: drop the points no catalog row vouches for and the rows whose
        points are not all in the index, so that every document is whole or absent."""
        counts: Counter[str] = Counter()
        hashes: dict[str, str | None] = {}
        for hit in self.index.scroll(fields=["doc_id", "content_hash"]):
            doc_id = hit.payload.get("doc_id")
            if doc_id:
                counts[doc_id] += 1
                hashes[doc_id] = hit.payload.get("content_hash")
        rows = {r.doc_id: r for r in self.catalog.all()}
        for doc_id, n in counts.items():
            row = rows.get(doc_id)
            if (row is None and catalogued(doc_id, hashes[doc_id])) or (
                    row is not None and row.chunks != n):
                self.index.delete_doc(doc_id)
                _log.info("swept %d points of %s left by a killed run", n, doc_id)
        for doc_id, row in rows.items():
            if counts.get(doc_id, 0) != row.chunks:
                self.catalog.delete(doc_id)
                _log.info("swept the catalog row of %s: its points are not all there",
                          row.source_path)

    def _audit(self, started_by: str) -> None:
        try:
            write_audit(self.rt.settings.data_dir, self._report, started_by)
        except OSError as exc:  # the run's work is done; a log that cannot be written
            self._report.warnings.append(as_error(exc).to_dict())  # (a full disk) is noted

    def _stopped(self, exc: CiteLoomError, started: float, started_by: str
                 ) -> CiteLoomError:
        """The error that stopped the run, telling what was done before it."""
        self._pending = []  # not written: redone by the next run
        report = self._report
        report.seconds = time.perf_counter() - started
        report.warnings.append(exc.to_dict())
        self._audit(started_by)
        done = report.count("indexed") + report.count("replaced")
        log = f"; audit log: {report.audit_log}" if report.audit_log else ""
        return type(exc)(f"{exc.message} — stopped there: {done} document(s) of this run "
                         f"indexed whole before it, nothing half-written{log}", exc.hint)

    def _optimize(self, *, mid_run: bool = False) -> None:
        """Optimize, when there is room: it rewrites segments, so it may need as much space
        again as the index holds (an optimize on the way, of a generation with capped
        segments, rewrites at most about two segments' worth). Without the room it is left
        for later, with a warning (one a run: a long run's optimizes on the way stop)."""
        folder = self.rt.settings.index_dir / self.project.name
        need = space.allocated_bytes(folder) if folder.is_dir() else 0
        if mid_run and self.index.segment_points:
            need = min(need, 2 * self.index.segment_points * space.BYTES_PER_CHUNK)
        try:
            space.require(folder, need, f"optimizing project {self.project.name!r}")
        except DiskFull as exc:
            exc.hint = (f"the index is complete; run `citeloom optimize -p "
                        f"{self.project.name}` once there is room")
            if not self._no_room:
                self._report.warnings.append(exc.to_dict())
            self._no_room = True
            return
        self.index.optimize()

    def commit_records(self, replacing: list[DocRecord]) -> None:
        """After a ``catalog_writes=False`` run was promoted: its rows replace ``replacing``
        (a document that failed to rebuild leaves the catalog, so the next ingest redoes it)."""
        kept = {r.doc_id for r in self.records}
        for rec in self.records:
            self.catalog.put(rec)
        for rec in replacing:
            if rec.doc_id not in kept:
                self.catalog.delete(rec.doc_id)

    def _emit(self, result: FileResult) -> None:
        self._report.files.append(result)
        if self._progress:
            self._progress(f"file:{self._planned.get(result.path, 0)}", result)

    # -- deciding what to do -----------------------------------------------------------
    def _jobs(self, source: Source, ctx: Context) -> Iterator[Job | FileResult]:
        for unit in source.units(ctx):
            if isinstance(unit, FileResult):
                yield unit
                continue
            try:
                job = self._plan(unit)
            except CiteLoomError as exc:
                yield FileResult(unit.label, "failed", error=exc.to_dict(), note=unit.note)
            except OSError as exc:  # vanished or unreadable since it was listed
                err = SourceNotFound(f"{unit.label}: {exc.strerror or exc}",
                                     "check the file, then ingest again")
                yield FileResult(unit.label, "failed", error=err.to_dict(), note=unit.note)
                continue
            if isinstance(job, Job):
                self._check_space(job)  # DISK_FULL here stops the run, before converting
            yield job

    def _check_space(self, job: Job) -> None:
        """Room for this document's cache entry and chunks (estimated from its pages, or
        its text), plus the margin; raise DISK_FULL before anything of it is written."""
        unit = job.unit
        if unit.path is not None:
            pages = space.pdf_pages(unit.path)
            cached = self.rt.cache.path(job.content_hash, self.project).is_file()
            need = space.document_need(pages=pages, cached=cached)
            what = f"indexing {unit.path.name} ({pages} page(s))"
        else:
            need = space.document_need(chunks=max(1, len(unit.text or "") // 800))
            what = f"indexing {unit.label}"
        space.require(self.rt.settings.index_dir, need, what)

    def _plan(self, unit: Unit) -> Job | FileResult:
        """A job for the unit, or a ``skipped`` result when the index has it unchanged:
        same file by ``stat`` (no hashing, no models), or same content elsewhere."""
        t0 = time.perf_counter()
        if unit.path is None or not unit.skip_unchanged:
            assert unit.doc_id and unit.content_hash
            return Job(unit, unit.doc_id, unit.content_hash, unit.size, unit.mtime_ns,
                       started=t0)
        st = unit.path.stat()
        version = unit.zotero_version
        previous = self.catalog.by_source(unit.label)
        for rec in previous:
            if ((rec.size, rec.mtime_ns) == (st.st_size, st.st_mtime_ns)
                    and (version is None or rec.zotero_version == version)
                    and self.index.count(rec.doc_id) == rec.chunks):
                return FileResult(unit.label, "skipped", doc_id=rec.doc_id, chunks=rec.chunks,
                                  note=unit.note)
        content_hash = sha256_file(unit.path)
        doc_id = content_hash[:32]
        known = self.catalog.get(doc_id)
        if (known and self.index.count(doc_id) == known.chunks
                and (version is None or known.zotero_version == version)):
            result = FileResult(unit.label, "skipped", doc_id=doc_id, chunks=known.chunks,
                                note=unit.note)
            if known.source_path == unit.label or not Path(known.source_path).exists():
                known.source_path = unit.label
                known.size, known.mtime_ns = st.st_size, st.st_mtime_ns
                self.catalog.put(known)  # touched or moved, same content
            else:
                result.note = f"same content as {known.source_path}"
            return result
        unit.previous = previous
        return Job(unit, doc_id, content_hash, st.st_size, st.st_mtime_ns, started=t0)

    # -- writing --------------------------------------------------------------------------
    def _write(self, job: Job, outcome: Prepared | CiteLoomError) -> None:
        unit = job.unit
        result = FileResult(unit.label, "failed", doc_id=job.doc_id, note=unit.note)
        if isinstance(outcome, DiskFull | IndexDamaged):
            raise outcome  # (the cache write found the disk full): stop the run
        if isinstance(outcome, CiteLoomError):
            result.error = outcome.to_dict()
            result.seconds = round(time.perf_counter() - job.started, 3)
            self._emit(result)
            return
        result.worker_mb = outcome.worker_mb
        for warning in outcome.warnings:  # (a damaged cache entry, converted again)
            self._report.warnings.append(warning)
            result.note = result.note or warning["code"]
        given = self._source.metadata(unit, outcome.first_pages, result)
        if unit.zotero_version is not None:  # in the payload too, for `citeloom repair`
            given = {**(given or {}), "zotero_version": unit.zotero_version}
        # Zotero's fields win; what the PDF states fills the rest (with its origin).
        meta = merge_metadata(outcome.meta, given) if outcome.meta or given else None
        title = (meta or {}).get("title") or outcome.title
        meta = ensure_citekey(meta, title, job.doc_id)  # every paper gets a key
        n, model = len(outcome.chunks), self.project.dense_model
        points = [
            PointData(id=chunk_id(job.doc_id, c.index, model), dense=outcome.dense[i].tolist(),
                      sparse=outcome.sparse[i],
                      payload=chunk_payload(c, project=self.project.name, doc_id=job.doc_id,
                                            content_hash=job.content_hash, source=unit.label,
                                            title=title, chunk_count=n, dense_model=model,
                                            meta=meta))
            for i, c in enumerate(outcome.chunks)]
        record = None
        if unit.record:
            record = DocRecord(job.doc_id, unit.label, job.content_hash, job.size,
                               job.mtime_ns, n, outcome.pages, title,
                               zotero_key=(meta or {}).get("zotero_key"),
                               zotero_version=unit.zotero_version,
                               health=json.dumps(outcome.health) if outcome.health else None)
        result.chunks, result.pages, result.health = n, outcome.pages, outcome.health
        if result.unreadable:
            pages = ", ".join(map(str, outcome.health["unreadable_pages"][:10]))
            result.note = result.note or (
                f"UNREADABLE_PAGES: {result.unreadable} page(s) without readable text "
                f"(pages {pages}); indexed without their text")
        self._pending.append((job, result, points, record))
        if sum(len(p) for _, _, p, _ in self._pending) >= self._source.flush_points:
            self._flush()

    def _flush(self) -> None:
        """Write the pending documents' points in one upsert, then their catalog rows, then
        drop what they replace: one step under the service's ``_swap`` lock, so a snapshot
        (which holds it too) sees the index and the catalog both before or both after. The
        free space the points need is checked first (an index write that runs out of room
        cannot be caught: the OS answers a memory-mapped write with SIGBUS)."""
        pending = self._pending
        if not pending:
            return
        points = [p for _, _, pts, _ in pending for p in pts]
        space.require(self.rt.settings.index_dir, len(points) * space.BYTES_PER_CHUNK,
                      f"writing {len(points)} chunks of {Path(pending[0][0].unit.label).name}"
                      + (f" and {len(pending) - 1} more" if len(pending) > 1 else ""))
        self._pending = []
        with self.rt.projects.swap:
            try:
                self.index.upsert(points)
            except (DiskFull, IndexDamaged):
                raise
            except Exception as exc:  # noqa: BLE001 - reported per document; nothing half-written
                err = as_error(exc).to_dict()
                for _, result, _, _ in pending:
                    result.chunks = result.pages = 0
                    result.error = err
            else:
                for job, result, _, record in pending:
                    result.status = "indexed"
                    if record is not None and self.catalog_writes:
                        self.catalog.put(record)
                        for rec in job.unit.previous:  # a changed file: its new chunks are in
                            if rec.doc_id != job.doc_id:
                                self.index.delete_doc(rec.doc_id)
                                self.catalog.delete(rec.doc_id)
                            else:  # re-written under its own id (an annotation): surplus out
                                model = self.project.dense_model
                                self.index.delete_ids([chunk_id(job.doc_id, i, model) for i in
                                                       range(record.chunks, rec.chunks)])
                            if rec.content_hash != job.content_hash:
                                result.status = "replaced"
                    elif record is not None:
                        self.records.append(record)
        for job, result, _, _ in pending:  # outside the lock: a progress callback may cancel
            result.seconds = round(time.perf_counter() - job.started, 3)
            self._emit(result)
        self._unoptimized += len(points)
        every = self.index.optimize_every
        if every and self._unoptimized >= every and not self._no_room:  # memory bounded
            # A reindex's generation is read by nobody yet: no query need wait for it.
            with self.rt.projects.swap if self.catalog_writes else contextlib.nullcontext():
                self._optimize(mid_run=True)
            self._unoptimized = 0
        space.trim_heap()


def make_executor(rt: Runtime, workers: int | None = None, ray: str | None = None
              ) -> Executor:
    """Where convert, chunk and embed run: on Ray when ``ray`` (an address, or
    ``local``) or ``[cluster] address`` says so (unless ``workers`` is given), else in
    ``workers`` local processes (default ``[defaults] workers``, else the machine's
    rule, ``executor_pool.default_workers``); one is this process with its worker."""
    if ray is None and workers is None:
        ray = rt.settings.cluster.address
    if ray:
        from citeloom.ingest.ray import RayExecutor

        return RayExecutor(rt, ray)
    if workers is None:
        workers = rt.settings.workers
    if workers is None:
        from citeloom.ingest.pool import default_workers

        workers = default_workers()
    if workers <= 1:
        return InProcess(rt)
    from citeloom.ingest.pool import Pool

    return Pool(rt, workers)
