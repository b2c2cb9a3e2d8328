"""The projects this process has open: stores (Edge, Qdrant server), indexes, catalogs,
and the locks that keep their writers and readers apart.

``swap`` (a re-entrant lock) is held by every write step (a batch of points with its
catalog rows, a prune, an optimize, a promote with its catalog) and by a reindex's or a
restore's generation swap, so a query sees the old or the new generation, never neither,
and a snapshot (which holds it while it copies) sees a project between two steps. A whole
ingest, reindex or restore of a project holds :meth:`Projects.writer` (one writer per
project)."""

from __future__ import annotations

import contextlib
import shutil
import threading
import time
from collections.abc import Callable

from citeloom.config import DEFAULT_DENSE_MODEL, ProjectConfig, Settings
from citeloom.errors import CiteLoomError, ConfigError, InvalidProject, did_you_mean
from citeloom.index import BACKENDS, Index, ModelLock, Store, make_store
from citeloom.index.catalog import Catalog


class Projects:
    def __init__(self, settings: Callable[[], Settings], index_wait_s: float = 0.0) -> None:
        """``index_wait_s``: how long to wait for an index another process has open."""
        self._settings = settings
        self.index_wait_s = index_wait_s
        self.swap = threading.RLock()
        self.open_indexes: dict[str, Index] = {}
        self.open_catalogs: dict[str, Catalog] = {}
        self.unoptimized: set[str] = set()  # projects written to without optimize()
        self._stores: dict[str, Store] = {}
        self._used: dict[str, float] = {}  # project -> monotonic time of its last index use
        self._writers: dict[str, threading.RLock] = {}
        self._lock = threading.Lock()

    @property
    def settings(self) -> Settings:
        return self._settings()

    def writer(self, name: str) -> threading.RLock:
        """The lock a project's ingest, reindex or restore holds from start to end."""
        with self._lock:
            return self._writers.setdefault(name, threading.RLock())

    # -- stores ------------------------------------------------------------------------
    def store(self, project: ProjectConfig) -> Store:
        return self.backend(project.backend)

    def backend(self, name: str) -> Store:
        """The store of one backend (``edge``, ``server``), opened on first use."""
        if name not in self._stores:
            s = self.settings
            key = s.qdrant_api_key
            self._stores[name] = make_store(name, s.index_dir, s.qdrant_url,
                                            key.get_secret_value() if key else None,
                                            self.index_wait_s)
        return self._stores[name]

    def stored_projects(self) -> list[str]:
        """Projects with an index in any backend this configuration can reach."""
        names: set[str] = set()
        for backend in BACKENDS:
            try:
                names |= set(self.backend(backend).projects())
            except ConfigError:
                continue  # a backend that is not configured here
        return sorted(names)

    def index_lock(self, project: ProjectConfig) -> ModelLock | None:
        """The model lock of the project's current index, if it has one."""
        try:
            return self.backend(project.backend).index_lock(project.name)
        except Exception:  # a fault the operation itself will report
            return None

    def is_new(self, project: ProjectConfig) -> bool:
        """Whether the project has no index yet (its first ingest makes one)."""
        try:
            return self.store(project).current_generation(project.name) is None
        except CiteLoomError:
            return False  # damaged: never removed here (`citeloom repair` decides)

    # -- names -------------------------------------------------------------------------
    def known_projects(self) -> list[str]:
        """Configured projects and projects with an index."""
        return sorted(set(self.settings.projects) | set(self.stored_projects()))

    def dense_models_in_use(self) -> set[str]:
        """The dense model of every known project (its index's, for one that names none),
        or the default: what a warm-up loads."""
        return ({self.settings.project(n, create=True).dense_model
                 for n in self.known_projects()} or {DEFAULT_DENSE_MODEL})

    def unknown_project(self, name: str, exc: InvalidProject | None = None) -> InvalidProject:
        """The error for a project without an index: a configured one is to be ingested
        into; any other name is probably a typo, so the nearest known name comes first."""
        if name in self.settings.projects:
            return exc or InvalidProject(f"project {name!r} has no index yet",
                                         f"ingest into it: `citeloom ingest -p {name}`")
        known = [p for p in self.known_projects() if p != name]
        guess = did_you_mean(name, known)
        listed = f"known projects: {', '.join(known)}" if known else "there are no projects yet"
        hint = (f"did you mean {guess!r}? (-p {guess}); {listed}" if guess else
                f"{listed}; a new project is made by ingesting into it: "
                f"`citeloom ingest PATH -p {name}`")
        return InvalidProject(f"unknown project {name!r}", hint)

    # -- indexes and catalogs ----------------------------------------------------------
    def index(self, name: str, *, create: bool = False) -> Index:
        with self.swap:
            if name not in self.open_indexes:
                project = self.settings.project(name, create=True)
                try:
                    self.open_indexes[name] = self.store(project).open(name, create=create)
                except InvalidProject as exc:
                    raise self.unknown_project(name, exc) from None
            self._used[name] = time.monotonic()
            return self.open_indexes[name]

    def catalog(self, name: str) -> Catalog:
        if name not in self.open_catalogs:
            self.open_catalogs[name] = Catalog(
                self.settings.index_dir / name / "catalog.sqlite", name)
        return self.open_catalogs[name]

    def drop_if_empty(self, name: str) -> bool:
        """Remove a project its first ingest left empty (every file failed, or nothing
        to ingest): a typo in ``-p`` must not leave a project behind."""
        try:
            empty = self.index(name).count() == 0 and len(self.catalog(name)) == 0
        except CiteLoomError:
            return False
        if empty:
            self.remove_project(name)
        return empty

    def release_idle(self, idle_s: float, busy: set[str] | frozenset[str] = frozenset()
                     ) -> list[str]:
        """Close the exclusive (Edge) indexes nobody used for ``idle_s`` seconds (except
        ``busy`` projects), so that another process — a CLI ingest while the MCP server
        runs — can open them; one written to without optimizing is optimized first
        (queries wait meanwhile, but nobody has asked for ``idle_s``). A released index
        reopens on its next use. Returns the released names."""
        released = []
        with self.swap:
            now = time.monotonic()
            for name, idx in list(self.open_indexes.items()):
                if (name in busy or now - self._used.get(name, now) < idle_s
                        or not idx.exclusive):
                    continue
                if name in self.unoptimized:
                    idx.optimize()
                    self.unoptimized.discard(name)
                idx.close()
                del self.open_indexes[name]
                released.append(name)
        return released

    def remove_project(self, name: str) -> None:
        """Delete a project's index (every generation) and catalog."""
        project = self.settings.project(name, create=True)
        with self.swap:
            idx = self.open_indexes.pop(name, None)
            if idx is not None:
                idx.close()
            cat = self.open_catalogs.pop(name, None)
            if cat is not None:
                cat.close()
            self.store(project).delete_project(name)
            shutil.rmtree(self.settings.index_dir / name, ignore_errors=True)

    def forget(self, name: str) -> None:
        """Close this process's handles on a project (index, catalog); the next use
        reopens them (``repair`` replaces files under them)."""
        with self.swap:
            idx = self.open_indexes.pop(name, None)
            if idx is not None:  # a damaged shard's close may fail: its lock goes anyway
                with contextlib.suppress(CiteLoomError):
                    idx.close()
            cat = self.open_catalogs.pop(name, None)
            if cat is not None:
                cat.close()

    def close(self) -> None:
        with self.swap:
            for idx in self.open_indexes.values():
                idx.close()
            self.open_indexes.clear()
            for cat in self.open_catalogs.values():
                cat.close()
            self.open_catalogs.clear()
            for store in self._stores.values():
                store.close()
            self._stores.clear()
