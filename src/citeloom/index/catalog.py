"""The per-project catalog: which documents are indexed, from which file, at which content.

A small SQLite file beside the project's index. A row is written only after the
document's chunks are durably in the index, so after a crash a document is either complete
(row present, chunk count matching) or re-done on the next run. It makes a no-op re-ingest
cheap (a ``stat`` per file, no hashing, no models), and lets ``inspect`` list stale and
missing documents.

Faults: a file that is not a readable SQLite database raises ``CATALOG_DAMAGED`` (``citeloom
repair`` rebuilds it from the index payloads); a write that finds the disk full raises
``DISK_FULL``; on a full disk, where SQLite cannot make its WAL index, the catalog opens
read-only, so ``inspect`` keeps working.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from urllib.parse import quote

from citeloom.errors import CatalogDamaged, DiskFull, as_error, out_of_space, repair_hint

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
    ingested_at REAL NOT NULL,
    health TEXT
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
    health: str | None = None  # JSON of health.DocHealth; None: ingested before the ledger


_DAMAGED = ("SQLITE_NOTADB", "SQLITE_CORRUPT")  # SQLite's names for "this is not my file"


class Catalog:
    def __init__(self, path: Path, project: str | None = None) -> None:
        self.path = path
        self.project = project or path.parent.name
        self.readonly = False  # opened read-only because the disk is full
        with self._errors():
            path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = self._connect()
        except sqlite3.DatabaseError as exc:
            if _name(exc).startswith(_DAMAGED):
                raise self._damaged(exc) from None
            if not (out_of_space(exc) or _name(exc).startswith("SQLITE_IOERR")):
                raise as_error(exc, path) from None
            self._db = self._connect_readonly(exc)  # a full disk: SQLite cannot make its WAL
            self.readonly = True
        self._db.row_factory = sqlite3.Row

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.executescript(SCHEMA)
            columns = {r[1] for r in db.execute("PRAGMA table_info(documents)")}
            if "health" not in columns:  # a catalog made before the health ledger
                db.execute("ALTER TABLE documents ADD COLUMN health TEXT")
        except BaseException:
            db.close()
            raise
        return db

    def _connect_readonly(self, why: Exception) -> sqlite3.Connection:
        """Read-only, for reads on a full disk; immutable (no WAL index at all) when even
        that needs space. A catalog that does not exist yet has nothing to read: DISK_FULL."""
        if not self.path.is_file():
            raise as_error(why, self.path) if out_of_space(why) else DiskFull(
                f"cannot create {self.path} ({why})")
        uri = "file:" + quote(str(self.path.resolve()))
        for flags in ("?mode=ro", "?mode=ro&immutable=1"):
            db = sqlite3.connect(uri + flags, uri=True, check_same_thread=False,
                                 isolation_level=None)
            try:
                db.execute("SELECT count(*) FROM documents").fetchone()
                return db
            except sqlite3.DatabaseError as exc:
                db.close()
                if _name(exc).startswith(_DAMAGED):
                    raise self._damaged(exc) from None
        raise as_error(why, self.path)

    def _damaged(self, exc: Exception) -> CatalogDamaged:
        return CatalogDamaged(f"the catalog of project {self.project!r} ({self.path}) is "
                              f"unreadable: {exc}",
                              repair_hint(self.project) + " (the catalog is rebuilt from "
                              "the index)")

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """SQLite's and the OS's errors as CiteLoom's: damaged, disk full, else a bug."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            if _name(exc).startswith(_DAMAGED):
                raise self._damaged(exc) from None
            raise as_error(exc, self.path) from None
        except OSError as exc:
            raise as_error(exc, self.path) from None

    def _write(self, sql: str, args: list[object] | tuple[object, ...]) -> None:
        if self.readonly:  # opened on a full disk: writable again once there is room
            try:
                db = self._connect()
            except sqlite3.DatabaseError:
                raise DiskFull(f"the filesystem of {self.path} is full: the catalog is open "
                               "read-only, nothing can be written") from None
            self._db.close()
            self._db, self.readonly = db, False
            self._db.row_factory = sqlite3.Row
        with self._errors():
            self._db.execute(sql, args)

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
        with self._errors():
            return [DocRecord(**dict(r)) for r in self._db.execute(sql, args)]

    def _value(self, sql: str) -> int:
        with self._errors():
            return int(self._db.execute(sql).fetchone()[0])

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
        self._write(f"INSERT OR REPLACE INTO documents ({', '.join(cols)}) "
                    f"VALUES ({', '.join('?' for _ in cols)})",
                    [getattr(rec, c) for c in cols])

    def delete(self, doc_id: str) -> None:
        self._write("DELETE FROM documents WHERE doc_id = ?", (doc_id,))

    def total_chunks(self) -> int:
        return self._value("SELECT coalesce(sum(chunks), 0) FROM documents")

    def check(self) -> str:
        """SQLite's own integrity check: "ok", or what it found."""
        with self._errors():
            rows = [r[0] for r in self._db.execute("PRAGMA quick_check")]
        return "ok" if rows == ["ok"] else "; ".join(rows[:3])

    def __len__(self) -> int:
        return self._value("SELECT count(*) FROM documents")


def catalogued(doc_id: str, content_hash: str | None) -> bool:
    """Whether a document with this id and content hash belongs in the catalog: a file's
    (its id is the first 32 hex of its sha256); plain texts have no row."""
    h = content_hash or ""
    return len(h) == 64 and h[:32] == doc_id


def _name(exc: BaseException) -> str:
    """SQLite's error name (SQLITE_NOTADB, SQLITE_FULL, ...), or ""."""
    return str(getattr(exc, "sqlite_errorname", "") or "")
