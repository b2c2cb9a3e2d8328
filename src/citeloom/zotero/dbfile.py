"""Reading a SQLite file of Zotero's or Better BibTeX's safely, never writing it.

Zotero keeps an exclusive lock on its database while it runs, so a normal read-only
open fails; ``immutable=1`` tells SQLite the file cannot change, which skips locking.
That is only safe when no transaction is half-written: if a hot rollback journal (or a
non-empty WAL) lies next to the database, the file may hold uncommitted pages, so we
copy database + journal to a temporary folder and let SQLite recover the *copy*.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from citeloom.errors import ZoteroUnavailable

T = TypeVar("T")

# First bytes of a rollback journal whose transaction never committed.
_JOURNAL_MAGIC = bytes.fromhex("d9d505f920a163d7")


def needs_recovery(db: Path) -> bool:
    """True when ``db`` has a hot journal or a non-empty WAL that ``immutable=1`` would ignore."""
    journal = db.with_name(db.name + "-journal")
    try:
        with journal.open("rb") as fh:
            if fh.read(8) == _JOURNAL_MAGIC:
                return True
    except OSError:
        pass
    wal = db.with_name(db.name + "-wal")
    return wal.is_file() and wal.stat().st_size > 0


def read_database(db: Path, read: Callable[[sqlite3.Connection], T]) -> T:
    """Run ``read`` on a read-only view of ``db`` (see the module docstring for how)."""
    if not db.is_file():
        raise ZoteroUnavailable(f"no SQLite database at {db}",
                                "set ZOTERO_DATA_DIR to the folder holding zotero.sqlite "
                                "(Zotero: Settings → Advanced → Files and Folders)")
    if not needs_recovery(db):
        try:
            conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
            try:
                return read(conn)
            finally:
                conn.close()
        except sqlite3.DatabaseError:
            pass  # e.g. a page Zotero was writing as we read: retry on a recovered copy
    with tempfile.TemporaryDirectory(prefix="citeloom-zotero-") as tmp:
        copy = Path(tmp) / db.name
        for suffix in ("", "-journal", "-wal"):
            src = db.with_name(db.name + suffix)
            if src.is_file():
                shutil.copyfile(src, copy.with_name(copy.name + suffix))
        try:
            # A writable connection on the copy, so SQLite rolls the journal back there.
            conn = sqlite3.connect(copy)
            try:
                return read(conn)
            finally:
                conn.close()
        except sqlite3.DatabaseError as exc:
            raise ZoteroUnavailable(f"cannot read {db}: {exc}",
                                    "close Zotero and retry; if it persists, check the "
                                    "file with Zotero's Check Database Integrity") from None


def table(conn: sqlite3.Connection, *names: str) -> str:
    """The first of ``names`` that exists (Zotero 5.0.x lacks the *Combined tables)."""
    have = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    for n in names:
        if n in have:
            return n
    return ""
