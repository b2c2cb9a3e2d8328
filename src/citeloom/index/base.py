"""What every index backend provides, and the types that cross the boundary.

A project's index is a *generation*: named vectors ``dense`` (Cosine) and ``sparse`` (BM25
term weights, IDF modifier), payload indexes on the fields filters use, and a model lock
that refuses writes made with other models or chunk settings. A ``Store`` holds the
generations of all projects and says which one is current; a migration builds a new
generation beside the current one and promotes it in one atomic step, so queries never see
a half-built index.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import tempfile
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from citeloom.embed.encoders import Sparse
from citeloom.errors import EmbeddingMismatch, InvalidProject
from citeloom.payload import (  # noqa: F401 (payload.py owns the *_FIELDS)
    INTEGER_FIELDS,
    KEYWORD_FIELDS,
    TEXT_FIELDS,
    author_query_key,
    section_key,
)
from citeloom.provision import dense_spec

Mode = Literal["dense", "sparse", "hybrid"]
Fusion = Literal["rrf", "dbsf"]
#: The hybrid fusion a query uses unless told: DBSF measured better than RRF on SciFact
#: train and on the PDF question dev set (docs/EVALUATION.md, "Ranking levers").
DEFAULT_FUSION: Fusion = "dbsf"


@dataclass(frozen=True)
class ModelLock:
    """What a generation is bound to at creation; every write must match it."""

    dense_model: str
    dense_dim: int
    sparse_model: str
    chunk_max_tokens: int
    chunker: str = "docling-hybrid/v1"

    def describe(self) -> str:
        return (f"dense={self.dense_model} ({self.dense_dim}d), sparse={self.sparse_model}, "
                f"chunk_max_tokens={self.chunk_max_tokens}, chunker={self.chunker}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def dense_weight(self) -> int:
        """How often a DBSF query fuses this index's dense ranking (its model's weight)."""
        return dense_spec(self.dense_model).fusion_weight


@dataclass(frozen=True)
class IndexParams:
    """HNSW and quantization settings of a generation (defaults: Qdrant's own)."""

    hnsw_m: int = 16
    hnsw_ef_construct: int = 100
    quantization: Literal["none", "int8"] = "none"
    # A Qdrant server's collection at scale (docs/CLUSTER.md); Edge has one shard and
    # keeps its own files, so it ignores these.
    shards: int = 1
    replicas: int = 1
    on_disk: bool = False  # vectors and payload on disk, memory-mapped
    defer_indexing: bool = False  # no HNSW while a generation is first filled: optimize()


@dataclass
class PointData:
    id: str
    dense: list[float]
    sparse: Sparse
    payload: dict[str, Any]


@dataclass
class Hit:
    id: str
    score: float
    payload: dict[str, Any]
    # A page hit's other chunks from the same page, best first (``service.ranking.by_page``).
    parts: list[Hit] = field(default_factory=list)


@dataclass
class SearchFilter:
    """Restrictions on a search; every field given must hold."""

    doc_ids: list[str] = field(default_factory=list)
    citekeys: list[str] = field(default_factory=list)
    year_from: int | None = None
    year_to: int | None = None
    tags_any: list[str] = field(default_factory=list)
    tags_all: list[str] = field(default_factory=list)
    authors: list[str] = field(default_factory=list)
    collections: list[str] = field(default_factory=list)
    section_prefix: str | None = None
    include_labels: list[str] = field(default_factory=list)
    exclude_labels: list[str] = field(default_factory=list)
    exclude_ids: list[str] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)  # passage, annotation, note
    colors: list[str] = field(default_factory=list)  # annotation colours, "#ffd400"
    page_from: int | None = None  # chunks starting on these pages
    page_to: int | None = None
    exclude_doc_ids: list[str] = field(default_factory=list)  # (grouping by paper)
    missing: list[str] = field(default_factory=list)  # payload fields that must be empty
    first_chunks: bool = False  # only each document's first chunk: to count documents
    # every word of each phrase in chunk_text (its full-text index); the search service
    # keeps only chunks holding the phrase itself (a quoted phrase in a query)
    phrases: list[str] = field(default_factory=list)

    def is_empty(self) -> bool:
        return not any(v is not False and v not in (None, [], "")
                       for v in asdict(self).values())


