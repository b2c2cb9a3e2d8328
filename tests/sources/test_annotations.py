"""Zotero annotations and notes as citable passages (issue #13).

The library is a copy of a real zotero.sqlite (Better BibTeX's test profile) with a
collection of three of its items, two of them with real PDFs from the corpus, and rows
added through Zotero's own schema: highlights, an underline, a sticky note, an image area
(with a comment), an ink drawing (without one), a highlight in the trash, child notes and a
standalone note. The same library, shaped as Web API / local API JSON, must give the same
units; edits and deletions must reach the index at the next sync without any conversion.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import httpx2
import pytest

from citeloom.config import Settings, ZoteroSettings
from citeloom.index import SearchFilter
from citeloom.index.catalog import Catalog
from citeloom.payload import normalize_color, zotero_link
from citeloom.report import IngestReport
from citeloom.runtime import Runtime
from citeloom.service import CiteLoom
from citeloom.service.api import QueryRequest
from citeloom.sources import AnnotationSource, Context, Unit
from citeloom.zotero import LocalApiReader, SqliteReader, WebApiReader, note_text

from ..conftest import CORPUS, FIXTURE_PDFS, SHARED, shared_settings

TESTPROFILE = SHARED / "zotero" / "sqlite" / "bbt-testprofile-native-citationKey"
PAPERS = {"ATTTHROM": FIXTURE_PDFS / "cermine__test1.pdf",
          "ATTTABLE": CORPUS / "text" / "docling__2305.03393v1-pg9.pdf"}
TYPES = {"highlight": 1, "note": 2, "image": 3, "ink": 4, "underline": 5, "text": 6}

HIGHLIGHT = ("Failed filter retrieval does not carry an immediate complication to the "
             "patient, but it does expose the patient to the long-term complications of a "
             "permanent filter.")
COMMENT = ("Thesis chapter 3: when a clot filter cannot be pulled out afterwards the person "
           "is stuck with its hazards for life; cite this against routine placement.")
CHILD_NOTE = ("<div data-schema-version=\"9\"><h1>Reading notes on DVT prophylaxis</h1>"
              "<p>Ask Dr. Okafor whether our trauma unit audit from 2019 matches the "
              "<b>2.8%</b> failed retrieval rate.</p><h2>Open questions</h2><ul>"
              "<li>Are compression sleeves &amp; heparin combined anywhere?</li></ul></div>")
STANDALONE_NOTE = ("<p>Thesis plan: ask my supervisor to move the Friday deadline for the "
                   "table tokenization chapter.</p>")
LONG_NOTE = "<h1>Literature matrix</h1>" + "".join(
    f"<h2>{topic}</h2><p>" + " ".join(
        f"Study {n} on {topic.lower()} reported outcome measure {n} for cohort {n + 7}, with "
        f"follow-up of {n + 2} months and a sample of {40 + n} trauma patients." for n in
        range(1, 9)) + "</p>"
    for topic in ("Heparin", "Compression devices", "Vena cava filters"))

# key -> (attachment, type, text, comment, color, page index, page label, sort offset)
ANNOTATIONS: dict[str, tuple[str, str, str, str, str, int, str, int]] = {
    "HLREDP2A": ("ATTTHROM", "highlight", HIGHLIGHT, COMMENT, "#ff6666", 1, "2", 120),
    "UNDRLN3B": ("ATTTHROM", "underline", "Inferior vena cava filters migrate, cause "
                 "inferior vena cava occlusion, and penetrate the vessel wall.", "",
                 "#2ea8e5", 0, "1", 900),
    "STCKY4NT": ("ATTTHROM", "note", "", "Compare the heparin bleeding risk with our cohort.",
                 "#ffd400", 0, "1", 300),
    "IMAGE5TB": ("ATTTHROM", "image", "", "Table 6: failed retrieval rates per study",
                 "#5fb236", 1, "2", 2000),
    "INKN6CMT": ("ATTTHROM", "ink", "", "", "#aaaaaa", 1, "2", 2500),
    "TRASH7HL": ("ATTTHROM", "highlight", "Mechanical compression devices", "trashed",
                 "#ffd400", 1, "2", 50),
    "HLTABL8Y": ("ATTTABLE", "highlight", "However OTSL yields a 2x speed up in the inference "
                 "runtime over HTML.", "", "#ffd400", 0, "9", 700),
}
# key -> (parent: "item0"/"item2" or None for standalone, HTML)
NOTES = {"NTCHILD9": ("item0", CHILD_NOTE), "NTLNG3XX": ("item0", LONG_NOTE),
         "NTNPDF4Z": ("item2", "<p>No PDF yet: borrow the printed copy from the library.</p>"),
         "NTSTAND2": (None, STANDALONE_NOTE)}


def build_library(lib: Path) -> dict[str, Any]:
    """The test profile's database, copied, with the collection, PDFs, annotations and
    notes above written into Zotero's own tables."""
    lib.mkdir(parents=True)
    shutil.copyfile(TESTPROFILE / "zotero.sqlite", lib / "zotero.sqlite")
    conn = sqlite3.connect(lib / "zotero.sqlite")
    rows = conn.execute(
        "SELECT i.itemID, i.key FROM items i JOIN itemTypes t USING(itemTypeID) "
        "WHERE t.typeName = 'journalArticle' AND i.libraryID = 1 ORDER BY i.itemID").fetchall()
    items = rows[:3]
    type_id = dict(conn.execute("SELECT typeName, itemTypeID FROM itemTypes"))
    conn.execute("INSERT INTO collections (collectionID, collectionName, libraryID, key) "
                 "VALUES (990, 'Thesis', 1, 'THESIS01')")
    conn.executemany("INSERT INTO collectionItems (collectionID, itemID) VALUES (990, ?)",
                     [(item_id,) for item_id, _ in items])
    ids = {}
    next_id = 9100

    def add_item(kind: str, key: str, version: int = 5) -> int:
        nonlocal next_id
        next_id += 1
        conn.execute("INSERT INTO items (itemID, itemTypeID, libraryID, key, version) "
                     "VALUES (?, ?, 1, ?, ?)", (next_id, type_id[kind], key, version))
        ids[key] = next_id
        return next_id

    for att_key, (parent_id, _) in zip(PAPERS, items, strict=False):
        att = add_item("attachment", att_key)
        conn.execute("INSERT INTO itemAttachments (itemID, parentItemID, linkMode, "
                     "contentType, path) VALUES (?, ?, 0, 'application/pdf', ?)",
                     (att, parent_id, "storage:paper.pdf"))
        (lib / "storage" / att_key).mkdir(parents=True)
        shutil.copyfile(PAPERS[att_key], lib / "storage" / att_key / "paper.pdf")
    for key, (att_key, kind, text, comment, color, page, label, offset) in ANNOTATIONS.items():
        item_id = add_item("annotation", key)
        conn.execute(
            "INSERT INTO itemAnnotations (itemID, parentItemID, type, text, comment, color, "
            "pageLabel, sortIndex, position, isExternal) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0)",
            (item_id, ids[att_key], TYPES[kind], text or None, comment or None, color, label,
             f"{page:05d}|{offset:06d}|{offset % 700:05d}",
             json.dumps({"pageIndex": page, "rects": [[56.7, 600.1, 290.2, 612.4]]})))
    conn.execute("INSERT INTO deletedItems (itemID) VALUES (?)", (ids["TRASH7HL"],))
    tag_id = conn.execute("SELECT coalesce(max(tagID), 0) + 1 FROM tags").fetchone()[0]
    conn.execute("INSERT INTO tags (tagID, name) VALUES (?, 'key-finding')", (tag_id,))
    conn.execute("INSERT INTO itemTags (itemID, tagID, type) VALUES (?, ?, 0)",
                 (ids["HLREDP2A"], tag_id))
    parents = {"item0": items[0][0], "item2": items[2][0]}
    for key, (parent, html) in NOTES.items():
        item_id = add_item("note", key)
        conn.execute("INSERT INTO itemNotes (itemID, parentItemID, note, title) "
                     "VALUES (?, ?, ?, '')", (item_id, parents.get(parent), html))
        if parent is None:
            conn.execute("INSERT INTO collectionItems (collectionID, itemID) VALUES (990, ?)",
                         (item_id,))
    conn.commit()
    conn.close()
    truth = {i.key: i for i in SqliteReader(lib, bbt=None).items()}
    return {"dir": lib, "db": lib / "zotero.sqlite", "ids": ids,
            "items": [truth[key] for _, key in items]}


