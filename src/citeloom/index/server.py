"""A Qdrant server or cluster through qdrant-client (``QDRANT_URL``, ``QDRANT_API_KEY``).

    alias       citeloom__<project>           what queries use
    collection  citeloom__<project>__g0001    one generation; model lock in its metadata

A migration creates the next collection and moves the alias in one request, so queries
never see a half-built index. Tests run this backend against qdrant-client's local mode
(``QdrantClient(path=...)``), which speaks the same client API.
"""

from __future__ import annotations

import contextlib
import hashlib
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

from citeloom.embed.encoders import Sparse
from citeloom.errors import (
    ConfigError,
    IndexUnavailable,
    InvalidInput,
    InvalidProject,
    SnapshotInvalid,
)
from citeloom.index.base import (
    DEFAULT_FUSION,
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
    build_filter,
    scroll_filter,
)

PREFIX = "citeloom__"
SNAPSHOT_FILE = "collection.snapshot"  # Qdrant's own collection snapshot, as downloaded


def _no_snapshots() -> ConfigError:
    return ConfigError("qdrant-client's local mode (QDRANT_URL=file://...) has no snapshot API",
                       "snapshot and restore projects on a Qdrant server, or on the edge "
                       "backend")


def _dialect() -> FilterDialect:
    from qdrant_client import models as m

    return FilterDialect(
        any_of=lambda key, values: m.FieldCondition(key=key, match=m.MatchAny(any=values)),
        equals=lambda key, value: m.FieldCondition(key=key, match=m.MatchValue(value=value)),
        between=lambda key, lo, hi: m.FieldCondition(key=key, range=m.Range(gte=lo, lte=hi)),
        has_id=lambda ids: m.HasIdCondition(has_id=ids),
        combine=lambda must, must_not: m.Filter(must=must, must_not=must_not),
        either=lambda conditions: m.Filter(should=conditions),
        is_empty=lambda key: m.IsEmptyCondition(is_empty=m.PayloadField(key=key)),
        words=lambda key, text: m.FieldCondition(key=key, match=m.MatchText(text=text)),
    )


def _hit(p: Any) -> Hit:
    return Hit(str(p.id), float(getattr(p, "score", 0.0) or 0.0), dict(p.payload or {}))


INDEXING_THRESHOLD = 20_000  # KB of vectors before a segment gets HNSW (the default)


def _sparse(sparse: Sparse | None) -> Any:
    from qdrant_client import models as m

    return (m.SparseVector(indices=sparse.indices, values=sparse.values)
            if sparse is not None else None)


def _fused(dense: list[float] | None, sparse: Sparse | None, limit: int, f: Any,
           fusion: Fusion, rrf_k: int, prefetch: int, dense_weight: int) -> dict[str, Any]:
    """A hybrid query's arguments: both rankings, ``max(prefetch, limit)`` deep, fused
    (in DBSF the dense one ``dense_weight`` times)."""
    from qdrant_client import models as m

    depth = max(prefetch, limit)
    fuse = (m.RrfQuery(rrf=m.Rrf(k=rrf_k)) if fusion == "rrf"
            else m.FusionQuery(fusion=m.Fusion.DBSF))
    return dict(query=fuse, filter=f, limit=limit, with_payload=True, prefetch=[
        *(m.Prefetch(query=dense, using="dense", limit=depth, filter=f)
          for _ in range(dense_weight if fusion == "dbsf" else 1)),
        m.Prefetch(query=_sparse(sparse), using="sparse", limit=depth, filter=f)])


