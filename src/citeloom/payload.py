"""The chunk payload: the one place that says what every indexed passage carries, which of
its fields the index keeps payload indexes on, and how a hit is read back and serialised.

    write:   chunk + document + metadata ─► :func:`chunk_payload` ─► index
    read:    index hit ─► :func:`passage` ─► :class:`Passage` ─► :func:`hit_json` (CLI --json, MCP)

A new payload field is one edit here (and a test): add it to :func:`chunk_payload`, to a
``*_FIELDS`` tuple if filters need it indexed, to :class:`Passage` if hits should show it.
Nothing here imports the index, the models or Docling, so a query reads hits cheaply.
"""

from __future__ import annotations

import uuid
from dataclasses import asdict, dataclass, field
from typing import Any

SECTION_SEP = " > "
CHUNK_NAMESPACE = uuid.UUID("6f1c1a52-3c1e-4d59-9a57-0d1f3c2b7e10")

# Payload indexes: the design's six, plus the fields the other filters use.
KEYWORD_FIELDS = ("project_id", "doc_id", "citekey", "tags", "zotero_key", "source_path",
                  "authors", "collections", "item_labels", "section_prefixes")
INTEGER_FIELDS = ("year", "page_start")
TEXT_FIELDS = ("chunk_text",)

# Document metadata every chunk carries, with its value when nothing better is known.
# Zotero (``zotero.item_payload``) or a source fills them; ``None`` values never overwrite.
DOCUMENT_FIELDS: dict[str, Any] = {
    "citekey": None, "title": "", "authors": [], "year": None, "doi": None, "tags": [],
    "collections": [], "zotero_key": None, "language": None,
}

# Metadata a document got from outside its file (Zotero), kept when it is re-indexed.
EXTERNAL_FIELDS = (*DOCUMENT_FIELDS, "url", "zotero_library", "zotero_attachment")


def external_metadata(payload: dict[str, Any]) -> dict[str, Any] | None:
    """The Zotero metadata stored with a chunk, or None for a document that had none."""
    if not payload.get("zotero_key"):
        return None
    return {k: payload[k] for k in EXTERNAL_FIELDS if payload.get(k) is not None}


def chunk_id(doc_id: str, chunk_index: int, dense_model: str) -> str:
    """Deterministic point id: the same document, chunk and model always give the same id."""
    return str(uuid.uuid5(CHUNK_NAMESPACE, f"{doc_id}:{chunk_index}:{dense_model}"))


def section_prefixes(heading_chain: list[str]) -> list[str]:
    """Every heading-boundary prefix of a section path, for the section-prefix filter."""
    return [SECTION_SEP.join(heading_chain[: i + 1]) for i in range(len(heading_chain))]


def chunk_payload(chunk: Any, *, project: str, doc_id: str, content_hash: str, source: str,
                  title: str, chunk_count: int, dense_model: str,
                  meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """What the index stores with one chunk (a :class:`citeloom.chunk.Chunk`)."""
    return {
        "project_id": project,
        "doc_id": doc_id,
        **DOCUMENT_FIELDS,
        "title": title,
        "source_path": source,
        "section_path": SECTION_SEP.join(chunk.heading_chain),
        "section_prefixes": section_prefixes(chunk.heading_chain),
        "heading_chain": chunk.heading_chain,
        "page_start": chunk.page_start,
        "page_end": chunk.page_end,
        "chunk_index": chunk.index,
        "doc_chunk_count": chunk_count,
        "chunk_text": chunk.text,
        "content_hash": content_hash,
        "item_labels": chunk.item_labels,
        "embed_model": dense_model,
        **{k: v for k, v in (meta or {}).items() if v is not None},
    }


# -- reading hits back -----------------------------------------------------------------------
@dataclass
class Passage:
    """One citable hit."""

    rank: int
    score: float
    citekey: str | None
    title: str
    authors: list[str]
    year: int | None
    page_start: int | None
    page_end: int | None
    section_path: str
    text: str
    doc_id: str
    chunk_id: str
    source_path: str
    item_labels: list[str] = field(default_factory=list)
    zotero_key: str | None = None  # the Zotero item (or standalone PDF) it came from
    zotero_link: str | None = None  # zotero://open-pdf/... at the page, or zotero://select/...

    @property
    def pages(self) -> str:
        if self.page_start is None:
            return "?"
        if self.page_end in (None, self.page_start):
            return f"p. {self.page_start}"
        return f"pp. {self.page_start}-{self.page_end}"


def zotero_link(payload: dict[str, Any]) -> str | None:
    """A link that opens the passage in Zotero: the PDF at its first page when the chunk
    came from a Zotero attachment, else the item selected; None outside Zotero."""
    library = payload.get("zotero_library") or "library"
    if payload.get("zotero_attachment"):
        page = payload.get("page_start")
        return (f"zotero://open-pdf/{library}/items/{payload['zotero_attachment']}"
                + (f"?page={page}" if page else ""))
    if payload.get("zotero_key"):
        return f"zotero://select/{library}/items/{payload['zotero_key']}"
    return None


def shorten(text: str, max_chars: int) -> str:
    """``text`` cut at a word boundary to at most ``max_chars`` characters, marked ``…``."""
    if len(text) <= max_chars:
        return text
    return text[:max_chars].rsplit(" ", 1)[0] + " …"


def passage(rank: int, hit: Any, max_chars: int) -> Passage:
    """A citable passage from an index hit (anything with ``id``, ``score``, ``payload``)."""
    p = hit.payload
    return Passage(
        rank=rank,
        score=round(hit.score, 6),
        citekey=p.get("citekey"),
        title=p.get("title", ""),
        authors=p.get("authors") or [],
        year=p.get("year"),
        page_start=p.get("page_start"),
        page_end=p.get("page_end"),
        section_path=p.get("section_path", ""),
        text=shorten(p.get("chunk_text", ""), max_chars),
        doc_id=p.get("doc_id", ""),
        chunk_id=hit.id,
        source_path=p.get("source_path", ""),
        item_labels=p.get("item_labels") or [],
        zotero_key=p.get("zotero_key"),
        zotero_link=zotero_link(p),
    )


def hit_json(p: Passage) -> dict[str, Any]:
    """A hit as JSON, the same for the CLI's ``--json`` and the MCP tools."""
    return asdict(p)
