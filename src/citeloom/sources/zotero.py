"""A Zotero collection (or the whole library): the PDF attachments of its items, each with
the item's metadata. Items whose Zotero version is unchanged are skipped by the pipeline;
items without a PDF are listed in the report."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from citeloom.errors import CiteLoomError
from citeloom.report import FileResult
from citeloom.sources.base import Context, Source, Unit


class ZoteroSource(Source):
    name = "zotero"

    def __init__(self, reader: Any, collection: str | None, *, downloads: Path,
                 include_subcollections: bool = False, tags_include: list[str] | None = None,
                 tags_exclude: list[str] | None = None) -> None:
        self.reader = reader
        self.collection = collection
        self.downloads = downloads  # where attachments from the Web API are saved
        self.include_subcollections = include_subcollections
        self.tags_include = tags_include or []
        self.tags_exclude = tags_exclude or []
        self._work: list[tuple[Any, Any]] = []
        self.items: list[Any] = []  # what plan() found (the annotations source reads them)

    def plan(self, ctx: Context) -> int:
        items = self.items = list(self.reader.items(
            collection=self.collection, include_subcollections=self.include_subcollections,
            tags_include=self.tags_include, tags_exclude=self.tags_exclude))
        self._work = []
        for item in items:
            pdfs = [a for a in item.attachments if a.is_pdf and a.has_file]
            if not pdfs:
                ctx.report.items_without_pdf.append(
                    {"zotero_key": item.key, "citekey": item.citekey, "title": item.title})
            self._work.extend((item, att) for att in pdfs)
        return len(self._work)

    def units(self, ctx: Context) -> Iterator[Unit | FileResult]:
        from citeloom.zotero import item_payload, ocr_languages

        for item, att in self._work:
            note = f"{item.citekey or item.key}: {item.title[:60]}"
            try:
                path = self.reader.fetch_attachment(att, self.downloads)
            except CiteLoomError as exc:
                yield FileResult(str(att.path or att.filename), "failed", error=exc.to_dict(),
                                 note=note)
                continue
            yield Unit(label=str(path.resolve()), path=path,
                       meta={**item_payload(item), "zotero_key": item.key,
                             "zotero_attachment": att.key},
                       zotero_version=item.version, note=note,
                       ocr_languages=ocr_languages(item.language) if item.language else None)