class ServerIndex(Index):
    """One generation: a collection whose metadata holds the model lock."""

    def __init__(self, client: Any, project: str, generation: str) -> None:
        self.client = client
        self.project = project
        self.generation = generation
        self.collection = f"{PREFIX}{project}__{generation}"

    def lock(self) -> ModelLock | None:
        if not self.client.collection_exists(self.collection):
            return None
        meta = self.client.get_collection(self.collection).config.metadata or {}
        lock = meta.get("citeloom_lock")
        return ModelLock(**lock) if lock else None

    def ensure(self, lock: ModelLock, params: IndexParams | None = None) -> None:
        from qdrant_client import models as m

        self.check_lock(lock)
        if self.lock() is not None:
            return
        params = params or IndexParams()
        if self.client.collection_exists(self.collection):
            self.client.delete_collection(self.collection)
        quant = (m.ScalarQuantization(scalar=m.ScalarQuantizationConfig(
            type=m.ScalarType.INT8, quantile=0.99)) if params.quantization == "int8" else None)
        disk = params.on_disk or None
        self.client.create_collection(
            self.collection,
            vectors_config={"dense": m.VectorParams(size=lock.dense_dim,
                                                    distance=m.Distance.COSINE, on_disk=disk)},
            sparse_vectors_config={"sparse": m.SparseVectorParams(
                modifier=m.Modifier.IDF, index=m.SparseIndexParams(on_disk=disk))},
            hnsw_config=m.HnswConfigDiff(m=params.hnsw_m, ef_construct=params.hnsw_ef_construct,
                                         on_disk=disk),
            quantization_config=quant,
            shard_number=params.shards, replication_factor=params.replicas,
            on_disk_payload=disk,
            # A bulk load builds no HNSW graph while it writes; optimize() turns it on once.
            optimizers_config=m.OptimizersConfigDiff(indexing_threshold=0)
            if params.defer_indexing else None,
            # The lock goes in with the collection itself: one request, nothing half-made.
            metadata={"citeloom_lock": lock.to_dict(), "params": params.__dict__},
        )
        schema = ([(n, m.PayloadSchemaType.KEYWORD) for n in KEYWORD_FIELDS]
                  + [(n, m.PayloadSchemaType.INTEGER) for n in INTEGER_FIELDS]
                  + [(n, m.PayloadSchemaType.TEXT) for n in TEXT_FIELDS])
        with warnings.catch_warnings():
            # Local mode warns that it keeps no payload indexes; a server does keep them.
            warnings.simplefilter("ignore", UserWarning)
            for name, kind in schema:
                self.client.create_payload_index(self.collection, name, field_schema=kind)

    def close(self) -> None:
        pass  # the client belongs to the store

    def optimize(self) -> None:
        """The server's optimizers run on their own; a generation made with
        ``defer_indexing`` gets its HNSW indexing turned on (Qdrant's default threshold)."""
        from qdrant_client import models as m

        meta = self.client.get_collection(self.collection).config.metadata or {}
        if (meta.get("params") or {}).get("defer_indexing"):
            self.client.update_collection(self.collection, optimizers_config=m.OptimizersConfigDiff(
                indexing_threshold=INDEXING_THRESHOLD))

    def upsert(self, points: list[PointData]) -> None:
        from qdrant_client import models as m

        self.client.upsert(self.collection, wait=True, points=[
            m.PointStruct(id=p.id, payload=p.payload, vector={
                "dense": p.dense,
                "sparse": m.SparseVector(indices=p.sparse.indices, values=p.sparse.values)})
            for p in points])

    def delete_doc(self, doc_id: str) -> None:
        from qdrant_client import models as m

        self.client.delete(self.collection, wait=True, points_selector=m.FilterSelector(
            filter=build_filter(SearchFilter(doc_ids=[doc_id]), _dialect())))

    def delete_ids(self, ids: list[str]) -> None:
        from qdrant_client import models as m

        if ids:
            self.client.delete(self.collection, wait=True,
                               points_selector=m.PointIdsList(points=ids))

    def count(self, doc_id: str | None = None, flt: SearchFilter | None = None) -> int:
        f = build_filter(scroll_filter(doc_id, flt), _dialect())
        return self.client.count(self.collection, count_filter=f, exact=True).count

    def search(self, *, dense: list[float] | None, sparse: Sparse | None, mode: Mode,
               limit: int, flt: SearchFilter | None = None, fusion: Fusion = DEFAULT_FUSION,
               rrf_k: int = 60, prefetch: int = 100, dense_weight: int = 1) -> list[Hit]:
        f = build_filter(flt, _dialect())
        if mode == "dense":
            res = self.client.query_points(self.collection, query=dense, using="dense",
                                           query_filter=f, limit=limit, with_payload=True)
        elif mode == "sparse":
            res = self.client.query_points(self.collection, query=_sparse(sparse),
                                           using="sparse", query_filter=f, limit=limit,
                                           with_payload=True)
        else:
            args = _fused(dense, sparse, limit, f, fusion, rrf_k, prefetch, dense_weight)
            args["query_filter"] = args.pop("filter")  # query_points' name for it
            res = self.client.query_points(self.collection, **args)
        return [_hit(p) for p in res.points]

    def recommend(self, positive: list[str], negative: list[str], limit: int,
                  flt: SearchFilter | None = None) -> list[Hit]:
        found = {str(r.id) for r in self.client.retrieve(self.collection, positive + negative)}
        missing = [i for i in positive + negative if i not in found]
        if missing:
            raise InvalidInput(f"unknown chunk id(s): {', '.join(missing)}",
                                 "take chunk ids from a query answer")
        return self._recommend(positive, negative, limit, flt)

    def _recommend(self, positive: list[Any], negative: list[Any], limit: int,
                   flt: SearchFilter | None) -> list[Hit]:
        """Qdrant's recommend (best score) from chunk ids or vectors."""
        from qdrant_client import models as m

        res = self.client.query_points(
            self.collection, using="dense", limit=limit, with_payload=True,
            query=m.RecommendQuery(recommend=m.RecommendInput(
                positive=positive, negative=negative or None,
                strategy=m.RecommendStrategy.BEST_SCORE)),
            query_filter=build_filter(flt, _dialect()))
        return [_hit(p) for p in res.points]

    def dense_vectors(self, ids: list[str]) -> dict[str, list[float]]:
        return {str(r.id): list(r.vector["dense"]) for r in self.client.retrieve(
            self.collection, ids, with_payload=False, with_vectors=["dense"])}

    def recommend_vectors(self, positive: list[list[float]], negative: list[list[float]],
                          limit: int, flt: SearchFilter | None = None) -> list[Hit]:
        return self._recommend(positive, negative, limit, flt)

    def scroll(self, doc_id: str | None = None, batch: int = 1000,
               fields: list[str] | None = None, flt: SearchFilter | None = None
               ) -> Iterator[Hit]:
        f = build_filter(scroll_filter(doc_id, flt), _dialect())
        offset = None
        while True:
            records, offset = self.client.scroll(
                self.collection, scroll_filter=f, limit=batch, offset=offset,
                with_payload=fields if fields is not None else True, with_vectors=False)
            yield from (_hit(r) for r in records)
            if offset is None:
                return

    def retrieve(self, ids: list[str]) -> list[Hit]:
        return [_hit(r) for r in self.client.retrieve(self.collection, ids, with_payload=True)]

    def payload_indexes(self) -> dict[str, str]:
        schema = self.client.get_collection(self.collection).payload_schema or {}
        return {k: str(v.data_type.value if hasattr(v.data_type, "value") else v.data_type)
                for k, v in schema.items()}


