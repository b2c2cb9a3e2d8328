"""Watching: while the daemon runs, the ``sources`` of every project with ``watch = true``
are followed with watchfiles (inotify on Linux; no polling loop of ours), and so is the
Zotero database when a project names ``zotero_collections``.

A change starts an ingest job of the project's sources with prune: the catalog's stat
check skips every unchanged file (nothing is converted), a new or changed file is ingested,
a deleted one removed. A file is taken only once its size and mtime have held still for
``SETTLE_S`` — no event for that long (every write of a copy is an event), so a PDF still
being copied is ingested once, complete. A change of
zotero.sqlite re-syncs the project's collections, with the version-aware skips.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any

log = logging.getLogger("citeloom.daemon")

SETTLE_S = 2.0  # a file must be unchanged this long before it is ingested


class Watcher:
    def __init__(self, daemon: Any) -> None:
        self.daemon = daemon
        self.settings = daemon.settings
        self.stop_event = threading.Event()
        self.projects = [p for p in self.settings.projects.values() if p.watch]
        self._pending: dict[str, set[str]] = {}  # project -> kinds of work due
        self._since: dict[str, float] = {}  # project -> when its last change was seen
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []

    def describe(self) -> list[dict[str, Any]]:
        return [{"project": p.name, "sources": [str(s) for s in p.sources],
                 "zotero_collections": p.zotero_collections,
                 "zotero_sources": p.zotero_sources} for p in self.projects]

    def roots(self) -> dict[Path, list[tuple[str, str]]]:
        """Watched folder -> (project, kind) pairs: kind ``files`` or ``zotero``."""
        out: dict[Path, list[tuple[str, str]]] = {}
        for p in self.projects:
            for src in p.sources:
                folder = src if src.is_dir() else src.parent
                out.setdefault(folder.resolve(), []).append((p.name, "files"))
            zdir = self.settings.zotero.data_dir
            if p.zotero_syncs() and zdir is not None and zdir.is_dir():
                out.setdefault(zdir.resolve(), []).append((p.name, "zotero"))
        return out

    def start(self) -> None:
        roots = {r: who for r, who in self.roots().items() if r.is_dir()}
        if not roots:
            return
        with self._lock:  # catch up with what changed while no daemon ran
            for who in roots.values():
                for project, kind in who:
                    self._pending.setdefault(project, set()).add(kind)
                    self._since[project] = time.monotonic() - SETTLE_S
        for target in (lambda: self._watch(roots), self._dispatch):
            t = threading.Thread(target=target, name="watch", daemon=True)
            t.start()
            self._threads.append(t)
        log.info("watching %s", ", ".join(str(r) for r in roots))

    def stop(self) -> None:
        self.stop_event.set()

    def _watch(self, roots: dict[Path, list[tuple[str, str]]]) -> None:
        from watchfiles import watch

        for changes in watch(*roots, stop_event=self.stop_event, debounce=800,
                             rust_timeout=1000, yield_on_timeout=False):
            now = time.monotonic()
            for _change, path in changes:
                p = Path(path)
                for root, who in roots.items():
                    if p != root and root not in p.parents:
                        continue
                    for project, kind in who:
                        if kind == "zotero" and not p.name.startswith("zotero.sqlite"):
                            continue
                        with self._lock:
                            self._pending.setdefault(project, set()).add(kind)
                            self._since[project] = now

    def _dispatch(self) -> None:
        """Start the due jobs once a project's changes have settled."""
        while not self.stop_event.wait(0.5):
            with self._lock:
                # Every write to a file being copied is an event: quiet for SETTLE_S
                # means the copy is complete.
                due = [name for name, t in self._since.items()
                       if time.monotonic() - t >= SETTLE_S]
                work = {name: self._pending.pop(name, set()) for name in due}
                for name in due:
                    self._since.pop(name, None)
            for name, kinds in work.items():
                self._start(name, kinds)

    def _start(self, project: str, kinds: set[str]) -> None:
        cfg = self.settings.projects[project]
        jobs = self.daemon.jobs
        queued = [j for j in jobs.active() if j.project == project and j.state == "queued"
                  and j.source.startswith("watch:")]
        if queued:  # a queued watch job will see these changes too
            return
        try:
            if "files" in kinds and cfg.sources:
                jobs.start(project, "watch:files", "ingest",
                           {"paths": [str(s) for s in cfg.sources], "prune": True,
                            "started_by": "watch"})
            if "zotero" in kinds:
                for sync in cfg.zotero_syncs():
                    self.daemon.app.reload_zotero()
                    jobs.start(project, f"watch:zotero:{sync['collection'] or 'library'}",
                               "zotero", {**sync, "started_by": "watch"})
        except Exception:  # noqa: BLE001 - the next change retries
            log.warning("a watch job for %s did not start", project, exc_info=True)
