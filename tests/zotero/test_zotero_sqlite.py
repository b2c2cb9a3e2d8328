"""SqliteReader against two real zotero.sqlite libraries, checked against direct SQL.

Real material: ../shared/zotero/sqlite (see its README). Tests that need collections,
deleted items, linked files or a hot journal change a *copy* in tmp_path.
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest

from citeloom.errors import InvalidInput, SourceNotFound
from citeloom.zotero import SqliteReader, read_bbt_citekeys, resolve_citekeys
from citeloom.zotero.dbfile import needs_recovery, read_database

ZOTERO = Path(__file__).resolve().parents[2].parent / "shared" / "zotero"
TESTPROFILE = ZOTERO / "sqlite" / "bbt-testprofile-native-citationKey"
ARREME = ZOTERO / "sqlite" / "arreme-ProgrammingAndMathsZoteroResources"

REGULAR = ("SELECT i.itemID, i.key, i.libraryID FROM items i JOIN itemTypes t "
           "ON t.itemTypeID = i.itemTypeID WHERE t.typeName NOT IN "
           "('attachment', 'note', 'annotation') AND i.itemID NOT IN "
           "(SELECT itemID FROM deletedItems)")


def sql(data_dir: Path, query: str, *args: object) -> list[tuple]:
    """Direct SQL on the real file, independent of the reader's code."""
    db = (data_dir / "zotero.sqlite").resolve()
    conn = sqlite3.connect(f"{db.as_uri()}?mode=ro&immutable=1", uri=True)
    try:
        return conn.execute(query, args).fetchall()
    finally:
        conn.close()


def field_value(data_dir: Path, item_id: int, name: str) -> str | None:
    rows = sql(data_dir, "SELECT v.value FROM itemData d JOIN fields f USING(fieldID) "
                         "JOIN itemDataValues v USING(valueID) WHERE d.itemID = ? "
                         "AND f.fieldName = ?", item_id, name)
    return rows[0][0] if rows else None


def expected_creators(data_dir: Path, item_id: int) -> list[str]:
    rows = sql(data_dir, "SELECT c.firstName, c.lastName, c.fieldMode FROM itemCreators ic "
                         "JOIN creators c USING(creatorID) WHERE ic.itemID = ? "
                         "ORDER BY ic.orderIndex", item_id)
    # "Last, First"; a lone part stands alone; single-field names (fieldMode 1) as stored.
    return [last if mode == 1 else (f"{last}, {first}" if first and last else last or first)
            for first, last, mode in rows]


