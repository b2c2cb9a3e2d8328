"""The ingest loop: one for every source.

    source.plan ─► for each unit: skip if unchanged ─► executor (convert, chunk, embed)
                ─► write points ─► catalog row ─► drop the replaced document
    source.finish (prune) ─► optimize ─► audit log

Writes keep the catalog's promise: a document's row is written only after all of its
points are in the index, and a changed file's new points go in before its old ones go out,
so a killed ingest leaves whole documents and is safe to re-run.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..catalog import Catalog, DocRecord
from ..errors import CiteLoomError, SourceNotFound, as_error
from ..index import Index, PointData
from ..models import sha256_file
from ..payload import chunk_id, chunk_payload
from ..report import FileResult, IngestReport, write_audit
from ..sources import Context, Source, Unit
from .executor import Executor, Job, Prepared

if TYPE_CHECKING:
    from ..config import ProjectConfig

ProgressFn = Callable[[str, FileResult | None], None]


class Pipeline:
    """One ingest run of one source into one project's index.

    ``catalog_writes=False`` (reindex into a new generation) keeps the catalog as it is and
    collects the rows in :attr:`records`, to be written once the generation is promoted."""

    def __init__(self, app: Any, project: ProjectConfig, index: Index, catalog: Catalog,
                 executor: Executor, *, catalog_writes: bool = True) -> None:
        self.app = app  # the service: its swap lock, data dir, unoptimized set
        self.project = project
        self.index = index
        self.catalog = catalog
        self.executor = executor
        self.catalog_writes = catalog_writes
        self.records: list[DocRecord] = []
        self._pending: list[tuple[Job, FileResult, list[PointData], DocRecord | None]] = []

    def run(self, source: Source, *, progress: ProgressFn | None = None,
            optimize: bool = True, started_by: str = "api") -> IngestReport:
        started = time.perf_counter()
        report = IngestReport(self.project.name, source=source.name)
        ctx = Context(self.project, self.index, self.catalog, report)
        self._report, self._progress, self._source = report, progress, source
        total = source.plan(ctx)
        if progress:
            progress(f"start:{total}", None)
        for out in self.executor.run(self._jobs(source, ctx), self.project):
            if isinstance(out, FileResult):
                self._emit(out)
            else:
                self._write(*out)
        self._flush()
        with self.app._swap:
            finished = list(source.finish(ctx))
        for res in finished:
            self._emit(res)
        if any(f.chunks for f in report.files if f.status in ("indexed", "replaced")):
            if optimize or source.always_optimize:
                with self.app._swap:  # a write step too (it rewrites segments)
                    self.index.optimize()
            else:  # the MCP server optimizes once the project is idle
                self.app._unoptimized.add(self.index.project)
        report.seconds = time.perf_counter() - started
        write_audit(self.app.settings.data_dir, report, started_by)
        return report

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
            self._progress("file", result)

    # -- deciding what to do -----------------------------------------------------------
    def _jobs(self, source: Source, ctx: Context) -> Iterator[Job | FileResult]:
        for unit in source.units(ctx):
            if isinstance(unit, FileResult):
                yield unit
                continue
            try:
                yield self._plan(unit)
            except CiteLoomError as exc:
                yield FileResult(unit.label, "failed", error=exc.to_dict(), note=unit.note)
            except OSError as exc:  # vanished or unreadable since it was listed
                err = SourceNotFound(f"{unit.label}: {exc.strerror or exc}",
                                     "check the file, then ingest again")
                yield FileResult(unit.label, "failed", error=err.to_dict(), note=unit.note)

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
        if isinstance(outcome, CiteLoomError):
            result.error = outcome.to_dict()
            result.seconds = round(time.perf_counter() - job.started, 3)
            self._emit(result)
            return
        meta = self._source.metadata(unit, outcome.first_pages, result)
        title = (meta or {}).get("title") or outcome.title
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
                               zotero_version=unit.zotero_version)
        result.chunks, result.pages = n, outcome.pages
        self._pending.append((job, result, points, record))
        if sum(len(p) for _, _, p, _ in self._pending) >= self._source.flush_points:
            self._flush()

    def _flush(self) -> None:
        """Write the pending documents' points in one upsert, then their catalog rows, then
        drop what they replace: one step under the service's ``_swap`` lock, so a snapshot
        (which holds it too) sees the index and the catalog both before or both after."""
        pending, self._pending = self._pending, []
        if not pending:
            return
        with self.app._swap:
            try:
                self.index.upsert([p for _, _, points, _ in pending for p in points])
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
