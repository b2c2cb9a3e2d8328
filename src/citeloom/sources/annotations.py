"""Zotero annotations and notes: each one a small text document (nothing to convert) that
carries its item's metadata, so a highlight is found, cited and opened like any passage.

    reader.annotations() ─► in scope? (its item is among the collection's items, or a
    standalone note is in the collection) ─► unchanged? (same content and version as the
    catalog row ``zotero-annotation:<library>/<key>``) ─► skipped
                                             └─► a text Unit with a stable doc id
    finish: rows whose annotation or note is gone (deleted, trashed, emptied) are removed

A highlight's text and its comment are both in the embedded (dense and BM25) text, under a
heading made of its item's title and the section of the converted passage it marks, looked
up in the index by the attachment's document and page (:meth:`AnnotationSource._section`).
Ids come from the library and key, so an edit re-writes the same document (the pipeline
drops surplus chunks) and the catalog row holds what was indexed, by content and version.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Callable, Iterator
from typing import Any

from citeloom.errors import CiteLoomError
from citeloom.index import SearchFilter
from citeloom.index.catalog import ZOTERO_TEXT_PREFIXES, DocRecord
from citeloom.payload import SECTION_SEP, external_metadata, joined_text, section_prefixes, terms
from citeloom.report import FileResult
from citeloom.sources.base import Context, Source, Unit

SECTION_HEADING_SEP = " — "  # between an item's title and a section in a heading


def label_of(a: Any) -> str:
    """The catalog's ``source_path`` of an annotation or note."""
    return f"zotero-{a.kind}:{a.library}/{a.key}"


def doc_id_of(a: Any) -> str:
    """A stable document id: the same annotation (library and key) always gets the same."""
    return hashlib.sha256(f"zotero:{a.library}/{a.key}".encode()).hexdigest()[:32]


def annotation_body(a: Any) -> str:
    """What is indexed and shown: the highlighted text and the comment (two paragraphs),
    or the comment of a sticky note, text box, image or ink area, or the note's text (its
    headings as '#' lines). An annotation's own lines never read as headings."""
    if a.kind == "note":
        return a.text
    comment = f"Comment: {a.comment}" if a.text and a.comment else a.comment
    body = "\n\n".join(p for p in (a.text, comment) if p)
    return re.sub(r"(?m)^(#{1,6})[ \t]", "\\1\u00a0", body)


def heading(title: str | None, section_path: str | None) -> str:
    """The heading an annotation's text is embedded under: its item's title and the
    section of the passage it marks."""
    return SECTION_HEADING_SEP.join(p for p in (title, section_path) if p)


