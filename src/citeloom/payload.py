"""The chunk payload: the one place that says what every indexed passage carries, which of
its fields the index keeps payload indexes on, and how a hit is read back and serialised.

    write:   chunk + document + metadata ─► :func:`chunk_payload` ─► index
    read:    index hit ─► :func:`passage` ─► :class:`Passage` ─► :func:`hit_json` (CLI --json, MCP)

A new payload field is one edit here (and a test): add it to :func:`chunk_payload`, to a
``*_FIELDS`` tuple if filters need it indexed, to :class:`Passage` if hits should show it.
Nothing here imports the index, the models or Docling, so a query reads hits cheaply.
"""

from __future__ import annotations

import re
import unicodedata
import uuid
from dataclasses import asdict, dataclass, field
from typing import Any

SECTION_SEP = " > "
# Characters of each chunk a hit shows (its query window when longer): about a whole
# 256-token chunk, so nearly every chunk is shown whole. 1,000 found the evidence in the
# shown text as often as whole chunks did, on both PDF question sets (docs/EVALUATION.md).
PASSAGE_CHARS = 1000
CHUNK_NAMESPACE = uuid.UUID("6f1c1a52-3c1e-4d59-9a57-0d1f3c2b7e10")

# Payload indexes: the design's six, plus the fields the other filters use.
KEYWORD_FIELDS = ("project_id", "doc_id", "citekey", "tags", "zotero_key", "source_path",
                  "authors", "collections", "item_labels", "section_prefixes", "kind",
                  "color", "author_keys", "section_keys")
INTEGER_FIELDS = ("year", "page_start", "chunk_index")  # chunk_index: counting documents
TEXT_FIELDS = ("chunk_text",)

# Document metadata every chunk carries, with its value when nothing better is known.
# Zotero (``zotero.item_payload``) or a source fills them; ``None`` values never overwrite.
DOCUMENT_FIELDS: dict[str, Any] = {
    "citekey": None, "title": "", "authors": [], "year": None, "doi": None, "tags": [],
    "collections": [], "zotero_key": None, "language": None,
}

# Metadata a document got from outside its file (Zotero), kept when it is re-indexed.
EXTERNAL_FIELDS = (*DOCUMENT_FIELDS, "url", "zotero_library", "zotero_attachment")
# The fields whose origin ``metadata_source`` records: "zotero", "pdf-text" (the paper's
# own first pages), "pdf-metadata" (the PDF's info dictionary), "file-name", "source".
CITED_FIELDS = ("title", "authors", "year", "doi")
# ``citekey_source`` of a key made from the metadata (``citekeys.citekey``), for a
# document no Zotero item or Better BibTeX gave one.
GENERATED = "generated"

# What a chunk is: a passage of a converted document, or a Zotero annotation or note.
KINDS = ("passage", "annotation", "note")
# What an annotation or note carries besides its item's metadata (sources/annotations.py):
# the same for all its chunks, so a reindex keeps them. An annotation also has the section
# of the passage it marks; a note's chunks have their own sections.
ANNOTATION_FIELDS = ("kind", "annotation_type", "page_start", "page_end", "page_label",
                     "color", "annotation_author", "sort_index", "zotero_item")
SECTION_FIELDS = ("section_path", "heading_chain", "section_prefixes")
# Zotero's highlight colours by the names its menu gives them.
COLORS = {"yellow": "#ffd400", "red": "#ff6666", "green": "#5fb236", "blue": "#2ea8e5",
          "purple": "#a28ae5", "magenta": "#e56eee", "orange": "#f19837", "gray": "#aaaaaa",
          "grey": "#aaaaaa"}


def normalize_color(value: str) -> str:
    """``#FFD400``, ``ffd400`` and ``yellow`` all as Zotero stores them: ``#ffd400``."""
    v = value.strip().lower()
    return COLORS.get(v) or (v if v.startswith("#") else f"#{v}")


def external_metadata(payload: dict[str, Any]) -> dict[str, Any] | None:
    """The Zotero metadata stored with a chunk, or None for a document that had none.
    A field the PDF filled in where Zotero had nothing is not Zotero's: it is found again."""
    if not payload.get("zotero_key"):
        return None
    kind = payload.get("kind")
    fields = EXTERNAL_FIELDS + (ANNOTATION_FIELDS if kind in ("annotation", "note") else ())
    fields += SECTION_FIELDS if kind == "annotation" else ()
    source = payload.get("metadata_source") or {}
    generated = payload.get("citekey_source") == GENERATED  # made here, made again
    return {k: payload[k] for k in fields if payload.get(k) is not None
            and source.get(k, "zotero") == "zotero"
            and not (generated and k == "citekey")}


