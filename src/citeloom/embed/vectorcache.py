"""The vector cache: each passage's dense vector kept by model and text, so that text the
model has read before (the unchanged passages of a re-ingested file, a reindex that keeps
the model, the same paper in a second project, an ingest run again after it was stopped) is
not embedded again.

Exact, not approximate: a passage is embedded alone (``encoders.DenseEmbedder.embed``), so
its vector depends on its text and the model only. The file's name carries the model's
folder and a fingerprint of its graph, so a re-provisioned model starts a cache of its own.

One SQLite file per model under ``<cache>/vectors``; several processes read and write it at
once (WAL). The cache only saves time: when it cannot be read or written (damaged, locked
past its timeout, disk full) the passages are embedded as if it were empty, the ingest goes
on, and the log says which file to delete.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import sqlite3
import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)
_BATCH = 500  # keys per SELECT (SQLite's bound-parameter limit is 999 on old builds)


def fingerprint(model_file: Path) -> str:
    """The model graph's identity: its sha256 from the provisioning manifest beside the
    models, else its size and modification time."""
    manifest = model_file.parents[2] / "manifest.json"
    try:
        for art in json.loads(manifest.read_text(encoding="utf-8"))["artifacts"]:
            if Path(art["path"]).name == model_file.name and \
                    Path(art["path"]).parent.name == model_file.parent.name:
                return str(art["sha256"])[:12]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    st = model_file.stat()
    return hashlib.sha256(f"{st.st_size}:{st.st_mtime_ns}".encode()).hexdigest()[:12]


class VectorCache:
    """Vectors of one model, by the sha256 of their text."""

    def __init__(self, folder: Path, model_file: Path, dim: int) -> None:
        self.path = folder / f"{model_file.parent.name}-{fingerprint(model_file)}.sqlite"
        self.dim = dim
        self._db: sqlite3.Connection | None = None
        self._broken = False
        self._lock = threading.Lock()

    def _connect(self) -> sqlite3.Connection | None:
        if self._db is None and not self._broken:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(self.path, timeout=30, check_same_thread=False,
                                     isolation_level=None)
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("CREATE TABLE IF NOT EXISTS vectors "
                           "(key BLOB PRIMARY KEY, vec BLOB NOT NULL) WITHOUT ROWID")
                self._db = db
            except (OSError, sqlite3.Error) as exc:
                self._give_up(exc)
        return self._db

    def _give_up(self, exc: BaseException) -> None:
        """Embed without the cache from now on in this process, and say so once."""
        self._broken = True
        if self._db is not None:
            self._db.close()
            self._db = None
        log.warning("vector cache %s unusable (%s: %s); embedding without it. If it is "
                    "damaged, delete it: it only saves time", self.path,
                    type(exc).__name__, exc)

    def get(self, texts: list[str]) -> list[np.ndarray | None]:
        """Each text's cached vector, or None."""
        import numpy as np

        keys = [_key(t) for t in texts]
        found: dict[bytes, np.ndarray] = {}
        with self._lock:
            db = self._connect()
            if db is None:
                return [None] * len(texts)
            try:
                for i in range(0, len(keys), _BATCH):
                    part = keys[i:i + _BATCH]
                    rows = db.execute("SELECT key, vec FROM vectors WHERE key IN "
                                      f"({','.join('?' * len(part))})", part).fetchall()
                    for key, blob in rows:
                        if len(blob) == 4 * self.dim:
                            found[key] = np.frombuffer(blob, dtype=np.float32)
            except sqlite3.Error as exc:
                self._give_up(exc)
                return [None] * len(texts)
        return [found.get(k) for k in keys]

    def put(self, texts: list[str], vectors: np.ndarray) -> None:
        """Keep these texts' vectors (one transaction)."""
        import numpy as np

        rows = [(_key(t), np.asarray(v, dtype=np.float32).tobytes())
                for t, v in zip(texts, vectors, strict=True)]
        with self._lock:
            db = self._connect()
            if db is None or not rows:
                return
            try:
                db.execute("BEGIN IMMEDIATE")
                db.executemany("INSERT OR REPLACE INTO vectors (key, vec) VALUES (?, ?)", rows)
                db.execute("COMMIT")
            except sqlite3.Error as exc:
                with contextlib.suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
                self._give_up(exc)


def _key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()
