"""The service layer: the one place where the pipeline is put together.

    ingest:  files ─► convert ─► chunk ─► embed (dense + sparse) ─► index
    query:   text ─► embed ─► search (dense | sparse | hybrid RRF/DBSF) ─► citable hits

The CLI and the MCP server call only this module. Heavy imports (Docling, onnxruntime)
happen inside the methods that need them, so a query never loads Docling.
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from .catalog import Catalog, DocRecord
from .config import ProjectConfig, Settings
from .embed import Sparse
from .errors import (
    CiteLoomError,
    HybridNotSupported,
    InvalidInput,
    SourceNotFound,
    UnsupportedType,
)
from .index import (
    Fusion,
    Hit,
    Index,
    IndexParams,
    Mode,
    ModelLock,
    PointData,
    SearchFilter,
    Store,
    make_store,
)
from .models import dense_spec, sha256_file, use_offline_runtime

if TYPE_CHECKING:
    from docling_core.types.doc import DoclingDocument

    from .chunk import Chunk, Chunker
    from .embed import DenseEmbedder, SparseEmbedder
    from .worker import ConversionWorker

CHUNK_NAMESPACE = uuid.UUID("6f1c1a52-3c1e-4d59-9a57-0d1f3c2b7e10")
# What Docling converts here without models beyond ours (see convert.available_formats).
SUPPORTED_SUFFIXES = {".pdf", ".png", ".tif", ".tiff", ".jpg", ".jpeg", ".bmp", ".webp",
                      ".docx", ".pptx", ".html", ".htm", ".xhtml", ".md", ".tex", ".nxml",
                      ".xml", ".adoc", ".asciidoc"}
Status = Literal["indexed", "replaced", "skipped", "failed", "removed"]


file_sha256 = sha256_file  # one hashing helper for models and documents


def chunk_id(doc_id: str, chunk_index: int, dense_model: str) -> str:
    """Deterministic point id: the same document, chunk and model always give the same id."""
    return str(uuid.uuid5(CHUNK_NAMESPACE, f"{doc_id}:{chunk_index}:{dense_model}"))


@dataclass
class FileResult:
    path: str
    status: Status
    doc_id: str | None = None
    pages: int = 0
    chunks: int = 0
    seconds: float = 0.0
    error: dict[str, str] | None = None
    note: str = ""


@dataclass
class IngestReport:
    project: str
    files: list[FileResult] = field(default_factory=list)
    seconds: float = 0.0
    warnings: list[dict[str, str]] = field(default_factory=list)
    items_without_pdf: list[dict[str, Any]] = field(default_factory=list)

    def count(self, status: Status) -> int:
        return sum(1 for f in self.files if f.status == status)

    @property
    def outcome(self) -> Literal["ok", "partial", "failed"]:
        failed = self.count("failed")
        if not failed or not self.files:
            return "ok"
        return "failed" if failed == len(self.files) else "partial"

    def to_dict(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "outcome": self.outcome,
            "indexed": self.count("indexed") + self.count("replaced"),
            "replaced": self.count("replaced"),
            "removed": self.count("removed"),
            "skipped": self.count("skipped"),
            "failed": self.count("failed"),
            "chunks": sum(f.chunks for f in self.files),
            "pages": sum(f.pages for f in self.files),
            "seconds": round(self.seconds, 3),
            "files": [asdict(f) for f in self.files],
            "warnings": self.warnings,
            "items_without_pdf": self.items_without_pdf,
        }


@dataclass
class Passage:
    """One citable hit."""

    rank: int
    score: float
    citekey: str | None
    title: str
    authors: list[str]
    year: int | None
    page_start: int | None
    page_end: int | None
    section_path: str
    text: str
    doc_id: str
    chunk_id: str
    source_path: str
    item_labels: list[str]
    zotero_key: str | None = None  # the Zotero item (or standalone PDF) it came from
    zotero_link: str | None = None  # zotero://open-pdf/... at the page, or zotero://select/...

    @property
    def pages(self) -> str:
        if self.page_start is None:
            return "?"
        if self.page_end in (None, self.page_start):
            return f"p. {self.page_start}"
        return f"pp. {self.page_start}-{self.page_end}"


@dataclass
class QueryResult:
    project: str
    query: str
    mode: Mode
    fusion: Fusion | None
    models: dict[str, str]
    hits: list[Passage]
    timings_ms: dict[str, float]
    correlation_id: str

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        return d


ProgressFn = Callable[[str, FileResult | None], None]


@dataclass
class TextDoc:
    """A document given as text, for ``CiteLoom.index_texts``."""

    doc_id: str
    title: str
    text: str
    source: str = ""
    payload: dict[str, Any] = field(default_factory=dict)


def expand_sources(paths: Iterable[Path]) -> tuple[list[Path], list[FileResult]]:
    """Files to ingest (folders walked in name order) and results for paths that fail now."""
    files: list[Path] = []
    bad: list[FileResult] = []
    for p in paths:
        p = Path(p).expanduser()
        if p.is_dir():
            files.extend(sorted(f for f in p.rglob("*")
                                if f.is_file() and f.suffix.lower() in SUPPORTED_SUFFIXES))
        elif p.is_file():
            if p.suffix.lower() in SUPPORTED_SUFFIXES:
                files.append(p)
            else:
                err = UnsupportedType(f"{p.name}: {p.suffix or 'no extension'} is not supported",
                                      f"supported: {', '.join(sorted(SUPPORTED_SUFFIXES))}")
                bad.append(FileResult(str(p), "failed", error=err.to_dict()))
        else:
            err = SourceNotFound(f"{p} does not exist", "check the path")
            bad.append(FileResult(str(p), "failed", error=err.to_dict()))
    seen: set[Path] = set()
    unique = [f for f in files if not (f.resolve() in seen or seen.add(f.resolve()))]
    return unique, bad


def section_prefixes(heading_chain: list[str]) -> list[str]:
    """Every heading-boundary prefix of a section path, for the section-prefix filter."""
    return [SECTION_SEP.join(heading_chain[: i + 1]) for i in range(len(heading_chain))]


SECTION_SEP = " > "


class CiteLoom:
    """Ingest and query projects; holds loaded models and open indexes for the process.

    Thread-safe for the MCP server's use: queries may run while an ingest job writes, and a
    reindex swaps generations under ``_swap`` so a query sees the old or the new, never
    neither."""

    def __init__(self, settings: Settings, *, index_wait_s: float = 0.0) -> None:
        """``index_wait_s``: how long to wait for an Edge index another process has open
        (the CLI waits out the MCP server's ``release_idle_s``; the server does not)."""
        self.settings = settings
        self.index_wait_s = index_wait_s
        use_offline_runtime(settings.models_dir)
        self._dense: dict[str, DenseEmbedder] = {}
        self._sparse: SparseEmbedder | None = None
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

    # -- models (loaded on first use) ---------------------------------------------------
    def dense(self, model_id: str) -> DenseEmbedder:
        with self._load:
            if model_id not in self._dense:
                from .embed import DenseEmbedder

                self._dense[model_id] = DenseEmbedder(self.settings.models_dir, model_id,
                                                      threads=self.settings.threads)
            return self._dense[model_id]

    def sparse(self) -> SparseEmbedder:
        with self._load:
            if self._sparse is None:
                from .embed import SparseEmbedder

                self._sparse = SparseEmbedder()
            return self._sparse

    def chunker(self, project: ProjectConfig) -> Chunker:
        key = (project.dense_model, project.chunk_max_tokens)
        with self._load:
            if key not in self._chunkers:
                from .chunk import Chunker
                from .embed import load_tokenizer

                spec = dense_spec(project.dense_model)
                tok = load_tokenizer(self.settings.models_dir, project.dense_model)
                self._chunkers[key] = Chunker(tok, spec.window, project.chunk_max_tokens)
            return self._chunkers[key]

    def worker(self, project: ProjectConfig,
               ocr_languages: list[str] | None = None) -> ConversionWorker:
        """The conversion worker process for these settings (started on first use; one
        alive at a time, since each holds Docling and the layout model in memory)."""
        from .models import layout_model_path
        from .worker import ConversionWorker, ConvertOptions

        opts = ConvertOptions(
            ocr=project.ocr, ocr_languages=tuple(ocr_languages or project.ocr_languages),
            layout_model_path=str(layout_model_path(self.settings.models_dir)),
            threads=self.settings.threads,
            pdf_password=project.pdf_password.get_secret_value()
            if project.pdf_password else None)
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
        spec = dense_spec(project.dense_model)
        return ModelLock(project.dense_model, spec.dim, project.sparse_model,
                         min(project.chunk_max_tokens, spec.window))

    @staticmethod
    def index_params(project: ProjectConfig) -> IndexParams:
        return IndexParams(project.hnsw_m, project.hnsw_ef_construct, project.quantization)

    # -- stores, indexes, catalogs ---------------------------------------------------------
    def store(self, project: ProjectConfig) -> Store:
        if project.backend not in self._stores:
            key = self.settings.qdrant_api_key
            self._stores[project.backend] = make_store(
                project.backend, self.settings.index_dir, self.settings.qdrant_url,
                key.get_secret_value() if key else None, self.index_wait_s)
        return self._stores[project.backend]

    def index(self, name: str, *, create: bool = False) -> Index:
        with self._swap:
            if name not in self._indexes:
                project = self.settings.project(name, create=True)
                self._indexes[name] = self.store(project).open(name, create=create)
            self._used[name] = time.monotonic()
            return self._indexes[name]

    def release_idle(self, idle_s: float, busy: set[str] | frozenset[str] = frozenset()
                     ) -> list[str]:
        """Close the Edge indexes nobody used for ``idle_s`` seconds (except ``busy``
        projects), so that another process — a CLI ingest while the MCP server runs — can
        open them; one written to without optimizing is optimized first (queries wait
        meanwhile, but nobody has asked for ``idle_s``). A released index reopens on its
        next use. Returns the released names."""
        released = []
        with self._swap:
            now = time.monotonic()
            for name, idx in list(self._indexes.items()):
                if (name in busy or now - self._used.get(name, now) < idle_s
                        or self.settings.project(name, create=True).backend != "edge"):
                    continue
                if name in self._unoptimized:
                    idx.optimize()
                    self._unoptimized.discard(name)
                idx.close()
                del self._indexes[name]
                released.append(name)
        return released

    def catalog(self, name: str) -> Catalog:
        if name not in self._catalogs:
            self._catalogs[name] = Catalog(self.settings.index_dir / name / "catalog.sqlite")
        return self._catalogs[name]

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
        if project.pdf_password:
            secret = project.pdf_password.get_secret_value().encode()
            key += "-pw" + hashlib.sha256(b"citeloom-pdf-password\0" + secret).hexdigest()[:16]
        return self.settings.data_dir / "cache" / "conversions" / f"{key}.json.gz"

    def convert(self, path: Path, project: ProjectConfig, content_hash: str,
                ocr_languages: list[str] | None = None) -> DoclingDocument:
        """The converted document, from the cache when this content was converted before."""
        from docling_core.types.doc import DoclingDocument

        cached = self._cache_path(content_hash, project)
        if cached.is_file():
            try:
                return DoclingDocument.model_validate_json(gzip.decompress(cached.read_bytes()))
            except Exception:
                cached.unlink(missing_ok=True)  # a damaged cache entry is just re-made
        # In a worker process, with a deadline.
        data = self.worker(project, ocr_languages).convert(path)
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, cached)
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

    # -- ingest -------------------------------------------------------------------------
    def ingest(self, paths: list[Path], project_name: str | None,
               progress: ProgressFn | None = None, prune: bool = False,
               optimize: bool = True) -> IngestReport:
        project = self.settings.project(project_name, create=True)
        files, bad = expand_sources(paths)
        report = IngestReport(project.name, files=list(bad))
        started = time.perf_counter()
        index = self.index(project.name, create=True)
        index.ensure(self.model_lock(project), self.index_params(project))
        catalog = self.catalog(project.name)
        matcher = self._zotero_matcher(report) if files else None
        if progress:
            progress(f"start:{len(files)}", None)
        for path in files:
            result = self._ingest_file(path, project, index, catalog, matcher=matcher)
            report.files.append(result)
            if progress:
                progress("file", result)
        if prune:
            report.files.extend(self._prune(paths, index, catalog, progress))
        self._optimize_if_grown(index, report, now=optimize)
        report.seconds = time.perf_counter() - started
        return report

    def _optimize_if_grown(self, index: Index, report: IngestReport, *, now: bool) -> None:
        """Optimize the Edge shard after an ingest that wrote chunks: at 100k chunks hybrid
        p50 fell from 52 to 13 ms (docs/BENCHMARKS-index.md), and when nothing is due (a
        few hundred new points) it returns at once. Edge's optimize() holds the GIL, so the
        MCP server's jobs leave it for later (``now=False``): :meth:`release_idle` does it
        once the project has been idle, and `citeloom optimize` any time."""
        if any(f.chunks for f in report.files if f.status in ("indexed", "replaced")):
            if now:
                index.optimize()
            else:
                self._unoptimized.add(index.project)

    def optimize(self, project_name: str | None) -> float:
        """Merge and index the project's segments now; returns the seconds it took."""
        project = self.settings.project(project_name, create=True)
        started = time.perf_counter()
        with self._swap:
            self.index(project.name).optimize()
            self._unoptimized.discard(project.name)
        return time.perf_counter() - started

    def _ingest_file(self, path: Path, project: ProjectConfig, index: Index, catalog: Catalog,
                     *, meta: dict[str, Any] | None = None, zotero_version: int | None = None,
                     ocr_languages: list[str] | None = None, matcher: Any = None
                     ) -> FileResult:
        """Index one file. ``meta`` (Zotero metadata) goes into every chunk's payload; a
        ``matcher`` looks the file up in Zotero when no ``meta`` is given."""
        t0 = time.perf_counter()
        source = str(path.resolve())
        result = FileResult(source, "failed")
        try:
            st = path.stat()
            previous = catalog.by_source(source)
            # Fast path: same file, same size and mtime, same Zotero version, chunks all
            # there. No hashing, no models.
            for rec in previous:
                if ((rec.size, rec.mtime_ns) == (st.st_size, st.st_mtime_ns)
                        and (zotero_version is None or rec.zotero_version == zotero_version)
                        and index.count(rec.doc_id) == rec.chunks):
                    result.status, result.doc_id, result.chunks = "skipped", rec.doc_id, rec.chunks
                    return result
            content_hash = file_sha256(path)
            doc_id = content_hash[:32]
            result.doc_id = doc_id
            known = catalog.get(doc_id)
            if (known and index.count(doc_id) == known.chunks
                    and (zotero_version is None or known.zotero_version == zotero_version)):
                if known.source_path == source or not Path(known.source_path).exists():
                    known.source_path = source
                    known.size, known.mtime_ns = st.st_size, st.st_mtime_ns
                    catalog.put(known)  # touched or moved, same content
                    result.status, result.chunks = "skipped", known.chunks
                else:
                    result.status, result.chunks = "skipped", known.chunks
                    result.note = f"same content as {known.source_path}"
                return result
            doc = self.convert(path, project, content_hash, ocr_languages)
            chunks, title = self._chunks(doc, path, project)
            if meta is None and matcher is not None:
                meta = self._match(matcher, path, doc, result)
            if meta and meta.get("title"):
                title = meta["title"]
            index_points = self._points(chunks, project, doc_id, content_hash, source, title,
                                        meta)
            with self._swap:
                index.upsert(index_points)
            catalog.put(DocRecord(doc_id, source, content_hash, st.st_size, st.st_mtime_ns,
                                  len(chunks), doc.num_pages(), title,
                                  zotero_key=(meta or {}).get("zotero_key"),
                                  zotero_version=zotero_version))
            result.status, result.chunks, result.pages = "indexed", len(chunks), doc.num_pages()
            # A changed file: its new chunks are in; only now do the old ones go.
            for rec in previous:
                if rec.doc_id != doc_id:
                    with self._swap:
                        index.delete_doc(rec.doc_id)
                    catalog.delete(rec.doc_id)
                    result.status = "replaced"
        except CiteLoomError as exc:
            result.error = exc.to_dict()
        except Exception as exc:  # one bad file must never stop the batch
            result.error = {"code": "CONVERSION_FAILED", "message": f"{path.name}: {exc}",
                            "hint": "the file may be damaged; open it in a PDF reader to check"}
        finally:
            result.seconds = round(time.perf_counter() - t0, 3)
        return result

    def _chunks(self, doc: DoclingDocument, path: Path,
                project: ProjectConfig) -> tuple[list[Chunk], str]:
        """Heading levels, title, normalised text (``structure.restructure``, applied to
        the cached conversion so rule changes need no reconversion), then chunks."""
        from .chunk import document_title, pdf_metadata_title
        from .headings import find_title
        from .structure import restructure

        pdf = path if path.suffix.lower() == ".pdf" and path.is_file() else None
        password = project.pdf_password.get_secret_value() if project.pdf_password else None
        doc = restructure(doc, pdf_path=pdf, password=password)
        chunks = self.chunker(project).chunk(doc)
        if not chunks:
            raise InvalidInput(f"{path.name}: no text found",
                               "the file may be empty, or scanned with OCR disabled")
        title = find_title(doc) or document_title(doc, path.stem, pdf_metadata_title(path))
        return chunks, title

    def _points(self, chunks: list[Chunk], project: ProjectConfig, doc_id: str,
                content_hash: str, source: str, title: str,
                meta: dict[str, Any] | None = None) -> list[PointData]:
        texts = [c.embed_text for c in chunks]
        dense = self.dense(project.dense_model).embed(texts)
        sparse = (self.sparse().embed(texts) if project.sparse_model != "none"
                  else [Sparse([], []) for _ in texts])
        return [
            PointData(
                id=chunk_id(doc_id, c.index, project.dense_model),
                dense=dense[i].tolist(),
                sparse=sparse[i],
                payload={
                    "project_id": project.name,
                    "doc_id": doc_id,
                    "citekey": None,
                    "title": title,
                    "authors": [],
                    "year": None,
                    "doi": None,
                    "tags": [],
                    "collections": [],
                    "zotero_key": None,
                    "source_path": source,
                    "section_path": c.section_path,
                    "section_prefixes": section_prefixes(c.heading_chain),
                    "heading_chain": c.heading_chain,
                    "page_start": c.page_start,
                    "page_end": c.page_end,
                    "chunk_index": c.index,
                    "doc_chunk_count": len(chunks),
                    "chunk_text": c.text,
                    "content_hash": content_hash,
                    "language": None,
                    "item_labels": c.item_labels,
                    "embed_model": project.dense_model,
                    **{k: v for k, v in (meta or {}).items() if v is not None},
                },
            )
            for i, c in enumerate(chunks)
        ]

    def _prune(self, roots: list[Path], index: Index, catalog: Catalog,
               progress: ProgressFn | None) -> list[FileResult]:
        """Remove documents whose file, under one of ``roots``, no longer exists."""
        resolved = [str(Path(r).expanduser().resolve()) for r in roots]
        out = []
        for rec in catalog.all():
            under = any(rec.source_path == r or rec.source_path.startswith(r.rstrip("/") + "/")
                        for r in resolved)
            if under and not Path(rec.source_path).exists():
                with self._swap:
                    index.delete_doc(rec.doc_id)
                catalog.delete(rec.doc_id)
                res = FileResult(rec.source_path, "removed", doc_id=rec.doc_id, chunks=rec.chunks)
                out.append(res)
                if progress:
                    progress("file", res)
        return out

    def index_texts(self, project_name: str, docs: list[TextDoc], batch: int = 256,
                    progress: Callable[[int], None] | None = None) -> int:
        """Index plain-text documents (no file, no conversion): each becomes a one-section
        document under its title, chunked like a converted one. Returns the chunk count.
        Used by the retrieval evaluation and for notes."""
        from docling_core.types.doc import DocItemLabel, DoclingDocument

        project = self.settings.project(project_name, create=True)
        index = self.index(project.name, create=True)
        index.ensure(self.model_lock(project), self.index_params(project))
        chunker = self.chunker(project)
        pending: list[PointData] = []
        total = 0
        for n, d in enumerate(docs, 1):
            doc = DoclingDocument(name=d.doc_id)
            if d.title:
                doc.add_heading(text=d.title, level=1)
            doc.add_text(label=DocItemLabel.TEXT, text=d.text)
            chunks = chunker.chunk(doc)
            points = self._points(chunks, project, d.doc_id, d.doc_id, d.source or d.doc_id,
                                  d.title)
            for p in points:
                p.payload.update(d.payload)
            pending.extend(points)
            if len(pending) >= batch or n == len(docs):
                with self._swap:
                    index.upsert(pending)
                total += len(pending)
                pending = []
                if progress:
                    progress(n)
        index.optimize()
        return total

    # -- zotero ---------------------------------------------------------------------------
    def zotero_reader(self) -> Any:
        """The Zotero library the environment names (see docs/ZOTERO.md)."""
        if self._zotero is None:
            from .zotero import env_reader_config

            self._zotero = env_reader_config().reader()
        return self._zotero

    @staticmethod
    def zotero_configured() -> bool:
        return any(os.environ.get(v) for v in ("ZOTERO_DATA_DIR", "ZOTERO_LIBRARY_ID",
                                                "ZOTERO_LOCAL"))

    def _zotero_matcher(self, report: IngestReport) -> Any:
        """An ItemMatcher over the configured library, or None (no Zotero configured, or
        unreachable: then a warning, and files are indexed from their own metadata)."""
        if not self.zotero_configured():
            return None
        from .zotero import ItemMatcher

        try:
            return ItemMatcher(list(self.zotero_reader().items()))
        except CiteLoomError as exc:
            report.warnings.append(exc.to_dict())
            return None

    @staticmethod
    def _match(matcher: Any, path: Path, doc: DoclingDocument,
               result: FileResult) -> dict[str, Any] | None:
        from .zotero import item_payload

        first_pages = "\n".join(
            getattr(item, "text", "") for item, _ in doc.iterate_items()
            if any(p.page_no <= 2 for p in getattr(item, "prov", [])))
        item, how = matcher.match(path, first_pages)
        if item is None:
            result.note = ("MetadataMissing: no Zotero item matched this file (attachment, "
                           "DOI or title); indexed with the file's own metadata")
            return None
        result.note = f"matched Zotero item {item.key} by {how}"
        return item_payload(item)

    def ingest_zotero(self, project_name: str | None, collection: str | None, *,
                      include_subcollections: bool = False, tags_include: list[str] | None = None,
                      tags_exclude: list[str] | None = None,
                      progress: ProgressFn | None = None, optimize: bool = True
                      ) -> IngestReport:
        """Ingest the PDF attachments of a Zotero collection (name, path or key; None for
        the whole library). Items whose Zotero version is unchanged are skipped; items
        without a PDF are listed in the report."""
        from .zotero import item_payload, ocr_languages

        project = self.settings.project(project_name, create=True)
        report = IngestReport(project.name)
        started = time.perf_counter()
        reader = self.zotero_reader()
        items = list(reader.items(collection=collection,
                                  include_subcollections=include_subcollections,
                                  tags_include=tags_include or [],
                                  tags_exclude=tags_exclude or []))
        index = self.index(project.name, create=True)
        index.ensure(self.model_lock(project), self.index_params(project))
        catalog = self.catalog(project.name)
        work = []
        for item in items:
            pdfs = [a for a in item.attachments if a.is_pdf and a.has_file]
            if not pdfs:
                report.items_without_pdf.append(
                    {"zotero_key": item.key, "citekey": item.citekey, "title": item.title})
            work.extend((item, att) for att in pdfs)
        if progress:
            progress(f"start:{len(work)}", None)
        downloads = self.settings.data_dir / "cache" / "zotero-files"
        for item, att in work:
            langs = ocr_languages(item.language) if item.language else None
            try:
                path = reader.fetch_attachment(att, downloads)
                result = self._ingest_file(path, project, index, catalog,
                                           meta={**item_payload(item), "zotero_key": item.key,
                                                 "zotero_attachment": att.key},
                                           zotero_version=item.version, ocr_languages=langs)
            except CiteLoomError as exc:
                result = FileResult(str(att.path or att.filename), "failed",
                                    error=exc.to_dict())
            result.note = result.note or f"{item.citekey or item.key}: {item.title[:60]}"
            report.files.append(result)
            if progress:
                progress("file", result)
        self._optimize_if_grown(index, report, now=optimize)
        report.seconds = time.perf_counter() - started
        return report

    def cite(self, citekeys: list[str], fmt: Literal["bibtex", "csl-json"] = "bibtex",
             project_name: str | None = None) -> str:
        """BibTeX or CSL-JSON for citekeys: Better BibTeX's own export when it answers,
        else from the Zotero library, else from what the index stores."""
        from .zotero import BetterBibTeX, Creator, ZoteroItem, to_bibtex, to_csl_json

        if not citekeys:
            raise InvalidInput("no citekey given", "pass one or more citekeys")
        bbt = BetterBibTeX(port=int(os.environ.get("BBT_PORT", "23119")))
        if bbt.ready():
            translator = "Better BibTeX" if fmt == "bibtex" else "Better CSL JSON"
            return bbt.export(citekeys, translator)
        found: dict[str, Any] = {}
        if self.zotero_configured():
            try:
                found = {i.citekey: i for i in self.zotero_reader().items() if i.citekey}
            except CiteLoomError:
                found = {}
        missing = [k for k in citekeys if k not in found]
        if missing and project_name:
            index = self.index(self.settings.project(project_name, create=True).name)
            for h in index.scroll(fields=["citekey", "title", "authors", "year", "doi"]):
                key = h.payload.get("citekey")
                if key in missing and key not in found:
                    p = h.payload
                    creators = [Creator(last=a.split(", ", 1)[0],
                                        first=a.split(", ", 1)[1] if ", " in a else "")
                                for a in p.get("authors") or []]
                    found[key] = ZoteroItem(key=key, item_type="journalArticle",
                                            title=p.get("title") or "", creators=creators,
                                            year=p.get("year"), doi=p.get("doi"), citekey=key)
        still = [k for k in citekeys if k not in found]
        if still:
            raise InvalidInput(f"unknown citekey(s): {', '.join(still)}",
                               "check the keys, or name the project that holds them (-p)")
        items = [found[k] for k in citekeys]
        if fmt == "bibtex":
            return to_bibtex(items)
        import json

        return json.dumps(to_csl_json(items), indent=2, ensure_ascii=False)

    # -- migration -------------------------------------------------------------------------
    def reindex(self, project_name: str | None, progress: ProgressFn | None = None
                ) -> IngestReport:
        """Rebuild a project's index with its configured models and chunking, from the
        cached conversions, in a new generation; swap it in when complete. Queries keep
        answering from the old generation until then."""
        project = self.settings.project(project_name, create=True)
        store = self.store(project)
        old = self.index(project.name)
        catalog = self.catalog(project.name)
        new = store.new_generation(project.name)
        new.ensure(self.model_lock(project), self.index_params(project))
        report = IngestReport(project.name)
        started = time.perf_counter()
        records = catalog.all()
        if progress:
            progress(f"start:{len(records)}", None)
        try:
            for rec in records:
                t0 = time.perf_counter()
                res = FileResult(rec.source_path, "failed", doc_id=rec.doc_id)
                try:
                    path = Path(rec.source_path)
                    if not self._cache_path(rec.content_hash, project).is_file() and (
                            not path.is_file() or file_sha256(path) != rec.content_hash):
                        raise SourceNotFound(f"{path} is gone or changed, and its conversion "
                                             "is not cached", "re-ingest it after the reindex")
                    doc = self.convert(path, project, rec.content_hash)
                    chunks, title = self._chunks(doc, path, project)
                    new.upsert(self._points(chunks, project, rec.doc_id, rec.content_hash,
                                            rec.source_path, title))
                    rec.chunks, rec.title = len(chunks), title
                    res.status, res.chunks, res.pages = "indexed", len(chunks), rec.pages
                except CiteLoomError as exc:
                    res.error = exc.to_dict()
                res.seconds = round(time.perf_counter() - t0, 3)
                report.files.append(res)
                if progress:
                    progress("file", res)
        except BaseException:
            store.drop(project.name, new)
            raise
        new.optimize()
        with self._swap:
            store.promote(project.name, new)
            self._indexes[project.name] = new
            old.close()
        for rec, res in zip(records, report.files, strict=True):
            if res.status == "indexed":
                catalog.put(rec)
            else:
                catalog.delete(rec.doc_id)
        report.seconds = time.perf_counter() - started
        return report

    # -- query --------------------------------------------------------------------------
    def query(self, project_name: str | None, text: str, *, mode: Mode = "hybrid",
              top_k: int = 10, fusion: Fusion = "rrf", flt: SearchFilter | None = None,
              group_by_doc: bool = False, include_references: bool = False,
              max_chars: int = 600) -> QueryResult:
        """Search a project. Reference-list chunks are left out unless asked for: they
        match every topic a paper cites and crowd out the passages that say something."""
        t0 = time.perf_counter()
        if not text or not text.strip():
            raise InvalidInput("the query text is empty", "ask a question or give keywords")
        if not 1 <= top_k <= 50:
            raise InvalidInput(f"top_k must be between 1 and 50, not {top_k}", "pick 1-50")
        if mode not in ("dense", "sparse", "hybrid"):
            raise InvalidInput(f"mode must be dense, sparse or hybrid, not {mode!r}",
                               "use hybrid unless you need exact terms (sparse)")
        if fusion not in ("rrf", "dbsf"):
            raise InvalidInput(f"fusion must be rrf or dbsf, not {fusion!r}", "use rrf")
        project = self.settings.project(project_name, create=True)
        index = self.index(project.name)
        lock = index.lock() or self.model_lock(project)
        if mode != "dense" and lock.sparse_model == "none":
            raise HybridNotSupported(
                f"project {project.name!r} was indexed without sparse vectors",
                "use dense search (the query tool), or set sparse_model = \"Qdrant/bm25\" "
                f"and run `citeloom reindex --project {project.name}`")
        t1 = time.perf_counter()
        dense = self.dense(lock.dense_model).embed_query(text) if mode != "sparse" else None
        sparse = self.sparse().embed_query(text) if mode != "dense" else None
        t2 = time.perf_counter()
        limit = min(top_k * 5, 250) if group_by_doc else top_k
        if not include_references:
            flt = dataclasses.replace(flt) if flt else SearchFilter()
            flt.exclude_labels = sorted({*flt.exclude_labels, "reference"})
        with self._swap:
            hits = self.index(project.name).search(
                dense=dense, sparse=sparse, mode=mode, limit=limit, flt=flt, fusion=fusion,
                rrf_k=project.rrf_k, prefetch=project.prefetch)
        if group_by_doc:
            hits = best_per_doc(hits)[:top_k]
        t3 = time.perf_counter()
        return QueryResult(
            project=project.name,
            query=text,
            mode=mode,
            fusion=fusion if mode == "hybrid" else None,
            models={"dense": lock.dense_model, "sparse": lock.sparse_model},
            hits=[passage(rank, h, max_chars) for rank, h in enumerate(hits, 1)],
            timings_ms={"open": round((t1 - t0) * 1000, 2), "embed": round((t2 - t1) * 1000, 2),
                        "search": round((t3 - t2) * 1000, 2),
                        "total": round((time.perf_counter() - t0) * 1000, 2)},
            correlation_id=uuid.uuid4().hex[:12],
        )

    def similar(self, project_name: str | None, chunk_ids: list[str],
                negative_ids: list[str] | None = None, top_k: int = 10,
                flt: SearchFilter | None = None, max_chars: int = 600) -> list[Passage]:
        """Passages like the given chunks (and unlike ``negative_ids``)."""
        if not chunk_ids:
            raise InvalidInput("no chunk id given", "take chunk ids from a query answer")
        for cid in chunk_ids:
            try:
                uuid.UUID(cid)
            except (ValueError, TypeError, AttributeError):
                raise InvalidInput(f"{cid!r} is not a chunk id",
                                   "take chunk_id values from a query answer") from None
        if not 1 <= top_k <= 50:
            raise InvalidInput(f"top_k must be between 1 and 50, not {top_k}", "pick 1-50")
        project = self.settings.project(project_name, create=True)
        with self._swap:
            hits = self.index(project.name).recommend(chunk_ids, negative_ids or [], top_k, flt)
        return [passage(rank, h, max_chars) for rank, h in enumerate(hits, 1)]

    # -- projects -------------------------------------------------------------------------
    def list_projects(self) -> list[dict[str, Any]]:
        from .index import EdgeStore

        names = set(self.settings.projects) | set(EdgeStore(self.settings.index_dir).projects())
        out = []
        for name in sorted(names):
            project = self.settings.project(name, create=True)
            entry: dict[str, Any] = {"project": name, "backend": project.backend,
                                     "configured": name in self.settings.projects}
            try:
                idx = self.index(name)
                lock = idx.lock()
                catalog = self.catalog(name)
                # The catalog's figures: no shard is opened (an Edge shard is exclusive
                # to one process, and loading a large one takes time). Indexes written
                # without a catalog (`index_texts`) are counted in the index.
                documents = len(catalog)
                chunks = catalog.total_chunks() if documents or lock is None else idx.count()
                entry.update(indexed=lock is not None, chunks=chunks, documents=documents,
                             model_lock=lock.to_dict() if lock else None)
            except CiteLoomError as exc:
                entry.update(indexed=False, status=exc.code)
            out.append(entry)
        return out

    def inspect(self, project_name: str | None, sample: int = 3) -> dict[str, Any]:
        project = self.settings.project(project_name, create=True)
        index = self.index(project.name)
        lock = index.lock()
        catalog = self.catalog(project.name)
        stale, missing = [], []
        for rec in catalog.all():
            p = Path(rec.source_path)
            if not p.exists():
                missing.append(rec.source_path)
            else:
                st = p.stat()
                if (st.st_size, st.st_mtime_ns) != (rec.size, rec.mtime_ns):
                    stale.append(rec.source_path)
        wanted = self.model_lock(project)
        samples = []
        for h in index.scroll(batch=max(1, sample)) if sample > 0 else ():
            samples.append({"id": h.id, **{k: v for k, v in h.payload.items()
                                           if k != "chunk_text"},
                            "chunk_text": h.payload.get("chunk_text", "")[:200]})
            if len(samples) >= sample:
                break
        return {
            "project": project.name,
            "backend": project.backend,
            "generation": index.generation,
            "chunks": index.count(),
            "documents": len(catalog),
            "model_lock": lock.to_dict() if lock else None,
            "config_matches_lock": lock is None or lock == wanted,
            "payload_indexes": index.payload_indexes(),
            "stale_documents": stale,
            "missing_documents": missing,
            "sample": samples,
        }


