"""The service layer: the one place where the pipeline is put together.

    ingest:  files ─► convert ─► chunk ─► embed (dense + sparse) ─► index
    query:   text ─► embed ─► search (dense | sparse | hybrid RRF/DBSF) ─► citable hits

The CLI and the MCP server call only this module. Heavy imports (Docling, onnxruntime)
happen inside the methods that need them, so a query never loads Docling.
"""

from __future__ import annotations

import hashlib
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from .config import ProjectConfig, Settings
from .errors import CiteLoomError, InvalidInput, SourceNotFound, UnsupportedType
from .index import Fusion, Index, Mode, ModelLock, PointData, SearchFilter, open_index
from .models import dense_spec, use_offline_runtime

if TYPE_CHECKING:
    from .chunk import Chunker
    from .embed import DenseEmbedder, SparseEmbedder

CHUNK_NAMESPACE = uuid.UUID("6f1c1a52-3c1e-4d59-9a57-0d1f3c2b7e10")
SUPPORTED_SUFFIXES = {".pdf"}
Status = Literal["indexed", "skipped", "failed"]


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


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


@dataclass
class IngestReport:
    project: str
    files: list[FileResult] = field(default_factory=list)
    seconds: float = 0.0

    def count(self, status: Status) -> int:
        return sum(1 for f in self.files if f.status == status)

    @property
    def outcome(self) -> Literal["ok", "partial", "failed"]:
        failed = self.count("failed")
        if not failed:
            return "ok"
        return "failed" if failed == len(self.files) else "partial"

    def to_dict(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "outcome": self.outcome,
            "indexed": self.count("indexed"),
            "skipped": self.count("skipped"),
            "failed": self.count("failed"),
            "chunks": sum(f.chunks for f in self.files),
            "pages": sum(f.pages for f in self.files),
            "seconds": round(self.seconds, 3),
            "files": [asdict(f) for f in self.files],
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


class CiteLoom:
    """Ingest and query projects; holds loaded models for the life of the process."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        use_offline_runtime(settings.models_dir)
        self._dense: dict[str, DenseEmbedder] = {}
        self._sparse: SparseEmbedder | None = None
        self._chunkers: dict[tuple[str, int], Chunker] = {}
        self._converter: Any = None
        self._indexes: dict[str, Index] = {}

    # -- models (loaded on first use) ---------------------------------------------------
    def dense(self, model_id: str) -> DenseEmbedder:
        if model_id not in self._dense:
            from .embed import DenseEmbedder

            self._dense[model_id] = DenseEmbedder(self.settings.models_dir, model_id,
                                                  threads=self.settings.threads)
        return self._dense[model_id]

    def sparse(self) -> SparseEmbedder:
        if self._sparse is None:
            from .embed import SparseEmbedder

            self._sparse = SparseEmbedder()
        return self._sparse

    def chunker(self, project: ProjectConfig) -> Chunker:
        key = (project.dense_model, project.chunk_max_tokens)
        if key not in self._chunkers:
            from .chunk import Chunker
            from .embed import load_tokenizer

            spec = dense_spec(project.dense_model)
            tok = load_tokenizer(self.settings.models_dir, project.dense_model)
            self._chunkers[key] = Chunker(tok, spec.window, project.chunk_max_tokens)
        return self._chunkers[key]

    def converter(self, project: ProjectConfig) -> Any:
        if self._converter is None:
            from .convert import build_converter
            from .models import layout_model_path

            self._converter = build_converter(
                ocr=project.ocr,
                ocr_langs=project.ocr_languages,
                layout_model_path=layout_model_path(self.settings.models_dir),
                num_threads=self.settings.threads,
            )
        return self._converter

    @staticmethod
    def model_lock(project: ProjectConfig) -> ModelLock:
        spec = dense_spec(project.dense_model)
        return ModelLock(project.dense_model, spec.dim, project.sparse_model,
                         min(project.chunk_max_tokens, spec.window))

    def index(self, project: str, *, create: bool = False) -> Index:
        if project not in self._indexes:
            self._indexes[project] = open_index(self.settings.index_dir, project, create=create)
        return self._indexes[project]

    def close(self) -> None:
        for idx in self._indexes.values():
            idx.close()
        self._indexes.clear()

    # -- ingest -------------------------------------------------------------------------
    def ingest(self, paths: list[Path], project_name: str | None,
               progress: ProgressFn | None = None) -> IngestReport:
        project = self.settings.project(project_name, create=True)
        files, bad = expand_sources(paths)
        report = IngestReport(project.name, files=list(bad))
        started = time.perf_counter()
        lock = self.model_lock(project)
        index = self.index(project.name, create=True)
        index.ensure(lock)
        if progress:
            progress(f"start:{len(files)}", None)
        for path in files:
            result = self._ingest_file(path, project, index)
            report.files.append(result)
            if progress:
                progress("file", result)
        report.seconds = time.perf_counter() - started
        return report

    def _ingest_file(self, path: Path, project: ProjectConfig, index: Index) -> FileResult:
        t0 = time.perf_counter()
        result = FileResult(str(path), "failed")
        try:
            content_hash = file_sha256(path)
            doc_id = content_hash[:32]
            result.doc_id = doc_id
            if self._is_complete(index, doc_id):
                result.status = "skipped"
                result.chunks = index.count(doc_id)
                return result
            from .chunk import document_title, pdf_metadata_title
            from .convert import convert_file

            doc = convert_file(path, self.converter(project))
            chunks = self.chunker(project).chunk(doc)
            result.pages = doc.num_pages()
            if not chunks:
                raise InvalidInput(f"{path.name}: no text found",
                                   "the file may be empty or an image without OCR enabled")
            title = document_title(doc, path.stem, pdf_metadata_title(path))
            dense = self.dense(project.dense_model).embed([c.embed_text for c in chunks])
            sparse = self.sparse().embed([c.embed_text for c in chunks])
            points = [
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
                        "source_path": str(path.resolve()),
                        "section_path": c.section_path,
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
                    },
                )
                for i, c in enumerate(chunks)
            ]
            # One update: the shard's WAL applies it whole, so a crash never leaves half a doc.
            index.upsert(points)
            result.status = "indexed"
            result.chunks = len(chunks)
        except CiteLoomError as exc:
            result.error = exc.to_dict()
        except Exception as exc:  # one bad file must never stop the batch
            result.error = {"code": "CONVERSION_FAILED", "message": f"{path.name}: {exc}",
                            "hint": "the file may be damaged; open it in a PDF reader to check"}
        finally:
            result.seconds = round(time.perf_counter() - t0, 3)
        return result

    @staticmethod
    def _is_complete(index: Index, doc_id: str) -> bool:
        have = index.count(doc_id)
        if not have:
            return False
        sample = index.scroll(doc_id, limit=1)
        return bool(sample) and sample[0].payload.get("doc_chunk_count") == have

    # -- query --------------------------------------------------------------------------
    def query(self, project_name: str | None, text: str, *, mode: Mode = "hybrid",
              top_k: int = 10, fusion: Fusion = "rrf", flt: SearchFilter | None = None,
              max_chars: int = 600) -> QueryResult:
        t0 = time.perf_counter()
        if not text or not text.strip():
            raise InvalidInput("the query text is empty", "ask a question or give keywords")
        if not 1 <= top_k <= 50:
            raise InvalidInput(f"top_k must be between 1 and 50, not {top_k}", "pick 1-50")
        if mode not in ("dense", "sparse", "hybrid"):
            raise InvalidInput(f"mode must be dense, sparse or hybrid, not {mode!r}", "")
        if fusion not in ("rrf", "dbsf"):
            raise InvalidInput(f"fusion must be rrf or dbsf, not {fusion!r}", "")
        project = self.settings.project(project_name, create=True)
        index = self.index(project.name)
        lock = index.lock() or self.model_lock(project)
        t1 = time.perf_counter()
        dense = self.dense(lock.dense_model).embed_query(text) if mode != "sparse" else None
        sparse = self.sparse().embed_query(text) if mode != "dense" else None
        t2 = time.perf_counter()
        hits = index.search(dense=dense, sparse=sparse, mode=mode, limit=top_k, flt=flt,
                            fusion=fusion, rrf_k=project.rrf_k)
        t3 = time.perf_counter()
        passages = [self._passage(rank, h, max_chars) for rank, h in enumerate(hits, 1)]
        return QueryResult(
            project=project.name,
            query=text,
            mode=mode,
            fusion=fusion if mode == "hybrid" else None,
            models={"dense": lock.dense_model, "sparse": lock.sparse_model},
            hits=passages,
            timings_ms={"open": round((t1 - t0) * 1000, 2), "embed": round((t2 - t1) * 1000, 2),
                        "search": round((t3 - t2) * 1000, 2),
                        "total": round((time.perf_counter() - t0) * 1000, 2)},
            correlation_id=uuid.uuid4().hex[:12],
        )

    @staticmethod
    def _passage(rank: int, hit: Any, max_chars: int) -> Passage:
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
        )

    # -- projects -------------------------------------------------------------------------
    def list_projects(self) -> list[dict[str, Any]]:
        names = set(self.settings.projects)
        if self.settings.index_dir.is_dir():
            names |= {p.name for p in self.settings.index_dir.iterdir() if (p / "shard").is_dir()}
        out = []
        for name in sorted(names):
            shard = self.settings.index_dir / name / "shard"
            entry: dict[str, Any] = {"project": name, "indexed": shard.is_dir(),
                                     "configured": name in self.settings.projects}
            if shard.is_dir():
                idx = self.index(name)
                lock = idx.lock()
                entry["chunks"] = idx.count()
                entry["model_lock"] = lock.__dict__ if lock else None
            out.append(entry)
        return out
