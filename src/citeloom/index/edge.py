"""The embedded default backend: Qdrant Edge shards in a folder per project.

    <index_dir>/<project>/CURRENT           name of the current generation (atomic write)
    <index_dir>/<project>/g0001/shard/      the Edge shard (WAL, segments)
    <index_dir>/<project>/g0001/model_lock.json

Edge has no collection metadata and no aliases: the model lock is a sidecar written
atomically once the shard and its payload indexes exist, and a migration swaps generations
by rewriting CURRENT. The shard's WAL takes an exclusive lock: one process at a time.
"""

from __future__ import annotations

import json
import logging
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..embed import Sparse
from ..errors import IndexUnavailable, InvalidInput, InvalidProject
from .base import (
    INTEGER_FIELDS,
    KEYWORD_FIELDS,
    TEXT_FIELDS,
    FilterDialect,
    Fusion,
    Hit,
    Index,
    IndexParams,
    Mode,
    ModelLock,
    PointData,
    SearchFilter,
    Store,
    atomic_json,
    build_filter,
)

_log = logging.getLogger(__name__)

LOCK_FILE = "model_lock.json"
CURRENT = "CURRENT"


def _dialect() -> FilterDialect:
    import qdrant_edge as q

    return FilterDialect(
        any_of=lambda key, values: q.FieldCondition(key=key, match=q.MatchAny(values)),
        equals=lambda key, value: q.FieldCondition(key=key, match=q.MatchValue(value)),
        between=lambda key, lo, hi: q.FieldCondition(key=key, range=q.RangeFloat(gte=lo, lte=hi)),
        has_id=lambda ids: q.HasIdCondition(set(ids)),
        combine=lambda must, must_not: q.Filter(must=must, must_not=must_not),
    )


