"""The health ledger: how well each document's pages were read, kept with its conversion
and in the catalog.

    conversion (ocr.py's ladder, per page) ─► attach_ledger: doc.body.meta
    cached conversion ─► ledger_of ─► DocHealth ─► catalog row, ingest report, inspect,
                                                   `citeloom health`, MCP library_health

Per page, one class:

* ``ok`` — the parser's text reads as language;
* ``repaired`` — it did not, and PDFium's text layer did (fonts without a Unicode map);
* ``ocr`` — read by OCR: a scan, or a page whose text layer no extractor could read;
* ``unreadable`` — no reading scored as text (:data:`citeloom.convert.texthealth.UNREADABLE`): the
  page is indexed without text, and the document is a partial result.

A conversion cached before the ledger existed has none: :func:`ledger_of` scores its pages'
text as it stands, and :func:`stale` says whether converting it again would read it better
(a reindex does so, ``inspect`` lists them).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, field
from typing import Any

from citeloom.convert.texthealth import LEXICAL_OK, UNREADABLE, health, misread_script

META_FIELD = "citeloom__text_health"
CLASSES = ("ok", "repaired", "ocr", "unreadable")
_CLASS_OF = {"parser": "ok", "text-layer": "repaired", "ocr": "ocr", "unreadable": "unreadable"}


def attach_ledger(doc: Any, pages: dict[int, dict[str, Any]]) -> None:
    """Keep the pages' health entries in ``doc``'s body metadata (survives the cache)."""
    from docling_core.types.doc.common.meta import BaseMeta

    entries = {str(k): v for k, v in sorted(pages.items())}
    if doc.body.meta is None:
        doc.body.meta = BaseMeta(**{META_FIELD: entries})
    else:
        setattr(doc.body.meta, META_FIELD, entries)


def detach_ledger(doc: Any) -> dict[int, dict[str, Any]] | None:
    """Take the ledger out of ``doc`` (Docling's serializers would print the body's
    metadata as text) and return it."""
    entries = page_entries(doc)
    meta = getattr(doc.body, "meta", None)
    if entries is not None and meta is not None:
        (meta.__pydantic_extra__ or {}).pop(META_FIELD, None)
        if all(v is None for v in meta.model_dump().values()):
            doc.body.meta = None
    return entries


def page_entries(doc: Any) -> dict[int, dict[str, Any]] | None:
    """The ledger the conversion wrote, or None (converted before it existed, or not a PDF)."""
    meta = getattr(doc.body, "meta", None)
    entries = getattr(meta, META_FIELD, None) if meta is not None else None
    if not isinstance(entries, dict):
        return None
    return {int(k): v for k, v in entries.items()}


def page_texts(doc: Any) -> dict[int, str]:
    """Each page's text as the converted document holds it."""
    texts: dict[int, list[str]] = defaultdict(list)
    for item, _ in doc.iterate_items():
        text = getattr(item, "text", "")
        for prov in getattr(item, "prov", []) or []:
            if text:
                texts[prov.page_no].append(text)
            break
    return {p: " ".join(t) for p, t in texts.items()}


@dataclass
class DocHealth:
    """A document's pages by class, its worst page score and which pages are not ok."""

    pages: int = 0
    ok: int = 0
    repaired: int = 0
    ocr: int = 0
    unreadable: int = 0
    score: float = 1.0  # the lowest page score
    extractor: str = "parser"  # the reading most of its pages kept
    unreadable_pages: list[int] = field(default_factory=list)
    repaired_pages: list[int] = field(default_factory=list)
    ledger: bool = True  # False: scored from a conversion made before the ledger

    @property
    def label(self) -> str:
        """One word for lists: the worst class present."""
        for name in ("unreadable", "ocr", "repaired"):
            if getattr(self, name):
                return name
        return "ok"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> DocHealth | None:
        if not data:
            return None
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)

    def summary(self) -> str:
        parts = [f"{self.ok} ok"]
        for name in ("repaired", "ocr", "unreadable"):
            n = getattr(self, name)
            if n:
                parts.append(f"{n} {'read by OCR' if name == 'ocr' else name}")
        return f"{self.pages} page(s): " + ", ".join(parts)


def ledger_of(doc: Any) -> DocHealth:
    """The document's health: from the conversion's ledger, else scored from its text (a
    page whose text scores below :data:`~citeloom.convert.texthealth.UNREADABLE` is unreadable)."""
    entries = page_entries(doc)
    result = DocHealth(pages=doc.num_pages() if hasattr(doc, "num_pages") else 0)
    methods: dict[str, int] = defaultdict(int)
    if entries is None:
        result.ledger = False
        entries = {}
        for page, text in page_texts(doc).items():
            score = health(text).score
            entries[page] = {"method": "parser" if score >= UNREADABLE else "unreadable",
                             "score": round(score, 3)}
    for page, entry in sorted(entries.items()):
        cls = _CLASS_OF.get(entry.get("method", "parser"), "ok")
        setattr(result, cls, getattr(result, cls) + 1)
        methods[entry.get("method", "parser")] += 1
        result.score = min(result.score, float(entry.get("score", 1.0)))
        if cls == "unreadable":
            result.unreadable_pages.append(page)
        elif cls in ("repaired", "ocr") and "before" in entry:
            result.repaired_pages.append(page)
    result.pages = max(result.pages, len(entries))
    result.ok += result.pages - len(entries)  # pages without text: nothing to read
    if methods:
        result.extractor = max(methods, key=lambda m: methods[m])
    return result


def stale(doc: Any) -> list[int]:
    """Pages whose text does not read as language and which today's ladder would read
    again: from a conversion made before the ledger, any such page; from one made before
    the ladder knew letter soup (its entry has no ``lexical``), a page of letter soup; from
    one made before it counted ideographs inside Latin words, such an OCR layer. Converting
    the document again (``citeloom reindex``) reads them with the ladder."""
    entries = page_entries(doc)

    def rereads(page: int, text: str) -> bool:
        if entries is not None and "lexical" in entries.get(page, {}):
            # judged by today's ladder, but for an OCR layer with ideographs in its words,
            # which it took for prose before it counted them (scored again only then)
            lexical = entries[page]["lexical"]
            return (lexical is not None and lexical >= LEXICAL_OK and misread_script(text)
                    and not health(text).reads_as_words())
        h = health(text)
        return (entries is None and not h.ok) or h.letter_soup()

    return sorted(p for p, t in page_texts(doc).items() if rereads(p, t))