def merge_metadata(found: dict[str, Any] | None, given: dict[str, Any] | None
                   ) -> dict[str, Any]:
    """A document's metadata: what its source gives (Zotero's item) wins field by field;
    what was found in the file (``pdfmeta.document_metadata``) fills the fields it lacks.
    ``metadata_source`` says, for each of :data:`CITED_FIELDS` that has a value, where it
    came from."""
    found, given = dict(found or {}), dict(given or {})
    origin = dict(found.pop("metadata_source", None) or {})
    mine = "zotero" if given.get("zotero_key") else "source"
    origin.update({k: v for k, v in (given.pop("metadata_source", None) or {}).items()})
    out = {**found}
    for k, v in given.items():
        if v in (None, "", []) and out.get(k) not in (None, "", []):
            continue  # Zotero has no year for this item: the PDF's stands
        out[k] = v
        if k in CITED_FIELDS and v not in (None, "", []):
            origin[k] = mine if k not in origin or mine == "zotero" else origin[k]
    out["metadata_source"] = {k: origin[k] for k in CITED_FIELDS
                              if k in origin and out.get(k) not in (None, "", [])}
    return out


# -- matching names and headings the way people type them -----------------------------------
# Family-name particles written in lower case ("Ludwig van Beethoven": "van Beethoven").
PARTICLES = frozenset({"van", "von", "der", "den", "de", "des", "del", "della", "dei", "degli",
                       "delle", "dello", "dalla", "dal", "di", "da", "do", "dos",
                       "das", "du", "la", "le", "ter", "ten", "bin", "ben", "ibn", "al", "el",
                       "mac", "ó", "ní"})  # "Mordecai-Mark Mac Low", "Saunders Mac Lane",
# Irish "Pilib Ó Broin", "Máire Ní Bhriain"
# Heading numbers: "2", "2.1.", "II.", "A)" — optional in a section filter.
_NUMBERING = re.compile(r"^(?:(?:\d+(?:\.\d+)*|[ivxlcdm]+\.|[a-z][.)])[.)]?\s+)+")


