"""The Zotero layer: read a library (database, Web API, local API or export file), give its
items citekeys, match PDFs to items, and write citations back out.

    reader = make_reader(**settings.zotero.kwargs())  # from ZOTERO_* (config.ZoteroSettings), or
    reader = make_reader("sqlite", data_dir=Path("~/Zotero").expanduser())
    for item in reader.items(collection="Thesis", include_subcollections=True):
        for att in item.attachments:
            if att.is_pdf and att.has_file:
                pdf = reader.fetch_attachment(att, tmp_dir)
                payload = item_payload(item)             # stored with every chunk

See docs/ZOTERO.md for configuration, the citekey order and the matching rules.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from citeloom.errors import ConfigError
from citeloom.zotero.annotations import Annotation, note_text
from citeloom.zotero.base import (
    DEFAULT_OCR_LANGUAGES,
    Attachment,
    Collection,
    Creator,
    ZoteroItem,
    ZoteroReader,
    find_collection,
    item_payload,
    normalise_doi,
    ocr_languages,
    parse_year,
    tags_match,
)
from citeloom.zotero.bbt import (
    JURIS_M_PORT,
    ZOTERO_PORT,
    BbtKeys,
    BetterBibTeX,
    BetterBibTeXError,
    extra_citekey,
    read_bbt_citekeys,
    resolve_citekeys,
)
from citeloom.zotero.export import ExportFileReader, to_bibtex, to_csl_json
from citeloom.zotero.match import ItemMatcher, match_item
from citeloom.zotero.sqlite import SqliteReader, default_data_dir
from citeloom.zotero.web import LocalApiReader, WebApiReader

Source = Literal["sqlite", "web", "local", "file"]

__all__ = [
    "DEFAULT_OCR_LANGUAGES", "JURIS_M_PORT", "ZOTERO_PORT", "Annotation", "Attachment",
    "BbtKeys",
    "BetterBibTeX", "BetterBibTeXError", "Collection", "Creator", "ExportFileReader",
    "ItemMatcher", "LocalApiReader", "SqliteReader", "WebApiReader",
    "ZoteroItem", "ZoteroReader", "default_data_dir", "extra_citekey",
    "find_collection", "item_payload", "make_reader", "match_item", "normalise_doi",
    "note_text",
    "ocr_languages", "parse_year", "read_bbt_citekeys", "resolve_citekeys", "to_bibtex",
    "tags_match", "to_csl_json",
]


def make_reader(
    source: Source = "sqlite",
    *,
    data_dir: Path | None = None,
    attachments_base_dir: Path | None = None,
    library_id: str | int | None = None,
    library_type: str = "user",
    api_key: str | None = None,
    export_path: Path | None = None,
    local_port: int = ZOTERO_PORT,
    bbt_port: int = ZOTERO_PORT,
    use_bbt: bool = True,
    include_feeds: bool = False,
) -> ZoteroReader:
    """A reader for ``source``:

    - ``"sqlite"``: ``data_dir`` (default ``~/Zotero``) holding zotero.sqlite;
    - ``"web"``: ``library_id`` + ``library_type`` + ``api_key`` (``data_dir`` optional,
      to use files Zotero desktop synced);
    - ``"local"``: Zotero 7's local API on ``local_port``;
    - ``"file"``: ``export_path`` to a Better BibTeX JSON or CSL-JSON export.

    ``use_bbt`` asks Better BibTeX's JSON-RPC on ``bbt_port`` for live citekeys (not for
    export files, whose keys came from BBT already).
    """
    bbt = BetterBibTeX(port=bbt_port) if use_bbt and source != "file" else None
    if source == "sqlite":
        return SqliteReader(data_dir, attachments_base_dir=attachments_base_dir, bbt=bbt,
                            include_feeds=include_feeds)
    if source == "web":
        if library_id is None:
            raise ConfigError("the Zotero Web API needs a library ID",
                              "set ZOTERO_LIBRARY_ID (numeric userID or group ID) and "
                              "ZOTERO_API_KEY")
        return WebApiReader(library_id, library_type, api_key, data_dir=data_dir, bbt=bbt)
    if source == "local":
        return LocalApiReader(local_port, data_dir=data_dir, bbt=bbt)
    if source == "file":
        if export_path is None:
            raise ConfigError("no export file given",
                              "pass the path of a Better BibTeX JSON or CSL-JSON export")
        return ExportFileReader(export_path)
    raise ConfigError(f"unknown Zotero source {source!r}", "use sqlite, web, local or file")
