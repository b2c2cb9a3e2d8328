"""Per-project indexes behind one interface: ``edge`` (embedded Qdrant Edge shard, the
default) and ``server`` (a Qdrant server or cluster through qdrant-client)."""

from __future__ import annotations

from pathlib import Path

from .base import (
    INTEGER_FIELDS,
    KEYWORD_FIELDS,
    TEXT_FIELDS,
    Fusion,
    Hit,
    Index,
    Mode,
    ModelLock,
    PointData,
    SearchFilter,
)
from .edge import EdgeIndex

__all__ = [
    "INTEGER_FIELDS",
    "KEYWORD_FIELDS",
    "TEXT_FIELDS",
    "EdgeIndex",
    "Fusion",
    "Hit",
    "Index",
    "Mode",
    "ModelLock",
    "PointData",
    "SearchFilter",
    "open_index",
]


def open_index(index_dir: Path, project: str, *, create: bool = False) -> Index:
    return EdgeIndex(index_dir, project, create=create)