def fold(text: str) -> str:
    """Lower case without accents: how names and headings are compared."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()


def family_name(author: str) -> str:
    """The family name of ``Last, First`` (Zotero's form) or ``First Last``."""
    author = " ".join(author.split())
    if "," in author:
        return author.split(",", 1)[0].strip()
    words = author.split(" ")
    i = len(words) - 1
    while i > 0 and words[i - 1].lower() in PARTICLES:
        i -= 1
    return " ".join(words[i:])


def author_keys(authors: list[str]) -> list[str]:
    """What an author filter matches (``author_keys``): each author's family name and
    whole name, folded (:func:`fold`), and the last word of a family name of several."""
    keys: list[str] = []
    for a in authors:
        fam = fold(family_name(a))
        for k in (fam, fam.split(" ")[-1], fold(" ".join(a.replace(",", " ").split()))):
            if k and k not in keys:
                keys.append(k)
    return keys


def author_query_key(author: str) -> str:
    """The key one author of a filter is looked up by: the family name, folded. With a
    comma it is ``Last, First``; else the last word (``Smith``, ``John Smith``, ``smith``)."""
    author = " ".join(author.split())
    fam = author.split(",", 1)[0] if "," in author else (author.split(" ") or [""])[-1]
    return fold(fam.strip())


def heading_key(heading: str) -> str:
    """A heading as a section filter compares it: folded, its number and punctuation out
    ("2.1 Data Collection:" and "data collection" are the same)."""
    words = re.findall(r"[^\W_]+", _NUMBERING.sub("", fold(heading).strip() + " "))
    return " ".join(words)


def section_key(path: str) -> str:
    """A section path (``Methods > Data``) or one heading, as :func:`heading_key` of each."""
    return SECTION_SEP.join(k for k in (heading_key(h) for h in path.split(">")) if k)


def section_keys(heading_chain: list[str]) -> list[str]:
    """What a section filter matches (``section_keys``): every heading-boundary prefix of
    the path and every single heading, each as :func:`heading_key` makes it."""
    keys = [heading_key(h) for h in heading_chain]
    out = [SECTION_SEP.join(k for k in keys[: i + 1] if k) for i in range(len(keys))]
    return list(dict.fromkeys(k for k in [*out, *keys] if k))


def chunk_id(doc_id: str, chunk_index: int, dense_model: str) -> str:
    """Deterministic point id: the same document, chunk and model always give the same id."""
    return str(uuid.uuid5(CHUNK_NAMESPACE, f"{doc_id}:{chunk_index}:{dense_model}"))


def section_prefixes(heading_chain: list[str]) -> list[str]:
    """Every heading-boundary prefix of a section path, for the section-prefix filter."""
    return [SECTION_SEP.join(heading_chain[: i + 1]) for i in range(len(heading_chain))]


def chunk_payload(chunk: Any, *, project: str, doc_id: str, content_hash: str, source: str,
                  title: str, chunk_count: int, dense_model: str,
                  meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """What the index stores with one chunk (a :class:`citeloom.embed.chunk.Chunk`)."""
    payload = {
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
        "kind": "passage",  # annotations and notes say otherwise in their metadata
        **{k: v for k, v in (meta or {}).items() if v is not None},
    }
    # Derived from the final fields, so an annotation's own section is matched too.
    payload["author_keys"] = author_keys(payload.get("authors") or [])
    payload["section_keys"] = section_keys(list(payload.get("heading_chain") or []))
    return payload


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
    project: str | None = None  # the project it was found in
    kind: str = "passage"  # or "annotation" / "note" (then zotero_key is the annotation's)
    annotation_type: str | None = None  # highlight, underline, note, text, image, ink
    page_label: str | None = None  # the page number printed on the page, when Zotero has it
    color: str | None = None  # an annotation's colour, "#ffd400"
    annotation_author: str | None = None  # who made it (group libraries)
    doi: str | None = None
    metadata_source: dict[str, str] = field(default_factory=dict)  # field -> its origin
    byline: str = ""  # "Agyeman-Duah et al. · 2014": who and when, to cite at a glance
    # A page hit's chunks in reading order, when it shows more than one (``text`` joins
    # them): {chunk_id, section_path, page_start, page_end}; chunk_id is the best of them.
    parts: list[dict[str, Any]] = field(default_factory=list)

    @property
    def pages(self) -> str:
        if self.page_start is None:
            return "?"
        if self.page_end in (None, self.page_start):
            return f"p. {self.page_start}"
        return f"pp. {self.page_start}-{self.page_end}"


def byline(authors: list[str], year: int | None) -> str:
    """``Smith · 2010``, ``Smith & Jones · 2010``, ``Smith et al. · 2010``; what is not
    known is left out."""
    fams = [family_name(a) for a in authors if a and a.strip()]
    who = (fams[0] if len(fams) == 1 else f"{fams[0]} & {fams[1]}" if len(fams) == 2
           else f"{fams[0]} et al." if fams else "")
    return " · ".join(x for x in (who, str(year) if year else "") if x)


def zotero_link(payload: dict[str, Any]) -> str | None:
    """A link that opens the passage in Zotero: the PDF at its first page when the chunk
    came from a Zotero attachment (at the annotation itself for an annotation), else the
    item (or note) selected; None outside Zotero."""
    library = payload.get("zotero_library") or "library"
    if payload.get("zotero_attachment"):
        page = payload.get("page_start")
        query = [f"page={page}"] if page else []
        if payload.get("kind") == "annotation" and payload.get("zotero_key"):
            query.append(f"annotation={payload['zotero_key']}")
        return (f"zotero://open-pdf/{library}/items/{payload['zotero_attachment']}"
                + ("?" + "&".join(query) if query else ""))
    if payload.get("zotero_key"):
        return f"zotero://select/{library}/items/{payload['zotero_key']}"
    return None


def joined_text(payloads: list[dict[str, Any]]) -> str:
    """A document's text again from its chunks (in ``chunk_index`` order), each section's
    headings as Markdown ``#`` lines where they change: a Zotero note as it reads."""
    blocks: list[str] = []
    prev: list[str] = []
    for p in sorted(payloads, key=lambda p: p.get("chunk_index", 0)):
        chain = list(p.get("heading_chain") or [])
        same = 0
        while same < min(len(chain), len(prev)) and chain[same] == prev[same]:
            same += 1
        blocks.extend("#" * (i + 1) + " " + chain[i] for i in range(same, len(chain)))
        blocks.append(p.get("chunk_text", ""))
        prev = chain
    return "\n\n".join(blocks)


def shorten(text: str, max_chars: int) -> str:
    """``text`` cut at a word boundary to at most ``max_chars`` characters, marked ``…``."""
    if len(text) <= max_chars:
        return text
    return text[:max_chars].rsplit(" ", 1)[0] + " …"


# -- the part of a chunk a hit shows -----------------------------------------------------------
ELLIPSIS = "…"
_WORD = re.compile(r"[^\W_]+")  # runs of letters and digits
_BREAK = re.compile(r"(?<=[.!?;])\s+|\s*\n\s*")
# Words that say nothing about where an answer is (en, fr, es, de).
_STOPWORDS = """
a an and are as at be by can could did do does for from had has have how i if in into is it
its many much of on or our paper study that the their there these this those to was we were
what when where which who whom whose why will with would about after also all among any
between both during each et al more most no not only other over same such than then they
through under use used using via
au aux avec ce ces comment dans de des du elle en est et il la le les leur mais ne ou par
pas pour quand que quel quelle quels qui sa se son sont sur un une
al como con cual cuales cuando cuanto del el en es esta este la las lo los para por que se
su sus un una y
das dem den der des die ein eine einer und ist im in mit von wie welche welcher wurde zu
"""
STOPWORDS = frozenset(_STOPWORDS.split())


def terms(text: str) -> set[str]:
    """Query terms for choosing a window: NFKC, lower-cased alphanumeric tokens, stop words
    and one-letter tokens out, a plural ``s`` dropped, cut to 5 characters (a crude stem,
    so "calculated" meets "calculate")."""
    out = set()
    for tok in _WORD.findall(unicodedata.normalize("NFKC", text).lower()):
        if tok in STOPWORDS or (len(tok) < 2 and not tok.isdigit()):
            continue
        if len(tok) > 3 and tok.endswith("s"):
            tok = tok[:-1]
        out.add(tok[:5])
    return out


def _segments(text: str, longest: int) -> list[tuple[int, int]]:
    """(start, end) of each sentence or line of ``text``; any longer than ``longest`` is
    split at word boundaries into pieces of at most ``longest`` characters."""
    spans, start = [], 0
    for m in _BREAK.finditer(text):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(text)))
    out = []
    for s, e in spans:
        while e - s > longest:
            cut = text.rfind(" ", s + 1, s + longest + 1)
            cut = cut if cut > s else s + longest
            out.append((s, cut))
            s = cut
            while s < e and text[s].isspace():
                s += 1
        if e > s:
            out.append((s, e))
    return out


