"""What a source is: something that offers documents to ingest, one :class:`Unit` each.

The pipeline (``service.pipeline``) runs one loop over any source: it asks the source what
there is (:meth:`Source.plan`, for progress), takes its units one by one, skips what the
catalog says is unchanged, has an executor convert, chunk and embed the rest, writes the
points and catalog rows, and lets the source finish (a prune, say). A new source is one
module with one :class:`Source` subclass.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citeloom.index.catalog import Catalog, DocRecord
from citeloom.report import FileResult, IngestReport


@dataclass
class Unit:
    """One document a source offers: a file to convert, or a text to index as it is."""

    label: str  # what reports call it: a path, or an id
    path: Path | None = None
    text: str | None = None  # a plain text (no file, no conversion)
    title: str = ""  # the title of a text, or a title to prefer over the document's own
    doc_id: str | None = None  # known for texts and catalog records; else from the content
    content_hash: str | None = None
    meta: dict[str, Any] | None = None  # metadata stored with every chunk (Zotero's, say)
    zotero_version: int | None = None
    size: int = 0  # the file's size and mtime as the catalog knows them (reindex keeps them)
    mtime_ns: int = 0
    ocr_languages: list[str] | None = None
    skip_unchanged: bool = True  # may be skipped when the catalog has it, unchanged
    record: bool = True  # written to the catalog (texts are not: they have no file)
    # The text marks headings as Markdown '#' lines and separates paragraphs by blank lines
    # (a Zotero note; an annotation's highlight and comment).
    headings: bool = False
    note: str = ""
    previous: list[DocRecord] = field(default_factory=list)  # filled by the pipeline


@dataclass
class Context:
    """What a source may look at while the pipeline runs."""

    project: Any  # config.ProjectConfig
    index: Any  # index.Index being written
    catalog: Catalog
    report: IngestReport


class Source(ABC):
    """Documents to ingest. ``name`` shows in reports and the audit log."""

    name: str = "source"
    #: Points written together: 0 writes each document as soon as it is ready (a killed
    #: ingest loses at most the document at hand); texts batch for speed.
    flush_points: int = 0
    #: Optimize the index at the end whatever the caller says (a one-off bulk build).
    always_optimize: bool = False

    @abstractmethod
    def plan(self, ctx: Context) -> int:
        """Look up what there is to do; return how many units :meth:`units` will give."""

    @abstractmethod
    def units(self, ctx: Context) -> Iterator[Unit | FileResult]:
        """The units, or a failed :class:`FileResult` for one that cannot be read."""

    def pages(self) -> dict[str, int]:
        """After :meth:`plan`: the pages of each planned unit, by label, for the time-left
        estimate (default: not known, and the estimate goes by files)."""
        return {}

    def metadata(self, unit: Unit, first_pages: str, result: FileResult
                 ) -> dict[str, Any] | None:
        """Metadata for the unit's chunks, once its text is known (default: the unit's)."""
        return unit.meta

    def finish(self, ctx: Context) -> Iterator[FileResult]:
        """Work after the last unit (a prune of vanished files, say)."""
        return iter(())


class ChainSource(Source):
    """Sources run one after the other as one ingest (one report, one progress total): a
    Zotero collection's PDFs, then their annotations and notes, which look the PDFs up."""

    def __init__(self, *sources: Source, name: str | None = None) -> None:
        self.sources = list(sources)
        self.name = name or sources[0].name
        self._current = sources[0]
        self._owner: dict[int, Source] = {}  # id(unit) -> the source that gave it

    @property  # type: ignore[override]
    def flush_points(self) -> int:
        return self._current.flush_points

    @property  # type: ignore[override]
    def always_optimize(self) -> bool:
        return any(s.always_optimize for s in self.sources)

    def plan(self, ctx: Context) -> int:
        return sum(s.plan(ctx) for s in self.sources)

    def units(self, ctx: Context) -> Iterator[Unit | FileResult]:
        for source in self.sources:
            self._current = source
            for unit in source.units(ctx):
                if isinstance(unit, Unit):
                    self._owner[id(unit)] = source
                yield unit

    def metadata(self, unit: Unit, first_pages: str, result: FileResult
                 ) -> dict[str, Any] | None:
        return self._owner.pop(id(unit), self._current).metadata(unit, first_pages, result)

    def finish(self, ctx: Context) -> Iterator[FileResult]:
        for source in self.sources:
            yield from source.finish(ctx)
