"""Citekeys for papers that have none (a folder of PDFs outside Zotero, a Zotero item that
Better BibTeX gave no key): made from the metadata, stable, ASCII, like Better BibTeX's.

    authors, year, title ─► :func:`citekey` ─► ``therneau2023using``
    (doc_id, key) pairs  ─► :func:`unique_keys` ─► ``smith2020``, ``smith2020a``, …

The key is the first author's family name, the year and the first significant word of the
title, each folded to lower-case ASCII ("Oehlschlägel" → ``oehlschlagel``, "van de Wiel"
→ ``vandewiel``, "O'Connell" → ``oconnell``); this is Better BibTeX's
``auth.lower + year + shorttitle(1, 0).lower`` (Google Scholar's form). A significant word
is one that is not on Better BibTeX's list of skip words (articles, prepositions,
conjunctions, in the languages it lists). A part that is not known is left out: no
author gives ``2023using`` (title words only with no year either: ``usingtime``), and a
paper with nothing at all gets ``paper`` and the caller's fallback.

Keys made the same way collide (two papers by Smith in 2020 on "Models of …"):
:func:`unique_keys` gives them Better BibTeX's postfixes, in ``doc_id`` order, so the same
papers get the same keys whatever order they were ingested in.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Any

# Better BibTeX's skip words (its "skipWords" preference, as shipped).
_SKIP = """
a ab aboard about above across after against al along amid among an and anti around as at
before behind below beneath beside besides between beyond but by d da das de del dell dello
dei degli della delle dem den der des despite die do down du during ein eine einem einen
einer eines el en et except for from gli i il in inside into is l la las le les like lo los
near nor of off on onto or over past per plus round save since so some sur than the through
to toward towards un una unas uno unos under underneath une unlike until up upon versus via
von while with within without yet zu zum
"""
SKIP_WORDS = frozenset(_SKIP.split())
# Letters NFKD does not take apart into a base letter and an accent.
_LETTERS = str.maketrans({"ß": "ss", "æ": "ae", "Æ": "AE", "ø": "o", "Ø": "O", "œ": "oe",
                          "Œ": "OE", "ł": "l", "Ł": "L", "đ": "d", "Đ": "D", "ð": "d",
                          "þ": "th", "ı": "i"})
_MAX_PART = 30  # a family "name" longer than this is not one (an institution's)


def ascii_fold(text: str) -> str:
    """Lower-case ASCII letters and digits only: accents dropped, everything else out."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_LETTERS))
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return re.sub(r"[^a-z0-9]", "", plain.lower())


def _family(author: str) -> str:
    from citeloom.payload import family_name

    return ascii_fold(family_name(author))[:_MAX_PART]


def title_words(title: str) -> list[str]:
    """The title's significant words, folded: Better BibTeX's skip words left out."""
    words = [ascii_fold(w) for w in re.split(r"[\s\-–—/:;,.!?()\[\]{}\"'“”‘’_]+", title)]
    return [w for w in words if w and w not in SKIP_WORDS]


def citekey(authors: list[str] | None, year: int | str | None, title: str | None,
            fallback: str = "") -> str:
    """``familyYEARword`` (``therneau2023using``) from the first author's family name, the
    year and the first significant title word; parts not known are left out. With no
    author the title's first two significant words stand in for the name. ``fallback``
    (folded) is the key when nothing at all is known; else ``paper``."""
    fam = next((f for f in (_family(a) for a in authors or [] if a and a.strip()) if f), "")
    yr = str(year) if year and re.fullmatch(r"\d{4}", str(year)) else ""
    words = [w for w in title_words(title or "") if not w.isdigit()]  # not "5.1"
    key = fam + yr + (words[0] if words else "") if fam else "".join(words[:2]) + yr
    # A key starts with a letter (BibTeX and pandoc need it): "2nd…" goes after a letter.
    key = key[:60]
    if key and not key[0].isalpha():
        key = "p" + key
    return key or ascii_fold(fallback)[:40] or "paper"


def unique_keys(papers: Iterable[tuple[str, str]], taken: Iterable[str] = ()
                ) -> dict[str, str]:
    """Each paper's key, given ``(doc_id, base key)`` pairs: a base key only one paper has
    is kept; papers sharing one get Better BibTeX's postfixes in ``doc_id`` order (the
    first keeps it bare, then ``a``, ``b``, … ``z``, ``aa``, …). ``taken`` keys (a project's
    Zotero citekeys) are never handed out. The same papers always get the same keys."""
    used = set(taken)
    out: dict[str, str] = {}
    for doc_id, base in sorted(papers):
        key, n = base, 0
        while key in used:
            n += 1
            key = base + _postfix(n)
        used.add(key)
        out[doc_id] = key
    return out


def _postfix(n: int) -> str:
    """1 → a, 26 → z, 27 → aa (Better BibTeX's ``%a``)."""
    s = ""
    while n > 0:
        n, r = divmod(n - 1, 26)
        s = chr(ord("a") + r) + s
    return s


def ensure_citekey(meta: dict[str, Any] | None, title: str, doc_id: str) -> dict[str, Any]:
    """A paper's metadata with a key made by :func:`citekey` when none was given (no Zotero
    item, or one Better BibTeX gave no key), marked ``citekey_source: "generated"``.
    Annotations and notes are not papers: they keep what their item gave them."""
    from citeloom.payload import GENERATED

    meta = dict(meta or {})
    if meta.get("citekey") or meta.get("kind", "passage") != "passage":
        return meta
    meta["citekey"] = citekey(meta.get("authors"), meta.get("year"),
                              meta.get("title") or title, fallback=doc_id)
    meta["citekey_source"] = GENERATED
    return meta
