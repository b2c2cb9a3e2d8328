"""How an Edge project's files fail, said as CiteLoom errors (docs/RELIABILITY.md).

    <project>/CURRENT            garbage, or naming no generation  ─► INDEX_DAMAGED
    <generation>/model_lock.json unreadable                         ─► INDEX_DAMAGED
    <generation>/shard/...       Edge's "Service runtime error" or
                                 a Rust panic, at load or on use    ─► INDEX_DAMAGED
    any write                    ENOSPC                             ─► DISK_FULL

Every INDEX_DAMAGED names ``citeloom repair -p NAME`` (``service/repair.py``).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from pathlib import Path

from citeloom.errors import CiteLoomError, IndexDamaged, as_error, out_of_space, repair_hint
from citeloom.index.base import ModelLock

GENERATION = re.compile(r"g[0-9]{4}")


def read_current(path: Path, project: str) -> str | None:
    """The generation ``path`` (a CURRENT file) names: None when there is no file,
    INDEX_DAMAGED when it names none that exists while others do (a project's first
    generation is named before it is made)."""
    if not path.is_file():
        return None
    try:
        name = path.read_text().strip()
    except (OSError, ValueError) as exc:
        raise IndexDamaged(f"{path} is unreadable: {exc}", repair_hint(project)) from None
    if not GENERATION.fullmatch(name):
        raise IndexDamaged(f"{path} does not name a generation (it holds {name[:40]!r})",
                           repair_hint(project))
    others = [p.name for p in path.parent.glob("g[0-9][0-9][0-9][0-9]") if p.is_dir()]
    if not (path.parent / name).is_dir() and others:
        raise IndexDamaged(f"{path} names generation {name}, which does not exist (there "
                           f"is {', '.join(sorted(others))})", repair_hint(project))
    return name


def read_model_lock(path: Path, project: str) -> ModelLock | None:
    """The model lock in ``path``: None when there is none, INDEX_DAMAGED when unreadable."""
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text())
        data.pop("params", None)
        return ModelLock(**data)
    except (OSError, ValueError, TypeError, AttributeError) as exc:
        raise IndexDamaged(f"the model lock of project {project!r} ({path}) is unreadable: "
                           f"{exc}", repair_hint(project)) from None


def damaged(project: str, generation: str, shard_dir: Path, exc: BaseException
            ) -> IndexDamaged:
    return IndexDamaged(
        f"the index of project {project!r} (generation {generation}, {shard_dir}) is "
        f"damaged: {type(exc).__name__}: {str(exc)[:300]}",
        repair_hint(project) + " (it falls back to an intact generation, or rebuilds the "
        "index from the catalog and the cached conversions)")


def is_panic(exc: BaseException) -> bool:
    """A Rust panic surfacing from Edge (pyo3's PanicException, a BaseException)."""
    return type(exc).__name__ == "PanicException"


def is_damage(exc: BaseException) -> bool:
    """What Edge raises for files it cannot read as it wrote them."""
    return is_panic(exc) or (isinstance(exc, Exception)
                             and "Service runtime error" in str(exc))


@contextlib.contextmanager
def edge_errors(project: str, generation: str, shard_dir: Path) -> Iterator[None]:
    """Edge's errors as CiteLoom's: damage is INDEX_DAMAGED, no space DISK_FULL; anything
    else (a bug) goes on as it is."""
    try:
        yield
    except CiteLoomError:
        raise
    except BaseException as exc:
        if out_of_space(exc):
            raise as_error(exc, shard_dir) from None
        if is_damage(exc):
            raise damaged(project, generation, shard_dir, exc) from None
        raise