def window(text: str, max_chars: int, query: str | None = None) -> str:
    """What a hit shows of its chunk: all of it when it fits ``max_chars``; else the run of
    whole sentences that holds the most distinct query terms (:func:`terms`) within the
    budget — the shortest (densest) such run, then the earliest — widened by neighbouring
    sentences (before, after, in turn) while they fit, then topped up with the words that
    follow (or, at the chunk's end, precede). Without a query, or when no sentence holds a
    query term, the run starts at the first sentence: the chunk's head. Cuts are marked
    ``…``; the result is never longer than ``max_chars``."""
    text = text.strip()
    if len(text) <= max_chars:
        return text
    budget = max(max_chars - 2 * (len(ELLIPSIS) + 1), 1)
    segs = _segments(text, max(budget // 3, 1))
    want = terms(query) if query else set()
    has = [terms(text[s:e]) & want for s, e in segs] if want else [set()] * len(segs)
    best, best_key = (0, 0), (0, 0, 0)
    for i in range(len(segs)):
        covered: set[str] = set()
        for j in range(i, len(segs)):
            size = segs[j][1] - segs[i][0]
            if size > budget:
                break
            covered |= has[j]
            key = (len(covered), -size, -i)
            if covered and key > best_key:
                best, best_key = (i, j), key
    i, j = best
    grown = True
    while grown:
        grown = False
        if i > 0 and segs[j][1] - segs[i - 1][0] <= budget:
            i, grown = i - 1, True
        if j + 1 < len(segs) and segs[j + 1][1] - segs[i][0] <= budget:
            j, grown = j + 1, True
    start, end = segs[i][0], segs[j][1]
    room = budget - (end - start)
    if room > 0 and j + 1 < len(segs):  # top up with the words that follow
        follow = text[end: end + room + 1]
        end += max(follow.rfind(" "), follow.rfind("\n"), 0)
    elif room > 0 and i > 0:  # at the chunk's end: with the words before
        lead = max(start - room - 1, 0)
        before = text[lead:start]
        cut = min((k for k in (before.find(" "), before.find("\n")) if k >= 0), default=-1)
        if cut >= 0:
            start = lead + cut + 1
    shown = text[start:end].strip()
    return ((ELLIPSIS + " " if start > 0 else "") + shown
            + (" " + ELLIPSIS if end < len(text) else ""))


# What the CLI prints of a hit by default (``--full``: all of it): the sentences that answer,
# so five hits fit a terminal (docs/DECISIONS.md "What a person sees at the terminal").
SNIPPET_CHARS = 360


def snippet(text: str, query: str | None, max_chars: int = SNIPPET_CHARS) -> str:
    """The sentences of a hit's shown text that best match ``query`` (:func:`window`), on
    one line: a paragraph break becomes a space, nothing else changes."""
    return window(re.sub(r"\s*\n\s*", " ", text.strip()), max_chars, query)


def term_spans(text: str, query: str) -> list[tuple[int, int]]:
    """(start, end) of each word of ``text`` that is one of ``query``'s terms
    (:func:`terms`): what the CLI highlights."""
    want = terms(query)
    return [(m.start(), m.end()) for m in _WORD.finditer(text)
            if want and terms(m.group()) & want]


PART_GAP = "\n\n…\n\n"  # between two chunks of a page hit that do not follow each other


def _shown(hit: Any, max_chars: int, query: str | None
           ) -> tuple[str, list[dict[str, Any]], int | None, int | None]:
    """A hit's text, parts and page span. A page hit (``hit.parts``) shows each of its
    chunks in reading order, each the whole chunk or its window for ``query``, so the
    budget is ``max_chars`` per chunk; chunks that follow each other are joined by a
    paragraph break, others by ``…``."""
    p = hit.payload
    if not getattr(hit, "parts", None):
        return (window(p.get("chunk_text", ""), max_chars, query), [], p.get("page_start"),
                p.get("page_end"))
    chunks = sorted([hit, *hit.parts], key=lambda h: h.payload.get("chunk_index") or 0)
    text, prev = "", None
    for h in chunks:
        index = h.payload.get("chunk_index")
        piece = window(h.payload.get("chunk_text", ""), max_chars, query)
        if prev is not None:
            text += "\n\n" if index is not None and index == prev + 1 else PART_GAP
        text, prev = text + piece, index
    parts = [{"chunk_id": h.id, "section_path": h.payload.get("section_path", ""),
              "page_start": h.payload.get("page_start"), "page_end": h.payload.get("page_end")}
             for h in chunks]
    starts = [x["page_start"] for x in parts if x["page_start"] is not None]
    ends = [x["page_end"] or x["page_start"] for x in parts if x["page_start"] is not None]
    return text, parts, min(starts, default=None), max(ends, default=None)


def passage(rank: int, hit: Any, max_chars: int, query: str | None = None,
            project: str | None = None) -> Passage:
    """A citable passage from an index hit (anything with ``id``, ``score``, ``payload``).
    Its text is the chunk, or the window of it that best matches ``query`` (:func:`window`);
    a page hit's, its chunks so shown (:func:`_shown`). Its ``project`` is the one searched
    when given (a project restored under a new name still stores its old one), else the
    payload's ``project_id``."""
    p = hit.payload
    text, parts, page_start, page_end = _shown(hit, max_chars, query)
    return Passage(
        rank=rank,
        score=round(hit.score, 6),
        citekey=p.get("citekey"),
        title=p.get("title", ""),
        authors=p.get("authors") or [],
        year=p.get("year"),
        page_start=page_start,
        page_end=page_end,
        section_path=p.get("section_path", ""),
        text=text,
        parts=parts,
        doc_id=p.get("doc_id", ""),
        chunk_id=hit.id,
        source_path=p.get("source_path", ""),
        item_labels=p.get("item_labels") or [],
        zotero_key=p.get("zotero_key"),
        zotero_link=zotero_link(p),
        project=project or p.get("project_id"),
        kind=p.get("kind") or "passage",
        annotation_type=p.get("annotation_type"),
        page_label=p.get("page_label"),
        color=p.get("color"),
        annotation_author=p.get("annotation_author"),
        doi=p.get("doi"),
        metadata_source=p.get("metadata_source") or {},
        byline=byline(p.get("authors") or [], p.get("year")),
    )


def hit_json(p: Passage) -> dict[str, Any]:
    """A hit as JSON, the same for the CLI's ``--json`` and the MCP tools."""
    return asdict(p)
