"""Ingest straight from a Zotero collection: a copy of a real zotero.sqlite (Better BibTeX's
test profile, Zotero 8 native citekeys) with a collection and stored PDF attachments that are
real papers from the corpus. Hits carry citekey, authors and year."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from citeloom.runtime import Runtime
from citeloom.service import CiteLoom
from citeloom.service.api import QueryRequest

from ..conftest import CORPUS, FIXTURE_PDFS, SHARED

pytestmark = pytest.mark.slow

TESTPROFILE = SHARED / "zotero" / "sqlite" / "bbt-testprofile-native-citationKey"
PAPERS = {"ATTTHROM": FIXTURE_PDFS / "cermine__test1.pdf",
          "ATTTABLE": CORPUS / "text" / "docling__2305.03393v1-pg9.pdf"}


@pytest.fixture
def library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict:
    lib = tmp_path / "Zotero"
    lib.mkdir()
    shutil.copyfile(TESTPROFILE / "zotero.sqlite", lib / "zotero.sqlite")
    conn = sqlite3.connect(lib / "zotero.sqlite")
    rows = conn.execute(
        "SELECT i.itemID, i.key FROM items i JOIN itemTypes t USING(itemTypeID) "
        "WHERE t.typeName = 'journalArticle' AND i.libraryID = 1 ORDER BY i.itemID").fetchall()
    (with_pdf1, key1), (with_pdf2, key2), (no_pdf, key3) = rows[:3]
    conn.execute("INSERT INTO collections (collectionID, collectionName, libraryID, key) "
                 "VALUES (990, 'Thesis', 1, 'THESIS01')")
    conn.executemany("INSERT INTO collectionItems (collectionID, itemID) VALUES (990, ?)",
                     [(with_pdf1,), (with_pdf2,), (no_pdf,)])
    att_type = conn.execute("SELECT itemTypeID FROM itemTypes "
                            "WHERE typeName = 'attachment'").fetchone()[0]
    for n, (att_key, parent) in enumerate((("ATTTHROM", with_pdf1), ("ATTTABLE", with_pdf2))):
        conn.execute("INSERT INTO items (itemID, itemTypeID, libraryID, key) "
                     "VALUES (?, ?, 1, ?)", (9100 + n, att_type, att_key))
        conn.execute("INSERT INTO itemAttachments (itemID, parentItemID, linkMode, "
                     "contentType, path) VALUES (?, ?, 0, 'application/pdf', ?)",
                     (9100 + n, parent, "storage:paper.pdf"))
        (lib / "storage" / att_key).mkdir(parents=True)
        shutil.copyfile(PAPERS[att_key], lib / "storage" / att_key / "paper.pdf")
    conn.commit()
    conn.close()
    monkeypatch.setenv("ZOTERO_DATA_DIR", str(lib))
    monkeypatch.setenv("BBT_PORT", "9")  # nothing listens: citekeys come from the database
    for var in ("ZOTERO_LOCAL", "ZOTERO_LIBRARY_ID", "ZOTERO_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    return {"dir": lib, "keys": (key1, key2, key3), "db": lib / "zotero.sqlite"}


def test_collection_ingest_gives_citable_hits(make_settings, library: dict,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from citeloom.zotero import SqliteReader

    truth = {i.key: i for i in SqliteReader(library["dir"], bbt=None).items()}
    app = CiteLoom(make_settings())
    # The PDFs only: their items' notes and annotations are tests/sources/test_annotations.py's.
    report = app.ingest_zotero("z", "Thesis", annotations=False)
    assert report.count("indexed") == 2 and report.outcome == "ok", report.to_dict()
    assert [i["zotero_key"] for i in report.items_without_pdf] == [library["keys"][2]]

    result = app.query(QueryRequest("z", "retrievable vena cava filter migration", top_k=3))
    top = result.hits[0]
    item = truth[library["keys"][0]]
    assert top.citekey == item.citekey and item.citekey
    assert top.authors == item.authors and top.authors
    assert top.year == item.year and isinstance(top.year, int)
    assert top.title == item.title  # Zotero's title wins over the PDF's own
    # Opens the PDF in Zotero at the passage's page.
    assert top.zotero_link == f"zotero://open-pdf/library/items/ATTTHROM?page={top.page_start}"
    # Filters on Zotero metadata work on the indexed payload.
    only = app.query(
        QueryRequest("z", "table", top_k=5, flt=_flt(citekeys=[truth[library["keys"][1]].citekey]))
    )
    assert only.hits and {h.citekey for h in only.hits} == {truth[library["keys"][1]].citekey}

    # Unchanged Zotero versions: nothing is converted or embedded again.
    monkeypatch.setattr(Runtime, "convert", _boom)
    monkeypatch.setattr(Runtime, "dense", _boom)
    again = app.ingest_zotero("z", "THESIS01", annotations=False)  # by key this time
    assert again.count("skipped") == 2

    # An edited item (new version) is re-indexed with its new metadata, from the cache.
    monkeypatch.undo()
    monkeypatch.setenv("ZOTERO_DATA_DIR", str(library["dir"]))
    monkeypatch.setenv("BBT_PORT", "9")
    conn = sqlite3.connect(library["db"])
    conn.execute("UPDATE items SET version = version + 1 WHERE key = ?", (library["keys"][0],))
    conn.commit()
    conn.close()
    app.reload_zotero()  # the database reader caches; a new run reads again
    monkeypatch.setattr("citeloom.convert.worker.ConversionWorker.convert", _boom)
    edited = app.ingest_zotero("z", "Thesis", annotations=False)
    status = sorted(f.status for f in edited.files)
    assert status == ["indexed", "skipped"], edited.to_dict()
    chunks = sum(r.chunks for r in app.runtime.projects.catalog("z").all())
    assert app.runtime.projects.index("z").count() == chunks
    app.close()


def test_standalone_pdf_in_a_collection_is_ingested(make_settings, library: dict) -> None:
    """A PDF dropped into Zotero without a parent item: indexed under its attachment key,
    titled from the PDF itself (Zotero's title is the file name), without a citekey."""
    conn = sqlite3.connect(library["db"])
    att_type = conn.execute("SELECT itemTypeID FROM itemTypes "
                            "WHERE typeName = 'attachment'").fetchone()[0]
    conn.execute("INSERT INTO items (itemID, itemTypeID, libraryID, key) "
                 "VALUES (9200, ?, 1, 'LOOSEPDF')", (att_type,))
    conn.execute("INSERT INTO itemAttachments (itemID, parentItemID, linkMode, contentType, "
                 "path) VALUES (9200, NULL, 0, 'application/pdf', 'storage:Smith 2020.pdf')")
    conn.execute("INSERT INTO collections (collectionID, collectionName, libraryID, key) "
                 "VALUES (991, 'Inbox', 1, 'INBOX001')")
    conn.execute("INSERT INTO collectionItems (collectionID, itemID) VALUES (991, 9200)")
    conn.commit()
    conn.close()
    (library["dir"] / "storage" / "LOOSEPDF").mkdir(parents=True)
    shutil.copyfile(FIXTURE_PDFS / "cermine__example2.pdf",
                    library["dir"] / "storage" / "LOOSEPDF" / "Smith 2020.pdf")

    app = CiteLoom(make_settings())
    report = app.ingest_zotero("z", "Inbox")
    assert report.count("indexed") == 1 and not report.items_without_pdf, report.to_dict()
    hits = app.query(QueryRequest("z", "abstract", top_k=3)).hits
    assert hits and {h.zotero_key for h in hits} == {"LOOSEPDF"}
    # No Better BibTeX key for the item: one made from its metadata, as for a folder's PDFs.
    assert hits[0].citekey and hits[0].citekey.isascii() and hits[0].citekey.islower()
    assert hits[0].zotero_link.startswith("zotero://open-pdf/library/items/LOOSEPDF?page=")
    assert hits[0].title and "Smith 2020" not in hits[0].title
    assert app.query(QueryRequest("z", "abstract", top_k=3, flt=_flt(collections=["Inbox"]))).hits
    app.close()


def test_cite_from_stored_metadata(make_settings, library: dict) -> None:
    from citeloom.zotero import SqliteReader

    item = next(i for i in SqliteReader(library["dir"], bbt=None).items()
                if i.key == library["keys"][0])
    app = CiteLoom(make_settings())
    bib = app.cite([item.citekey], "bibtex")
    assert bib.lstrip().startswith("@") and f"{{{item.citekey}," in bib
    csl = app.cite([item.citekey], "csl-json")
    assert item.citekey in csl
    app.close()


def test_plain_files_still_ingest_when_zotero_is_unavailable(make_settings, tmp_path: Path,
                                                             monkeypatch) -> None:
    monkeypatch.setenv("ZOTERO_LOCAL", "true")  # local API on a port nothing listens on
    monkeypatch.setenv("BBT_PORT", "9")
    monkeypatch.delenv("ZOTERO_DATA_DIR", raising=False)
    monkeypatch.delenv("ZOTERO_LIBRARY_ID", raising=False)
    import citeloom.zotero as zotero

    real = zotero.make_reader
    monkeypatch.setattr(zotero, "make_reader",
                        lambda **kw: real(**{**kw, "local_port": 9}))
    app = CiteLoom(make_settings())
    pdf = tmp_path / "a.pdf"
    shutil.copy(CORPUS / "text" / "docling__2305.03393v1-pg9.pdf", pdf)
    report = app.ingest([pdf], "plain")
    assert report.count("indexed") == 1
    assert report.warnings and report.warnings[0]["code"] == "ZOTERO_UNAVAILABLE"
    assert report.warnings[0]["hint"]
    app.close()


def test_unmatched_file_is_indexed_with_metadata_missing(make_settings, library: dict,
                                                         tmp_path: Path) -> None:
    app = CiteLoom(make_settings())
    pdf = tmp_path / "unknown.pdf"
    shutil.copy(CORPUS / "text" / "docling__code_and_formula.pdf", pdf)
    report = app.ingest([pdf], "plain")
    assert report.count("indexed") == 1
    assert report.files[0].note.startswith("MetadataMissing")
    app.close()


def _flt(**kw):  # type: ignore[no-untyped-def]
    from citeloom.index import SearchFilter

    return SearchFilter(**kw)


def _boom(*_a, **_k):  # type: ignore[no-untyped-def]
    raise AssertionError("converted or embedded although nothing changed")
