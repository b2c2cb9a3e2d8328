"""Per-project indexes behind one interface: ``edge`` (embedded Qdrant Edge shards, the
default) and ``server`` (a Qdrant server or cluster through qdrant-client)."""

from __future__ import annotations

from pathlib import Path

from citeloom.errors import ConfigError
from citeloom.index.base import (
    DEFAULT_FUSION,
    INTEGER_FIELDS,
    KEYWORD_FIELDS,
    TEXT_FIELDS,
    Fusion,
    Hit,
    Index,
    IndexParams,
    Mode,
    ModelLock,
    PointData,
    SearchFilter,
    Store,
)
from citeloom.index.edge import EdgeIndex, EdgeStore

__all__ = [
    "BACKENDS",
    "INTEGER_FIELDS",
    "KEYWORD_FIELDS",
    "TEXT_FIELDS",
    "EdgeIndex",
    "EdgeStore",
    "DEFAULT_FUSION",
    "Fusion",
    "Hit",
    "Index",
    "IndexParams",
    "Mode",
    "ModelLock",
    "PointData",
    "SearchFilter",
    "Store",
    "make_store",
]

BACKENDS = ("edge", "server")


def make_store(backend: str, index_dir: Path, qdrant_url: str | None = None,
               qdrant_api_key: str | None = None, wait_s: float = 0.0) -> Store:
    """The store for a backend. ``QDRANT_URL=file:///some/dir`` selects qdrant-client's
    local mode (brute force: for tests and small experiments, not for a library).
    ``wait_s``: how long an Edge index waits for another process to let go of its shard."""
    if backend == "edge":
        return EdgeStore(index_dir, wait_s)
    if backend == "server":
        from citeloom.index.server import ServerStore

        if not qdrant_url:
            raise ConfigError("backend = \"server\" needs a Qdrant URL",
                              "set QDRANT_URL (and QDRANT_API_KEY), or use backend = \"edge\"")
        if qdrant_url.startswith("file://"):
            return ServerStore(path=qdrant_url.removeprefix("file://"))
        return ServerStore(url=qdrant_url, api_key=qdrant_api_key)
    raise ConfigError(f"unknown backend {backend!r}", "use \"edge\" or \"server\"")
