"""Read Zotero's own database (``zotero.sqlite``) and Better BibTeX's, never writing either.

Zotero keeps an exclusive lock on its database while it runs, so a normal read-only
open fails; ``immutable=1`` tells SQLite the file cannot change, which skips locking.
That is only safe when no transaction is half-written: if a hot rollback journal (or a
non-empty WAL) lies next to the database, the file may hold uncommitted pages, so we
copy database + journal to a temporary folder and let SQLite recover the *copy*.
"""

from __future__ import annotations

import os
import sqlite3
import sys
from collections import defaultdict
from pathlib import Path

from citeloom.errors import SourceNotFound
from citeloom.zotero.annotations import Annotation, read_annotations
from citeloom.zotero.base import (
    NON_REGULAR_TYPES,
    Attachment,
    Collection,
    Creator,
    LinkMode,
    ZoteroItem,
    ZoteroReader,
    is_standalone_pdf,
    make_item,
    standalone_item,
)
from citeloom.zotero.bbt import BetterBibTeX, resolve_citekeys
from citeloom.zotero.dbfile import read_database
from citeloom.zotero.dbfile import table as _table

_LINK_MODES: dict[int, LinkMode] = {0: "imported_file", 1: "imported_url",
                                    2: "linked_file", 3: "linked_url"}


def default_data_dir() -> Path:
    """Zotero's default data directory: ``~/Zotero`` (``%USERPROFILE%\\Zotero`` on Windows)."""
    if sys.platform == "win32" and os.environ.get("USERPROFILE"):
        return Path(os.environ["USERPROFILE"]) / "Zotero"
    return Path.home() / "Zotero"


def _split_date(value: str) -> tuple[str, int | None]:
    """Zotero stores dates as ``"YYYY-MM-DD original"``: the original text and the year."""
    if len(value) >= 11 and value[4] == "-" and value[7] == "-" and value[10] == " ":
        year = int(value[:4]) if value[:4].isdigit() and value[:4] != "0000" else None
        return value[11:], year
    return value, None


