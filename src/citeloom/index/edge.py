"""The embedded default backend: Qdrant Edge shards in a folder per project.

    <index_dir>/<project>/CURRENT           name of the current generation (atomic write)
    <index_dir>/<project>/.lock             flock-ed by the process using the index
    <index_dir>/<project>/g0001/shard/      the Edge shard (WAL, segments)
    <index_dir>/<project>/g0001/model_lock.json

Edge has no collection metadata and no aliases: the model lock is a sidecar written
atomically once the shard and its payload indexes exist, and a migration swaps generations
by rewriting CURRENT.

One process at a time: Edge's own WAL lock is taken too late (loading a shard another
process writes to truncates files under it and corrupts the shard, issue #12), so every
handle first takes ``<index_dir>/<project>/.lock`` with ``flock`` and only then calls Edge.
The lock is per process and project, shared by that process's handles of any generation
(a reindex holds the old one and builds the new one); within the process each generation
has at most one open handle. See docs/DECISIONS.md, "Index".

Faults (docs/RELIABILITY.md): a CURRENT that names no generation, an unreadable model lock
and a shard that does not load (or fails when read) raise ``INDEX_DAMAGED`` with the way
back (``citeloom repair``), whatever Edge raised (a Rust panic included). When the
filesystem is too full to open a shard in place, it is opened from a sparse copy in the
temp dir, read-only (``space.scratch_copy``): queries keep answering; writes raise
``DISK_FULL`` until there is room again.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from citeloom import system as space
from citeloom.embed.encoders import Sparse
from citeloom.errors import (
    DiskFull,
    IndexDamaged,
    IndexUnavailable,
    InvalidInput,
    InvalidProject,
    SnapshotInvalid,
    as_error,
    out_of_space,
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
    atomic_json,
    build_filter,
    copy_sparse,
    scroll_filter,
)
from citeloom.index.edgefaults import damaged, edge_errors, read_current, read_model_lock
from citeloom.index.proclock import Lease, claimed

_log = logging.getLogger(__name__)

LOCK_FILE = "model_lock.json"
#: The largest segment an optimize makes (KB of vectors; about 20,000 passages of bge-small):
#: each optimize then rewrites at most that much, not the whole index.
MAX_SEGMENT_KB: int | None = 30_000
COLD = True  # (False and no cap: the layout before session 20, for benchmarks/)
#: Points written between two optimizes of a long ingest: the segment being written keeps
#: its vectors' and payload indexes' working copies in memory until it is optimized
#: (docs/DECISIONS.md "Bounded memory": the writer's own memory).
OPTIMIZE_EVERY = 8000
CURRENT = "CURRENT"


def _dialect() -> FilterDialect:
    import qdrant_edge as q

    return FilterDialect(
        any_of=lambda key, values: q.FieldCondition(key=key, match=q.MatchAny(values)),
        equals=lambda key, value: q.FieldCondition(key=key, match=q.MatchValue(value)),
        between=lambda key, lo, hi: q.FieldCondition(key=key, range=q.RangeFloat(gte=lo, lte=hi)),
        has_id=lambda ids: q.HasIdCondition(set(ids)),
        combine=lambda must, must_not: q.Filter(must=must, must_not=must_not),
        either=lambda conditions: q.Filter(should=conditions),
        is_empty=lambda key: q.IsEmptyCondition(key=key),
        words=lambda key, text: q.FieldCondition(key=key, match=q.MatchText(text)),
    )


def _hits(points: Any) -> list[Hit]:
    return [Hit(str(p.id), float(p.score), dict(p.payload or {})) for p in points]


def _queries(dense: list[float] | None, sparse: Sparse | None) -> tuple[Any, Any]:
    import qdrant_edge as q

    return (q.Query.Nearest(dense, using="dense") if dense is not None else None,
            q.Query.Nearest(q.SparseVector(sparse.indices, sparse.values), using="sparse")
            if sparse is not None else None)


def _fused(dense_q: Any, sparse_q: Any, limit: int, f: Any, fusion: Fusion, rrf_k: int,
           prefetch: int, dense_weight: int) -> Any:
    """A hybrid query: both rankings, ``max(prefetch, limit)`` deep, fused (in DBSF the
    dense one ``dense_weight`` times)."""
    import qdrant_edge as q

    depth = max(prefetch, limit)
    fuse = q.Fusion.Rrf(k=rrf_k) if fusion == "rrf" else q.Fusion.Dbsf()
    copies = dense_weight if fusion == "dbsf" else 1
    return q.QueryRequest(
        limit=limit, query=fuse, filter=f, with_payload=True,
        prefetches=[*(q.Prefetch(limit=depth, query=dense_q, filter=f) for _ in range(copies)),
                    q.Prefetch(limit=depth, query=sparse_q, filter=f)])


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
        self._scratch: Path | None = None  # a read-only copy, opened on a full disk
        self._loading = threading.Lock()  # one EdgeShard.load at a time, even across threads
        self._capped: bool | None = None  # its segments have a size cap (optimize_every)
        # Held from the first use (or creation) of the shard until close().
        self._lease = Lease(root.parent, project, generation, wait_s)

    def lock(self) -> ModelLock | None:
        return read_model_lock(self.root / LOCK_FILE, self.project)

    @property
    def optimize_every(self) -> int | None:  # type: ignore[override]
        """:data:`OPTIMIZE_EVERY` for a generation whose segments are capped in size (made
        since session 20); an older one merges all it holds on each optimize, so a long
        ingest optimizes it once, at the end, as before."""
        if self._capped is None:
            try:
                config = json.loads((self.shard_dir / "edge_config.json").read_text("utf-8"))
                self._capped = bool((config.get("optimizers") or {}).get("max_segment_size"))
            except (OSError, ValueError, AttributeError):
                return None  # not created yet, or unreadable: loading it will say so
        return OPTIMIZE_EVERY if self._capped else None

    @property
    def segment_points(self) -> int | None:  # type: ignore[override]
        """What a capped segment holds: ``MAX_SEGMENT_KB`` of float32 dense vectors (20,000
        passages of a 384-dimensional model)."""
        if not (self.optimize_every and MAX_SEGMENT_KB) or (lock := self.lock()) is None:
            return None
        return MAX_SEGMENT_KB * 1024 // (4 * lock.dense_dim)

    def _edge(self) -> contextlib.AbstractContextManager[None]:
        """Edge's errors as CiteLoom's (INDEX_DAMAGED, DISK_FULL): see edgefaults.py."""
        return edge_errors(self.project, self.generation, self.shard_dir)

    def _open(self) -> Any:
        shard = self._shard
        if shard is not None:
            return shard
        with self._loading:
            if self._shard is None:
                self._load()
            return self._shard

    def _load(self) -> None:
        """Take the lock, then (and only then) load the shard."""
        from qdrant_edge import EdgeShard

        if not self.shard_dir.is_dir():
            raise InvalidProject(f"project {self.project!r} has no index yet",
                                 f"ingest into it first: `citeloom ingest PATH "
                                 f"--project {self.project}`")
        deadline = time.monotonic() + self.wait_s
        self._lease.acquire(deadline)
        if not self.shard_dir.is_dir():  # removed while we waited: a reindex elsewhere
            self._lease.release()
            raise IndexUnavailable(
                f"generation {self.generation} of project {self.project!r} was replaced "
                "by a reindex in another process", "retry: the new one opens then")
        try:
            path = self.shard_dir
            if space.free_bytes(self.root) < space.read_need(self.root):
                # Loading writes a little in place (journals): on a full disk, that is
                # SIGBUS. Read from a copy on another filesystem instead.
                path = self._scratch = space.scratch_copy(self.shard_dir,
                                                          f"citeloom-{self.project}-")
                _log.warning("the filesystem of %s is full: project %r is read from a "
                             "copy in %s; writes wait for free space", self.root,
                             self.project, path)
            while self._shard is None:
                try:
                    self._shard = EdgeShard.load(str(path))
                except (KeyboardInterrupt, SystemExit):
                    raise
                except BaseException as exc:  # the Rust side raises plain exceptions, panics
                    # Only a process that does not take the lock file gets here while the
                    # shard is open elsewhere (an older CiteLoom, a script using Edge).
                    if "WouldBlock" in str(exc):
                        self._lease.wait(deadline, str(exc))
                        continue
                    if out_of_space(exc):
                        raise as_error(exc, self.shard_dir) from None
                    # Nobody else holds it, and it does not load: its files are damaged.
                    raise damaged(self.project, self.generation, self.shard_dir,
                                  exc) from None
        except BaseException:
            self._drop_scratch()
            self._lease.release()
            raise

    def _drop_scratch(self) -> None:
        scratch, self._scratch = self._scratch, None
        if scratch is not None:
            shutil.rmtree(scratch.parent, ignore_errors=True)

    def _writable(self) -> Any:
        """The shard, to write to: never a read-only copy. One opened from a copy (the disk
        was full) is reopened in place once there is room, else DISK_FULL."""
        shard = self._open()
        if self._scratch is None:
            return shard
        with self._loading:
            if self._scratch is not None:
                if space.free_bytes(self.root) < space.read_need(self.root):
                    raise DiskFull(f"{self.root}: the filesystem is full; project "
                                   f"{self.project!r} is open read-only")
                self._close_shard()
                self._load()
            return self._shard

    def ensure(self, lock: ModelLock, params: IndexParams | None = None) -> None:
        import qdrant_edge as q

        self.check_lock(lock)
        self._lease.acquire()  # before deciding whether to create: another process may be at it
        if self.lock() is not None:
            self.check_lock(lock)
            self._open()
            return
        params = params or IndexParams()
        self.root.mkdir(parents=True, exist_ok=True)
        quant = (q.ScalarQuantizationConfig(type=q.ScalarType.Int8, quantile=0.99)
                 if params.quantization == "int8" else None)
        # Every part memory-mapped and read as needed, segments capped in size: a long
        # ingest's writer, which optimizes every OPTIMIZE_EVERY points, stays bounded
        # (docs/DECISIONS.md "Bounded memory": the writer's own memory).
        cold = q.Memory.Cold if COLD else None
        config = q.EdgeConfig(
            vectors={"dense": q.EdgeVectorParams(size=lock.dense_dim, distance=q.Distance.Cosine,
                                                 quantization_config=quant, memory=cold)},
            sparse_vectors={"sparse": q.EdgeSparseVectorParams(modifier=q.Modifier.Idf,
                                                               memory=cold)},
            hnsw_config=q.HnswIndexConfig(m=params.hnsw_m, ef_construct=params.hnsw_ef_construct,
                                          full_scan_threshold=10_000, memory=cold),
            optimizers=q.EdgeOptimizersConfig(max_segment_size=MAX_SEGMENT_KB)
            if MAX_SEGMENT_KB else None,
        )
        space.require(self.root, space.BYTES_PER_CHUNK, f"a new index for {self.project!r}")
        if self.shard_dir.exists():  # created before, but the lock was never written
            shutil.rmtree(self.shard_dir)
        text = q.TextIndexParams(memory=cold) if COLD else q.PayloadSchemaType.Text
        schema = ([(n, q.PayloadSchemaType.Keyword) for n in KEYWORD_FIELDS]
                  + [(n, q.PayloadSchemaType.Integer) for n in INTEGER_FIELDS]
                  + [(n, text) for n in TEXT_FIELDS])
        with self._edge():
            self._shard = q.EdgeShard.create(str(self.shard_dir), config)
            for name, kind in schema:
                self._shard.update(q.UpdateOperation.create_field_index(name, kind))
            self._shard.flush()
        # Written last: a generation without a lock was never written to, and is rebuilt.
        atomic_json(self.root / LOCK_FILE, {**lock.to_dict(), "params": params.__dict__})

    def optimize(self) -> None:
        shard = self._writable()
        with self._edge():
            shard.optimize()

    def _close_shard(self) -> None:
        shard, self._shard = self._shard, None
        try:
            if shard is not None:
                with self._edge():
                    try:
                        shard.flush()
                    finally:
                        shard.close()
        finally:
            self._drop_scratch()

    def close(self) -> None:
        """Flush and close the shard, then let go of the lock (the last handle of the
        project in this process unlocks it for the others)."""
        try:
            self._close_shard()
        finally:
            self._lease.release()

    def upsert(self, points: list[PointData]) -> None:
        import qdrant_edge as q

        shard = self._writable()
        batch = [q.Point(p.id, {"dense": p.dense,
                                "sparse": q.SparseVector(p.sparse.indices, p.sparse.values)},
                         p.payload) for p in points]
        with self._edge():
            # One operation: the WAL applies it whole or, after a crash, not at all.
            shard.update(q.UpdateOperation.upsert_points(batch))
            shard.flush()

    def delete_doc(self, doc_id: str) -> None:
        import qdrant_edge as q

        shard = self._writable()
        with self._edge():
            shard.update(q.UpdateOperation.delete_points_by_filter(
                build_filter(SearchFilter(doc_ids=[doc_id]), _dialect())))
            shard.flush()

    def delete_ids(self, ids: list[str]) -> None:
        import qdrant_edge as q

        if ids:
            shard = self._open()
            shard.update(q.UpdateOperation.delete_points(list(ids)))
            shard.flush()

    def count(self, doc_id: str | None = None, flt: SearchFilter | None = None) -> int:
        import qdrant_edge as q

        f = build_filter(scroll_filter(doc_id, flt), _dialect())
        shard = self._open()
        with self._edge():
            return shard.count(q.CountRequest(filter=f, exact=True))

    def search(self, *, dense: list[float] | None, sparse: Sparse | None, mode: Mode,
               limit: int, flt: SearchFilter | None = None, fusion: Fusion = DEFAULT_FUSION,
               rrf_k: int = 60, prefetch: int = 100, dense_weight: int = 1) -> list[Hit]:
        import qdrant_edge as q

        f = build_filter(flt, _dialect())
        dense_q, sparse_q = _queries(dense, sparse)
        if mode == "dense":
            req = q.QueryRequest(limit=limit, query=dense_q, filter=f, with_payload=True)
        elif mode == "sparse":
            req = q.QueryRequest(limit=limit, query=sparse_q, filter=f, with_payload=True)
        else:
            req = _fused(dense_q, sparse_q, limit, f, fusion, rrf_k, prefetch, dense_weight)
        shard = self._open()
        with self._edge():
            return _hits(shard.query(req))

    def recommend(self, positive: list[str], negative: list[str], limit: int,
                  flt: SearchFilter | None = None) -> list[Hit]:
        import qdrant_edge as q

        shard = self._open()
        with self._edge():
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
        with self._edge():
            return _hits(shard.query(req))

    def dense_vectors(self, ids: list[str]) -> dict[str, list[float]]:
        return {str(r.id): list(r.vector["dense"])
                for r in self._open().retrieve(ids, with_payload=False, with_vector=["dense"])}

    def recommend_vectors(self, positive: list[list[float]], negative: list[list[float]],
                          limit: int, flt: SearchFilter | None = None) -> list[Hit]:
        import qdrant_edge as q

        rq = q.RecommendQuery(positives=positive, negatives=negative)
        req = q.QueryRequest(limit=limit, query=q.Query.RecommendBestScore(rq, using="dense"),
                             filter=build_filter(flt, _dialect()), with_payload=True)
        return _hits(self._open().query(req))

    def scroll(self, doc_id: str | None = None, batch: int = 1000,
               fields: list[str] | None = None, flt: SearchFilter | None = None
               ) -> Iterator[Hit]:
        import qdrant_edge as q

        f = build_filter(scroll_filter(doc_id, flt), _dialect())
        offset = None
        while True:
            shard = self._open()
            with self._edge():
                records, offset = shard.scroll(q.ScrollRequest(
                    offset=offset, limit=batch, filter=f,
                    with_payload=fields if fields is not None else True, with_vector=False))
            yield from (Hit(str(r.id), 0.0, dict(r.payload or {})) for r in records)
            if offset is None:
                return

    def retrieve(self, ids: list[str]) -> list[Hit]:
        shard = self._open()
        with self._edge():
            return [Hit(str(r.id), 0.0, dict(r.payload or {}))
                    for r in shard.retrieve(ids, with_payload=True, with_vector=False)]

    def payload_indexes(self) -> dict[str, str]:
        shard = self._open()
        with self._edge():
            schema = shard.info().payload_schema
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
        """The generation CURRENT names; INDEX_DAMAGED when it names none that exists."""
        return read_current(self.index_dir / project / CURRENT, project)

    def generations(self, project: str) -> list[str]:
        """The generation folders of a project on disk, oldest first."""
        root = self.index_dir / project
        return sorted(p.name for p in root.glob("g[0-9][0-9][0-9][0-9]") if p.is_dir())

    def point_current(self, project: str, generation: str | None) -> None:
        """Make CURRENT name ``generation`` (repair: CURRENT was damaged), or remove it."""
        root = self.index_dir / project
        if generation is None:
            (root / CURRENT).unlink(missing_ok=True)
        else:
            _write_current(root, generation)

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
        # The project lock first: another process may be building a generation right now.
        lease = Lease(root, project, None, self.wait_s)
        lease.acquire()
        try:
            current = self.current_generation(project)
            open_here = claimed(root)
            for leftover in root.glob("g[0-9][0-9][0-9][0-9]"):  # from a crashed migration
                if leftover.name != current and leftover.name not in open_here:
                    shutil.rmtree(leftover, ignore_errors=True)
            taken = [int(p.name[1:]) for p in root.glob("g[0-9][0-9][0-9][0-9]")]
            taken += [int(g[1:]) for g in open_here]  # claimed here, maybe not on disk yet
            handle = self._handle(project, f"g{max(taken, default=0) + 1:04d}")
            handle._lease.acquire()  # at once: this process holds the project's lock
        finally:
            lease.release()
        return handle

    def promote(self, project: str, index: Index) -> None:
        root = self.index_dir / project
        try:
            old = self.current_generation(project)
        except IndexDamaged:
            old = None  # a repair replaces a generation that CURRENT no longer names
        _write_current(root, index.generation)
        if old and old != index.generation:
            stale = self._open.pop((project, old), None)
            if stale is not None:
                stale.close()
            shutil.rmtree(root / old, ignore_errors=True)

    def drop(self, project: str, index: Index) -> None:
        assert isinstance(index, EdgeIndex)
        try:
            index._close_shard()
            with contextlib.suppress(IndexDamaged):
                if index.generation == self.current_generation(project):
                    return
            try:  # normally held since new_generation(); removed only while it is
                index._lease.acquire(deadline=time.monotonic())
            except IndexUnavailable:
                return  # someone else's now; their new_generation() removes it
            self._open.pop((project, index.generation), None)
            shutil.rmtree(self.index_dir / project / index.generation, ignore_errors=True)
        finally:
            index.close()

    def delete_project(self, project: str) -> None:
        for key in [k for k in self._open if k[0] == project]:
            self._open.pop(key).close()
        shutil.rmtree(self.index_dir / project, ignore_errors=True)

    def snapshot(self, project: str, dest: Path) -> None:
        """The shard's files as they are after a flush, and the model lock. Edge runs
        nothing in the background: with writes held off, the flushed files are the shard,
        and a copy of them loads anywhere (the shard stays open here meanwhile, and this
        process holds the project's lock, so no other process writes either). Preallocated
        files are copied up to the end of their data (``copy_sparse``)."""
        handle = self.open(project)
        assert isinstance(handle, EdgeIndex)
        handle._open().flush()
        dest.mkdir(parents=True)
        shutil.copytree(handle.shard_dir, dest / "shard", copy_function=copy_sparse)
        shutil.copy2(handle.root / LOCK_FILE, dest / LOCK_FILE)

    def restore(self, project: str, staged: Path) -> Index:
        """The staged folder (``shard/`` and ``model_lock.json``) becomes the next generation
        folder in one rename: it was unpacked beside the indexes, on the same filesystem."""
        if not (staged / "shard").is_dir() or not (staged / LOCK_FILE).is_file():
            raise SnapshotInvalid(f"the snapshot holds no Edge shard for project {project!r}")
        handle = self.new_generation(project)
        assert isinstance(handle, EdgeIndex)
        try:
            os.rename(staged, handle.root)
        except OSError as exc:
            self.drop(project, handle)
            raise IndexUnavailable(f"cannot move the restored index into place: {exc}",
                                   f"check that {self.index_dir} is writable") from None
        return handle


def _write_current(root: Path, generation: str) -> None:
    import os
    import tempfile

    fd, tmp = tempfile.mkstemp(dir=root, prefix=".CURRENT.")
    with os.fdopen(fd, "w") as f:
        f.write(generation + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, root / CURRENT)
