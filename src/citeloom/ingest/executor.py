"""Executors: where the heavy part of an ingest runs — convert, restructure, chunk, embed.

The pipeline hands an executor a stream of :class:`Job` (and results already decided, which
pass straight through) and gets back, per job, a :class:`Prepared` document or the error
that stopped it. :class:`InProcess` runs each job here, one after the other, with the
service's own conversion worker and models. Another executor (a pool of worker processes,
a cluster) is one more :class:`Executor` subclass: jobs and results are plain data.
"""

from __future__ import annotations

import re
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from citeloom.errors import CiteLoomError, ConversionFailed, InvalidInput
from citeloom.report import FileResult
from citeloom.sources import Unit

if TYPE_CHECKING:
    from docling_core.types.doc import DoclingDocument

    from citeloom.config import ProjectConfig
    from citeloom.embed.chunk import Chunk, Chunker
    from citeloom.embed.encoders import DenseEmbedder, SparseEmbedder


@dataclass
class Job:
    """A unit the pipeline decided to (re)index, with its identity."""

    unit: Unit
    doc_id: str
    content_hash: str
    size: int = 0
    mtime_ns: int = 0
    started: float = field(default_factory=time.perf_counter)


@dataclass
class Prepared:
    """A document ready to write: its chunks and their vectors."""

    chunks: list[Chunk]
    dense: Any  # one dense vector per chunk (numpy rows)
    sparse: list[Any]  # one embed.Sparse per chunk
    title: str
    pages: int
    first_pages: str  # text of pages 1-2, to match a file to a Zotero item
    meta: dict[str, Any] = field(default_factory=dict)  # found in the file (pdfmeta.py)
    warnings: list[dict[str, str]] = field(default_factory=list)  # e.g. CACHE_DAMAGED
    health: dict[str, Any] | None = None  # health.DocHealth of a converted file
    # The peak resident MB of the worker process that prepared it, by step (a pool or Ray
    # worker: "convert", "prepare"); None in process.
    worker_mb: dict[str, int] | None = None


Outcome = tuple[Job, Prepared | CiteLoomError]


class Resources(Protocol):
    """What preparing a document needs: the runtime in this process
    (:class:`citeloom.runtime.Runtime`), or a pool worker's or Ray actor's own
    (:class:`citeloom.ingest.tasks.WorkerSide`)."""

    def convert(self, path: Path, project: ProjectConfig, content_hash: str,
                ocr_languages: list[str] | None = None,
                warnings: list[dict[str, str]] | None = None) -> DoclingDocument: ...

    def chunker(self, project: ProjectConfig) -> Chunker: ...

    def dense(self, model_id: str) -> DenseEmbedder: ...

    def sparse(self) -> SparseEmbedder: ...


class Executor(ABC):
    #: What reports call it (``IngestReport.executor``); may be refined while it runs.
    name: str = "in process"

    @abstractmethod
    def run(self, work: Iterable[Job | FileResult], project: ProjectConfig
            ) -> Iterator[Outcome | FileResult]:
        """Prepare every job of ``work``; pass the ready results through, in order where
        the executor can keep it."""


class InProcess(Executor):
    """Each job in this process, in order (the conversion itself runs in the service's
    worker process, with its timeout)."""

    def __init__(self, resources: Resources) -> None:
        self.resources = resources  # the runtime: convert(), chunker(), dense(), sparse()

    def run(self, work: Iterable[Job | FileResult], project: ProjectConfig
            ) -> Iterator[Outcome | FileResult]:
        for job in work:
            if isinstance(job, FileResult):
                yield job
                continue
            try:
                yield job, prepare(job, project, self.resources)
            except CiteLoomError as exc:
                yield job, exc
            except Exception as exc:  # one bad file must never stop the batch
                name = job.unit.path.name if job.unit.path else job.unit.label
                yield job, ConversionFailed(f"{name}: {type(exc).__name__}: {exc}")