def best_per_doc(hits: list[Hit]) -> list[Hit]:
    """Keep the best-scoring passage of each document, in rank order."""
    seen: set[str] = set()
    out = []
    for h in hits:
        doc = h.payload.get("doc_id", h.id)
        if doc not in seen:
            seen.add(doc)
            out.append(h)
    return out


def zotero_link(payload: dict[str, Any]) -> str | None:
    """A link that opens the passage in Zotero: the PDF at its first page when the chunk
    came from a Zotero attachment, else the item selected; None outside Zotero."""
    library = payload.get("zotero_library") or "library"
    if payload.get("zotero_attachment"):
        page = payload.get("page_start")
        return (f"zotero://open-pdf/{library}/items/{payload['zotero_attachment']}"
                + (f"?page={page}" if page else ""))
    if payload.get("zotero_key"):
        return f"zotero://select/{library}/items/{payload['zotero_key']}"
    return None


def passage(rank: int, hit: Hit, max_chars: int) -> Passage:
    p = hit.payload
    text = p.get("chunk_text", "")
    if len(text) > max_chars:
        text = text[:max_chars].rsplit(" ", 1)[0] + " …"
    return Passage(
        rank=rank,
        score=round(hit.score, 6),
        citekey=p.get("citekey"),
        title=p.get("title", ""),
        authors=p.get("authors") or [],
        year=p.get("year"),
        page_start=p.get("page_start"),
        page_end=p.get("page_end"),
        section_path=p.get("section_path", ""),
        text=text,
        doc_id=p.get("doc_id", ""),
        chunk_id=hit.id,
        source_path=p.get("source_path", ""),
        item_labels=p.get("item_labels") or [],
        zotero_key=p.get("zotero_key"),
        zotero_link=zotero_link(p),
    )