class ServerStore(Store):
    """Projects as aliases on a Qdrant server (or qdrant-client's local mode)."""

    def __init__(self, url: str | None = None, api_key: str | None = None,
                 path: str | None = None) -> None:
        from qdrant_client import QdrantClient

        self.url = url  # None in local mode
        self.api_key = api_key
        # Each current collection's model lock, read once: a collection's lock never
        # changes, and each read is a network call (forgotten when the collection goes).
        self._locks: dict[str, ModelLock] = {}
        try:
            self.client = (QdrantClient(path=path) if path
                           else QdrantClient(url=url, api_key=api_key, timeout=10))
        except Exception as exc:
            raise IndexUnavailable(f"cannot reach Qdrant: {type(exc).__name__}",
                                   "check QDRANT_URL / QDRANT_API_KEY and that it is running"
                                   ) from None

    def close(self) -> None:
        self.client.close()

    def _aliases(self) -> dict[str, str]:
        try:
            res = self.client.get_aliases()
        except Exception as exc:
            raise IndexUnavailable(f"Qdrant did not answer: {type(exc).__name__}",
                                   "check QDRANT_URL / QDRANT_API_KEY and that it is running"
                                   ) from None
        return {a.alias_name: a.collection_name for a in res.aliases}

    def projects(self) -> list[str]:
        return sorted(a[len(PREFIX):] for a in self._aliases() if a.startswith(PREFIX))

    def current_generation(self, project: str) -> str | None:
        coll = self._aliases().get(PREFIX + project)
        return coll.rsplit("__", 1)[-1] if coll else None

    def open(self, project: str, *, create: bool = False) -> Index:
        gen = self.current_generation(project)
        if gen is None:
            if not create:
                raise InvalidProject(
                    f"project {project!r} has no index yet",
                    f"ingest into it first: `citeloom ingest PATH --project {project}`")
            return _PendingFirst(self, project)
        return ServerIndex(self.client, project, gen)

    def index_lock(self, project: str) -> ModelLock | None:
        coll = self._aliases().get(PREFIX + project)
        if coll is not None and coll not in self._locks:
            lock = ServerIndex(self.client, project, coll.rsplit("__", 1)[-1]).lock()
            if lock is None:
                return None
            self._locks[coll] = lock
        return self._locks.get(coll) if coll else None

    def new_generation(self, project: str) -> Index:
        names = {c.name for c in self.client.get_collections().collections}
        n = 1
        while f"{PREFIX}{project}__g{n:04d}" in names:
            n += 1
        return ServerIndex(self.client, project, f"g{n:04d}")

    def promote(self, project: str, index: Index) -> None:
        from qdrant_client import models as m

        assert isinstance(index, ServerIndex)
        alias = PREFIX + project
        old = self._aliases().get(alias)
        ops: list[Any] = []
        if old:
            ops.append(m.DeleteAliasOperation(delete_alias=m.DeleteAlias(alias_name=alias)))
        ops.append(m.CreateAliasOperation(create_alias=m.CreateAlias(
            collection_name=index.collection, alias_name=alias)))
        self.client.update_collection_aliases(change_aliases_operations=ops)
        if old and old != index.collection:
            self.client.delete_collection(old)
            self._locks.pop(old, None)

    def drop(self, project: str, index: Index) -> None:
        assert isinstance(index, ServerIndex)
        if self._aliases().get(PREFIX + project) != index.collection:
            self.client.delete_collection(index.collection)
            self._locks.pop(index.collection, None)

    def delete_project(self, project: str) -> None:
        from qdrant_client import models as m

        alias = PREFIX + project
        if alias in self._aliases():
            self.client.update_collection_aliases(change_aliases_operations=[
                m.DeleteAliasOperation(delete_alias=m.DeleteAlias(alias_name=alias))])
        for c in self.client.get_collections().collections:
            if c.name.startswith(f"{alias}__g"):
                self.client.delete_collection(c.name)
                self._locks.pop(c.name, None)

    # -- snapshots: Qdrant's collection snapshot API ---------------------------------------
    def snapshot(self, project: str, dest: Path) -> None:
        """A snapshot of the current collection, made by the server (consistent there by
        construction), downloaded into ``dest``, then deleted on the server."""
        collection = self._aliases().get(PREFIX + project)
        if collection is None:
            raise InvalidProject(f"project {project!r} has no index yet",
                                 f"ingest into it first: `citeloom ingest PATH --project "
                                 f"{project}`")
        try:
            made = self.client.create_snapshot(collection, wait=True)
        except NotImplementedError:
            raise _no_snapshots() from None
        if made is None:
            raise IndexUnavailable(f"Qdrant made no snapshot of {collection}", "retry")
        dest.mkdir(parents=True)
        try:
            self._download(collection, made.name, dest / SNAPSHOT_FILE)
        finally:
            with contextlib.suppress(Exception):
                self.client.delete_snapshot(collection, made.name, wait=True)

    def restore(self, project: str, staged: Path) -> Index:
        """The downloaded snapshot, uploaded into a new collection (the next generation),
        with its sha256 for the server to check; removed again if anything fails."""
        path = staged / SNAPSHOT_FILE
        if not path.is_file():
            raise SnapshotInvalid(f"the snapshot holds no Qdrant collection for {project!r}")
        if self.url is None:
            raise _no_snapshots()
        new = self.new_generation(project)
        assert isinstance(new, ServerIndex)
        try:
            self._upload(new.collection, path)
            if new.lock() is None:
                raise SnapshotInvalid("the restored collection carries no CiteLoom model lock")
        except BaseException:
            with contextlib.suppress(Exception):
                self.client.delete_collection(new.collection)
            raise
        return new

    def _rest(self, path: str) -> str:
        assert self.url is not None
        return self.url.rstrip("/") + path

    def _headers(self) -> dict[str, str]:
        return {"api-key": self.api_key} if self.api_key else {}

    def _download(self, collection: str, name: str, path: Path) -> None:
        import httpx

        url = self._rest(f"/collections/{quote(collection, safe='')}/snapshots/"
                         f"{quote(name, safe='')}")
        try:
            with httpx.stream("GET", url, headers=self._headers(), timeout=None) as r:
                if r.status_code != 200:
                    raise IndexUnavailable(f"Qdrant did not send snapshot {name}: "
                                           f"HTTP {r.status_code}", "retry")
                with open(path, "wb") as f:
                    for chunk in r.iter_bytes(1 << 20):
                        f.write(chunk)
        except httpx.HTTPError as exc:
            raise IndexUnavailable(f"downloading snapshot {name} failed: {exc}",
                                   "check QDRANT_URL and that the server runs") from None

    def _upload(self, collection: str, path: Path) -> None:
        import httpx

        digest = hashlib.sha256()
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                digest.update(chunk)
        url = self._rest(f"/collections/{quote(collection, safe='')}/snapshots/upload")
        try:
            with open(path, "rb") as f:
                r = httpx.post(url, params={"wait": "true", "checksum": digest.hexdigest()},
                               files={"snapshot": (path.name, f)}, headers=self._headers(),
                               timeout=None)
        except httpx.HTTPError as exc:
            raise IndexUnavailable(f"uploading the snapshot failed: {exc}",
                                   "check QDRANT_URL and that the server runs") from None
        if r.status_code != 200:
            raise IndexUnavailable(f"Qdrant refused the snapshot: HTTP {r.status_code} "
                                   f"{r.text[:200]}", "check the server's log")


class _PendingFirst(ServerIndex):
    """A project's first generation: created and given the alias on its first write."""

    def __init__(self, store: ServerStore, project: str) -> None:
        first = store.new_generation(project)
        super().__init__(store.client, project, first.generation)
        self._store = store

    def ensure(self, lock: ModelLock, params: IndexParams | None = None) -> None:
        super().ensure(lock, params)
        if self._store.current_generation(self.project) is None:
            self._store.promote(self.project, self)