def prepare(job: Job, project: ProjectConfig, res: Resources) -> Prepared:
    """Convert (or take the text of) one unit, chunk it and embed the chunks."""
    from citeloom.convert.health import ledger_of

    unit = job.unit
    warnings: list[dict[str, str]] = []
    doc_health: dict[str, Any] | None = None
    if unit.text is not None:
        doc = text_document(job.doc_id, unit.title, unit.text, headings=unit.headings)
        chunks = res.chunker(project).chunk(doc)
        title, first_pages, meta = unit.title, "", {}
    else:
        assert unit.path is not None
        doc = res.convert(unit.path, project, job.content_hash, unit.ocr_languages,
                          warnings=warnings)
        doc_health = ledger_of(doc).as_dict()
        chunks, title, doc = chunk_document(res, doc, unit.path, project)
        meta = file_metadata(doc, unit.path, title, project)
        first_pages = "\n".join(
            getattr(item, "text", "") for item, _ in doc.iterate_items()
            if any(p.page_no <= 2 for p in getattr(item, "prov", [])))
    if not chunks:
        name = unit.path.name if unit.path else unit.label
        if doc_health is not None and doc_health["unreadable"]:
            raise InvalidInput(
                f"{name}: no page has readable text ({doc_health['unreadable']} page(s) "
                "unreadable: no Unicode map for its fonts, and neither PDFium's text nor "
                "OCR read them as words)",
                "check the PDF opens with text in a viewer; turn OCR on for the project "
                "if it is off, or get another copy of the paper")
        raise InvalidInput(f"{name}: no text found",
                           "the file may be empty, or scanned with OCR disabled")
    texts = [c.embed_text for c in chunks]
    # the dense model reads each passage after the end of the one before (chunker v2)
    dense = res.dense(project.dense_model).embed_passages([c.dense_text for c in chunks])
    if project.sparse_model != "none":
        sparse = res.sparse().embed(texts)
    else:
        from citeloom.embed.encoders import Sparse

        sparse = [Sparse([], []) for _ in texts]
    pages = doc.num_pages() if unit.text is None else 0
    return Prepared(chunks, dense, sparse, title, pages, first_pages, meta, warnings,
                    doc_health)


def file_metadata(doc: DoclingDocument, path: Any, title: str, project: ProjectConfig
                  ) -> dict[str, Any]:
    """Title, authors, year and DOI the file itself states (``pdfmeta``), with their
    origin; a source's own metadata (Zotero's) wins over them in the pipeline."""
    from citeloom.structure.metadata import document_metadata

    password = project.pdf_password_text
    return document_metadata(doc, path, title, password=password)


_MD_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+)$")


def text_document(name: str, title: str, text: str, *, headings: bool = False
                  ) -> DoclingDocument:
    """A one-section document: the title as its heading, the text as one paragraph. With
    ``headings``, lines ``# …`` to ``###### …`` are headings (under the title, if any) and
    every other line a paragraph of its own, so a long note chunks along its own sections
    and its lines stay lines."""
    from docling_core.types.doc import DocItemLabel, DoclingDocument

    doc = DoclingDocument(name=name)
    if title:
        doc.add_heading(text=title, level=1)
    if not headings:
        doc.add_text(label=DocItemLabel.TEXT, text=text)
        return doc
    shift = 1 if title else 0
    for line in (ln.strip() for ln in text.splitlines()):
        m = _MD_HEADING.match(line)
        if m is not None:
            doc.add_heading(text=m.group(2).strip(), level=min(len(m.group(1)) + shift, 6))
        elif line:
            doc.add_text(label=DocItemLabel.TEXT, text=line)
    return doc


def chunk_document(res: Resources, doc: DoclingDocument, path: Any, project: ProjectConfig
                   ) -> tuple[list[Chunk], str, DoclingDocument]:
    """Heading levels, title, normalised text (``structure.restructure``, applied to the
    cached conversion so rule changes need no reconversion), then chunks and the title."""
    from citeloom.structure.restructure import restructure
    from citeloom.structure.titles import title_of

    pdf = path if path.suffix.lower() == ".pdf" and path.is_file() else None
    password = project.pdf_password_text
    doc = restructure(doc, pdf_path=pdf, password=password)
    chunks = res.chunker(project).chunk(doc)
    return chunks, title_of(doc, path, password), doc
