"""``citeloom repair -p NAME``: put a project back together from what is intact, and say
what was done. Nothing that still holds data is deleted before its replacement is whole.

    1. CURRENT    garbage, or naming no generation ─► the newest generation that loads
    2. model lock unreadable ─► rewritten from citeloom.toml when the stored vectors are the
                  configured model's (dimension and model name), else the index is rebuilt
    3. shard      does not load ─► another intact generation, else a rebuild from the
                  catalog and the conversion cache (files on disk where not cached)
    4. catalog    unreadable or deleted ─► moved aside and rebuilt from the index payloads;
                  intact ─► reconciled with the index (rows for whole documents the index
                  holds without one, rows dropped whose chunks are not all there, half
                  documents removed)
    5. cache      entries of the project's documents that do not decompress are dropped (they
                  are converted again when needed), and temp files of killed writes removed

A rebuilt catalog row takes size and mtime from the file when it is still there with the
same content (so the next ingest skips it by ``stat``), else 0 (the next ingest hashes it).
"""

from __future__ import annotations

import json
import os
import time
from collections import defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citeloom.errors import CatalogDamaged, CiteLoomError, IndexDamaged, InvalidProject
from citeloom.index import Index
from citeloom.index.base import atomic_json
from citeloom.index.catalog import Catalog, DocRecord, catalogued
from citeloom.ingest.pipeline import MARK, Pipeline, make_executor
from citeloom.provision import dense_spec, sha256_file
from citeloom.sources import CatalogSource

if TYPE_CHECKING:
    from citeloom.runtime import Runtime

PAYLOAD_FIELDS = ["doc_id", "source_path", "content_hash", "doc_chunk_count", "title",
                  "zotero_key", "zotero_version", "page_end", "embed_model"]


@dataclass
class RepairReport:
    project: str
    found: list[str] = field(default_factory=list)  # what was wrong
    done: list[str] = field(default_factory=list)  # what was done about it
    left: list[str] = field(default_factory=list)  # what could not be fixed: the next step
    documents: int = 0  # in the catalog afterwards
    chunks: int = 0  # in the index afterwards
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.left

    def to_dict(self) -> dict[str, Any]:
        return {"project": self.project, "ok": self.ok, "found": self.found,
                "done": self.done, "left": self.left, "documents": self.documents,
                "chunks": self.chunks, "seconds": round(self.seconds, 3)}


def repair(rt: Runtime, project_name: str | None) -> RepairReport:
    """Repair one project (see the module's docstring); the caller holds no handle on it."""
    started = time.perf_counter()
    project = rt.settings.project(project_name, create=True)
    name = project.name
    report = RepairReport(name)
    root = rt.settings.index_dir / name
    if not root.is_dir():
        raise InvalidProject(f"project {name!r} has nothing on disk to repair",
                             "list projects with `citeloom projects`")
    with rt.projects.swap:
        rt.projects.forget(name)
        store = rt.projects.store(project)
        rebuild = False
        if project.backend == "edge":
            rebuild = _pointer(rt, store, name, report)
        index = None if rebuild else _open_index(rt, name, report)
        if index is not None and not _model_lock(rt, project, index, report):
            rebuild = True
        catalog = _catalog(rt, name, root, index, report)
        if catalog is not None:  # before a rebuild, which reads the cache
            _cache(rt, project, [r.content_hash for r in catalog.all()], report)
        if (index is None or rebuild) and catalog is not None:
            index = _rebuild(rt, project, catalog, index, report)
        elif index is None:
            report.left.append("the index and the catalog are both unreadable: ingest the "
                               "project's sources again (cached conversions make it quick)")
        if catalog is not None:
            report.documents = len(catalog)
        if index is not None:
            report.chunks = index.count()
        if index is not None and catalog is not None and not report.left:
            (root / MARK).unlink(missing_ok=True)  # reconciled: nothing for a sweep to do
    if not report.found:
        report.done.append("nothing to repair: index, catalog and cache entries are intact")
    report.seconds = time.perf_counter() - started
    return report


# -- 1. CURRENT -------------------------------------------------------------------------------
def _pointer(rt: Runtime, store: Any, name: str, report: RepairReport) -> bool:
    """Make CURRENT name an intact generation; True when there is none (rebuild)."""
    try:
        if store.current_generation(name) is not None:
            return False
        report.found.append("there is no CURRENT file")
    except IndexDamaged as exc:
        report.found.append(exc.message)
    try:  # a generation holding what the catalog lists beats a newer, half-built one
        expected: int | None = rt.projects.catalog(name).total_chunks()
    except CiteLoomError:
        expected = None
    gens = list(reversed(store.generations(name)))
    loads: list[tuple[bool, int, str]] = []
    for gen in gens:
        store.point_current(name, gen)
        rt.projects.forget(name)
        try:
            count = rt.projects.index(name).count()
        except CiteLoomError:
            continue
        loads.append((count == expected, count, gen))
    rt.projects.forget(name)
    if loads:
        _, count, gen = max(loads, key=lambda t: (t[0], t[1], t[2]))
        store.point_current(name, gen)
        report.done.append(f"CURRENT now names {gen}, the generation that loads and holds "
                           f"the most of what the catalog lists ({count} chunks)")
        return False
    # None loads: keep the newest (a rebuild replaces it once whole), or start afresh.
    store.point_current(name, gens[0] if gens else None)
    rt.projects.forget(name)
    return True