class SqliteReader(ZoteroReader):
    """Reads ``<data_dir>/zotero.sqlite``, attachments under ``<data_dir>/storage``.

    ``attachments_base_dir`` is Zotero's "Linked Attachment Base Directory" (it lives in
    Zotero's prefs, not the database), needed for ``attachments:<relative>`` paths.
    Feed items (RSS, library type "feed") are not the user's library and are skipped
    unless ``include_feeds``. The whole library is read once and kept in memory.
    """

    def __init__(
        self,
        data_dir: Path | None = None,
        *,
        attachments_base_dir: Path | None = None,
        bbt: BetterBibTeX | None = None,
        bbt_db: Path | None = None,
        include_feeds: bool = False,
    ) -> None:
        self.data_dir = Path(data_dir) if data_dir else default_data_dir()
        self.db_path = self.data_dir / "zotero.sqlite"
        self.attachments_base_dir = attachments_base_dir
        self.bbt = bbt
        self.bbt_db = bbt_db if bbt_db is not None else self.data_dir / "better-bibtex.sqlite"
        self.include_feeds = include_feeds
        self._cache: tuple[list[Collection], list[ZoteroItem]] | None = None
        self._annotations: list[Annotation] | None = None

    def collections(self) -> list[Collection]:
        return list(self._load()[0])

    def _load_items(self, collection_keys: set[str] | None) -> list[ZoteroItem]:
        return self._load()[1]

    def refresh(self) -> None:
        """Forget what was read; the next call reads the database again."""
        self._cache = None
        self._annotations = None

    reads_annotations = True

    def annotations(self) -> list[Annotation]:
        if self._annotations is None:
            self._annotations = read_database(
                self.db_path, lambda conn: read_annotations(
                    conn, include_feeds=self.include_feeds))
        return list(self._annotations)

    def _load(self) -> tuple[list[Collection], list[ZoteroItem]]:
        if self._cache is None:
            cols, items = read_database(self.db_path, self._read)
            bbt_db = self.bbt_db if self.bbt_db and self.bbt_db.is_file() else None
            resolve_citekeys(items, bbt=self.bbt, bbt_db=bbt_db)
            self._cache = (cols, items)
        return self._cache

    def _read(self, conn: sqlite3.Connection) -> tuple[list[Collection], list[ZoteroItem]]:
        types_t = _table(conn, "itemTypesCombined", "itemTypes")
        fields_t = _table(conn, "fieldsCombined", "fields")
        base_t = _table(conn, "baseFieldMappingsCombined", "baseFieldMappings")
        deleted = "SELECT itemID FROM deletedItems"

        libraries = dict(conn.execute("SELECT libraryID, type FROM libraries"))
        group_ids = (dict(conn.execute("SELECT libraryID, groupID FROM groups"))
                     if _table(conn, "groups") else {})
        skip_libs = set() if self.include_feeds else {k for k, v in libraries.items()
                                                      if v == "feed"}
        rows = conn.execute(
            f"SELECT i.itemID, i.key, i.libraryID, i.version, t.typeName, i.itemTypeID "
            f"FROM items i JOIN {types_t} t ON t.itemTypeID = i.itemTypeID "
            f"WHERE i.itemID NOT IN ({deleted})").fetchall()
        key_of = {r[0]: r[1] for r in rows}

        # Every field of every item, with its base field name too: Zotero stores a
        # type-specific field (caseName, dateDecided…) where other types have title/date.
        fields: dict[int, dict[str, str]] = defaultdict(dict)
        base_join = (f"LEFT JOIN {base_t} m ON m.itemTypeID = i.itemTypeID "
                     f"AND m.fieldID = d.fieldID LEFT JOIN {fields_t} bf "
                     f"ON bf.fieldID = m.baseFieldID") if base_t else ""
        base_col = "bf.fieldName" if base_t else "NULL"
        years: dict[int, int | None] = {}
        for item_id, name, base, value in conn.execute(
                f"SELECT d.itemID, f.fieldName, {base_col}, v.value FROM itemData d "
                f"JOIN items i ON i.itemID = d.itemID "
                f"JOIN {fields_t} f ON f.fieldID = d.fieldID "
                f"JOIN itemDataValues v ON v.valueID = d.valueID {base_join}"):
            value = "" if value is None else str(value)
            if (base or name) == "date":
                value, years[item_id] = _split_date(value)
            fields[item_id][name] = value
            if base and base not in fields[item_id]:
                fields[item_id][base] = value

        creators: dict[int, list[Creator]] = defaultdict(list)
        for item_id, first, last, mode, ctype in conn.execute(
                "SELECT ic.itemID, c.firstName, c.lastName, c.fieldMode, ct.creatorType "
                "FROM itemCreators ic JOIN creators c ON c.creatorID = ic.creatorID "
                "JOIN creatorTypes ct ON ct.creatorTypeID = ic.creatorTypeID "
                "ORDER BY ic.itemID, ic.orderIndex"):
            if mode == 1:  # single-field name, kept in lastName
                creators[item_id].append(Creator(name=(last or "").strip(), creator_type=ctype))
            else:
                creators[item_id].append(Creator(first=(first or "").strip(),
                                                 last=(last or "").strip(), creator_type=ctype))

        tags: dict[int, list[str]] = defaultdict(list)
        for item_id, name in conn.execute(
                "SELECT it.itemID, t.name FROM itemTags it JOIN tags t ON t.tagID = it.tagID"):
            tags[item_id].append(name)

        deleted_cols = ("WHERE collectionID NOT IN (SELECT collectionID FROM deletedCollections)"
                        if _table(conn, "deletedCollections") else "")
        col_rows = conn.execute(
            "SELECT collectionID, key, collectionName, parentCollectionID, libraryID "
            f"FROM collections {deleted_cols}").fetchall()
        col_key = {r[0]: r[1] for r in col_rows}
        cols = [Collection(key=r[1], name=r[2], parent_key=col_key.get(r[3]), library_id=r[4])
                for r in col_rows if r[4] not in skip_libs]
        col_name = {r[1]: r[2] for r in col_rows}
        in_cols: dict[int, list[str]] = defaultdict(list)
        for col_id, item_id in conn.execute(
                "SELECT collectionID, itemID FROM collectionItems ORDER BY orderIndex"):
            if col_id in col_key:
                in_cols[item_id].append(col_key[col_id])

        atts: dict[int, list[Attachment]] = defaultdict(list)
        standalone: dict[int, Attachment] = {}
        for item_id, parent_id, mode, ctype, path, mtime, md5 in conn.execute(
                "SELECT itemID, parentItemID, linkMode, contentType, path, storageModTime, "
                f"storageHash FROM itemAttachments WHERE itemID NOT IN ({deleted})"):
            if item_id not in key_of:
                continue
            att = self._attachment(key_of[item_id], key_of.get(parent_id), mode, ctype, path,
                                   mtime, md5, fields.get(item_id, {}))
            if parent_id is None:
                if is_standalone_pdf(att):
                    standalone[item_id] = att
            else:
                atts[parent_id].append(att)

        items: list[ZoteroItem] = []
        for item_id, key, lib_id, version, type_name, _ in rows:
            if lib_id in skip_libs or (type_name in NON_REGULAR_TYPES
                                       and item_id not in standalone):
                continue
            common = dict(tags=tags.get(item_id, ()), collection_keys=in_cols.get(item_id, ()),
                          collections=[col_name[k] for k in in_cols.get(item_id, ())],
                          version=version, library_id=lib_id,
                          library_type=libraries.get(lib_id, "user"),
                          group_id=group_ids.get(lib_id), item_id=item_id)
            if item_id in standalone:
                items.append(standalone_item(standalone[item_id], fields.get(item_id, {}),
                                             **common))
                continue
            items.append(make_item(
                key, type_name, fields.get(item_id, {}), creators=creators.get(item_id, ()),
                attachments=atts.get(item_id, ()), year=years.get(item_id), **common))
        return cols, items

    def _attachment(self, key: str, parent_key: str | None, mode: int | None,
                    ctype: str | None, raw_path: str | None, mtime: int | None,
                    md5: str | None, fields: dict[str, str]) -> Attachment:
        link_mode = _LINK_MODES.get(mode if mode is not None else 0, "imported_file")
        path: Path | None = None
        filename = ""
        if raw_path and raw_path.startswith("storage:"):
            filename = raw_path[len("storage:"):]
            path = self.data_dir / "storage" / key / filename
        elif raw_path and raw_path.startswith("attachments:"):
            rel = raw_path[len("attachments:"):]
            filename = Path(rel).name
            if self.attachments_base_dir is not None:
                path = Path(self.attachments_base_dir) / rel
        elif raw_path and link_mode == "linked_file":
            path = Path(raw_path)
            filename = path.name
        return Attachment(
            key=key, parent_key=parent_key, content_type=ctype or "", link_mode=link_mode,
            filename=filename, path=path, exists=bool(path and path.is_file()),
            md5=md5 or None, mtime=mtime, title=fields.get("title", ""),
            url=fields.get("url") or None)

    def fetch_attachment(self, att: Attachment, dest_dir: Path) -> Path:
        """Stored and linked files are used where they are; nothing is copied."""
        if att.path is not None and att.path.is_file():
            return att.path
        if att.link_mode == "linked_url":
            raise SourceNotFound(f"attachment {att.key} links to {att.url}, not a file",
                                 "download the page into Zotero to index it")
        if att.path is None:
            raise SourceNotFound(f"attachment {att.key} ({att.filename}) has no resolvable "
                                 "path", "set the linked attachment base directory "
                                 "(Zotero: Settings → Advanced → Files and Folders)")
        raise SourceNotFound(f"attachment file missing: {att.path}",
                             "let Zotero sync/download the file, or relink it in Zotero")