class EdgeIndex(Index):
    """One generation: a Qdrant Edge shard and its model lock."""

    exclusive = True  # the shard's WAL lock: one process at a time

    def __init__(self, root: Path, project: str, generation: str,
                 wait_s: float = 0.0) -> None:
        self.project = project
        self.generation = generation
        self.root = root
        self.shard_dir = root / "shard"
        self.wait_s = wait_s  # how long to wait for another process to let go of the shard
        self._shard: Any = None

    def lock(self) -> ModelLock | None:
        path = self.root / LOCK_FILE
        if not path.is_file():
            return None
        data = json.loads(path.read_text())
        data.pop("params", None)
        return ModelLock(**data)

    def _open(self) -> Any:
        if self._shard is None:
            from qdrant_edge import EdgeShard

            if not self.shard_dir.is_dir():
                raise InvalidProject(f"project {self.project!r} has no index yet",
                                     f"ingest into it first: `citeloom ingest PATH "
                                     f"--project {self.project}`")
            error = None
            deadline = time.monotonic() + self.wait_s
            while self._shard is None:
                try:
                    self._shard = EdgeShard.load(str(self.shard_dir))
                except Exception as exc:  # the Rust side raises plain exceptions
                    held = "WouldBlock" in str(exc)  # another process has the WAL lock
                    if not held or time.monotonic() >= deadline:
                        error = exc
                        break
                    if error is None:
                        _log.warning("the index of project %r is open in another process "
                                     "(the MCP server lets go of it when idle); waiting "
                                     "up to %.0f s", self.project, self.wait_s)
                        error = exc
                    time.sleep(0.5)
            if self._shard is None:
                raise IndexUnavailable(
                    f"cannot open the index of project {self.project!r}: {error}",
                    "another CiteLoom process holds it: an ingest (wait for it to finish), "
                    "or the MCP server, which lets go of an index after [mcp] "
                    "release_idle_s seconds without queries (retry then, or ingest "
                    "through its ingest_from_source tool)",
                ) from None
        return self._shard

    def ensure(self, lock: ModelLock, params: IndexParams | None = None) -> None:
        import qdrant_edge as q

        self.check_lock(lock)
        if self.lock() is not None:
            self._open()
            return
        params = params or IndexParams()
        self.root.mkdir(parents=True, exist_ok=True)
        quant = (q.ScalarQuantizationConfig(type=q.ScalarType.Int8, quantile=0.99)
                 if params.quantization == "int8" else None)
        config = q.EdgeConfig(
            vectors={"dense": q.EdgeVectorParams(size=lock.dense_dim, distance=q.Distance.Cosine,
                                                 quantization_config=quant)},
            sparse_vectors={"sparse": q.EdgeSparseVectorParams(modifier=q.Modifier.Idf)},
            hnsw_config=q.HnswIndexConfig(m=params.hnsw_m, ef_construct=params.hnsw_ef_construct,
                                          full_scan_threshold=10_000),
        )
        if self.shard_dir.exists():  # created before, but the lock was never written
            shutil.rmtree(self.shard_dir)
        self._shard = q.EdgeShard.create(str(self.shard_dir), config)
        schema = ([(n, q.PayloadSchemaType.Keyword) for n in KEYWORD_FIELDS]
                  + [(n, q.PayloadSchemaType.Integer) for n in INTEGER_FIELDS]
                  + [(n, q.PayloadSchemaType.Text) for n in TEXT_FIELDS])
        for name, kind in schema:
            self._shard.update(q.UpdateOperation.create_field_index(name, kind))
        self._shard.flush()
        # Written last: a generation without a lock was never written to, and is rebuilt.
        atomic_json(self.root / LOCK_FILE, {**lock.to_dict(), "params": params.__dict__})

    def optimize(self) -> None:
        self._open().optimize()

    def close(self) -> None:
        if self._shard is not None:
            self._shard.flush()
            self._shard.close()
            self._shard = None

    def upsert(self, points: list[PointData]) -> None:
        import qdrant_edge as q

        shard = self._open()
        batch = [q.Point(p.id, {"dense": p.dense,
                                "sparse": q.SparseVector(p.sparse.indices, p.sparse.values)},
                         p.payload) for p in points]
        # One operation: the WAL applies it whole or, after a crash, not at all.
        shard.update(q.UpdateOperation.upsert_points(batch))
        shard.flush()

    def delete_doc(self, doc_id: str) -> None:
        import qdrant_edge as q

        shard = self._open()
        shard.update(q.UpdateOperation.delete_points_by_filter(
            build_filter(SearchFilter(doc_ids=[doc_id]), _dialect())))
        shard.flush()

    def count(self, doc_id: str | None = None) -> int:
        import qdrant_edge as q

        flt = build_filter(SearchFilter(doc_ids=[doc_id]), _dialect()) if doc_id else None
        return self._open().count(q.CountRequest(filter=flt, exact=True))

    def search(self, *, dense: list[float] | None, sparse: Sparse | None, mode: Mode,
               limit: int, flt: SearchFilter | None = None, fusion: Fusion = "rrf",
               rrf_k: int = 60, prefetch: int = 100) -> list[Hit]:
        import qdrant_edge as q

        f = build_filter(flt, _dialect())
        dense_q = q.Query.Nearest(dense, using="dense") if dense is not None else None
        sparse_q = (q.Query.Nearest(q.SparseVector(sparse.indices, sparse.values),
                                    using="sparse") if sparse is not None else None)
        if mode == "dense":
            req = q.QueryRequest(limit=limit, query=dense_q, filter=f, with_payload=True)
        elif mode == "sparse":
            req = q.QueryRequest(limit=limit, query=sparse_q, filter=f, with_payload=True)
        else:
            depth = max(prefetch, limit)
            fuse = q.Fusion.Rrf(k=rrf_k) if fusion == "rrf" else q.Fusion.Dbsf()
            req = q.QueryRequest(
                limit=limit, query=fuse, filter=f, with_payload=True,
                prefetches=[q.Prefetch(limit=depth, query=dense_q, filter=f),
                            q.Prefetch(limit=depth, query=sparse_q, filter=f)])
        return [Hit(str(p.id), float(p.score), dict(p.payload or {}))
                for p in self._open().query(req)]

    def recommend(self, positive: list[str], negative: list[str], limit: int,
                  flt: SearchFilter | None = None) -> list[Hit]:
        import qdrant_edge as q

        shard = self._open()
        vecs = {str(r.id): r.vector["dense"]
                for r in shard.retrieve(positive + negative, with_payload=False,
                                        with_vector=["dense"])}
        missing = [i for i in positive + negative if i not in vecs]
        if missing:
            raise InvalidInput(f"unknown chunk id(s): {', '.join(missing)}",
                                 "take chunk ids from a query answer")
        flt = flt or SearchFilter()
        flt.exclude_ids = list({*flt.exclude_ids, *positive, *negative})
        rq = q.RecommendQuery(positives=[vecs[i] for i in positive],
                              negatives=[vecs[i] for i in negative])
        req = q.QueryRequest(limit=limit, query=q.Query.RecommendBestScore(rq, using="dense"),
                             filter=build_filter(flt, _dialect()), with_payload=True)
        return [Hit(str(p.id), float(p.score), dict(p.payload or {})) for p in shard.query(req)]

    def scroll(self, doc_id: str | None = None, batch: int = 1000,
               fields: list[str] | None = None) -> Iterator[Hit]:
        import qdrant_edge as q

        flt = build_filter(SearchFilter(doc_ids=[doc_id]), _dialect()) if doc_id else None
        offset = None
        while True:
            records, offset = self._open().scroll(q.ScrollRequest(
                offset=offset, limit=batch, filter=flt,
                with_payload=fields if fields is not None else True, with_vector=False))
            yield from (Hit(str(r.id), 0.0, dict(r.payload or {})) for r in records)
            if offset is None:
                return

    def retrieve(self, ids: list[str]) -> list[Hit]:
        return [Hit(str(r.id), 0.0, dict(r.payload or {}))
                for r in self._open().retrieve(ids, with_payload=True, with_vector=False)]

    def payload_indexes(self) -> dict[str, str]:
        schema = self._open().info().payload_schema
        return {k: str(v.data_type).rsplit(".", 1)[-1].lower() for k, v in schema.items()}


