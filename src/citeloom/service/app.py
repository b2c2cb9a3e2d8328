"""The application object: loaded models, open indexes and catalogs, the conversion worker
and cache — and the operations the CLI and the MCP server call, each a few lines over the
pipeline (``pipeline.py``), the searches (``search.py``) and the library (``library.py``).

Heavy imports (Docling, onnxruntime) happen inside the methods that need them, so a query
never loads Docling.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import json
import os
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from citeloom import system as space
from citeloom.config import DEFAULT_DENSE_MODEL, ProjectConfig, Settings
from citeloom.errors import CiteLoomError, ConfigError, InvalidProject, as_error, did_you_mean
from citeloom.index import (
    BACKENDS,
    DEFAULT_FUSION,
    Fusion,
    Index,
    IndexParams,
    Mode,
    ModelLock,
    SearchFilter,
    Store,
    make_store,
)
from citeloom.index.catalog import Catalog
from citeloom.ingest import reindex
from citeloom.ingest.executor import Executor, InProcess, cache_damaged, reread
from citeloom.ingest.pipeline import Pipeline, ProgressFn
from citeloom.payload import PASSAGE_CHARS, Passage
from citeloom.provision import chunk_limit, dense_spec, use_offline_runtime
from citeloom.report import IngestReport
from citeloom.search import query as search
from citeloom.search.query import QueryResult, SimilarResult
from citeloom.service import library, snapshots
from citeloom.sources import (
    AnnotationSource,
    ChainSource,
    FileSource,
    Source,
    TextDoc,
    TextSource,
    ZoteroSource,
)

if TYPE_CHECKING:
    from docling_core.types.doc import DoclingDocument

    from citeloom.convert.worker import ConversionWorker
    from citeloom.embed.chunk import Chunker
    from citeloom.embed.encoders import DenseEmbedder, SparseEmbedder
    from citeloom.embed.rerank import CrossEncoder


class CiteLoom:
    """Ingest and query projects; holds loaded models and open indexes for the process.

    Thread-safe for the MCP server's use: queries may run while an ingest job writes, and a
    reindex swaps generations under ``_swap`` so a query sees the old or the new, never
    neither. Every write step (a batch of points with its catalog rows, a prune, an
    optimize, a promote with its catalog) holds ``_swap`` too, so a snapshot, which holds it
    while it copies, sees a project between two steps. A whole ingest, reindex or restore
    of a project holds :meth:`writer` (one writer per project)."""

    def __init__(self, settings: Settings, *, index_wait_s: float = 0.0,
                 started_by: str = "api") -> None:
        """``index_wait_s``: how long to wait for an index another process has open (the
        CLI waits out the MCP server's ``release_idle_s``; the server does not).
        ``started_by`` names the caller in the audit log (cli, mcp, eval)."""
        self.settings = settings
        self.index_wait_s = index_wait_s
        self.started_by = started_by
        use_offline_runtime(settings.models_dir)
        self._dense: dict[str, DenseEmbedder] = {}
        self._sparse: SparseEmbedder | None = None
        self._reranker: CrossEncoder | None = None
        self._chunkers: dict[tuple[str, int], Chunker] = {}
        self._workers: dict[Any, ConversionWorker] = {}
        self._stores: dict[str, Store] = {}
        self._indexes: dict[str, Index] = {}
        self._used: dict[str, float] = {}  # project -> monotonic time of its last index use
        self._unoptimized: set[str] = set()  # projects written to without optimize()
        self._catalogs: dict[str, Catalog] = {}
        self._zotero: Any = None
        self._swap = threading.RLock()
        self._load = threading.Lock()
        self._writers: dict[str, threading.RLock] = {}

    @property
    def settings(self) -> Settings:
        return self._settings

    @settings.setter
    def settings(self, value: Settings) -> None:
        """Settings, new or reloaded (the daemon's, when citeloom.toml changes), learn from
        the indexes which dense model a project that names none was built with."""
        value.use_index_locks(self._index_lock)
        self._settings = value

    # -- models (loaded on first use) ---------------------------------------------------
    def dense(self, model_id: str) -> DenseEmbedder:
        with self._load:
            if model_id not in self._dense:
                from citeloom.embed.encoders import DenseEmbedder

                self._dense[model_id] = DenseEmbedder(self.settings.models_dir, model_id,
                                                      threads=self.settings.threads)
            return self._dense[model_id]

    def reranker(self) -> CrossEncoder:  # the second stage (rerank.py), loaded on first use
        with self._load:
            if self._reranker is None:
                from citeloom.embed.rerank import CrossEncoder
                from citeloom.provision import require, reranker_dir
                require(self.settings.models_dir)
                self._reranker = CrossEncoder(reranker_dir(self.settings.models_dir),
                                              threads=self.settings.threads)
            return self._reranker

    def sparse(self) -> SparseEmbedder:
        with self._load:
            if self._sparse is None:
                from citeloom.embed.encoders import SparseEmbedder

                self._sparse = SparseEmbedder()
            return self._sparse

    def chunker(self, project: ProjectConfig) -> Chunker:
        key = (project.dense_model, project.chunk_max_tokens, project.chunker)
        with self._load:
            if key not in self._chunkers:
                from citeloom.embed.chunk import project_chunker

                self._chunkers[key] = project_chunker(self.settings.models_dir, project)
            return self._chunkers[key]

    def worker(self, project: ProjectConfig,
               ocr_languages: list[str] | None = None) -> ConversionWorker:
        """The conversion worker process for these settings (started on first use; one
        alive at a time, since each holds Docling and the layout model in memory)."""
        from citeloom.convert.worker import ConversionWorker, ConvertOptions
        from citeloom.provision import layout_model_path

        opts = ConvertOptions(
            ocr=project.ocr, ocr_languages=tuple(ocr_languages or project.ocr_languages),
            layout_model_path=str(layout_model_path(self.settings.models_dir)),
            threads=self.settings.threads,
            pdf_password=project.pdf_password.get_secret_value()
            if project.pdf_password else None, text_repair=project.text_repair)
        with self._load:
            worker = self._workers.get(opts)
            if worker is None:
                for other in self._workers.values():
                    other.stop()
                self._workers.clear()
                worker = self._workers[opts] = ConversionWorker(opts, project.conversion_timeout_s)
            worker.timeout_s = project.conversion_timeout_s
            return worker

    @staticmethod
    def model_lock(project: ProjectConfig) -> ModelLock:
        """What the project's index is bound to; the chunk size is capped by the window."""
        spec = dense_spec(project.dense_model)
        return ModelLock(project.dense_model, spec.dim, project.sparse_model,
                         chunk_limit(spec.window, project.chunk_max_tokens), project.chunker)

    @staticmethod
    def index_params(project: ProjectConfig) -> IndexParams:
        return IndexParams(project.hnsw_m, project.hnsw_ef_construct, project.quantization,
                           project.shards, project.replicas, project.on_disk,
                           project.defer_indexing)

    def writer(self, name: str) -> threading.RLock:
        """The lock a project's ingest, reindex or restore holds from start to end."""
        with self._load:
            return self._writers.setdefault(name, threading.RLock())

    # -- stores, indexes, catalogs ---------------------------------------------------------
    def store(self, project: ProjectConfig) -> Store:
        return self._store(project.backend)

    def _store(self, backend: str) -> Store:
        if backend not in self._stores:
            key = self.settings.qdrant_api_key
            self._stores[backend] = make_store(
                backend, self.settings.index_dir, self.settings.qdrant_url,
                key.get_secret_value() if key else None, self.index_wait_s)
        return self._stores[backend]

    def stored_projects(self) -> list[str]:
        """Projects with an index in any backend this configuration can reach."""
        names: set[str] = set()
        for backend in BACKENDS:
            try:
                names |= set(self._store(backend).projects())
            except ConfigError:
                continue  # a backend that is not configured here
        return sorted(names)

    def dense_models_in_use(self) -> set[str]:
        """The dense model of every known project (its index's, for one that names none),
        or the default: what a warm-up loads."""
        return ({self.settings.project(n, create=True).dense_model
                 for n in self.known_projects()} or {DEFAULT_DENSE_MODEL})

    def _index_lock(self, project: ProjectConfig) -> ModelLock | None:
        """The model lock of the project's current index, if it has one."""
        try:
            return self._store(project.backend).index_lock(project.name)
        except Exception:  # a fault the operation itself will report
            return None

    def index(self, name: str, *, create: bool = False) -> Index:
        with self._swap:
            if name not in self._indexes:
                project = self.settings.project(name, create=True)
                try:
                    self._indexes[name] = self.store(project).open(name, create=create)
                except InvalidProject as exc:
                    raise self.unknown_project(name, exc) from None
            self._used[name] = time.monotonic()
            return self._indexes[name]

    def known_projects(self) -> list[str]:
        """Configured projects and projects with an index."""
        return sorted(set(self.settings.projects) | set(self.stored_projects()))

    def unknown_project(self, name: str, exc: InvalidProject | None = None) -> InvalidProject:
        """The error for a project without an index: a configured one is to be ingested
        into; any other name is probably a typo, so the nearest known name comes first."""
        if name in self.settings.projects:
            return exc or InvalidProject(f"project {name!r} has no index yet",
                                         f"ingest into it: `citeloom ingest -p {name}`")
        known = [p for p in self.known_projects() if p != name]
        guess = did_you_mean(name, known)
        listed = f"known projects: {', '.join(known)}" if known else "there are no projects yet"
        hint = (f"did you mean {guess!r}? (-p {guess}); {listed}" if guess else
                f"{listed}; a new project is made by ingesting into it: "
                f"`citeloom ingest PATH -p {name}`")
        return InvalidProject(f"unknown project {name!r}", hint)

    def release_idle(self, idle_s: float, busy: set[str] | frozenset[str] = frozenset()
                     ) -> list[str]:
        """Close the exclusive (Edge) indexes nobody used for ``idle_s`` seconds (except
        ``busy`` projects), so that another process — a CLI ingest while the MCP server
        runs — can open them; one written to without optimizing is optimized first
        (queries wait meanwhile, but nobody has asked for ``idle_s``). A released index
        reopens on its next use. Returns the released names."""
        released = []
        with self._swap:
            now = time.monotonic()
            for name, idx in list(self._indexes.items()):
                if (name in busy or now - self._used.get(name, now) < idle_s
                        or not idx.exclusive):
                    continue
                if name in self._unoptimized:
                    idx.optimize()
                    self._unoptimized.discard(name)
                idx.close()
                del self._indexes[name]
                released.append(name)
        return released

    def delete_project(self, name: str) -> dict[str, Any]:
        """``citeloom remove -p NAME``: a project's index and catalog, what they held."""
        project = self.settings.project(name, create=True)
        with self.writer(name):
            root = self.settings.index_dir / name
            if not self._is_new(project) or root.is_dir():
                gone = {"project": name, "documents": None, "chunks": None,
                        "configured": name in self.settings.projects}
                with contextlib.suppress(CiteLoomError):  # damaged: removed all the same
                    gone["chunks"] = self.index(name).count()
                    gone["documents"] = len(self.catalog(name))
                self.remove_project(name)
                return gone
        raise self.unknown_project(name)

    def remove_documents(self, project_name: str | None, refs: list[str]) -> dict[str, Any]:
        """``citeloom remove -p NAME DOC...``: documents by doc id, path, file name or
        citekey (``library.remove_documents``)."""
        project = self.settings.project(project_name, create=True)
        with self.writer(project.name):
            return library.remove_documents(self, project.name, refs)

    def remove_project(self, name: str) -> None:
        """Delete a project's index (every generation) and catalog."""
        import shutil

        project = self.settings.project(name, create=True)
        with self._swap:
            idx = self._indexes.pop(name, None)
            if idx is not None:
                idx.close()
            cat = self._catalogs.pop(name, None)
            if cat is not None:
                cat.close()
            self.store(project).delete_project(name)
            shutil.rmtree(self.settings.index_dir / name, ignore_errors=True)

    def catalog(self, name: str) -> Catalog:
        if name not in self._catalogs:
            self._catalogs[name] = Catalog(self.settings.index_dir / name / "catalog.sqlite",
                                           name)
        return self._catalogs[name]

    def forget(self, name: str) -> None:
        """Close this process's handles on a project (index, catalog); the next use
        reopens them (``repair`` replaces files under them)."""
        with self._swap:
            idx = self._indexes.pop(name, None)
            if idx is not None:  # a damaged shard's close may fail: its lock goes anyway
                with contextlib.suppress(CiteLoomError):
                    idx.close()
            cat = self._catalogs.pop(name, None)
            if cat is not None:
                cat.close()

    def repair(self, project_name: str | None) -> dict[str, Any]:
        """Put a damaged project back together from what is intact (``repair.py``); what
        was found, done and left, as a dict."""
        from citeloom.service.repair import repair

        return repair(self, project_name).to_dict()

    def close(self) -> None:
        with self._swap:
            for idx in self._indexes.values():
                idx.close()
            self._indexes.clear()
            for cat in self._catalogs.values():
                cat.close()
            self._catalogs.clear()
            for store in self._stores.values():
                store.close()
            self._stores.clear()
        for worker in self._workers.values():
            worker.stop()
        self._workers.clear()

    # -- conversion cache ----------------------------------------------------------------
    def _cache_path(self, content_hash: str, project: ProjectConfig) -> Path:
        """Where a conversion of this content under this project's settings is kept. Keyed
        by content, plus the settings that decide what text a conversion can find at all:
        OCR off (a scan converted without OCR must not serve a project that OCRs) and the
        PDF password (an encrypted PDF's text must not reach a project without it). OCR
        languages are not in the key, so a reindex after a language change converts
        nothing (delete the cache folder to reconvert, as docs/DECISIONS.md says)."""
        key = content_hash
        if not project.ocr:
            key += "-noocr"
        if not project.text_repair:
            key += "-norepair"
        if project.pdf_password:
            secret = project.pdf_password.get_secret_value().encode()
            key += "-pw" + hashlib.sha256(b"citeloom-pdf-password\0" + secret).hexdigest()[:16]
        return self.settings.data_dir / "cache" / "conversions" / f"{key}.json.gz"

    def damaged_cache_entries(self, project: ProjectConfig, hashes: Iterable[str]
                              ) -> list[Path]:
        """The cached conversions of these contents that do not decompress as JSON."""
        bad = []
        for h in hashes:
            path = self._cache_path(h, project)
            if not path.is_file():
                continue
            try:
                json.loads(gzip.decompress(path.read_bytes()))
            except (OSError, ValueError, EOFError):
                bad.append(path)
        return bad

    def cached_conversion(self, content_hash: str, project: ProjectConfig) -> bytes | None:
        """The cached conversion of this content (gzipped DoclingDocument JSON), if any."""
        try:
            return self._cache_path(content_hash, project).read_bytes()
        except OSError:
            return None

    def store_conversion(self, content_hash: str, project: ProjectConfig, data: bytes,
                         name: str) -> None:
        """Keep a conversion in the cache (written beside, then renamed into place)."""
        cached = self._cache_path(content_hash, project)
        tmp = cached.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            space.require(cached.parent, len(data), f"caching the conversion of {name}")
            cached.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_bytes(data)
            os.replace(tmp, cached)
        except OSError as exc:  # ENOSPC: DISK_FULL, which stops the run
            tmp.unlink(missing_ok=True)
            raise as_error(exc, cached.parent) from None

    def convert(self, path: Path, project: ProjectConfig, content_hash: str,
                ocr_languages: list[str] | None = None,
                warnings: list[dict[str, str]] | None = None) -> DoclingDocument:
        """The converted document, from the cache when this content was converted before. A
        damaged cache entry is converted again, and said in ``warnings`` (CACHE_DAMAGED)."""
        from docling_core.types.doc import DoclingDocument

        data = self.cached_conversion(content_hash, project)
        if data is not None:
            try:
                doc = DoclingDocument.model_validate_json(gzip.decompress(data))
                if not reread(doc, project) or not path.is_file():
                    return doc  # (a file gone since: its old reading is all there is)
            except Exception as exc:  # a damaged cache entry is re-made, and said
                cached = self._cache_path(content_hash, project)
                cached.unlink(missing_ok=True)
                if warnings is not None:
                    warnings.append(cache_damaged(path.name, cached.name, exc))
        # In a worker process, with a deadline.
        data = self.worker(project, ocr_languages).convert(path)
        self.store_conversion(content_hash, project, data, path.name)
        return DoclingDocument.model_validate_json(gzip.decompress(data))

    def check_writable(self, project_name: str) -> None:
        """Raise EmbeddingMismatch now if an ingest into this project would be refused."""
        project = self.settings.project(project_name, create=True)
        try:
            index = self.index(project.name)
        except CiteLoomError as exc:
            if exc.code == "INVALID_PROJECT":
                return  # a new project: the first ingest creates it
            raise
        index.check_lock(self.model_lock(project))

    # -- ingest: every source through the one pipeline -------------------------------------
    def executor(self, workers: int | None = None, ray: str | None = None) -> Executor:
        """Where convert, chunk and embed run: on Ray when ``ray`` (an address, or
        ``local``) or ``[cluster] address`` says so (unless ``workers`` is given), else in
        ``workers`` local processes (default ``[defaults] workers``, else the machine's
        rule, ``executor_pool.default_workers``); one is this process with its worker."""
        if ray is None and workers is None:
            ray = self.settings.cluster.address
        if ray:
            from citeloom.ingest.ray import RayExecutor

            return RayExecutor(self, ray)
        if workers is None:
            workers = self.settings.workers
        if workers is None:
            from citeloom.ingest.pool import default_workers

            workers = default_workers()
        if workers <= 1:
            return InProcess(self)
        from citeloom.ingest.pool import Pool

        return Pool(self, workers)

    def run(self, source: Source, project_name: str | None, *,
            progress: ProgressFn | None = None, optimize: bool = True,
            started_by: str | None = None, workers: int | None = None,
            ray: str | None = None) -> IngestReport:
        """Ingest ``source`` into a project (created on first write). ``started_by`` names
        the caller in the audit log (default: the service's); ``workers`` and ``ray``
        choose the executor (:meth:`executor`)."""
        from citeloom.provision import require

        project = self.settings.project(project_name, create=True)
        require(self.settings.models_dir)  # once, not as a conversion failure per file
        with self.writer(project.name):
            new = self._is_new(project)
            index = self.index(project.name, create=True)
            try:
                index.ensure(self.model_lock(project), self.index_params(project))
                pipeline = Pipeline(self, project, index, self.catalog(project.name),
                                    self.executor(workers, ray))
                report = pipeline.run(source, progress=progress, optimize=optimize,
                                      started_by=started_by or self.started_by)
            except BaseException:
                if new:
                    self._drop_if_empty(project.name)
                raise
            if new:
                self._first_ingest(project.name, report)
            return report

    def _is_new(self, project: ProjectConfig) -> bool:
        """Whether the project has no index yet (its first ingest makes one)."""
        try:
            return self.store(project).current_generation(project.name) is None
        except CiteLoomError:
            return False  # damaged: never removed here (`citeloom repair` decides)

    def _drop_if_empty(self, name: str) -> bool:
        """Remove a project its first ingest left empty (every file failed, or nothing
        to ingest): a typo in ``-p`` must not leave a project behind."""
        try:
            empty = self.index(name).count() == 0 and len(self.catalog(name)) == 0
        except CiteLoomError:
            return False
        if empty:
            self.remove_project(name)
        return empty

    def _first_ingest(self, name: str, report: IngestReport) -> None:
        """A new project: gone again if nothing was indexed; a warning either way when its
        name is close to a known one (``-p scrtach`` for ``scratch``)."""
        others = [p for p in self.known_projects() if p != name]
        guess = did_you_mean(name, others)
        if self._drop_if_empty(name):
            report.warnings.append(InvalidProject(
                f"nothing was indexed, so project {name!r} was not created",
                (f"did you mean {guess!r}? " if guess else "")
                + "check the paths and the errors above").to_dict())
        elif guess:
            report.warnings.append(InvalidProject(
                f"{name!r} is a new project", f"did you mean {guess!r}? If so, "
                f"`citeloom remove -p {name} --yes` and ingest into {guess!r}").to_dict())

    def ingest(self, paths: list[Path], project_name: str | None,
               progress: ProgressFn | None = None, prune: bool = False,
               optimize: bool = True, started_by: str | None = None,
               workers: int | None = None, ray: str | None = None) -> IngestReport:
        """Files and folders. ``optimize=False`` leaves Edge's optimize() (which holds the
        GIL) to :meth:`release_idle`, for the MCP server's jobs."""
        return self.run(FileSource(paths, prune=prune, matcher_for=self.zotero_matcher),
                        project_name, progress=progress, optimize=optimize,
                        started_by=started_by, workers=workers, ray=ray)

    def ingest_zotero(self, project_name: str | None, collection: str | None, *,
                      include_subcollections: bool = False, tags_include: list[str] | None = None,
                      tags_exclude: list[str] | None = None, annotations: bool = True,
                      progress: ProgressFn | None = None, optimize: bool = True,
                      started_by: str | None = None, workers: int | None = None,
                      ray: str | None = None) -> IngestReport:
        """The PDF attachments of a Zotero collection (name, path or key; None for the
        whole library), then (``annotations``) its items' annotations and notes, in one
        run: one report, and the annotations find their PDFs' sections in the index."""
        reader = self.zotero_reader()
        pdfs = ZoteroSource(reader, collection,
                            downloads=self.settings.data_dir / "cache" / "zotero-files",
                            include_subcollections=include_subcollections,
                            tags_include=tags_include, tags_exclude=tags_exclude)
        source: Source = pdfs
        if annotations:
            source = ChainSource(pdfs, AnnotationSource(
                reader, collection, include_subcollections=include_subcollections,
                tags_include=tags_include, tags_exclude=tags_exclude,
                items=lambda: pdfs.items))
        return self.run(source, project_name, progress=progress, optimize=optimize,
                        started_by=started_by, workers=workers, ray=ray)

    def index_texts(self, project_name: str, docs: list[TextDoc],
                    progress: ProgressFn | None = None) -> IngestReport:
        """Plain-text documents (no file, no conversion); used by the evaluation."""
        return self.run(TextSource(docs), project_name, progress=progress)

    def reindex(self, project_name: str | None, progress: ProgressFn | None = None,
                started_by: str | None = None, workers: int | None = None,
                ray: str | None = None, dense_model: str | None = None) -> IngestReport:
        """Rebuild a project's index with its configured models and today's chunker (unless
        configured), from the cached conversions, in a new generation; swap it in when
        complete. Queries keep answering from the old generation until then.
        ``dense_model``: migrate to this model (refused if the configuration names
        another). See reindex.py."""
        project = reindex.target(self, project_name, dense_model)
        with self.writer(project.name):
            return reindex.rebuild(self, project, progress, started_by,
                                   self.executor(workers, ray))

    def optimize(self, project_name: str | None) -> float:
        """Merge and index the project's segments now; returns the seconds it took."""
        project = self.settings.project(project_name, create=True)
        started = time.perf_counter()
        with self._swap:
            self.index(project.name).optimize()
            self._unoptimized.discard(project.name)
        return time.perf_counter() - started

    # -- zotero ---------------------------------------------------------------------------
    def zotero_reader(self) -> Any:
        """The Zotero library the settings name (see docs/ZOTERO.md)."""
        if self._zotero is None:
            self._zotero = self.settings.zotero.reader()
        return self._zotero

    def reload_zotero(self) -> None:
        """Read the library anew on next use (it changed)."""
        self._zotero = None

    def zotero_matcher(self, report: IngestReport) -> Any:
        """An ItemMatcher over the configured library, or None (no Zotero configured, or
        unreachable: then a warning, and files are indexed from their own metadata)."""
        if not self.settings.zotero.configured:
            return None
        from citeloom.zotero import ItemMatcher

        try:
            return ItemMatcher(list(self.zotero_reader().items()))
        except CiteLoomError as exc:
            report.warnings.append(exc.to_dict())
            return None

    # -- queries and the library ----------------------------------------------------------
    def query(self, project_name: str | None, text: str, *, mode: Mode = "hybrid",
              top_k: int = 10, fusion: Fusion = DEFAULT_FUSION, flt: SearchFilter | None = None,
              group_by_doc: bool = False, include_references: bool = False,
              max_chars: int = PASSAGE_CHARS, per_page: bool = True,
              also: list[str] | None = None, rerank: int | None = None) -> QueryResult:
        return search.query(self, project_name, text, mode=mode, top_k=top_k, fusion=fusion,
                            flt=flt, group_by_doc=group_by_doc,
                            include_references=include_references, max_chars=max_chars,
                            per_page=per_page, also=also, rerank=rerank)

    def similar(self, project_name: str | None, chunk_ids: list[str],
                negative_ids: list[str] | None = None, top_k: int = 10,
                flt: SearchFilter | None = None, max_chars: int = PASSAGE_CHARS) -> list[Passage]:
        return search.similar(self, project_name, chunk_ids, negative_ids, top_k, flt,
                              max_chars)

    def query_many(self, projects: list[str] | None, text: str, *, mode: Mode = "hybrid",
                   top_k: int = 10, fusion: Fusion = DEFAULT_FUSION,
                   flt: SearchFilter | None = None,
                   group_by_doc: bool = False, include_references: bool = False,
                   max_chars: int = PASSAGE_CHARS, per_page: bool = True,
                   also: list[str] | None = None, rerank: int | None = None) -> QueryResult:
        """One question across ``projects`` (None: every project with an index)."""
        return search.query_many(self, projects, text, mode=mode, top_k=top_k, fusion=fusion,
                                 flt=flt, group_by_doc=group_by_doc,
                                 include_references=include_references, max_chars=max_chars,
                                 per_page=per_page, also=also, rerank=rerank)

    def similar_many(self, projects: list[str] | None, chunk_ids: list[str],
                     negative_ids: list[str] | None = None, top_k: int = 10,
                     flt: SearchFilter | None = None, max_chars: int = PASSAGE_CHARS
                     ) -> SimilarResult:
        return search.similar_many(self, projects, chunk_ids, negative_ids, top_k, flt,
                                   max_chars)

    def snapshot(self, project_name: str | None, out: Path) -> dict[str, Any]:
        """Write one archive that restores the project (see ``snapshots.py``)."""
        return snapshots.take(self, project_name, Path(out))

    def restore(self, archive: Path, project_name: str | None, *,
                force: bool = False) -> dict[str, Any]:
        """Restore an archive as ``project_name`` (an existing project only with ``force``)."""
        return snapshots.restore(self, Path(archive), project_name, force=force)

    def list_projects(self) -> list[dict[str, Any]]:
        return library.list_projects(self)

    def inspect(self, project_name: str | None, sample: int = 3) -> dict[str, Any]:
        return library.inspect(self, project_name, sample)

    def health(self, project_name: str | None, worst: int | None = None) -> dict[str, Any]:
        """The project's health ledger (``library.health``)."""
        return library.health(self, project_name, worst)

    def check(self, text: str, fmt: str, projects: list[str] | None = None,
              draft: str = "draft") -> dict[str, Any]:
        """A draft's citations judged (``service/citecheck.py``); None: every project."""
        from citeloom.service.citecheck import check_draft
        from citeloom.service.drafts import citations

        return check_draft(self, draft, search._targets(self, projects),
                           citations(text, fmt)).to_dict()

    def cached_document(self, content_hash: str, project: ProjectConfig) -> Any:
        """The cached conversion of this content as a document, or None."""
        from docling_core.types.doc import DoclingDocument

        data = self.cached_conversion(content_hash, project)
        if data is None:
            return None
        try:
            return DoclingDocument.model_validate_json(gzip.decompress(data))
        except Exception:  # noqa: BLE001 - damaged: inspect says so on its own
            return None

    def list_papers(self, project_name: str | None) -> list[dict[str, Any]]:
        """A project's papers with their citekeys and metadata (``library.list_papers``)."""
        return library.list_papers(self, project_name)

    def list_annotations(self, project_name: str | None, citekey: str,
                         kinds: list[str] | None = None, max_chars: int = PASSAGE_CHARS
                         ) -> list[Passage]:
        """An item's annotations (and notes) in page order, by citekey or Zotero key."""
        return library.annotations(self, project_name, citekey, kinds, max_chars)

    def cite(self, citekeys: list[str], fmt: Literal["bibtex", "csl-json"] = "bibtex",
             project_name: str | None = None) -> str:
        return library.cite(self, citekeys, fmt, project_name)