def atomic_json(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w") as f:
        json.dump(data, f, indent=2)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def data_end(fd: int, size: int) -> int:
    """Where the data of an open file ends: the end of its last extent, so that the hole
    after it need not be copied (Edge preallocates its WAL files and mmap chunks, 32 MB each,
    and writes their first few kB). The file's size where the filesystem cannot say."""
    seek_data, seek_hole = getattr(os, "SEEK_DATA", None), getattr(os, "SEEK_HOLE", None)
    if seek_data is None or seek_hole is None:
        return size
    end = pos = 0
    try:
        while pos < size:
            pos = os.lseek(fd, os.lseek(fd, pos, seek_data), seek_hole)
            end = pos
    except OSError as exc:
        if exc.errno != errno.ENXIO:  # ENXIO: no data after pos; anything else: unsupported
            return size
    finally:
        os.lseek(fd, 0, os.SEEK_SET)
    return min(end, size)


def copy_sparse(src: str | Path, dst: str | Path) -> None:
    """Copy a file up to the end of its data, then extend it to its size with a hole (see
    :func:`data_end`); a ``copy_function`` for :func:`shutil.copytree`."""
    with open(src, "rb") as fi, open(dst, "wb") as fo:
        size = os.fstat(fi.fileno()).st_size
        remaining = data_end(fi.fileno(), size)
        while remaining > 0:
            chunk = fi.read(min(1 << 20, remaining))
            if not chunk:
                break
            fo.write(chunk)
            remaining -= len(chunk)
        fo.truncate(size)
    shutil.copystat(src, dst)


class Index(ABC):
    """One generation of one project's index."""

    project: str
    generation: str
    #: Open in one process at a time (Edge): a long-lived process lets go of it when idle.
    exclusive: bool = False
    #: A long ingest optimizes after this many points written (Edge: the segment being
    #: written is held in memory until then); None: never in between (a server's own).
    optimize_every: int | None = None
    #: The most points one such optimize rewrites (a size-capped segment's worth), for the
    #: room it needs; None: the whole index.
    segment_points: int | None = None

    @abstractmethod
    def lock(self) -> ModelLock | None:
        """The model lock, or None for a generation never written to."""

    @abstractmethod
    def ensure(self, lock: ModelLock, params: IndexParams | None = None) -> None:
        """Create the generation bound to ``lock``, or check that it is bound to it."""

    @abstractmethod
    def upsert(self, points: list[PointData]) -> None:
        """Write points durably, all of them or none."""

    @abstractmethod
    def delete_doc(self, doc_id: str) -> None: ...

    @abstractmethod
    def delete_ids(self, ids: list[str]) -> None:
        """Remove these points (a re-written document's surplus chunks)."""

    @abstractmethod
    def count(self, doc_id: str | None = None, flt: SearchFilter | None = None) -> int:
        """Chunks in the index, of ``doc_id`` if given, that ``flt`` (if given) lets
        through; with ``flt.first_chunks``, documents."""

    @abstractmethod
    def search(self, *, dense: list[float] | None, sparse: Sparse | None, mode: Mode,
               limit: int, flt: SearchFilter | None = None, fusion: Fusion = DEFAULT_FUSION,
               rrf_k: int = 60, prefetch: int = 100, dense_weight: int = 1) -> list[Hit]:
        """``dense_weight``: in DBSF, the dense ranking is fused this many times (its
        normalised scores count that much against BM25's; the model's own weight,
        ``models.DenseSpec.fusion_weight``)."""

    @abstractmethod
    def recommend(self, positive: list[str], negative: list[str], limit: int,
                  flt: SearchFilter | None = None) -> list[Hit]:
        """Chunks most like the ``positive`` chunk ids and unlike the ``negative`` ones."""

    @abstractmethod
    def dense_vectors(self, ids: list[str]) -> dict[str, list[float]]:
        """The dense vectors of those of ``ids`` this generation holds (to look for chunks
        like them in another project with the same dense model)."""

    @abstractmethod
    def recommend_vectors(self, positive: list[list[float]], negative: list[list[float]],
                          limit: int, flt: SearchFilter | None = None) -> list[Hit]:
        """Chunks most like the ``positive`` dense vectors and unlike the ``negative`` ones
        (best score), as :meth:`recommend` ranks them."""

    @abstractmethod
    def scroll(self, doc_id: str | None = None, batch: int = 1000,
               fields: list[str] | None = None, flt: SearchFilter | None = None
               ) -> Iterator[Hit]:
        """Every point (of one document, or that ``flt`` lets through), payload only, in
        pages of ``batch``."""

    @abstractmethod
    def retrieve(self, ids: list[str]) -> list[Hit]: ...

    @abstractmethod
    def payload_indexes(self) -> dict[str, str]:
        """Indexed payload field -> its type (keyword, integer, text)."""

    @abstractmethod
    def close(self) -> None: ...

    @abstractmethod
    def optimize(self) -> None:
        """Merge and index segments now (Edge); a server optimizes on its own."""

    def check_lock(self, wanted: ModelLock) -> None:
        have = self.lock()
        if have is not None and have != wanted:
            raise EmbeddingMismatch(
                f"project {self.project!r} is indexed with {have.describe()}; "
                f"this write uses {wanted.describe()}",
                f"keep the project's settings, or migrate with `citeloom reindex --project "
                f"{self.project}` (or ingest into a new project)",
            )


class Store(ABC):
    """All projects of one backend, and which generation of each is current."""

    def index_lock(self, project: str) -> ModelLock | None:
        """The model lock of the project's current index, or None."""
        try:
            return self.open(project).lock()
        except InvalidProject:
            return None

    @abstractmethod
    def projects(self) -> list[str]: ...

    @abstractmethod
    def open(self, project: str, *, create: bool = False) -> Index:
        """The current generation; with ``create``, a first (empty) one if there is none.
        Raises InvalidProject when the project has no index and ``create`` is false."""

    @abstractmethod
    def new_generation(self, project: str) -> Index:
        """An empty generation beside the current one; not visible to queries yet."""

    @abstractmethod
    def promote(self, project: str, index: Index) -> None:
        """Make ``index`` the current generation in one atomic step; drop the old one."""

    @abstractmethod
    def drop(self, project: str, index: Index) -> None:
        """Remove a generation that was never promoted (an aborted migration)."""

    @abstractmethod
    def delete_project(self, project: str) -> None:
        """Remove every generation of a project (and its files: catalog, lock file)."""

    @abstractmethod
    def current_generation(self, project: str) -> str | None:
        """Name of the current generation, or None for a project with no index."""

    @abstractmethod
    def snapshot(self, project: str, dest: Path) -> None:
        """Write the current generation, as it is now, into ``dest`` (a folder it creates):
        Edge copies its flushed shard and model lock; a server makes a snapshot with its
        snapshot API and downloads it. The caller keeps writers out meanwhile (the service
        holds its ``_swap`` lock). Raises InvalidProject for a project with no index."""

    @abstractmethod
    def restore(self, project: str, staged: Path) -> Index:
        """A new generation of ``project`` made from a folder :meth:`snapshot` wrote
        (``staged``, beside the indexes; it is used up). Not current until :meth:`promote`;
        :meth:`drop` removes it if the caller gives up. The project need not exist."""

    @abstractmethod
    def close(self) -> None:
        """Release connections; indexes opened from this store are closed by their owner."""


@dataclass(frozen=True)
class FilterDialect:
    """How one backend spells the five filter primitives ``build_filter`` needs."""

    any_of: Any  # (key, values) -> condition
    equals: Any  # (key, value) -> condition
    between: Any  # (key, gte, lte) -> condition
    has_id: Any  # (ids) -> condition
    combine: Any  # (must, must_not) -> filter
    either: Any  # (conditions) -> condition: any one of them holds
    is_empty: Any  # (key) -> condition: the field is missing, null or []
    words: Any  # (key, text) -> condition: the text field holds every word of text


def scroll_filter(doc_id: str | None, flt: SearchFilter | None) -> SearchFilter | None:
    """What a scroll of ``doc_id`` (if given) restricted by ``flt`` (if given) reads."""
    if doc_id is None:
        return flt
    return replace(flt or SearchFilter(), doc_ids=[doc_id])


def build_filter(flt: SearchFilter | None, d: FilterDialect) -> Any:
    """Translate a SearchFilter into the backend's filter, or None for no restriction."""
    if flt is None or flt.is_empty():
        return None
    must: list[Any] = []
    must_not: list[Any] = []
    for key, values in (("doc_id", flt.doc_ids), ("citekey", flt.citekeys),
                        ("tags", flt.tags_any), ("collections", flt.collections),
                        ("item_labels", flt.include_labels)):
        if values:
            must.append(d.any_of(key, list(values)))
    if flt.authors:
        # By family name, any case or accent ("smith" finds "Smith, John"); the stored form
        # itself still matches in indexes written before author_keys existed.
        keys = sorted({author_query_key(a) for a in flt.authors} - {""})
        must.append(d.either([d.any_of("authors", list(flt.authors)),
                              d.any_of("author_keys", keys or [""])]))
    must.extend(d.is_empty(key) for key in flt.missing)
    must.extend(d.equals("tags", t) for t in flt.tags_all)
    if flt.year_from is not None or flt.year_to is not None:
        must.append(d.between("year", flt.year_from, flt.year_to))
    if flt.kinds:
        # Chunks indexed before kinds existed have none, and are passages: "passage" is
        # asked for as "none of the other kinds".
        kinds = set(flt.kinds)
        if "passage" in kinds:
            others = sorted({"annotation", "note"} - kinds)
            if others:
                must_not.append(d.any_of("kind", others))
        else:
            must.append(d.any_of("kind", sorted(kinds)))
    if flt.colors:
        must.append(d.any_of("color", list(flt.colors)))
    if flt.page_from is not None or flt.page_to is not None:
        must.append(d.between("page_start", flt.page_from, flt.page_to))
    if flt.section_prefix:
        # By heading words ("methods" finds "2 Methods" and "2 Methods > 2.1 Data"):
        # section_keys holds every prefix of the path and every heading, folded, numbers
        # out; the exact prefix still matches in indexes written before section_keys.
        must.append(d.either([d.equals("section_prefixes", flt.section_prefix.strip()),
                              d.equals("section_keys", section_key(flt.section_prefix))]))
    if flt.exclude_labels:
        must_not.append(d.any_of("item_labels", list(flt.exclude_labels)))
    if flt.exclude_ids:
        must_not.append(d.has_id(list(flt.exclude_ids)))
    if flt.exclude_doc_ids:
        must_not.append(d.any_of("doc_id", list(flt.exclude_doc_ids)))
    if flt.first_chunks:
        must.append(d.equals("chunk_index", 0))
    must.extend(d.words("chunk_text", phrase) for phrase in flt.phrases)
    return d.combine(must or None, must_not or None)