def expected_tags(data_dir: Path, item_id: int) -> set[str]:
    return {r[0] for r in sql(data_dir, "SELECT t.name FROM itemTags it JOIN tags t "
                                        "USING(tagID) WHERE it.itemID = ?", item_id)}


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def writable_copy(src: Path, dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    for f in src.iterdir():
        if f.is_file():
            shutil.copyfile(f, dest / f.name)
    return dest


def check_against_sql(data_dir: Path, reader: SqliteReader, expected_ids: list[int]) -> None:
    items = {it.item_id: it for it in reader.items()}
    assert sorted(items) == sorted(expected_ids)
    for item_id, it in items.items():
        title = field_value(data_dir, item_id, "title")
        assert title and it.title == title
        assert [c.display for c in it.creators] == expected_creators(data_dir, item_id)
        date = field_value(data_dir, item_id, "date")
        assert it.year == (int(date[:4]) if date and date[:4] != "0000" else None)
        assert set(it.tags) == expected_tags(data_dir, item_id)
    # Totals too, so an empty reader could not pass by comparing empty to empty.
    marks = ",".join("?" * len(expected_ids))
    n_creators = sql(data_dir, f"SELECT count(*) FROM itemCreators WHERE itemID IN ({marks})",
                     *expected_ids)[0][0]
    n_tags = sql(data_dir, f"SELECT count(*) FROM itemTags WHERE itemID IN ({marks})",
                 *expected_ids)[0][0]
    assert sum(len(it.creators) for it in items.values()) == n_creators > 0
    assert sum(len(it.tags) for it in items.values()) == n_tags
    assert sum(1 for it in items.values() if it.year) > len(items) // 2


# --- a) every regular item, with title, creators, year, tags --------------------------


def test_testprofile_every_regular_item_matches_sql() -> None:
    rows = sql(TESTPROFILE, REGULAR)
    assert len(rows) == 54  # the README's count, straight from SQL
    feed_libs = {r[0] for r in sql(TESTPROFILE, "SELECT libraryID FROM libraries "
                                                "WHERE type = 'feed'")}
    in_library = [r[0] for r in rows if r[2] not in feed_libs]
    assert len(in_library) == 49 and len(rows) - len(in_library) == 5

    # Default: feed (RSS) items are not the user's library.
    check_against_sql(TESTPROFILE, SqliteReader(TESTPROFILE), in_library)
    # On request, all 54 regular items.
    check_against_sql(TESTPROFILE, SqliteReader(TESTPROFILE, include_feeds=True),
                      [r[0] for r in rows])


def test_testprofile_has_native_citekeys_for_49_items() -> None:
    expected = dict(sql(TESTPROFILE, "SELECT i.key, v.value FROM itemData d JOIN fields f "
                                     "USING(fieldID) JOIN itemDataValues v USING(valueID) "
                                     "JOIN items i USING(itemID) "
                                     "WHERE f.fieldName = 'citationKey'"))
    assert len(expected) == 49
    items = list(SqliteReader(TESTPROFILE, include_feeds=True).items())
    keyed = {it.key: it.citekey for it in items if it.citekey}
    assert keyed == expected
    assert {it.citekey_source for it in items if it.citekey} == {"native"}
    assert sum(1 for it in items if it.citekey is None) == 5  # the feed items


def test_arreme_204_items_with_citekeys_from_better_bibtex_sqlite() -> None:
    rows = sql(ARREME, REGULAR)
    assert len(rows) == 204
    reader = SqliteReader(ARREME)
    check_against_sql(ARREME, reader, [r[0] for r in rows])

    bbt = sqlite3.connect(f"{(ARREME / 'better-bibtex.sqlite').resolve().as_uri()}"
                          "?mode=ro&immutable=1", uri=True)
    expected = dict(bbt.execute("SELECT itemKey, citationKey FROM citationkey"))
    bbt.close()
    items = list(reader.items())
    assert {it.key: it.citekey for it in items} == expected
    assert len(expected) == 204 and all(it.citekey_source == "bbt-db" for it in items)
    assert len({t for it in items for t in it.tags}) == 45


def test_arreme_journal_is_not_hot_and_nothing_is_written() -> None:
    db, journal = ARREME / "zotero.sqlite", ARREME / "zotero.sqlite-journal"
    before = (digest(db), digest(journal))
    assert journal.stat().st_size > 0
    assert not needs_recovery(db)  # zeroed header: a committed (persisted) journal
    assert len(list(SqliteReader(ARREME).items())) == 204
    assert (digest(db), digest(journal)) == before


def test_hot_journal_is_rolled_back_on_a_copy_never_on_the_original(tmp_path: Path) -> None:
    live = writable_copy(TESTPROFILE, tmp_path / "live")
    snap = tmp_path / "snapshot"
    snap.mkdir()
    # Freeze a database mid-transaction: uncommitted pages spilled into the file, with a
    # hot journal beside it (what a Zotero crash, or a copy taken mid-write, leaves).
    conn = sqlite3.connect(live / "zotero.sqlite", isolation_level=None)
    conn.execute("PRAGMA journal_mode=DELETE")
    conn.execute("PRAGMA cache_size=2")
    conn.execute("BEGIN")
    conn.execute("UPDATE itemDataValues SET value = value || ' UNCOMMITTED'")
    for name in ("zotero.sqlite", "zotero.sqlite-journal"):
        shutil.copyfile(live / name, snap / name)
    conn.execute("ROLLBACK")
    conn.close()

    assert needs_recovery(snap / "zotero.sqlite")
    # What immutable=1 alone would have read: uncommitted text.
    raw = sqlite3.connect(f"{(snap / 'zotero.sqlite').as_uri()}?mode=ro&immutable=1", uri=True)
    assert raw.execute("SELECT count(*) FROM itemDataValues "
                       "WHERE value LIKE '% UNCOMMITTED'").fetchone()[0] > 0
    raw.close()

    before = {p.name: digest(p) for p in snap.iterdir()}
    items = list(SqliteReader(snap).items())
    assert len(items) == 49
    assert not any("UNCOMMITTED" in it.title for it in items)
    assert {it.key: it.title for it in items} == {
        it.key: it.title for it in SqliteReader(TESTPROFILE).items()}
    assert {p.name: digest(p) for p in snap.iterdir()} == before  # recovered a copy only


def test_read_database_refuses_a_missing_file(tmp_path: Path) -> None:
    from citeloom.errors import ZoteroUnavailable

    with pytest.raises(ZoteroUnavailable) as err:
        read_database(tmp_path / "zotero.sqlite", lambda c: None)
    assert "ZOTERO_DATA_DIR" in err.value.hint


# --- attachments -----------------------------------------------------------------------


def test_testprofile_pdf_resolves_to_storage_and_is_reported_missing(tmp_path: Path) -> None:
    (att_row,) = sql(TESTPROFILE, "SELECT i.key, a.path, p.key FROM itemAttachments a "
                                  "JOIN items i ON i.itemID = a.itemID "
                                  "JOIN items p ON p.itemID = a.parentItemID")
    att_key, raw_path, parent_key = att_row
    reader = SqliteReader(TESTPROFILE)
    (parent,) = [it for it in reader.items() if it.key == parent_key]
    (att,) = parent.attachments
    filename = raw_path.removeprefix("storage:")
    assert att.key == att_key and att.link_mode == "imported_file" and att.is_pdf
    assert att.path == TESTPROFILE / "storage" / att_key / filename
    assert att.exists is False
    with pytest.raises(SourceNotFound):
        reader.fetch_attachment(att, tmp_path)

    # The same library with the file in place: found, and used where it is.
    copy = writable_copy(TESTPROFILE, tmp_path / "withfile")
    stored = copy / "storage" / att_key / filename
    stored.parent.mkdir(parents=True)
    stored.write_bytes(b"%PDF-1.4 stub")
    (parent,) = [it for it in SqliteReader(copy).items() if it.key == parent_key]
    assert parent.attachments[0].exists
    assert SqliteReader(copy).fetch_attachment(parent.attachments[0], tmp_path) == stored


# --- collections, sub-collections, deleted items, linked files ------------------------


@pytest.fixture
def edited_library(tmp_path: Path) -> Path:
    """The test profile plus collections Top/Middle/Leaf, a second "Leaf", a deleted item
    and two linked-file attachments (absolute and base-relative)."""
    lib = writable_copy(TESTPROFILE, tmp_path / "lib")
    conn = sqlite3.connect(lib / "zotero.sqlite")
    ids = [r[0] for r in conn.execute(
        "SELECT i.itemID FROM items i JOIN itemTypes t USING(itemTypeID) WHERE "
        "t.typeName IN ('journalArticle', 'bookSection') AND libraryID = 1 ORDER BY itemID")]
    cols = [(901, "Top", None, "TOPCOLL1"), (902, "Middle", 901, "MIDCOLL1"),
            (903, "Leaf", 902, "LEAFCOL1"), (904, "Leaf", 901, "LEAFCOL2")]
    for cid, name, parent, key in cols:
        conn.execute("INSERT INTO collections (collectionID, collectionName, "
                     "parentCollectionID, libraryID, key) VALUES (?, ?, ?, 1, ?)",
                     (cid, name, parent, key))
    membership = {901: ids[0:2], 902: ids[2:5], 903: ids[5:6], 904: ids[6:8]}
    for cid, members in membership.items():
        conn.executemany("INSERT INTO collectionItems (collectionID, itemID) VALUES (?, ?)",
                         [(cid, i) for i in members])
    conn.execute("INSERT INTO deletedItems (itemID) VALUES (?)", (ids[1],))
    att_type = conn.execute("SELECT itemTypeID FROM itemTypes "
                            "WHERE typeName = 'attachment'").fetchone()[0]
    (tmp_path / "base" / "papers").mkdir(parents=True)
    (tmp_path / "base" / "papers" / "rel.pdf").write_bytes(b"%PDF rel")
    (tmp_path / "abs.pdf").write_bytes(b"%PDF abs")
    for item_id, key, path in ((9001, "LINKREL1", "attachments:papers/rel.pdf"),
                               (9002, "LINKABS1", str(tmp_path / "abs.pdf")),
                               (9003, "LINKGONE", str(tmp_path / "gone.pdf"))):
        conn.execute("INSERT INTO items (itemID, itemTypeID, libraryID, key) "
                     "VALUES (?, ?, 1, ?)", (item_id, att_type, key))
        conn.execute("INSERT INTO itemAttachments (itemID, parentItemID, linkMode, "
                     "contentType, path) VALUES (?, ?, 2, 'application/pdf', ?)",
                     (item_id, ids[2], path))
    conn.commit()
    conn.close()
    return lib


def test_collections_and_subcollections(edited_library: Path) -> None:
    reader = SqliteReader(edited_library)
    cols = {c.key: c for c in reader.collections()}
    assert cols["MIDCOLL1"].parent_key == "TOPCOLL1" and cols["LEAFCOL1"].parent_key == "MIDCOLL1"

    def keys(**kw: object) -> set[str]:
        return {it.key for it in reader.items(**kw)}

    def members(*col_ids: int) -> set[str]:
        marks = ",".join("?" * len(col_ids))
        query = (f"SELECT i.key FROM collectionItems ci JOIN items i USING(itemID) "
                 f"WHERE ci.collectionID IN ({marks}) AND i.itemID NOT IN "
                 f"(SELECT itemID FROM deletedItems)")
        return {r[0] for r in sql(edited_library, query, *col_ids)}

    assert keys(collection="Top") == members(901) and len(members(901)) == 1  # one deleted
    assert keys(collection="Top", include_subcollections=True) == members(901, 902, 903, 904)
    assert keys(collection="MIDCOLL1", include_subcollections=True) == members(902, 903)
    assert keys(collection="Top/Middle/Leaf") == members(903)
    assert keys(collection="top/leaf") == members(904)  # path, ignoring case
    with pytest.raises(InvalidInput, match="ambiguous"):
        list(reader.items(collection="Leaf"))
    with pytest.raises(InvalidInput) as err:
        list(reader.items(collection="Nope"))
    assert "Top/Middle" in err.value.hint

    item = next(it for it in reader.items(collection="Middle") if it.attachments)
    assert item.collections == ["Middle"] and item.collection_keys == ["MIDCOLL1"]


def test_deleted_items_are_skipped(edited_library: Path) -> None:
    deleted = {r[0] for r in sql(edited_library, "SELECT i.key FROM deletedItems "
                                                 "JOIN items i USING(itemID)")}
    assert len(deleted) == 1
    keys = {it.key for it in SqliteReader(edited_library).items()}
    assert len(keys) == 48 and not keys & deleted


def test_linked_files_absolute_relative_and_missing(edited_library: Path, tmp_path: Path) -> None:
    base = tmp_path / "base"
    reader = SqliteReader(edited_library, attachments_base_dir=base)
    atts = {a.key: a for it in reader.items() for a in it.attachments}
    assert atts["LINKREL1"].path == base / "papers" / "rel.pdf" and atts["LINKREL1"].exists
    assert atts["LINKABS1"].path == tmp_path / "abs.pdf" and atts["LINKABS1"].exists
    assert atts["LINKGONE"].exists is False and atts["LINKGONE"].link_mode == "linked_file"
    assert reader.fetch_attachment(atts["LINKREL1"], tmp_path) == base / "papers" / "rel.pdf"
    with pytest.raises(SourceNotFound):
        reader.fetch_attachment(atts["LINKGONE"], tmp_path)
    # Without the base directory a relative link cannot be resolved: reported, not guessed.
    unbased = {a.key: a for it in SqliteReader(edited_library).items() for a in it.attachments}
    assert unbased["LINKREL1"].path is None and unbased["LINKREL1"].exists is False


def test_arreme_collections_and_tag_filters() -> None:
    reader = SqliteReader(ARREME)
    assert sorted(c.name for c in reader.collections()) == ["Important", "Not Organized"]
    in_important = sql(ARREME, "SELECT count(*) FROM collectionItems ci JOIN collections c "
                               "USING(collectionID) WHERE c.collectionName = 'Important'")[0][0]
    assert len(list(reader.items(collection="Important"))) == in_important

    def tagged(tag: str) -> set[str]:
        return {r[0] for r in sql(ARREME, "SELECT i.key FROM itemTags it JOIN tags t "
                                          "USING(tagID) JOIN items i USING(itemID) "
                                          "WHERE lower(t.name) = lower(?)", tag)}

    cpp, maths = tagged("c++"), tagged("_maths")
    assert cpp and maths
    assert {it.key for it in reader.items(tags_include=["C++"])} == cpp
    assert {it.key for it in reader.items(tags_include=["c++", "_maths"])} == cpp | maths
    everything = {it.key for it in reader.items()}
    assert {it.key for it in reader.items(tags_exclude=["c++"])} == everything - cpp


# --- Better BibTeX's older (LokiJS) database -------------------------------------------


def test_old_era_better_bibtex_database(tmp_path: Path) -> None:
    import json

    db = tmp_path / "better-bibtex.sqlite"
    conn = sqlite3.connect(db)
    conn.execute('CREATE TABLE "better-bibtex" (name TEXT PRIMARY KEY, data TEXT)')
    items = list(SqliteReader(TESTPROFILE).items())[:3]
    docs = [{"itemID": items[0].item_id, "itemKey": items[0].key, "libraryID": 1,
             "citekey": "lokiFirst", "pinned": False, "meta": {"revision": 0}, "$loki": 1},
            {"itemID": items[1].item_id, "libraryID": 1, "citekey": "lokiById", "$loki": 2}]
    conn.execute('INSERT INTO "better-bibtex" VALUES (?, ?)',
                 ("better-bibtex.citekey", json.dumps({"name": "citekey", "data": docs})))
    conn.commit()
    conn.close()

    keys = read_bbt_citekeys(db)
    for it in items:
        it.native_citekey = None  # so the database is the source that answers
    resolve_citekeys(items, bbt_db=keys)
    assert [(it.citekey, it.citekey_source) for it in items[:2]] == [
        ("lokiFirst", "bbt-db"), ("lokiById", "bbt-db")]
    assert items[2].citekey is None


def test_group_items_know_their_public_group_id(edited_library: Path) -> None:
    """The test profile has a group library (libraryID 2, groupID 4355231) with no items:
    move one item there and it must carry the public id, which zotero:// links need."""
    ((group_id,),) = sql(edited_library, "SELECT groupID FROM groups WHERE libraryID = 2")
    ((moved,),) = sql(edited_library, "SELECT i.key FROM items i JOIN itemTypes t "
                                      "USING(itemTypeID) WHERE t.typeName = 'bookSection' "
                                      "AND i.libraryID = 1 ORDER BY i.itemID LIMIT 1")
    conn = sqlite3.connect(edited_library / "zotero.sqlite")
    conn.execute("UPDATE items SET libraryID = 2 WHERE key = ?", (moved,))
    conn.commit()
    conn.close()
    items = {it.key: it for it in SqliteReader(edited_library).items()}
    assert items[moved].library_type == "group" and items[moved].group_id == group_id
    assert items[moved].library_path == f"groups/{group_id}"
    mine = next(it for k, it in items.items() if k != moved)
    assert mine.library_path == "library" and mine.group_id is None