def _norm(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold()
    return re.sub(r"[^\w]+", "", text)


def _marks_headings(text: str) -> bool:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    is_heading = [bool(re.match(r"#{1,6}\s", ln)) for ln in lines]
    return any(is_heading) and not all(is_heading)


class AnnotationSource(Source):
    """The annotations and notes of a collection's items (and the standalone notes in the
    collection); ``collection=None`` for the whole library. ``items`` gives the items when a
    :class:`~citeloom.sources.zotero.ZoteroSource` listed them already."""

    name = "zotero-annotations"
    flush_points = 64  # tiny documents: write them in batches

    def __init__(self, reader: Any, collection: str | None = None, *,
                 include_subcollections: bool = False, tags_include: list[str] | None = None,
                 tags_exclude: list[str] | None = None,
                 items: Callable[[], list[Any]] | None = None) -> None:
        self.reader = reader
        self.collection = collection
        self.include_subcollections = include_subcollections
        self.tags_include = tags_include or []
        self.tags_exclude = tags_exclude or []
        self._items = items
        self._work: list[tuple[Any, Any]] = []
        self._live: set[str] = set()
        self._libraries: set[str] = set()
        self._listed = False
        self._gone: list[DocRecord] = []  # catalog rows whose annotation or note is gone
        self._col_names: dict[str, str] = {}
        self._docs: dict[tuple[str, str], tuple[str, str] | None] = {}

    # -- what there is ------------------------------------------------------------------
    def plan(self, ctx: Context) -> int:
        from citeloom.zotero import tags_match

        self._work, self._gone, self._listed = [], [], False
        if not getattr(self.reader, "reads_annotations", False):
            return 0  # an export file: no annotations, and none to remove
        try:
            items = (self._items() if self._items is not None else list(self.reader.items(
                collection=self.collection, include_subcollections=self.include_subcollections,
                tags_include=self.tags_include, tags_exclude=self.tags_exclude)))
            scope = self.reader.scope(self.collection, self.include_subcollections)
            listing = self.reader.annotations()
            self._col_names = {c.key: c.name for c in self.reader.collections()}
        except CiteLoomError as exc:  # the PDFs are still indexed; nothing is removed
            ctx.report.warnings.append(exc.to_dict())
            return 0
        self._listed = True
        libraries = {item.key: item.library_path or "library" for item in items}
        by_item = {(libraries[i.key], i.key): i for i in items}
        by_attachment = {(libraries[i.key], att.key): i for i in items for att in i.attachments}
        self._live = {label_of(a) for a in listing if a.indexable}
        self._libraries = {a.library for a in listing} | set(libraries.values())
        for a in listing:
            if not a.indexable:
                continue
            if a.kind == "annotation":
                item = by_attachment.get((a.library, a.parent_key))
            elif a.parent_key:
                item = by_item.get((a.library, a.parent_key))
            else:  # a standalone note: in the collection, with the tags asked for
                item = None
                if scope is not None and not scope & set(a.collection_keys):
                    continue
                if not tags_match(a.tags, self.tags_include, self.tags_exclude):
                    continue
            if item is not None or (a.kind == "note" and not a.parent_key):
                self._work.append((a, item))
        self._work.sort(key=lambda w: (w[1].key if w[1] else "", w[0].page_index or 0,
                                       w[0].sort_index, w[0].key))
        self._gone = [rec for rec in ctx.catalog.all() if self._is_gone(rec.source_path)]
        return len(self._work) + len(self._gone)

    def _is_gone(self, source_path: str) -> bool:
        """An annotation or note of a library read now that is no longer in it."""
        if not source_path.startswith(ZOTERO_TEXT_PREFIXES) or source_path in self._live:
            return False
        return source_path.split(":", 1)[1].rsplit("/", 1)[0] in self._libraries

    def units(self, ctx: Context) -> Iterator[Unit | FileResult]:
        for a, item in self._work:
            label, meta = label_of(a), self._meta(a, item)
            body = annotation_body(a)
            content_hash = hashlib.sha256(json.dumps([body, meta], sort_keys=True,
                                                     default=str).encode()).hexdigest()[:32]
            who = (item.citekey or item.key) if item else "standalone note"
            note = (f"{who}: {a.type} p. {a.page}" if a.page else f"{who}: {a.kind}"
                    ) + (f" ({a.color})" if a.color else "")
            previous = ctx.catalog.by_source(label)
            done = next((r for r in previous if r.content_hash == content_hash
                         and r.zotero_version == a.version
                         and ctx.index.count(r.doc_id) == r.chunks), None)
            if done is not None:
                yield FileResult(label, "skipped", doc_id=done.doc_id, chunks=done.chunks,
                                 note=note)
                continue
            title = ""
            if a.kind == "annotation":
                title, chain = self._context(ctx, a, item)
                meta["title"] = meta.get("title") or title or None
                meta.update(section_path=SECTION_SEP.join(chain), heading_chain=chain,
                            section_prefixes=section_prefixes(chain))
                title = heading(meta["title"], meta["section_path"])
            yield Unit(label=label, text=body, title=title, doc_id=doc_id_of(a),
                       content_hash=content_hash, meta=meta, zotero_version=a.version,
                       skip_unchanged=False, record=True,
                       headings=a.kind == "annotation" or _marks_headings(body), note=note,
                       previous=previous)

    def finish(self, ctx: Context) -> Iterator[FileResult]:
        """Remove the annotations and notes of the libraries read that are gone from them
        (deleted, in the trash, or an image with its comment emptied)."""
        if not self._listed:
            return
        for rec in self._gone:
            ctx.index.delete_doc(rec.doc_id)
            ctx.catalog.delete(rec.doc_id)
            yield FileResult(rec.source_path, "removed", doc_id=rec.doc_id, chunks=rec.chunks,
                             note=f"{rec.title[:60]}: gone from Zotero")

    # -- one annotation ------------------------------------------------------------------
    def _meta(self, a: Any, item: Any) -> dict[str, Any]:
        """The item's metadata with the annotation's own fields (its key as ``zotero_key``,
        the item's as ``zotero_item``)."""
        from citeloom.zotero import item_payload

        own = {"kind": a.kind, "zotero_key": a.key, "zotero_library": a.library,
               "annotation_author": a.author}
        if item is None:  # a standalone note
            return {**own, "title": a.title, "tags": list(a.tags),
                    "collections": [self._col_names[k] for k in a.collection_keys
                                    if k in self._col_names]}
        meta = {**item_payload(item), **own, "zotero_item": item.key,
                "tags": sorted({*item.tags, *a.tags})}
        if a.kind == "annotation":
            meta.update(zotero_attachment=a.parent_key, annotation_type=a.type,
                        page_start=a.page, page_end=a.page, page_label=a.page_label,
                        color=a.color, sort_index=a.sort_index)
        return meta

    def _context(self, ctx: Context, a: Any, item: Any) -> tuple[str, list[str]]:
        """The title of the attachment's indexed document, and the heading chain of its
        chunk on the annotation's page that holds the highlighted text (``[]`` when the
        PDF is not indexed, or no chunk there holds it)."""
        doc = self._document(ctx, item, a.parent_key)
        if doc is None:
            return "", []
        doc_id, title = doc
        if a.page is None or not a.text:
            return title, []
        fields = ["page_start", "page_end", "heading_chain", "chunk_text"]
        flt = SearchFilter(page_from=max(1, a.page - 1), page_to=a.page)
        chunks = [h.payload for h in ctx.index.scroll(doc_id, batch=64, fields=fields, flt=flt)
                  if (h.payload.get("page_end") or h.payload.get("page_start") or 0) >= a.page]
        want = _norm(a.text)[:120]
        for p in chunks:
            if want and want in _norm(p.get("chunk_text", "")):
                return title, list(p.get("heading_chain") or [])
        words = terms(a.text)
        best, best_share = None, 0.6  # at least 60 % of the highlight's words
        for p in chunks:
            share = len(words & terms(p.get("chunk_text", ""))) / max(1, len(words))
            if share > best_share:
                best, best_share = p, share
        return title, list(best.get("heading_chain") or []) if best else []

    def _document(self, ctx: Context, item: Any, attachment: str) -> tuple[str, str] | None:
        """The indexed document of an attachment (its doc id and title), from the catalog
        rows of the item, checked against the attachment key its chunks carry."""
        key = (item.key, attachment)
        if key not in self._docs:
            found, loose = None, []
            for rec in ctx.catalog.by_zotero_key(item.key):
                if rec.source_path.startswith(ZOTERO_TEXT_PREFIXES):
                    continue
                first = next(iter(ctx.index.scroll(rec.doc_id, batch=1, fields=[
                    "zotero_attachment", "title"])), None)
                if first is None:
                    continue
                doc = (rec.doc_id, first.payload.get("title") or rec.title)
                if first.payload.get("zotero_attachment") == attachment:
                    found = doc
                    break
                if not first.payload.get("zotero_attachment"):
                    loose.append(doc)  # a folder PDF matched to the item
            self._docs[key] = found or (loose[0] if len(loose) == 1 else None)
        return self._docs[key]


def rebuilt_unit(rec: DocRecord, payloads: list[dict[str, Any]]) -> Unit:
    """An annotation or note again, from what its chunks store (for a reindex, which reads
    the old index rather than Zotero): its text, its metadata, its headings."""
    payloads = sorted(payloads, key=lambda p: p.get("chunk_index", 0))
    meta = external_metadata(payloads[0]) or {}
    if meta.get("kind") == "annotation":
        text = "\n\n".join(p.get("chunk_text", "") for p in payloads)
        return Unit(label=rec.source_path, text=text, doc_id=rec.doc_id,
                    title=heading(meta.get("title"), meta.get("section_path")),
                    content_hash=rec.content_hash, meta=meta,
                    zotero_version=rec.zotero_version, skip_unchanged=False, headings=True)
    text = joined_text(payloads)
    return Unit(label=rec.source_path, text=text, doc_id=rec.doc_id, title="",
                content_hash=rec.content_hash, meta=meta, zotero_version=rec.zotero_version,
                skip_unchanged=False, headings=_marks_headings(text))