def settings_for(lib: Path, data: Path, models_dir: Path) -> Settings:
    return shared_settings(data_dir=data, models_dir=models_dir,
                           zotero=ZoteroSettings(data_dir=lib, bbt_port=9))  # no BBT listens on 9


@pytest.fixture(scope="module")
def indexed(models_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The library synced once into project "z": two PDFs, their annotations, the notes."""
    root = tmp_path_factory.mktemp("annotations")
    lib = build_library(root / "Zotero")
    app = CiteLoom(settings_for(lib["dir"], root / "data", models_dir))
    report = app.ingest_zotero("z", "Thesis")
    yield {**lib, "app": app, "report": report, "root": root}
    app.close()


def hit_of(hits: list[Any], key: str) -> Any:
    return next((h for h in hits if h.zotero_key == key), None)


# -- 1. a highlight with a comment, found by a paraphrase of the comment ----------------------
@pytest.mark.slow
def test_highlight_found_by_its_comment_with_page_citekey_and_link(indexed: dict) -> None:
    report: IngestReport = indexed["report"]
    assert report.outcome == "ok", report.to_dict()
    status = {f.path.rsplit("/", 1)[-1]: f.status for f in report.files}
    assert status["HLREDP2A"] == status["NTSTAND2"] == "indexed"
    assert "INKN6CMT" not in status and "TRASH7HL" not in status  # no text; in the trash
    assert report.count("indexed") == 2 + 5 + 4 + 3  # PDFs, annotations, notes, MR notes
    item = indexed["items"][0]

    question = "a blood clot filter that can never be removed leaves patients with lifelong risk"
    hits = indexed["app"].query(QueryRequest("z", question, top_k=5)).hits
    hit = hit_of(hits, "HLREDP2A")
    assert hit is not None, [(h.kind, h.text[:60]) for h in hits]
    assert (hit.kind, hit.annotation_type, hit.color) == ("annotation", "highlight", "#ff6666")
    assert hit.page_start == hit.page_end == 2 and hit.page_label == "2"
    assert hit.citekey == item.citekey and item.citekey and hit.title == item.title
    assert hit.authors == item.authors and hit.year == item.year
    assert hit.zotero_link == "zotero://open-pdf/library/items/ATTTHROM?page=2&annotation=HLREDP2A"
    assert HIGHLIGHT[:40] in hit.text and "clot filter" in hit.text  # both are searchable
    # Its section is the converted passage's it marks, on that page.
    asked = QueryRequest("z", HIGHLIGHT, top_k=10, flt=SearchFilter(kinds=["passage"]))
    passages = [h for h in indexed["app"].query(asked).hits
                if h.page_start <= 2 <= (h.page_end or 2) and "ATTTHROM" in (h.zotero_link or "")]
    assert hit.section_path and hit.section_path in {p.section_path for p in passages}


# -- 2. notes: a child note by its words, a standalone note with no citekey -------------------
@pytest.mark.slow
def test_child_and_standalone_notes(indexed: dict) -> None:
    app, item = indexed["app"], indexed["items"][0]
    top = app.query(QueryRequest("z", "Okafor trauma unit audit 2019", top_k=3)).hits[0]
    assert (top.kind, top.zotero_key, top.citekey) == ("note", "NTCHILD9", item.citekey)
    assert top.title == item.title and top.zotero_link == (
        "zotero://select/library/items/NTCHILD9")
    assert top.section_path == "Reading notes on DVT prophylaxis"  # the note's own heading
    loose = app.query(QueryRequest("z", "supervisor Friday deadline", top_k=3)).hits[0]
    assert (loose.kind, loose.zotero_key, loose.citekey) == ("note", "NTSTAND2", None)
    assert loose.zotero_link == "zotero://select/library/items/NTSTAND2"
    assert loose.title.startswith("Thesis plan")
    in_thesis = app.query(
        QueryRequest(
            "z",
            "supervisor deadline",
            top_k=3,
            flt=SearchFilter(collections=["Thesis"], kinds=["note"]),
        )
    ).hits
    assert "NTSTAND2" in {h.zotero_key for h in in_thesis}


# -- 5. kind and colour filters; an item's annotations in page order --------------------------
@pytest.mark.slow
def test_kind_and_colour_filters_and_listing(indexed: dict) -> None:
    app, item = indexed["app"], indexed["items"][0]
    question = "vena cava filter complications"
    for kinds in (["annotation"], ["note"], ["passage"], ["annotation", "note"]):
        hits = app.query(QueryRequest("z", question, top_k=10, flt=SearchFilter(kinds=kinds))).hits
        assert hits and {h.kind for h in hits} <= set(kinds), (kinds, {h.kind for h in hits})
    yellow = app.query(
        QueryRequest("z", question, top_k=10, flt=SearchFilter(colors=[normalize_color("Yellow")]))
    ).hits
    assert {h.zotero_key for h in yellow} == {"STCKY4NT", "HLTABL8Y"}
    red_blue = app.query(
        QueryRequest(
            "z", question, top_k=10, flt=SearchFilter(colors=["#ff6666", normalize_color("2EA8E5")])
        )
    ).hits
    assert {h.zotero_key for h in red_blue} == {"HLREDP2A", "UNDRLN3B"}

    listed = app.list_annotations("z", item.citekey)
    assert [h.zotero_key for h in listed] == [
        "STCKY4NT", "UNDRLN3B", "HLREDP2A", "IMAGE5TB",  # page 1 by position, then page 2
        *sorted(["NTCHILD9", "NTLNG3XX", next(h.zotero_key for h in listed
                                               if h.text.startswith("MR "))])]
    assert [h.page_start for h in listed[:4]] == [1, 1, 2, 2]
    long_note = hit_of(listed, "NTLNG3XX")  # several chunks, listed whole
    assert "Study 8 on vena cava filters" in long_note.text or long_note.text.endswith("…")
    assert [h.zotero_key for h in app.list_annotations("z", item.key, ["annotation"])] == [
        "STCKY4NT", "UNDRLN3B", "HLREDP2A", "IMAGE5TB"]  # by Zotero key, annotations only
    table = app.list_annotations("z", indexed["items"][1].citekey)
    assert [(h.kind, h.page_start, h.page_label) for h in table] == [
        ("annotation", 1, "9"), ("note", None, None)]  # printed page 9; its MR note


@pytest.mark.slow
def test_cli_and_mcp_filters_and_listing(indexed: dict, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    from citeloom.cli import main
    from citeloom.mcp import server as mcp_server

    app, item = indexed["app"], indexed["items"][0]
    app.release_idle(0)  # the CLI opens the index in this process too
    config = indexed["root"] / "citeloom.toml"
    config.write_text(f'[paths]\ndata_dir = "{app.settings.data_dir}"\n'
                      f'models_dir = "{app.settings.models_dir}"\n')
    for var in ("CITELOOM_DATA_DIR", "CITELOOM_MODELS_DIR", "CITELOOM_PROJECT"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("CITELOOM_CONFIG", str(config))
    monkeypatch.setenv("ZOTERO_DATA_DIR", str(indexed["dir"]))
    monkeypatch.setenv("BBT_PORT", "9")
    monkeypatch.chdir(indexed["root"])
    assert main(["query", "filter complications", "-p", "z", "--kind", "annotation",
                 "--color", "red", "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    assert [h["zotero_key"] for h in hits] == ["HLREDP2A"] and hits[0]["kind"] == "annotation"
    assert main(["annotations", item.citekey, "-p", "z", "--kind", "annotation",
                 "--json"]) == 0
    assert [h["zotero_key"] for h in json.loads(capsys.readouterr().out)["hits"]] == [
        "STCKY4NT", "UNDRLN3B", "HLREDP2A", "IMAGE5TB"]
    assert main(["annotations", item.citekey, "-p", "z"]) == 0
    shown = capsys.readouterr().out
    assert "p. 2" in shown and "annotation=HLREDP2A" in shown and "#ff6666" in shown

    from fastmcp import Client

    monkeypatch.setattr(mcp_server.state, "_settings", app.settings)
    monkeypatch.setattr(mcp_server.state, "_app", app)
    started = mcp_server.threading.Event()
    started.set()  # no warm-up or idle-release threads, no logging set-up, in a test
    monkeypatch.setattr(mcp_server, "_background_started", started)

    async def scenario() -> tuple[Any, Any]:
        async with Client(mcp_server.mcp) as c:
            listed = await c.call_tool("list_annotations", {"project": "z",
                                                            "citekey": item.citekey})
            found = await c.call_tool("query_hybrid", {
                "project": "z", "text": "filter complications", "top_k": 5,
                "filters": {"kinds": ["annotation"], "colors": ["#5FB236"]}})
            return listed.data, found.data

    listed, found = asyncio.run(scenario())
    assert [h["zotero_key"] for h in listed["hits"]][:4] == [
        "STCKY4NT", "UNDRLN3B", "HLREDP2A", "IMAGE5TB"]
    assert [h["zotero_key"] for h in found["hits"]] == ["IMAGE5TB"]
    assert mcp_server.parse_zotero_source("zotero:collection/Thesis?noannotations") == {
        "collection": "Thesis", "include_subcollections": False, "annotations": False}

    from citeloom.daemon.server import operations  # the daemon answers its clients alike

    via_daemon = operations(app)["list_annotations"]({"project": "z", "citekey": item.citekey})
    assert [h["zotero_key"] for h in via_daemon] == [h["zotero_key"] for h in listed["hits"]]


# -- 3. the Web API and the local API give the same units as the database --------------------
def api_records(lib: dict[str, Any], library: dict[str, Any]) -> dict[str, Any]:
    """The test library as the APIs return it: items (every stored field, creators,
    tags, collections, meta.parsedDate), children (attachments and notes), annotations."""
    def creator(c: Any) -> dict[str, str]:
        return ({"creatorType": c.creator_type, "name": c.name} if c.name else
                {"creatorType": c.creator_type, "firstName": c.first, "lastName": c.last})

    top, children = [], {}
    for item in lib["items"]:
        data = {**item.fields, "key": item.key, "version": item.version,
                "itemType": item.item_type, "creators": [creator(c) for c in item.creators],
                "tags": [{"tag": t} for t in item.tags], "collections": item.collection_keys,
                "relations": {}}
        kids = [{"key": a.key, "version": 5, "library": library, "data": {
            "key": a.key, "version": 5, "itemType": "attachment", "parentItem": item.key,
            "linkMode": "imported_file", "contentType": "application/pdf",
            "filename": "paper.pdf", "tags": [], "relations": {}}} for a in item.attachments]
        top.append({"key": item.key, "version": item.version, "library": library,
                    "meta": {"parsedDate": str(item.year), "numChildren": len(kids) + 1},
                    "data": data})
        children[item.key] = kids
    conn = sqlite3.connect(lib["db"])
    key_of = dict(conn.execute("SELECT itemID, key FROM items"))
    notes, annotations = [], []
    attachments = {r[0] for r in conn.execute("SELECT itemID FROM itemAttachments")}
    for item_id, key, version, parent, html in conn.execute(
            "SELECT i.itemID, i.key, i.version, n.parentItemID, n.note FROM itemNotes n "
            "JOIN items i USING(itemID)"):
        if item_id in attachments:
            continue  # an attachment's own note is not a note item
        data = {"key": key, "version": version, "itemType": "note", "note": html, "tags": [],
                "relations": {}, "collections": [] if parent else ["THESIS01"]}
        if parent:
            data["parentItem"] = key_of[parent]
        notes.append({"key": key, "version": version, "library": library, "meta": {},
                      "data": data})
    trashed = {r[0] for r in conn.execute("SELECT itemID FROM deletedItems")}
    tags = {key_of[i]: [{"tag": t}] for i, t in conn.execute(
        "SELECT it.itemID, t.name FROM itemTags it JOIN tags t USING(tagID)")}
    for (item_id, parent, kind, text, comment, color, label, sort_index, position,
         version) in conn.execute(
            "SELECT a.itemID, a.parentItemID, a.type, a.text, a.comment, a.color, "
            "a.pageLabel, a.sortIndex, a.position, i.version FROM itemAnnotations a "
            "JOIN items i USING(itemID)"):
        data = {"key": key_of[item_id], "version": version, "itemType": "annotation",
                "parentItem": key_of[parent],
                "annotationType": {v: k for k, v in TYPES.items()}[kind],
                "annotationText": text or "", "annotationComment": comment or "",
                "annotationColor": color, "annotationPageLabel": label,
                "annotationSortIndex": sort_index, "annotationPosition": position,
                "tags": tags.get(key_of[item_id], []), "relations": {}}
        if item_id in trashed:
            data["deleted"] = 1  # the API marks what is in the trash
        annotations.append({"key": key_of[item_id], "version": version, "library": library,
                            "meta": {}, "data": data})
    for note in notes:  # child notes are children of their item too
        parent = note["data"].get("parentItem")
        if parent in children:
            children[parent].append(note)
    # Items the collection does not hold keep their notes and annotations in the listings,
    # as the APIs list the whole library; the source leaves them out of scope.
    return {"top": top, "children": children, "annotation": annotations, "note": notes}


def fake_api(records: dict[str, Any], prefix: str, seen: list[str]) -> httpx2.Client:
    def handle(request: httpx2.Request) -> httpx2.Response:
        path = request.url.path.removeprefix("/api")
        assert path.startswith(prefix), path
        rest = path[len(prefix):]
        seen.append(rest + "?" + request.url.query.decode())
        params = parse_qs(request.url.query.decode())
        if rest == "/collections":
            body: Any = [{"key": "THESIS01", "version": 1,
                          "data": {"key": "THESIS01", "name": "Thesis",
                                   "parentCollection": False}}]
        elif rest in ("/items/top", "/collections/THESIS01/items/top"):
            body = records["top"]
        elif rest.startswith("/items/") and rest.endswith("/children"):
            body = records["children"].get(rest.split("/")[2], [])
        elif rest == "/items":
            body = records[params["itemType"][0]]
        else:
            return httpx2.Response(404, text="Not found")
        return httpx2.Response(200, json=body, headers={"Total-Results": str(len(body))})

    return httpx2.Client(transport=httpx2.MockTransport(handle))


class _NoIndex:
    """An empty index: nothing is skipped, no section is looked up."""

    def count(self, doc_id: str | None = None) -> int:
        return 0

    def scroll(self, *a: Any, **k: Any) -> list[Any]:
        return []


def units_of(reader: Any, tmp_path: Path) -> dict[str, Unit]:
    ctx = Context(project=None, index=_NoIndex(), catalog=Catalog(tmp_path / "catalog.sqlite"),
                  report=IngestReport("t"))
    source = AnnotationSource(reader, "Thesis")
    assert source.plan(ctx) > 0 and not ctx.report.warnings, ctx.report.warnings
    units = {u.label: u for u in source.units(ctx) if isinstance(u, Unit)}
    ctx.catalog.close()
    return units


def test_web_and_local_api_give_the_database_units(tmp_path: Path) -> None:
    lib = build_library(tmp_path / "Zotero")
    database = units_of(SqliteReader(lib["dir"], bbt=None), tmp_path / "db")
    web_seen: list[str] = []
    web = WebApiReader("475425", "user", "k3y", client=fake_api(api_records(
        lib, {"type": "user", "id": 475425, "name": "me"}), "/users/475425", web_seen))
    local_seen: list[str] = []
    local = LocalApiReader(23119, client=fake_api(api_records(
        lib, {"type": "user", "id": 0, "name": ""}), "/users/0", local_seen))
    assert set(database) == {f"zotero-annotation:library/{k}" for k in ANNOTATIONS
                             if k not in ("INKN6CMT", "TRASH7HL")} | {
        f"zotero-note:library/{k}" for k in NOTES} | {
        f"zotero-note:library/{n.key}" for n in SqliteReader(lib["dir"], bbt=None).annotations()
        if n.kind == "note" and n.text.startswith("MR ")
        and n.parent_key in {i.key for i in lib["items"]}}

    def shape(u: Unit) -> tuple[Any, ...]:
        return (u.doc_id, u.text, u.title, u.headings, u.zotero_version, u.content_hash,
                json.dumps(u.meta, sort_keys=True))

    for name, reader, seen in (("web", web, web_seen), ("local", local, local_seen)):
        got = units_of(reader, tmp_path / name)
        assert set(got) == set(database), name
        for label, unit in database.items():
            assert shape(got[label]) == shape(unit), (name, label)
        assert any(s.startswith("/items?") and "itemType=annotation" in s for s in seen)
    red = database["zotero-annotation:library/HLREDP2A"]
    assert red.meta["tags"] == ["key-finding"] and red.text == f"{HIGHLIGHT}\n\nComment: {COMMENT}"
    assert red.meta["zotero_item"] == lib["items"][0].key and red.meta["page_start"] == 2
    sticky = database["zotero-annotation:library/STCKY4NT"]
    assert sticky.text == ANNOTATIONS["STCKY4NT"][3]  # a sticky note speaks by its comment
    child = database["zotero-note:library/NTCHILD9"]
    assert child.headings and child.text.startswith("# Reading notes on DVT prophylaxis\n\n")


# -- 4. edits and deletions at the next sync, with no conversion ------------------------------
@pytest.mark.slow
def test_edit_and_delete_reach_the_index_without_converting(
        indexed: dict, models_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lib = build_library(tmp_path / "Zotero")
    # The same data dir as the indexed project: its conversions are in the cache.
    app = CiteLoom(settings_for(lib["dir"], indexed["app"].settings.data_dir, models_dir))
    try:
        first = app.ingest_zotero("edits", "Thesis")
        assert first.outcome == "ok" and first.count("indexed") == 14, first.to_dict()
        long_id = next(f.doc_id for f in first.files if f.path.endswith("NTLNG3XX"))
        # a note long enough for 3 chunks
        assert app.runtime.projects.index("edits").count(long_id) >= 3

        def converted(*_a: Any, **_k: Any) -> None:
            raise AssertionError("a PDF was converted again")

        monkeypatch.setattr("citeloom.convert.worker.ConversionWorker.convert", converted)
        from_cache = {"allowed": False}  # not even a cached conversion is read at a sync
        real_convert = Runtime.convert

        def cached_only(self: Runtime, *a: Any, **k: Any) -> Any:
            if not from_cache["allowed"]:
                converted()
            return real_convert(self, *a, **k)

        monkeypatch.setattr(Runtime, "convert", cached_only)
        with monkeypatch.context() as m:
            m.setattr(Runtime, "dense", converted)  # nothing changed: nothing embedded
            again = app.ingest_zotero("edits", "Thesis")
        assert again.count("skipped") == 14 and again.outcome == "ok", again.to_dict()

        conn = sqlite3.connect(lib["db"])
        ids = lib["ids"]
        conn.execute("UPDATE itemAnnotations SET comment = ? WHERE itemID = ?",
                     ("Rewritten: the Okapi sampling frame explains the missing cohort.",
                      ids["HLREDP2A"]))
        conn.execute("UPDATE items SET version = 6 WHERE itemID = ?", (ids["HLREDP2A"],))
        conn.execute("UPDATE itemNotes SET note = '<p>Literature matrix: now one line.</p>' "
                     "WHERE itemID = ?", (ids["NTLNG3XX"],))  # no version bump: unsynced edit
        conn.execute("DELETE FROM items WHERE itemID = ?", (ids["UNDRLN3B"],))  # deleted
        conn.execute("DELETE FROM itemAnnotations WHERE itemID = ?", (ids["UNDRLN3B"],))
        conn.execute("INSERT INTO deletedItems (itemID) VALUES (?)", (ids["NTSTAND2"],))
        conn.execute("UPDATE itemAnnotations SET comment = NULL WHERE itemID = ?",
                     (ids["IMAGE5TB"],))  # an image without a comment has nothing to index
        conn.commit()
        conn.close()
        app.reload_zotero()
        events: list[str] = []
        synced = app.ingest_zotero("edits", "Thesis", progress=lambda e, _r: events.append(e))
        # Removals are counted in advance; a Zotero source does not count pages (0).
        assert events[0] == f"start:{len(synced.files)}:0"
        status = {f.path.rsplit("/", 1)[-1]: f.status for f in synced.files}
        assert status["paper.pdf"] == "skipped" and synced.to_dict()["pages"] == 0
        assert status["HLREDP2A"] == status["NTLNG3XX"] == "replaced", status
        assert status["UNDRLN3B"] == status["NTSTAND2"] == status["IMAGE5TB"] == "removed"
        assert synced.count("skipped") == 14 - 5, status

        index, catalog = app.runtime.projects.index("edits"), app.runtime.projects.catalog("edits")
        assert index.count(long_id) == 1 == catalog.get(long_id).chunks  # surplus chunks out
        assert index.count() == sum(r.chunks for r in catalog.all())
        for gone in ("UNDRLN3B", "NTSTAND2", "IMAGE5TB"):
            assert not catalog.by_zotero_key(gone)
            assert not [h for h in index.scroll(flt=SearchFilter(kinds=["annotation", "note"]))
                        if h.payload["zotero_key"] == gone]
        hit = app.query(QueryRequest("edits", "Okapi sampling frame missing cohort", top_k=1)).hits[
            0
        ]
        assert hit.zotero_key == "HLREDP2A" and "Okapi" in hit.text
        assert not any(
            COMMENT[:30] in h.text
            for h in app.query(
                QueryRequest("edits", COMMENT, top_k=5, flt=SearchFilter(kinds=["annotation"]))
            ).hits
        )
        again = app.ingest_zotero("edits", "Thesis")  # and then nothing to do
        assert again.count("skipped") == len(again.files) and not again.count("removed")
        from_cache["allowed"] = True

        # A reindex rebuilds annotations and notes from their chunks, keeping their fields
        # (and the PDFs from their cached conversions: still no conversion).
        rebuilt = app.reindex("edits")
        assert rebuilt.outcome == "ok" and rebuilt.count("indexed") == len(catalog), (
            rebuilt.to_dict())
        after = app.query(
            QueryRequest("edits", "Okapi sampling frame missing cohort", top_k=1)
        ).hits[0]
        assert (after.zotero_key, after.zotero_link, after.section_path, after.color) == (
            hit.zotero_key, hit.zotero_link, hit.section_path, hit.color)
        note = app.query(QueryRequest("edits", "Okafor trauma unit audit", top_k=1)).hits[0]
        assert (note.zotero_key, note.section_path) == (
            "NTCHILD9", "Reading notes on DVT prophylaxis")
    finally:
        app.close()



# -- readers and payload, without models --------------------------------------------------------
def test_note_html_to_text_keeps_headings_and_lists() -> None:
    assert note_text(CHILD_NOTE) == (
        "# Reading notes on DVT prophylaxis\n\nAsk Dr. Okafor whether our trauma unit audit "
        "from 2019 matches the 2.8% failed retrieval rate.\n\n## Open questions\n\n"
        "- Are compression sleeves & heparin combined anywhere?")
    assert note_text("<p>one<br/>two</p><style>p{}</style>") == "one\ntwo"
    assert note_text("plain text of an old note") == "plain text of an old note"


def test_group_library_author_and_link(tmp_path: Path) -> None:
    """In a group library an annotation carries who made it, from groupItems/users (the
    database) or meta.createdByUser (the APIs); its link names the group."""
    from citeloom.zotero.annotations import annotation_from_api

    lib = tmp_path / "Zotero"
    lib.mkdir()
    shutil.copyfile(TESTPROFILE / "zotero.sqlite", lib / "zotero.sqlite")
    conn = sqlite3.connect(lib / "zotero.sqlite")
    type_id = dict(conn.execute("SELECT typeName, itemTypeID FROM itemTypes"))
    for item_id, kind, key in ((9301, "journalArticle", "GRPITEM2"),
                               (9302, "attachment", "GRPATT33"),
                               (9303, "annotation", "GRPANN44")):
        conn.execute("INSERT INTO items (itemID, itemTypeID, libraryID, key, version) "
                     "VALUES (?, ?, 2, ?, 3)", (item_id, type_id[kind], key))
    conn.execute("INSERT INTO itemAttachments (itemID, parentItemID, linkMode, contentType, "
                 "path) VALUES (9302, 9301, 0, 'application/pdf', 'storage:x.pdf')")
    conn.execute("INSERT INTO itemAnnotations (itemID, parentItemID, type, text, comment, "
                 "color, pageLabel, sortIndex, position, isExternal) VALUES (9303, 9302, 1, "
                 "'stable theories', '', '#a28ae5', 'iv', '00003|000010|00100', "
                 "'{\"pageIndex\": 3}', 0)")
    conn.execute("INSERT INTO users (userID, name) VALUES (77, 'Ada Lovelace')")
    conn.execute("INSERT INTO groupItems (itemID, createdByUserID) VALUES (9303, 77)")
    conn.commit()
    conn.close()
    (ann,) = [a for a in SqliteReader(lib, bbt=None).annotations() if a.key == "GRPANN44"]
    assert (ann.author, ann.library, ann.page, ann.page_label) == (
        "Ada Lovelace", "groups/4355231", 4, "iv")
    api = annotation_from_api({
        "key": "GRPANN44", "version": 3, "library": {"type": "group", "id": 4355231},
        "meta": {"createdByUser": {"id": 77, "username": "ada", "name": "Ada Lovelace"}},
        "data": {"key": "GRPANN44", "version": 3, "itemType": "annotation",
                 "parentItem": "GRPATT33", "annotationType": "highlight",
                 "annotationText": "stable theories", "annotationComment": "",
                 "annotationColor": "#A28AE5", "annotationPageLabel": "iv",
                 "annotationSortIndex": "00003|000010|00100",
                 "annotationPosition": "{\"pageIndex\": 3}", "tags": []}})
    assert api == ann
    assert zotero_link({"kind": "annotation", "zotero_key": "GRPANN44", "page_start": 4,
                        "zotero_attachment": "GRPATT33", "zotero_library": ann.library}) == (
        "zotero://open-pdf/groups/4355231/items/GRPATT33?page=4&annotation=GRPANN44")


def test_gone_annotations_are_removed_only_from_libraries_read(tmp_path: Path) -> None:
    """An export file reads no annotations: a sync through it removes none. A database
    read removes the rows of its libraries whose annotation is gone, and no others."""
    from citeloom.index.catalog import DocRecord
    from citeloom.zotero import ExportFileReader

    catalog = Catalog(tmp_path / "catalog.sqlite")
    for path in ("zotero-annotation:library/GONE2345", "zotero-annotation:groups/77/KEPT2345",
                 "/papers/a.pdf"):
        catalog.put(DocRecord(path[-8:], path, "h", 0, 0, 1, 0))

    class Deleting(_NoIndex):
        def __init__(self) -> None:
            self.deleted: list[str] = []

        def delete_doc(self, doc_id: str) -> None:
            self.deleted.append(doc_id)

    ctx = Context(project=None, index=Deleting(), catalog=catalog, report=IngestReport("t"))
    export = ExportFileReader(SHARED / "zotero" / "bbt" / "exports"
                              / "bbt313_particles.bbtjson.json")
    source = AnnotationSource(export, items=lambda: [])
    assert source.plan(ctx) == 0 and list(source.finish(ctx)) == []
    source = AnnotationSource(SqliteReader(TESTPROFILE, bbt=None), items=lambda: [])
    assert source.plan(ctx) == 1  # the gone one, counted for progress
    removed = list(source.finish(ctx))
    assert [r.path for r in removed] == ["zotero-annotation:library/GONE2345"]
    assert ctx.index.deleted == ["GONE2345"] and len(catalog) == 2
    catalog.close()
