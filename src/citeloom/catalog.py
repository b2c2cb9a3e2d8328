"""The per-project catalog: which documents are indexed, from which file, at which content.

A small SQLite file beside the project's index. A row is written only after the
document's chunks are durably in the index, so after a crash a document is either complete
(row present, chunk count matching) or re-done on the next run. It makes a no-op re-ingest
cheap (a ``stat`` per file, no hashing, no models), and lets ``inspect`` list stale and
missing documents.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import asdict, dataclass
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    doc_id TEXT PRIMARY KEY,
    source_path TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    chunks INTEGER NOT NULL,
    pages INTEGER NOT NULL,
    title TEXT NOT NULL DEFAULT '',
    zotero_key TEXT,
    zotero_version INTEGER,
    ingested_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS documents_source ON documents(source_path);
CREATE INDEX IF NOT EXISTS documents_zotero ON documents(zotero_key);
"""


# Rows that stand for a Zotero annotation or note rather than a file
# (``zotero-annotation:<library>/<key>``, see sources/annotations.py).
ZOTERO_TEXT_PREFIXES = ("zotero-annotation:", "zotero-note:")


def is_file_source(source_path: str) -> bool:
    """Whether a catalog row's ``source_path`` names a file (not an annotation or note)."""
    return not source_path.startswith(ZOTERO_TEXT_PREFIXES)


@dataclass
class DocRecord:
    doc_id: str
    source_path: str
    content_hash: str
    size: int
    mtime_ns: int
    chunks: int
    pages: int
    title: str = ""
    zotero_key: str | None = None
    zotero_version: int | None = None
    ingested_at: float = 0.0


class Catalog:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(SCHEMA)
        self._db.row_factory = sqlite3.Row

    def close(self) -> None:
        self._db.close()

    def backup(self, dest: Path) -> None:
        """A consistent copy in one file at ``dest`` (SQLite's online backup, through a
        connection of its own; the copy keeps no WAL beside it)."""
        src, dst = sqlite3.connect(self.path), sqlite3.connect(dest)
        try:
            src.backup(dst)
            dst.execute("PRAGMA journal_mode=DELETE")
        finally:
            dst.close()
            src.close()

    def _rows(self, sql: str, *args: object) -> list[DocRecord]:
        return [DocRecord(**dict(r)) for r in self._db.execute(sql, args)]

    def get(self, doc_id: str) -> DocRecord | None:
        rows = self._rows("SELECT * FROM documents WHERE doc_id = ?", doc_id)
        return rows[0] if rows else None

    def by_source(self, source_path: str) -> list[DocRecord]:
        return self._rows("SELECT * FROM documents WHERE source_path = ? ORDER BY ingested_at",
                          source_path)

    def by_zotero_key(self, zotero_key: str) -> list[DocRecord]:
        return self._rows("SELECT * FROM documents WHERE zotero_key = ?", zotero_key)

    def all(self) -> list[DocRecord]:
        return self._rows("SELECT * FROM documents ORDER BY source_path")

    def put(self, rec: DocRecord) -> None:
        rec.ingested_at = rec.ingested_at or time.time()
        cols = list(asdict(rec))
        self._db.execute(
            f"INSERT OR REPLACE INTO documents ({', '.join(cols)}) "
            f"VALUES ({', '.join('?' for _ in cols)})",
            [getattr(rec, c) for c in cols])

    def delete(self, doc_id: str) -> None:
        self._db.execute("DELETE FROM documents WHERE doc_id = ?", (doc_id,))

    def total_chunks(self) -> int:
        return int(self._db.execute("SELECT coalesce(sum(chunks), 0) FROM documents")
                   .fetchone()[0])

    def __len__(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM documents").fetchone()[0])