# -- 2. model lock ----------------------------------------------------------------------------
def _model_lock(rt: Runtime, project: Any, index: Index, report: RepairReport) -> bool:
    """A readable model lock; False when it cannot be restored (rebuild)."""
    try:
        index.lock()
        return True
    except IndexDamaged as exc:
        report.found.append(exc.message)
    wanted = rt.models.model_lock(project)
    first = next(iter(index.scroll(batch=1, fields=["embed_model"])), None)
    model = first.payload.get("embed_model") if first else project.dense_model
    dims = _stored_dims(index)
    if model != project.dense_model or dims not in (None, dense_spec(model).dim):
        report.found.append(f"the stored vectors are {model} ({dims} dims); citeloom.toml "
                            f"asks for {project.dense_model}")
        return False
    root = getattr(index, "root", None)
    if root is None:
        return False
    atomic_json(Path(root) / "model_lock.json",
                {**wanted.to_dict(), "params": rt.models.index_params(project).__dict__})
    report.done.append(f"model lock rewritten from citeloom.toml ({wanted.describe()}); the "
                       "stored vectors are that model's. If the chunk settings changed since "
                       f"the project was built, run `citeloom reindex -p {project.name}`")
    return True


def _stored_dims(index: Index) -> int | None:
    shard = getattr(index, "shard_dir", None)
    try:
        config = json.loads((Path(shard) / "edge_config.json").read_text()) if shard else {}
        return int(config["vectors"]["dense"]["size"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


# -- 3. the shard -----------------------------------------------------------------------------
def _open_index(rt: Runtime, name: str, report: RepairReport) -> Index | None:
    """The current generation, opened and read; None when it does not load."""
    try:
        index = rt.projects.index(name)
        index.count()
        return index
    except (IndexDamaged, InvalidProject) as exc:  # damaged, or its shard is gone
        report.found.append(exc.message)
        rt.projects.forget(name)
        return None


def _rebuild(rt: Runtime, project: Any, catalog: Catalog, old: Index | None,
             report: RepairReport) -> Index | None:
    """A new generation from the catalog's documents (cached conversions, else their
    files), swapped in when whole; the damaged one is removed then. Zotero metadata comes
    from the old generation where it still reads."""
    store = rt.projects.store(project)
    records = catalog.all()
    if not records:
        report.left.append("the index does not load and the catalog lists no document: "
                           "ingest the project's sources again")
        return None
    new = store.new_generation(project.name)
    new.ensure(rt.models.model_lock(project), rt.models.index_params(project))
    metas = {r.doc_id: _meta(old, r.doc_id) for r in records if r.zotero_key}
    # Where the Zotero metadata is lost with the old index, the row is marked changed, so
    # the next Zotero ingest re-reads the item (from the cache: no conversion).
    lost = {d for d, m in metas.items() if m is None}
    records = [replace(r, zotero_version=None) if r.doc_id in lost else r for r in records]
    source = CatalogSource(records, lambda h: rt.cache.path(h, project).is_file(),
                           lambda doc_id: metas.get(doc_id))
    pipeline = Pipeline(rt, project, new, catalog, make_executor(rt), catalog_writes=False)
    try:
        result = pipeline.run(source, optimize=True, started_by="repair")
    except BaseException:
        store.drop(project.name, new)
        raise
    store.promote(project.name, new)
    rt.projects.open_indexes[project.name] = new
    pipeline.commit_records(replacing=records)
    rebuilt = result.count("indexed")
    report.done.append(f"index rebuilt as {new.generation} from the catalog: {rebuilt} "
                       f"document(s), {sum(f.chunks for f in result.files)} chunks, from the "
                       "conversion cache (files on disk where not cached)")
    failed = [f.path for f in result.files if f.status == "failed"]
    if failed:
        report.left.append(f"{len(failed)} document(s) neither cached nor on disk unchanged, "
                           f"so not rebuilt: {', '.join(failed[:5])}"
                           + (" …" if len(failed) > 5 else "") + " — ingest them again")
    if lost:
        report.done.append(f"{len(lost)} document(s) from Zotero get their metadata back on "
                           "the next `citeloom ingest --zotero-collection` (no conversion)")
    return new


def _meta(old: Index | None, doc_id: str) -> dict[str, Any] | None:
    from citeloom.payload import external_metadata

    if old is None:
        return None
    try:
        first = next(iter(old.scroll(doc_id, batch=1)), None)
    except CiteLoomError:
        return None
    return external_metadata(first.payload) if first else None


# -- 4. the catalog ---------------------------------------------------------------------------
def _catalog(rt: Runtime, name: str, root: Path, index: Index | None, report: RepairReport
             ) -> Catalog | None:
    path = root / "catalog.sqlite"
    existed = path.is_file()
    try:
        catalog = rt.projects.catalog(name)
        len(catalog)
    except CatalogDamaged as exc:
        report.found.append(exc.message)
        rt.projects.forget(name)
        if index is None:
            report.left.append(f"{path} is unreadable and the index too: nothing to rebuild "
                               "it from")
            return None
        aside = path.with_name(f"catalog.sqlite.damaged-{time.strftime('%Y%m%dT%H%M%S')}")
        os.replace(path, aside)
        for extra in ("-wal", "-shm"):
            Path(str(path) + extra).unlink(missing_ok=True)
        report.done.append(f"the damaged catalog was moved to {aside.name}")
        catalog = rt.projects.catalog(name)
    if index is None:
        return catalog
    if not existed:
        report.found.append("there is no catalog.sqlite")
    _reconcile(catalog, index, report)
    return catalog


def _reconcile(catalog: Catalog, index: Index, report: RepairReport) -> None:
    """Make the catalog list exactly the whole documents the index holds."""
    docs: dict[str, dict[str, Any]] = {}
    counts: dict[str, int] = defaultdict(int)
    for hit in index.scroll(fields=PAYLOAD_FIELDS):
        p = hit.payload
        doc_id = p.get("doc_id")
        if not doc_id:
            continue
        counts[doc_id] += 1
        d = docs.setdefault(doc_id, dict(p))
        d["page_end"] = max(d.get("page_end") or 0, p.get("page_end") or 0)
    rows = {r.doc_id: r for r in catalog.all()}
    adopted = checked = 0
    for doc_id, p in docs.items():
        if counts[doc_id] != p.get("doc_chunk_count", counts[doc_id]):
            index.delete_doc(doc_id)
            catalog.delete(doc_id)
            report.found.append(f"{p.get('source_path')}: {counts[doc_id]} of "
                                f"{p.get('doc_chunk_count')} chunks in the index")
            report.done.append(f"removed the half document {doc_id} (the next ingest "
                               "redoes it)")
            continue
        row = rows.get(doc_id)
        if row is not None:
            if row.chunks != counts[doc_id]:
                catalog.put(replace(row, chunks=counts[doc_id]))
                report.done.append(f"{row.source_path}: chunk count set to the index's")
            continue
        if not catalogued(doc_id, p.get("content_hash")):
            continue  # a text (no file): texts have no catalog rows
        rec, same = _record(doc_id, p, counts[doc_id])
        catalog.put(rec)
        adopted += 1
        checked += same
    if adopted:
        report.found.append(f"{adopted} whole document(s) in the index had no catalog row")
        report.done.append(f"catalog rows written for them from the index payloads "
                           f"({checked} file(s) found unchanged on disk; the others are "
                           "checked by content on the next ingest)")
    gone = [r for r in rows.values() if r.doc_id not in docs]
    for row in gone:
        catalog.delete(row.doc_id)
    if gone:
        report.found.append(f"{len(gone)} catalog row(s) without their chunks in the index")
        report.done.append("those rows were removed: the next ingest indexes the files again")


def _record(doc_id: str, p: dict[str, Any], chunks: int) -> tuple[DocRecord, bool]:
    """A catalog row from a document's payload; size and mtime from its file when the file
    still has that content (True), else 0 so that the next ingest hashes it."""
    source = str(p.get("source_path") or "")
    size = mtime = 0
    path = Path(source)
    try:
        if path.is_file() and sha256_file(path) == p["content_hash"]:
            st = path.stat()
            size, mtime = st.st_size, st.st_mtime_ns
    except OSError:
        pass
    version = p.get("zotero_version")
    rec = DocRecord(doc_id, source, p["content_hash"], size, mtime, chunks,
                    int(p.get("page_end") or 0), str(p.get("title") or ""),
                    zotero_key=p.get("zotero_key"),
                    zotero_version=int(version) if version is not None else None)
    return rec, bool(size)


# -- 5. the conversion cache ------------------------------------------------------------------
def _cache(rt: Runtime, project: Any, hashes: list[str], report: RepairReport) -> None:
    bad = rt.cache.damaged(project, hashes)
    for path in bad:
        path.unlink(missing_ok=True)
    if bad:
        report.found.append(f"{len(bad)} conversion cache entr{'y' if len(bad) == 1 else 'ies'}"
                            " did not decompress")
        report.done.append("dropped them: those documents are converted again when needed")
    folder = rt.settings.cache_root / "conversions"
    stale = [p for p in folder.glob("*.tmp") if not _alive(p)] if folder.is_dir() else []
    for path in stale:
        path.unlink(missing_ok=True)
    if stale:
        report.done.append(f"removed {len(stale)} temp file(s) of cache writes that were "
                           "killed")


def _alive(tmp: Path) -> bool:
    """Whether the process that writes ``<key>.json.<pid>.tmp`` still runs."""
    try:
        pid = int(tmp.name.split(".")[-2])
        os.kill(pid, 0)
    except (ValueError, IndexError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True
