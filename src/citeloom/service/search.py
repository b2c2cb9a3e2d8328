"""Queries: text ─► embed ─► search (dense | sparse | hybrid RRF/DBSF) ─► citable passages,
and "more like these chunks"."""

from __future__ import annotations

import dataclasses
import time
import uuid
from dataclasses import dataclass
from typing import Any

from ..errors import HybridNotSupported, InvalidInput
from ..index import Fusion, Hit, Mode, SearchFilter
from ..payload import Passage, hit_json, passage


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

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> QueryResult:
        """An answer another process made (``to_dict()``)."""
        return cls(project=d["project"], query=d["query"], mode=d["mode"], fusion=d["fusion"],
                   models=d["models"], hits=[Passage(**h) for h in d["hits"]],
                   timings_ms=d["timings_ms"], correlation_id=d["correlation_id"])

    def to_dict(self) -> dict[str, Any]:
        return {"project": self.project, "query": self.query, "mode": self.mode,
                "fusion": self.fusion, "models": self.models,
                "hits": [hit_json(h) for h in self.hits], "timings_ms": self.timings_ms,
                "correlation_id": self.correlation_id}


def _check_top_k(top_k: int) -> None:
    if not 1 <= top_k <= 50:
        raise InvalidInput(f"top_k must be between 1 and 50, not {top_k}", "pick 1-50")


def query(app: Any, project_name: str | None, text: str, *, mode: Mode = "hybrid",
          top_k: int = 10, fusion: Fusion = "rrf", flt: SearchFilter | None = None,
          group_by_doc: bool = False, include_references: bool = False,
          max_chars: int = 600) -> QueryResult:
    """Search a project. Reference-list chunks are left out unless asked for: they match
    every topic a paper cites and crowd out the passages that say something. A chunk longer
    than ``max_chars`` shows the part that best matches ``text`` (``payload.window``)."""
    t0 = time.perf_counter()
    if not text or not text.strip():
        raise InvalidInput("the query text is empty", "ask a question or give keywords")
    _check_top_k(top_k)
    if mode not in ("dense", "sparse", "hybrid"):
        raise InvalidInput(f"mode must be dense, sparse or hybrid, not {mode!r}",
                           "use hybrid unless you need exact terms (sparse)")
    if fusion not in ("rrf", "dbsf"):
        raise InvalidInput(f"fusion must be rrf or dbsf, not {fusion!r}", "use rrf")
    project = app.settings.project(project_name, create=True)
    index = app.index(project.name)
    lock = index.lock() or app.model_lock(project)
    if mode != "dense" and lock.sparse_model == "none":
        raise HybridNotSupported(
            f"project {project.name!r} was indexed without sparse vectors",
            "use dense search (the query tool), or set sparse_model = \"Qdrant/bm25\" "
            f"and run `citeloom reindex --project {project.name}`")
    t1 = time.perf_counter()
    dense = app.dense(lock.dense_model).embed_query(text) if mode != "sparse" else None
    sparse = app.sparse().embed_query(text) if mode != "dense" else None
    t2 = time.perf_counter()
    limit = min(top_k * 5, 250) if group_by_doc else top_k
    if not include_references:
        flt = dataclasses.replace(flt) if flt else SearchFilter()
        flt.exclude_labels = sorted({*flt.exclude_labels, "reference"})
    with app._swap:
        hits = app.index(project.name).search(
            dense=dense, sparse=sparse, mode=mode, limit=limit, flt=flt, fusion=fusion,
            rrf_k=project.rrf_k, prefetch=project.prefetch)
    if group_by_doc:
        hits = best_per_doc(hits)[:top_k]
    t3 = time.perf_counter()
    return QueryResult(
        project=project.name, query=text, mode=mode,
        fusion=fusion if mode == "hybrid" else None,
        models={"dense": lock.dense_model, "sparse": lock.sparse_model},
        hits=[passage(rank, h, max_chars, query=text) for rank, h in enumerate(hits, 1)],
        timings_ms={"open": round((t1 - t0) * 1000, 2), "embed": round((t2 - t1) * 1000, 2),
                    "search": round((t3 - t2) * 1000, 2),
                    "total": round((time.perf_counter() - t0) * 1000, 2)},
        correlation_id=uuid.uuid4().hex[:12],
    )


def similar(app: Any, project_name: str | None, chunk_ids: list[str],
            negative_ids: list[str] | None = None, top_k: int = 10,
            flt: SearchFilter | None = None, max_chars: int = 600) -> list[Passage]:
    """Passages like the given chunks (and unlike ``negative_ids``). No query text here:
    a long chunk shows its head (its first sentences)."""
    if not chunk_ids:
        raise InvalidInput("no chunk id given", "take chunk ids from a query answer")
    for cid in chunk_ids:
        try:
            uuid.UUID(cid)
        except (ValueError, TypeError, AttributeError):
            raise InvalidInput(f"{cid!r} is not a chunk id",
                               "take chunk_id values from a query answer") from None
    _check_top_k(top_k)
    project = app.settings.project(project_name, create=True)
    with app._swap:
        hits = app.index(project.name).recommend(chunk_ids, negative_ids or [], top_k, flt)
    return [passage(rank, h, max_chars) for rank, h in enumerate(hits, 1)]


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