class EdgeStore(Store):
    """Projects as folders under ``index_dir``."""

    def __init__(self, index_dir: Path, wait_s: float = 0.0) -> None:
        self.index_dir = index_dir
        self.wait_s = wait_s
        # One handle per shard and process: the WAL lock refuses a second one.
        self._open: dict[tuple[str, str], EdgeIndex] = {}

    def _handle(self, project: str, gen: str) -> EdgeIndex:
        key = (project, gen)
        if key not in self._open:
            self._open[key] = EdgeIndex(self.index_dir / project / gen, project, gen,
                                        self.wait_s)
        return self._open[key]

    def projects(self) -> list[str]:
        if not self.index_dir.is_dir():
            return []
        return sorted(p.name for p in self.index_dir.iterdir() if (p / CURRENT).is_file())

    def current_generation(self, project: str) -> str | None:
        path = self.index_dir / project / CURRENT
        return path.read_text().strip() if path.is_file() else None

    def open(self, project: str, *, create: bool = False) -> Index:
        gen = self.current_generation(project)
        if gen is None:
            if not create:
                raise InvalidProject(
                    f"project {project!r} has no index yet",
                    f"ingest into it first: `citeloom ingest PATH --project {project}`")
            gen = "g0001"
            (self.index_dir / project).mkdir(parents=True, exist_ok=True)
            _write_current(self.index_dir / project, gen)
        return self._handle(project, gen)

    def close(self) -> None:
        for handle in self._open.values():
            handle.close()
        self._open.clear()

    def new_generation(self, project: str) -> Index:
        root = self.index_dir / project
        current = self.current_generation(project)
        for leftover in root.glob("g[0-9][0-9][0-9][0-9]"):  # from a crashed migration
            if leftover.name != current and (project, leftover.name) not in self._open:
                shutil.rmtree(leftover, ignore_errors=True)
        taken = [int(p.name[1:]) for p in root.glob("g[0-9][0-9][0-9][0-9]")]
        gen = f"g{max(taken, default=0) + 1:04d}"
        return self._handle(project, gen)

    def promote(self, project: str, index: Index) -> None:
        root = self.index_dir / project
        old = self.current_generation(project)
        _write_current(root, index.generation)
        if old and old != index.generation:
            stale = self._open.pop((project, old), None)
            if stale is not None:
                stale.close()
            shutil.rmtree(root / old, ignore_errors=True)

    def drop(self, project: str, index: Index) -> None:
        index.close()
        if index.generation != self.current_generation(project):
            self._open.pop((project, index.generation), None)
            shutil.rmtree(self.index_dir / project / index.generation, ignore_errors=True)

    def delete_project(self, project: str) -> None:
        for key in [k for k in self._open if k[0] == project]:
            self._open.pop(key).close()
        shutil.rmtree(self.index_dir / project, ignore_errors=True)


def _write_current(root: Path, generation: str) -> None:
    import os
    import tempfile

    fd, tmp = tempfile.mkstemp(dir=root, prefix=".CURRENT.")
    with os.fdopen(fd, "w") as f:
        f.write(generation + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, root / CURRENT)
