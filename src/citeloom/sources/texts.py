"""Plain texts, indexed without a file or a conversion: each becomes a one-section document
under its title, chunked like a converted one. The retrieval evaluation (SciFact) uses it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from citeloom.report import FileResult
from citeloom.sources.base import Context, Source, Unit


@dataclass
class TextDoc:
    """A document given as text."""

    doc_id: str
    title: str
    text: str
    source: str = ""
    payload: dict[str, Any] = field(default_factory=dict)


class TextSource(Source):
    name = "texts"
    flush_points = 256  # thousands of short texts: write them in batches
    always_optimize = True  # a bulk build, queried right after

    def __init__(self, docs: list[TextDoc]) -> None:
        self.docs = docs

    def plan(self, ctx: Context) -> int:
        return len(self.docs)

    def units(self, ctx: Context) -> Iterator[Unit | FileResult]:
        for d in self.docs:
            yield Unit(label=d.source or d.doc_id, text=d.text, title=d.title, doc_id=d.doc_id,
                       content_hash=d.doc_id, meta=d.payload, skip_unchanged=False,
                       record=False)


class IndexedTextSource(Source):
    """Texts again, from the passages the index holds: a reindex rebuilds a document that
    was given as text (:class:`TextSource`) from them, since it has no file, no cached
    conversion and no catalog row. ``payloads``: each document's chunk payloads."""

    name = "texts"
    flush_points = TextSource.flush_points

    def __init__(self, payloads: dict[str, list[dict[str, Any]]]) -> None:
        self.payloads = payloads

    def plan(self, ctx: Context) -> int:
        return len(self.payloads)

    def units(self, ctx: Context) -> Iterator[Unit | FileResult]:
        for doc_id, chunks in self.payloads.items():
            chunks = sorted(chunks, key=lambda p: p.get("chunk_index") or 0)
            first = chunks[0]
            yield Unit(label=first.get("source_path") or doc_id, doc_id=doc_id,
                       text="\n\n".join(p.get("chunk_text", "") for p in chunks),
                       title=first.get("title") or "", skip_unchanged=False, record=False,
                       content_hash=first.get("content_hash") or doc_id)


def is_text_document(payload: dict[str, Any]) -> bool:
    """Whether a chunk is of a document given as text: a passage with no page whose
    source is not a file (a file's chunks name its absolute path)."""
    source = payload.get("source_path") or ""
    return ((payload.get("kind") or "passage") == "passage"
            and payload.get("page_start") is None and not source.startswith("/"))
