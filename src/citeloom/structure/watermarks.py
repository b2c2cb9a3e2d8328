"""A watermark set across the page ("DRAFT", "PREPRINT", "CONFIDENTIAL"), out of the text
(session 28).

A draft's watermark is one large word drawn diagonally over every page. Docling reads it
into the reading order, usually at the start of an item ("DRAFT The ginjax package can
be used …", "DRAFT 1 Department of Applied Mathematics …"), so a passage, its BM25 terms
and an author line carry it. The PDF's text layer shows it for what it is: a piece of one
to three words whose box is both taller and wider than :data:`SPREAD` ordinary lines (a
large title is wide but not tall, the arXiv stamp in the margin tall but not wide).
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Iterable, Sequence

from citeloom.convert.textlayer import Line as Piece  # text, (left, top, right, bottom)

SPREAD = 10  # times the page's median line height, across and down
_CAPS = re.compile(r"^([A-Z]{4,})\b|\b([A-Z]{4,})$")



def across(pieces: Sequence[Piece]) -> list[str]:
    """The words of the pieces set across the page (see the module notes)."""
    if not pieces:
        return []
    line = statistics.median(box[3] - box[1] for _, box in pieces)
    return [" ".join(text.split()) for text, box in pieces
            if box[3] - box[1] > SPREAD * line and box[2] - box[0] > SPREAD * line
            and 1 <= len(text.split()) <= 3 and any(c.isalpha() for c in text)]


def suspect_pages(pages: dict[int, Iterable[str]]) -> list[int]:
    """Pages worth reading the PDF for: where an item starts or ends with a word in
    capitals that starts or ends items on two pages at least (or on a one-page document's
    page)."""
    seen: dict[str, set[int]] = {}
    for page_no, texts in pages.items():
        for text in texts:
            for m in _CAPS.finditer(text.strip()):
                seen.setdefault(m.group(1) or m.group(2), set()).add(page_no)
    need = 1 if len(pages) == 1 else 2
    return sorted({p for found in seen.values() if len(found) >= need for p in found})


def strip(texts: Sequence[str], marks: Iterable[str]) -> list[str]:
    """``texts`` (one page's items, in reading order) with each watermark of ``marks``
    taken off the first item that starts or ends with it (or is nothing else)."""
    out = list(texts)
    for mark in marks:
        edge = re.compile(rf"^{re.escape(mark)}(?:\s+|$)|\s+{re.escape(mark)}$")
        for i, text in enumerate(out):
            new = edge.sub("", text.strip(), count=1)
            if new != text.strip():
                out[i] = new
                break
    return out
