"""A project's own catalog, for ``reindex``: every indexed document again, from its cached
conversion (or its file, if unchanged), into a new generation; Zotero annotations and notes
from the text their chunks store."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from citeloom.errors import SourceNotFound
from citeloom.index.catalog import DocRecord, is_file_source
from citeloom.provision import sha256_file
from citeloom.report import FileResult
from citeloom.sources.annotations import rebuilt_unit
from citeloom.sources.base import Context, Source, Unit


class CatalogSource(Source):
    name = "reindex"

    def __init__(self, records: list[DocRecord], cached: Callable[[str], bool],
                 meta_of: Callable[[str], dict[str, Any] | None],
                 chunks_of: Callable[[str], list[dict[str, Any]]] | None = None) -> None:
        self.records = records
        self.cached = cached  # is a conversion of this content hash in the cache?
        self.meta_of = meta_of  # the document's stored metadata (Zotero's), or None
        self.chunks_of = chunks_of  # a document's chunk payloads (annotations, notes)

    def plan(self, ctx: Context) -> int:
        return len(self.records)

    def units(self, ctx: Context) -> Iterator[Unit | FileResult]:
        for rec in self.records:
            if not is_file_source(rec.source_path):  # a Zotero annotation or note
                payloads = self.chunks_of(rec.doc_id) if self.chunks_of else []
                if payloads:
                    yield rebuilt_unit(rec, payloads)
                else:
                    err = SourceNotFound(f"{rec.source_path} has no chunks to rebuild from",
                                         "sync the Zotero collection again after the reindex")
                    yield FileResult(rec.source_path, "failed", doc_id=rec.doc_id,
                                     error=err.to_dict())
                continue
            path = Path(rec.source_path)
            if not self.cached(rec.content_hash) and (
                    not path.is_file() or sha256_file(path) != rec.content_hash):
                err = SourceNotFound(f"{path} is gone or changed, and its conversion is not "
                                     "cached", "re-ingest it after the reindex")
                yield FileResult(rec.source_path, "failed", doc_id=rec.doc_id,
                                 error=err.to_dict())
                continue
            yield Unit(label=rec.source_path, path=path, doc_id=rec.doc_id,
                       content_hash=rec.content_hash, skip_unchanged=False,
                       meta=self.meta_of(rec.doc_id), zotero_version=rec.zotero_version,
                       size=rec.size, mtime_ns=rec.mtime_ns)
