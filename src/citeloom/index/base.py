"""What every index backend provides, and the types that cross the boundary.

An index is one project's store: named vectors ``dense`` (Cosine) and ``sparse`` (BM25 term
weights with the IDF modifier), payload indexes on the fields filters use, and a model lock
that refuses writes made with other models or chunk settings.
"""

from __future__ import annotations

import json
import os
import tempfile
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..embed import Sparse
from ..errors import EmbeddingMismatch

Mode = Literal["dense", "sparse", "hybrid"]
Fusion = Literal["rrf", "dbsf"]
LOCK_FILE = "model_lock.json"
KEYWORD_FIELDS = ("project_id", "doc_id", "citekey", "tags", "zotero_key", "source_path")
INTEGER_FIELDS = ("year", "page_start")
TEXT_FIELDS = ("chunk_text",)


@dataclass(frozen=True)
class ModelLock:
    """What an index is bound to at its first write; every later write must match."""

    dense_model: str
    dense_dim: int
    sparse_model: str
    chunk_max_tokens: int
    chunker: str = "docling-hybrid/v1"

    def describe(self) -> str:
        return (f"dense={self.dense_model} ({self.dense_dim}d), sparse={self.sparse_model}, "
                f"chunk_max_tokens={self.chunk_max_tokens}, chunker={self.chunker}")


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


@dataclass
class SearchFilter:
    """Restrictions on a search; every field given must hold."""

    doc_ids: list[str] = field(default_factory=list)
    citekeys: list[str] = field(default_factory=list)
    year_from: int | None = None
    year_to: int | None = None
    exclude_labels: list[str] = field(default_factory=list)

    def is_empty(self) -> bool:
        return not (self.doc_ids or self.citekeys or self.exclude_labels
                    or self.year_from is not None or self.year_to is not None)


class Index(ABC):
    """One project's index."""

    project: str

    @abstractmethod
    def lock(self) -> ModelLock | None: ...

    @abstractmethod
    def ensure(self, lock: ModelLock) -> None:
        """Create the index bound to ``lock``, or check that it is already bound to it."""

    @abstractmethod
    def upsert(self, points: list[PointData]) -> None: ...

    @abstractmethod
    def delete_doc(self, doc_id: str) -> None: ...

    @abstractmethod
    def count(self, doc_id: str | None = None) -> int: ...

    @abstractmethod
    def search(self, *, dense: list[float] | None, sparse: Sparse | None, mode: Mode,
               limit: int, flt: SearchFilter | None = None, fusion: Fusion = "rrf",
               rrf_k: int = 60, prefetch: int = 100) -> list[Hit]: ...

    @abstractmethod
    def scroll(self, doc_id: str | None = None, limit: int = 10_000) -> list[Hit]: ...

    @abstractmethod
    def close(self) -> None: ...

    def check_lock(self, wanted: ModelLock) -> None:
        have = self.lock()
        if have is not None and have != wanted:
            raise EmbeddingMismatch(
                f"project {self.project!r} is indexed with {have.describe()}; "
                f"this write uses {wanted.describe()}",
                f"keep the project's settings, or migrate with `citeloom reindex --project "
                f"{self.project}` (or ingest into a new project)",
            )


def atomic_json(path: Path, data: dict) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w") as f:
        json.dump(data, f, indent=2)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


