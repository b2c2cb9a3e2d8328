"""Plain texts, indexed without a file or a conversion: each becomes a one-section document
under its title, chunked like a converted one. The retrieval evaluation (SciFact) uses it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..report import FileResult
from .base import Context, Source, Unit


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
