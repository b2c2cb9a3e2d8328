"""The embedded default backend: a Qdrant Edge shard in a folder per project
(``<index_dir>/<project>/shard``), its model lock a JSON sidecar written atomically beside it.
Edge has no collection metadata and no aliases, hence the sidecar.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..embed import Sparse
from ..errors import IndexUnavailable, InvalidProject
from .base import (
    INTEGER_FIELDS,
    KEYWORD_FIELDS,
    LOCK_FILE,
    TEXT_FIELDS,
    Fusion,
    Hit,
    Index,
    Mode,
    ModelLock,
    PointData,
    SearchFilter,
    atomic_json,
)


class EdgeIndex(Index):
    """A Qdrant Edge shard under ``<index_dir>/<project>/shard``."""

    def __init__(self, index_dir: Path, project: str, *, create: bool = False) -> None:
        self.project = project
        self.root = index_dir / project
        self.shard_dir = self.root / "shard"
        self._shard: Any = None
        if not self.shard_dir.exists() and not create:
            raise InvalidProject(
                f"project {project!r} has no index yet under {index_dir}",
                f"ingest into it first: `citeloom ingest PATH --project {project}`",
            )

    # -- lifecycle ---------------------------------------------------------------------
    def lock(self) -> ModelLock | None:
        path = self.root / LOCK_FILE
        if not path.is_file():
            return None
        return ModelLock(**json.loads(path.read_text()))

    def _open(self) -> Any:
        if self._shard is None:
            from qdrant_edge import EdgeShard

            try:
                self._shard = EdgeShard.load(str(self.shard_dir))
            except Exception as exc:  # the Rust side raises plain exceptions
                raise IndexUnavailable(
                    f"cannot open the index of project {self.project!r}: {exc}",
                    "another CiteLoom process (an ingest, or the MCP server) may hold it; "
                    "stop it and retry",
                ) from None
        return self._shard

    def ensure(self, lock: ModelLock) -> None:
        from qdrant_edge import (
            Distance,
            EdgeConfig,
            EdgeShard,
            EdgeSparseVectorParams,
            EdgeVectorParams,
            Modifier,
            PayloadSchemaType,
            UpdateOperation,
        )

        self.check_lock(lock)
        if self.shard_dir.exists() and self.lock() is not None:
            self._open()
            return
        self.root.mkdir(parents=True, exist_ok=True)
        config = EdgeConfig(
            vectors={"dense": EdgeVectorParams(size=lock.dense_dim, distance=Distance.Cosine)},
            sparse_vectors={"sparse": EdgeSparseVectorParams(modifier=Modifier.Idf)},
        )
        if self.shard_dir.exists():  # created earlier but the lock was never written
            self._shard = EdgeShard.load(str(self.shard_dir), config)
        else:
            self._shard = EdgeShard.create(str(self.shard_dir), config)
        for name in KEYWORD_FIELDS:
            self._shard.update(UpdateOperation.create_field_index(name, PayloadSchemaType.Keyword))
        for name in INTEGER_FIELDS:
            self._shard.update(UpdateOperation.create_field_index(name, PayloadSchemaType.Integer))
        for name in TEXT_FIELDS:
            self._shard.update(UpdateOperation.create_field_index(name, PayloadSchemaType.Text))
        self._shard.flush()
        # The lock is written last: a shard without one was never written to.
        atomic_json(self.root / LOCK_FILE, lock.__dict__)

    def close(self) -> None:
        if self._shard is not None:
            self._shard.flush()
            self._shard.close()
            self._shard = None

    # -- writes --------------------------------------------------------------------------
    def upsert(self, points: list[PointData]) -> None:
        from qdrant_edge import Point, SparseVector, UpdateOperation

        shard = self._open()
        batch = [
            Point(
                p.id,
                {"dense": p.dense, "sparse": SparseVector(p.sparse.indices, p.sparse.values)},
                p.payload,
            )
            for p in points
        ]
        shard.update(UpdateOperation.upsert_points(batch))
        shard.flush()

    def delete_doc(self, doc_id: str) -> None:
        from qdrant_edge import UpdateOperation

        shard = self._open()
        shard.update(UpdateOperation.delete_points_by_filter(self._doc_filter(doc_id)))
        shard.flush()

    # -- reads ---------------------------------------------------------------------------
    @staticmethod
    def _doc_filter(doc_id: str) -> Any:
        from qdrant_edge import FieldCondition, Filter, MatchValue

        return Filter(must=[FieldCondition(key="doc_id", match=MatchValue(doc_id))])

    def count(self, doc_id: str | None = None) -> int:
        from qdrant_edge import CountRequest

        flt = self._doc_filter(doc_id) if doc_id else None
        return self._open().count(CountRequest(filter=flt, exact=True))

    @staticmethod
    def _filter(flt: SearchFilter | None) -> Any:
        from qdrant_edge import FieldCondition, Filter, MatchAny, RangeFloat

        if flt is None or flt.is_empty():
            return None
        must: list[Any] = []
        if flt.doc_ids:
            must.append(FieldCondition(key="doc_id", match=MatchAny(flt.doc_ids)))
        if flt.citekeys:
            must.append(FieldCondition(key="citekey", match=MatchAny(flt.citekeys)))
        if flt.year_from is not None or flt.year_to is not None:
            must.append(FieldCondition(key="year", range=RangeFloat(gte=flt.year_from,
                                                                   lte=flt.year_to)))
        must_not = ([FieldCondition(key="item_labels", match=MatchAny(flt.exclude_labels))]
                    if flt.exclude_labels else None)
        return Filter(must=must or None, must_not=must_not)

    def search(self, *, dense: list[float] | None, sparse: Sparse | None, mode: Mode,
               limit: int, flt: SearchFilter | None = None, fusion: Fusion = "rrf",
               rrf_k: int = 60, prefetch: int = 100) -> list[Hit]:
        from qdrant_edge import Fusion as EdgeFusion
        from qdrant_edge import Prefetch, Query, QueryRequest, SparseVector

        f = self._filter(flt)
        dense_q = Query.Nearest(dense, using="dense") if dense is not None else None
        sparse_q = (Query.Nearest(SparseVector(sparse.indices, sparse.values), using="sparse")
                    if sparse is not None else None)
        if mode == "dense":
            req = QueryRequest(limit=limit, query=dense_q, filter=f, with_payload=True)
        elif mode == "sparse":
            req = QueryRequest(limit=limit, query=sparse_q, filter=f, with_payload=True)
        else:
            fuse = EdgeFusion.Rrf(k=rrf_k) if fusion == "rrf" else EdgeFusion.Dbsf()
            req = QueryRequest(
                limit=limit,
                prefetches=[Prefetch(limit=max(prefetch, limit), query=dense_q, filter=f),
                            Prefetch(limit=max(prefetch, limit), query=sparse_q, filter=f)],
                query=fuse,
                filter=f,
                with_payload=True,
            )
        return [Hit(str(p.id), float(p.score), dict(p.payload or {}))
                for p in self._open().query(req)]

    def scroll(self, doc_id: str | None = None, limit: int = 10_000) -> list[Hit]:
        from qdrant_edge import ScrollRequest

        flt = self._doc_filter(doc_id) if doc_id else None
        records, _next = self._open().scroll(
            ScrollRequest(limit=limit, filter=flt, with_payload=True, with_vector=False))
        return [Hit(str(r.id), 0.0, dict(r.payload or {})) for r in records]
