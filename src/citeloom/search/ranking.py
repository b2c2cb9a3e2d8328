"""How one project's hits become an answer's ranking: one hit per page (:func:`by_page`),
showing the whole page (:func:`with_page`), the best passage per paper
(:func:`best_per_doc`), a question's other phrasings summed
(:func:`summed`), quoted phrases held to as written (:func:`holds_phrases`), and the
optional second look of a cross-encoder (:func:`reranked`)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable

from citeloom.errors import InvalidInput
from citeloom.index import Hit, SearchFilter
from citeloom.text import fold_alnum

MAX_ALSO = 4  # other phrasings a query may carry


def check_also(also: list[str] | None) -> list[str]:
    """The other phrasings of a question (a translation into the papers' language, say),
    cleaned: blank ones dropped, repeats once."""
    out = list(dict.fromkeys(a.strip() for a in (also or []) if a and a.strip()))
    if len(out) > MAX_ALSO:
        raise InvalidInput(f"{len(out)} other phrasings given; at most {MAX_ALSO}",
                           "give the question once more in the papers' language, or "
                           "reworded: one or two are enough")
    return out


def window_query(text: str, also: list[str]) -> str:
    """What a hit's shown window matches: the question and its other phrasings, so a
    translated question finds the sentences in the paper's own language."""
    return "\n".join([text, *also])


def best_per_doc(hits: list[Hit]) -> list[Hit]:
    """Keep the best-scoring passage of each document, in rank order."""
    seen: set[str] = set()
    out = []
    for h in hits:
        doc = h.payload.get("doc_id", h.id)
        if doc not in seen:
            seen.add(doc)
            out.append(h)
    return out


# -- quoted phrases ---------------------------------------------------------------------------
_QUOTED = re.compile(r'"([^"]*)"|\u201c([^\u201d]*)\u201d|\u00ab([^\u00bb]*)\u00bb')


def quoted_phrases(text: str) -> list[str]:
    """The phrases a query quotes ("...", \u201c...\u201d or \u00ab...\u00bb), each once:
    a passage must hold each of them as written."""
    found = (" ".join(next((g for g in m.groups() if g), "").split())
             for m in _QUOTED.finditer(text))
    return list(dict.fromkeys(p for p in found if fold_alnum(p)))


def holds_phrases(hit: Hit, phrases: list[str]) -> bool:
    text = fold_alnum(hit.payload.get("chunk_text", ""))
    return all(fold_alnum(p) in text for p in phrases)


# A page hit shows at most this many chunks of its page: its best and the next best.
PAGE_PARTS = 3


def page_key(h: Hit) -> str:
    """What a page hit groups by: a passage's document and first page. A chunk without a
    page (a text document), an annotation and a note stand alone."""
    p = h.payload
    if p.get("page_start") is None or (p.get("kind") or "passage") != "passage":
        return h.id
    return f"{p.get('doc_id', '')}#{p['page_start']}"


def by_page(hits: list[Hit], top_k: int | None = None) -> list[Hit]:
    """One hit per page, in the order of each page's best chunk; the page's next best
    chunks in ``hits`` (up to ``PAGE_PARTS`` - 1) ride along in its ``parts``. A page is
    what a reader opens and a citation names, and the chunk that answers is often not the
    page's best match (an abstract restates the result a Results paragraph gives). (A page
    once scored its other chunks' evidence too; on the second dev set it changed no page
    hit: docs/EVALUATION.md, issue #28.) When ``hits`` hold fewer than ``top_k``
    pages (a short paper), the chunks no page shows follow as hits of their own, best
    first, up to ``top_k``."""
    pages: dict[str, Hit] = {}
    rest: list[Hit] = []
    for h in hits:
        key = page_key(h)
        if key not in pages:
            pages[key] = dataclasses.replace(h, parts=[])
        elif len(pages[key].parts) < PAGE_PARTS - 1:
            pages[key].parts.append(h)
        else:
            rest.append(h)
    out = list(pages.values())
    if top_k is not None and len(out) < top_k:
        out += rest[:top_k - len(out)]
    return out


# A page hit shows its whole page: the chunks of its page span that the ranking did not
# bring ride along too (docs/DECISIONS.md "A page hit shows its page"). They are looked up
# by id among the chunks this many places either side of the hit's own.
PAGE_REACH = 6


def page_neighbours(hit: Hit) -> tuple[str, list[int]]:
    """A passage page hit's document and the chunk indexes that may share its pages;
    ("", []) for anything else (an annotation, a note, a chunk without a page)."""
    p = hit.payload
    chunks = [hit, *hit.parts]
    idx = [c.payload.get("chunk_index") for c in chunks]
    if (p.get("page_start") is None or (p.get("kind") or "passage") != "passage"
            or any(i is None for i in idx)):
        return "", []
    near = {j for i in idx for j in range(max(0, i - PAGE_REACH), i + PAGE_REACH + 1)}
    return p.get("doc_id", ""), sorted(near - set(idx))


def span(hits: Iterable[Hit]) -> tuple[int, int]:
    """The first and last page of ``hits`` (each has a page)."""
    hits = list(hits)
    return (min(h.payload["page_start"] for h in hits),
            max(h.payload.get("page_end") or h.payload["page_start"] for h in hits))


def with_page(hit: Hit, neighbours: Iterable[Hit], flt: SearchFilter | None) -> Hit:
    """``hit`` with the ``neighbours`` (chunks of its document) that lie wholly inside its
    page span and that ``flt``'s labels and section admit, after its ranked parts (the
    cross-encoder reads the ranked ones first); the span itself does not change, so a
    page hit never cites a page it did not show before."""
    lo, hi = span([hit, *hit.parts])
    have = {hit.id, *(x.id for x in hit.parts)}
    extra = [c for c in neighbours
             if c.id not in have and c.payload.get("page_start") is not None
             and lo <= c.payload["page_start"]
             and (c.payload.get("page_end") or c.payload["page_start"]) <= hi
             and _admits(c.payload, flt)]
    if not extra:
        return hit
    extra.sort(key=lambda c: c.payload.get("chunk_index") or 0)
    return dataclasses.replace(hit, parts=[*hit.parts, *extra])


def _admits(payload: dict, flt: SearchFilter | None) -> bool:
    """Whether a chunk of a hit's own page passes ``flt``'s label and section terms (the
    rest of a filter is about the document, which the hit already passed)."""
    if flt is None:
        return True
    labels = set(payload.get("item_labels") or [])
    if flt.exclude_labels and labels & set(flt.exclude_labels):
        return False
    if flt.include_labels and not labels & set(flt.include_labels):
        return False
    return not flt.section_prefix or flt.section_prefix in (payload.get("section_prefixes")
                                                             or [])


def page_count(hits: list[Hit]) -> int:
    """How many page hits :func:`by_page` makes of ``hits``."""
    return len({page_key(h) for h in hits})


def summed(runs: list[list[Hit]]) -> list[Hit]:
    """Several rankings of one project as one: each chunk scores the sum of its scores in
    them (0 where a ranking lacks it). With DBSF, each ranking's scores are already
    normalised, so this is DBSF over all of their lists; a chunk that every phrasing finds
    rises above one that only one phrasing finds."""
    total: dict[str, float] = {}
    first: dict[str, Hit] = {}
    for hits in runs:
        for h in hits:
            total[h.id] = total.get(h.id, 0.0) + h.score
            first.setdefault(h.id, h)
    order = sorted(total, key=lambda i: -total[i])
    return [dataclasses.replace(first[i], score=total[i]) for i in order]


# -- the second stage -----------------------------------------------------------------------
# The cross-encoder re-reads the first RERANK_DEPTH hits (a project's ``rerank_depth``) and
# moves a hit above the one before it only when it reads better by more than RERANK_MARGIN
# logits: a confident judge (docs/DECISIONS.md "How much a tuned-on set weighs").
RERANK_DEPTH = 2
RERANK_MARGIN = 3.0
RERANK_PARTS = 2  # a page hit is judged by the better of its best two chunks


def rerank_texts(hit: Hit) -> list[str]:
    """What the cross-encoder reads of a hit: its best chunk and, for a page hit, its next
    best (``RERANK_PARTS`` in all)."""
    return [h.payload.get("chunk_text", "") for h in [hit, *hit.parts][:RERANK_PARTS]]


def reranked(hits: list[Hit], verdicts: list[float], margin: float = RERANK_MARGIN
             ) -> list[Hit]:
    """The first ``len(verdicts)`` hits re-ordered by their cross-encoder verdicts, where
    the model is sure: a hit passes the one above it only when its verdict is higher by
    more than ``margin`` (one insertion pass), so the first stage's order stands wherever
    the verdicts are close; the rest follow as they were."""
    order = list(range(len(verdicts)))
    for i in range(1, len(order)):
        j = i
        while j > 0 and verdicts[order[j]] - verdicts[order[j - 1]] > margin:
            order[j - 1], order[j] = order[j], order[j - 1]
            j -= 1
    return [hits[i] for i in order] + hits[len(order):]
