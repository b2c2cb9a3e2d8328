"""Watched projects, with `citeloom serve` running (and so the daemon): a PDF copied into a
source folder is answered, a deleted one stops being answered, a changed one is replaced,
nothing is converted when nothing changed; a newer zotero.sqlite is picked up."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from ..conftest import CORPUS, FIXTURE_PDFS
from ..zotero.test_zotero_ingest import library  # noqa: F401 (a real zotero.sqlite copy)
from .test_daemon import lib, mcp  # noqa: F401 (the daemon fixture, the MCP client)

pytestmark = pytest.mark.slow

# It counts the conversions in its data dir: the cache stays there.
pytestmark = pytest.mark.own_cache
WITHIN_S = 60 + 60  # the 60 s, plus a generous conversion time on a busy machine


async def _until(c: Client, project: str, text: str, test: Any, timeout: float = WITHIN_S
                 ) -> float:
    """Seconds until ``test(hits)`` holds for a query_hybrid of ``text``."""
    start = time.monotonic()
    while True:
        result = await c.call_tool("query_hybrid", {"project": project, "text": text,
                                                    "top_k": 10}, raise_on_error=False)
        hits = [] if result.is_error else result.data["hits"]
        if test(hits):
            return time.monotonic() - start
        assert time.monotonic() - start < timeout, f"{text!r}: still {hits[:1]}"
        await asyncio.sleep(1.0)


def _files(hits: list[dict[str, Any]]) -> set[str]:
    return {Path(h["source_path"]).name for h in hits}


def _conversions(data: Path) -> int:
    folder = data / "cache" / "conversions"
    return len(list(folder.glob("*.json.gz"))) if folder.is_dir() else 0


def test_watched_folder_follows_copies_deletes_and_changes(lib: dict[str, Any]) -> None:  # noqa: F811
    inbox = lib["root"] / "inbox"
    inbox.mkdir()
    shutil.copy(FIXTURE_PDFS / "cermine__test1.pdf", inbox / "thrombosis.pdf")
    config = Path(lib["env"]["CITELOOM_CONFIG"])
    config.write_text(config.read_text() + f'[projects.w]\nsources = ["{inbox}"]\n'
                      "watch = true\n")

    async def scenario() -> dict[str, float]:
        async with mcp(lib) as c:
            await c.call_tool("list_projects", {})  # the server starts the daemon
            figures = {}
            # What was there before the daemon started is caught up.
            figures["catch_up_s"] = await _until(
                c, "w", "vena cava filter migration",
                lambda h: "thrombosis.pdf" in _files(h))
            # A new PDF, copied in slowly (in pieces): ingested once, complete.
            pdf = (CORPUS / "text" / "docling__2305.03393v1-pg9.pdf").read_bytes()
            with open(inbox / "tables.pdf", "wb") as f:
                for i in range(0, len(pdf), len(pdf) // 4 + 1):
                    f.write(pdf[i:i + len(pdf) // 4 + 1])
                    f.flush()
                    await asyncio.sleep(0.5)
            figures["added_s"] = await _until(c, "w", "table structure recognition",
                                              lambda h: "tables.pdf" in _files(h))
            # Nothing changed but an unrelated file: no conversion.
            before = _conversions(lib["data"])
            (inbox / "notes.txt").write_text("not a paper")
            await asyncio.sleep(8)
            figures["conversions_after_noop"] = _conversions(lib["data"]) - before
            # A changed file is replaced: other content under the same name.
            shutil.copy(CORPUS / "text" / "p2md__Flash-Masques-Temperature.pdf",
                        inbox / "tables.pdf")
            figures["changed_s"] = await _until(
                c, "w", "masque température", lambda h: any(
                    Path(x["source_path"]).name == "tables.pdf" and "masque" in x["text"].lower()
                    for x in h))
            info = (await c.call_tool("inspect", {"project": "w", "sample": 0})).data
            figures["documents_after_change"] = info["documents"]
            # A deleted file stops being answered.
            (inbox / "thrombosis.pdf").unlink()
            figures["deleted_s"] = await _until(
                c, "w", "vena cava filter migration",
                lambda h: "thrombosis.pdf" not in _files(h))
            info = (await c.call_tool("inspect", {"project": "w", "sample": 0})).data
            figures["documents_after_delete"] = info["documents"]
            return figures

    figures = asyncio.run(scenario())
    assert figures["conversions_after_noop"] == 0
    assert figures["documents_after_change"] == 2  # replaced, not added
    assert figures["documents_after_delete"] == 1
    audit = sorted((lib["data"] / "audit").glob("w-*.jsonl"))
    lines = [json.loads(line) for f in audit for line in f.read_text().splitlines()]
    assert {line.get("started_by") for line in lines if "file" in line} == {"watch"}
    # The slow copy was converted once, complete: never reported as a failure.
    assert not [line for line in lines if line.get("status") == "failed"], lines
    print(json.dumps(figures))


def test_newer_zotero_database_is_picked_up(lib: dict[str, Any], library: dict,  # noqa: F811
                                            tmp_path: Path) -> None:
    config = Path(lib["env"]["CITELOOM_CONFIG"])
    config.write_text(config.read_text() + '[projects.z]\nwatch = true\n'
                      'zotero_collections = ["Thesis"]\n')
    lib["env"].update(ZOTERO_DATA_DIR=str(library["dir"]), BBT_PORT="9")
    for var in ("ZOTERO_LOCAL", "ZOTERO_LIBRARY_ID"):
        lib["env"].pop(var, None)

    async def scenario() -> None:
        async with mcp(lib) as c:
            await c.call_tool("list_projects", {})
            await _until(c, "z", "vena cava filter migration", lambda h: bool(h))
            # Zotero saves a new item with a PDF: a newer copy of the database, written
            # through Zotero's own schema, replaces the old one.
            newer = tmp_path / "zotero.sqlite"
            shutil.copyfile(library["db"], newer)
            conn = sqlite3.connect(newer)
            article = conn.execute("SELECT itemTypeID FROM itemTypes "
                                   "WHERE typeName = 'journalArticle'").fetchone()[0]
            attachment = conn.execute("SELECT itemTypeID FROM itemTypes "
                                      "WHERE typeName = 'attachment'").fetchone()[0]
            title_field = conn.execute("SELECT fieldID FROM fields "
                                       "WHERE fieldName = 'title'").fetchone()[0]
            conn.execute("INSERT INTO items (itemID, itemTypeID, libraryID, key) "
                         "VALUES (9300, ?, 1, 'NEWPAPER')", (article,))
            conn.execute("INSERT OR IGNORE INTO itemDataValues (value) VALUES (?)",
                         ("Masques flash et température",))
            value_id = conn.execute("SELECT valueID FROM itemDataValues WHERE value = ?",
                                    ("Masques flash et température",)).fetchone()[0]
            conn.execute("INSERT INTO itemData (itemID, fieldID, valueID) VALUES (9300, ?, ?)",
                         (title_field, value_id))
            conn.execute("INSERT INTO items (itemID, itemTypeID, libraryID, key) "
                         "VALUES (9301, ?, 1, 'NEWATTCH')", (attachment,))
            conn.execute("INSERT INTO itemAttachments (itemID, parentItemID, linkMode, "
                         "contentType, path) VALUES (9301, 9300, 0, 'application/pdf', "
                         "'storage:flash.pdf')")
            conn.execute("INSERT INTO collectionItems (collectionID, itemID) VALUES (990, 9300)")
            conn.commit()
            conn.close()
            storage = library["dir"] / "storage" / "NEWATTCH"
            storage.mkdir(parents=True)
            shutil.copy(CORPUS / "text" / "p2md__Flash-Masques-Temperature.pdf",
                        storage / "flash.pdf")
            os.replace(newer, library["db"])
            await _until(c, "z", "masque flash température",
                         lambda h: any(x["zotero_key"] == "NEWPAPER" for x in h))

    asyncio.run(scenario())


def test_editing_the_config_starts_watching_without_a_restart(lib: dict[str, Any]) -> None:  # noqa: F811
    from .test_daemon import _pid, cli

    assert cli(lib, "projects").returncode == 0  # a daemon runs, nothing watched
    pid = _pid(lib["data"])
    inbox = lib["root"] / "inbox"
    inbox.mkdir()
    config = Path(lib["env"]["CITELOOM_CONFIG"])
    time.sleep(1.1)  # a new mtime even on coarse clocks
    config.write_text(config.read_text() + f'[projects.later]\nsources = ["{inbox}"]\n'
                      "watch = true\n")
    time.sleep(3)  # the daemon notices within a second or two
    shutil.copy(CORPUS / "text" / "docling__2305.03393v1-pg9.pdf", inbox / "tables.pdf")
    deadline = time.monotonic() + WITHIN_S
    while True:
        out = cli(lib, "query", "table structure recognition", "-p", "later", "--json")
        if out.returncode == 0 and json.loads(out.stdout)["hits"]:
            break
        assert time.monotonic() < deadline, out.stderr
        time.sleep(1)
    assert _pid(lib["data"]) == pid  # the same daemon: reloaded, not restarted
