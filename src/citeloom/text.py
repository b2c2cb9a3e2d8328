"""Text normalisation for converted documents: ligatures, invisible and control
characters, hyphens at line breaks, whitespace; and compounds whose hyphen Docling dropped
at a line end, put back from the document's own spelling.

Used by :mod:`citeloom.structure.restructure` on every text item (code and formulas aside). And
:func:`fold_alnum`, the comparison key for a quoted phrase and a dev-set evidence phrase."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping

LIGATURES = {
    "\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi",
    "\ufb04": "ffl", "\ufb05": "st", "\ufb06": "st",
}
_LIGATURE_RE = re.compile("[\ufb00-\ufb06]")
# Invisible characters that only break words apart (not ZWJ/ZWNJ: scripts need those).
_INVISIBLE_RE = re.compile("[\u200b\u2060\ufeff]")
# PDFium reports a hyphen printed at a line end as U+0002 (pypdfium2's text: U+FFFE) and
# emits no line break after it; a soft hyphen at a break is a syllable break by definition.
_PDFIUM_HYPHEN_RE = re.compile("[\u0002\ufffe][ \t]*(?:\r?\n)?")
_SOFT_BREAK_RE = re.compile("\u00ad[ \t]*(?:\r?\n[ \t]*)?")
# Control characters some fonts map their bullets or symbols to (tab/newline/CR aside).
_CONTROL_RE = re.compile("[\x00\x01\x03-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# A word (it may contain hyphens itself), a hyphen, then a line break or spaces, then a word.
_HYPHEN_BREAK_RE = re.compile(
    r"(?P<a>[^\W_](?:[\w'\u2019\-\u2010]*[^\W_])?)[\-\u2010](?P<sep>[ \t]*\r?\n\s*|[ \t]+)"
    r"(?P<b>[^\W_](?:[\w'\u2019\-]*[^\W_])?)"
)
# "pre- and post-processing", "first- or second-order": a suspended hyphen, not a break.
SUSPENDED_FOLLOWERS = frozenset(
    ["and", "or", "nor", "to", "vs", "versus", "than", "as", "but",
     "und", "oder", "bis", "et", "ou", "y", "o"]
)
# Prefixes that keep their hyphen when the line breaks right after it, unless the document
# itself spells the closed form more often ("non-\ntrauma" -> "non-trauma").
KEEP_HYPHEN_PREFIXES = frozenset(["non", "self", "well", "cross", "ex", "all", "half", "quasi"])
_TOKEN_RE = re.compile(r"[^\W_][\w\-]*[^\W_]")
# Accents that old TeX fonts (OT1) set as glyphs of their own before the letter, as the
# text layer gives them: "M¨oller", "Fran¸cois", "Ren´e", "Bri`ere" (a grave only inside a
# word: a backtick elsewhere is a quote or code).
_SPACING_ACCENTS = {"¨": "\u0308", "´": "\u0301", "`": "\u0300", "ˆ": "\u0302",
                    "˜": "\u0303", "¸": "\u0327", "ˇ": "\u030c", "˘": "\u0306",
                    "˚": "\u030a", "¯": "\u0304", "˙": "\u0307", "˝": "\u030b", "˛": "\u0328"}
_SPACING_ACCENT_RE = re.compile(r"(?:([¨´ˆ˜¸ˇ˘˚¯˙˝˛]) ?|(?<=[^\W\d_])(`))([A-Za-zıȷ])")


_CEDILLA_AFTER = re.compile(r"([cCsStT])¸ ?(?=[^\W\d_cCsStT])")


def _stroked(text: str) -> str:
    """OT1's "\\l" and "\\L": the stroke glyph Docling's parser names, then the letter
    ("Popglyph[suppress] lawski" -> "Popławski"); a stroke before anything else goes."""
    if "glyph[suppress]" not in text:
        return text
    return re.sub(r"glyph\[suppress\]\s?([lL])", lambda m: "ł" if m.group(1) == "l" else "Ł",
                  text).replace("glyph[suppress]", "")


def compose_accents(text: str) -> str:
    """``text`` with each accent set apart before its letter put on the letter
    ("M¨oller" -> "Möller", "¨ı" -> "ï", "Wesoglyph[suppress]lowski" -> "Wesołowski")."""
    def one(m: re.Match[str]) -> str:
        base = {"ı": "i", "ȷ": "j"}.get(m.group(3), m.group(3))
        return unicodedata.normalize("NFC", base + _SPACING_ACCENTS[m.group(1) or m.group(2)])

    if not text:
        return text
    text = _stroked(text)
    # A cedilla that follows its letter ("Franc¸ois"): only c, s and t take one.
    text = _CEDILLA_AFTER.sub(lambda m: unicodedata.normalize("NFC", m.group(1) + "\u0327"),
                              text)
    return _SPACING_ACCENT_RE.sub(one, text)


def fold_alnum(text: str) -> str:
    """NFKC, case-folded, letters and digits only (no spaces, no punctuation): two texts
    compare alike across line breaks, hyphenation and punctuation."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return "".join(ch for ch in folded if ch.isalnum())


# A component that ends a hyphenated phrase at a real hyphen ("state-of-the-\nart").
_PHRASE_WORDS = frozenset(["of", "the", "to", "in", "on", "by", "for", "and", "or", "a", "an",
                           "at", "up", "out", "off"])


def join_hyphen_break(a: str, b: str, counts: Mapping[str, int] | None = None,
                      closed_self: int = 0) -> str:
    """How to rejoin ``a`` + hyphen + line break + ``b``: "a- b", "a-b" or "ab".

    In order: before a conjunction the hyphen is suspended ("pre- and post-") and stays
    with its space; if the document (``counts``, lowercased tokens) spells the word one
    way more often, that way (``closed_self``: occurrences of the closed form that are this
    very break, not evidence); before anything but a lowercase letter, or after a digit or
    inner capital, the hyphen is real ("COVID-\n19", "2-\nphenylethyl", "HIV-\npositive");
    after or before a function word inside a hyphenated phrase ("state-of-the-\nart",
    "end-\nto-end") and after "non", "self", "well", ... it is real; anything else is a
    syllable break."""
    if b.lower() in SUSPENDED_FOLLOWERS:
        return f"{a}- {b}"
    hyph_form, closed_form = f"{a}-{b}", f"{a}{b}"
    if counts:
        hyph = counts.get(hyph_form.lower(), 0)
        closed = max(0, counts.get(closed_form.lower(), 0) - closed_self)
        if hyph != closed:
            return hyph_form if hyph > closed else closed_form
    parts = a.replace("\u2010", "-").split("-")
    last = parts[-1]
    if (not b[0].islower() or any(ch.isdigit() for ch in last)
            or any(ch.isupper() for ch in last[1:])):
        return hyph_form
    if len(parts) > 1 and last.lower() in _PHRASE_WORDS:
        return hyph_form
    if "-" in b and b.split("-")[0].lower() in _PHRASE_WORDS:  # "end-\nto-end"
        return hyph_form
    if len(parts) == 1 and last.lower() in KEEP_HYPHEN_PREFIXES:
        return hyph_form
    return closed_form


def _hyphen_break(match: re.Match[str], counts: Mapping[str, int] | None) -> str:
    return join_hyphen_break(match.group("a"), match.group("b"), counts)


def normalize_text(text: str, *, counts: Mapping[str, int] | None = None) -> str:
    """Text as a reader would quote it.

    * ligatures U+FB00-FB06 -> ff fi fl ffi ffl st st; OT1's "\\l" as Docling prints it
      ("glyph[suppress]l") -> "ł";
    * zero-width spaces/BOM and soft hyphens (U+00AD) removed; a soft hyphen or PDFium's
      line-end hyphen marker (U+0002/U+FFFE) joins the word halves around it; other
      control characters (fonts map bullets to them) become spaces; U+FFFD and
      private-use characters (unmapped glyphs) stay, as a visible sign of a lost symbol;
    * a hyphen followed by a line break or spaces, between two word parts
      (``recog-\nnition``, ``recog- nition``), is resolved by :func:`join_hyphen_break`:
      kept with its space before a conjunction ("pre- and post-processing"); else the
      spelling the document uses more often (``counts``: lowercased token counts of the
      whole document, see :func:`word_counts`); else kept before anything but a lowercase
      letter ("COVID-\n19"), after a digit or inner capital ("2-\nphenylethyl"), after a
      hyphenated phrase ending in a function word ("state-of-the-\nart") and after "non",
      "self", "well", ...; else joined ("recognition");
    * runs of whitespace (any Unicode space, line breaks) folded to one space.

    Hyphens not followed by whitespace are never touched ("state-of-the-art", "COVID-19").
    """
    if not text:
        return text
    text = _LIGATURE_RE.sub(lambda m: LIGATURES[m.group()], _stroked(text))
    text = _INVISIBLE_RE.sub("", text)
    text = _SOFT_BREAK_RE.sub("", text)
    text = _PDFIUM_HYPHEN_RE.sub("-\n", text)
    text = _CONTROL_RE.sub(" ", text)
    text = _HYPHEN_BREAK_RE.sub(lambda m: _hyphen_break(m, counts), text)
    return " ".join(text.split())


# A glyph the font did not map (U+FFFD) inside a word: in older TeX papers the ligatures
# ("MapReduce: Simpli\ufffded", "Programmers \ufffdnd the system easy").
_LOST_IN_WORD = re.compile(r"[^\W\d_]*\ufffd[^\W\d_\ufffd]*(?:\ufffd[^\W\d_\ufffd]*)?")
_LOST_FILLS = ("fi", "fl", "ff", "ffi", "ffl")


def fill_lost_glyphs(text: str, reading: str) -> str:
    """``text`` with each word that holds one or two U+FFFD written as ``reading`` (another
    reading of the same page: PDFium's) has it, where exactly one of the ligatures fi, fl,
    ff, ffi, ffl in its place makes a word that ``reading`` has beside the same neighbour
    ("Programmers \ufffdnd the" -> "Programmers find the"). A lost symbol that no ligature
    makes stays as it is, also where a ligature would make some word of the page
    ("intervals \ufffdt" is "intervals Δt", not "intervals fit")."""
    if "\ufffd" not in text:
        return text
    words = " " + " ".join(w.casefold() for w in _WORD_RE.findall(reading)) + " "

    def fill(m: re.Match[str]) -> str:
        word = m.group()
        if not any(c.isalpha() for c in word):
            return word  # a lost symbol alone, not a word's ligature
        before = _WORD_RE.findall(text[:m.start()])[-1:]
        after = _WORD_RE.findall(text[m.end():])[:1]
        found = set()
        for cand in _fillings(word):
            low = cand.casefold()
            if cand[1:] != low[1:]:
                continue  # a ligature sits in a word in lower case (or after its capital)
            if ((before and f" {before[0].casefold()} {low} " in words)
                    or (after and f" {low} {after[0].casefold()} " in words)
                    or (not before and not after and f" {low} " in words)):
                found.add(cand)
        return found.pop() if len(found) == 1 else word

    return _LOST_IN_WORD.sub(fill, text)


_WORD_RE = re.compile(r"[^\W_]+")


def _fillings(word: str) -> list[str]:
    out = [word]
    while "\ufffd" in out[0]:
        out = [w.replace("\ufffd", fill, 1) for w in out for fill in _LOST_FILLS]
    return out


def word_counts(texts: Iterable[str]) -> Counter[str]:
    """Lowercased word counts (hyphenated compounds count as one word)."""
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(t.lower() for t in _TOKEN_RE.findall(text))
    return counts


def compound_forms(counts: Mapping[str, int]) -> dict[str, tuple[str, int]]:
    """Closed-up key -> (most frequent hyphenated spelling, its count)."""
    forms: dict[str, tuple[str, int]] = {}
    for token, n in counts.items():
        if "-" not in token:
            continue
        key = token.replace("-", "")
        if key not in forms or n > forms[key][1]:
            forms[key] = (token, n)
    return forms


def _rehyphenate(token: str, form: str) -> str:
    """``token`` with hyphens inserted where ``form`` (same letters) has them."""
    out, i = [], 0
    for ch in form:
        if ch == "-":
            out.append("-")
            if i < len(token) and token[i] == "-":
                i += 1
            continue
        out.append(token[i])
        i += 1
    return "".join(out)


def repair_joined_compounds(text: str, counts: Mapping[str, int],
                            forms: Mapping[str, tuple[str, int]] | None = None) -> str:
    """Put back hyphens Docling dropped at line ends ("populationbased" -> "population-based")
    when the document spells that compound (3+ letters) with the hyphen more often than
    without. Numbers are left alone: "1-4" elsewhere says nothing about "14"."""
    forms = compound_forms(counts) if forms is None else forms

    def fix(m: re.Match[str]) -> str:
        token = m.group()
        low = token.lower()
        key = low.replace("-", "")
        hit = forms.get(key)
        if (not hit or hit[0].count("-") <= low.count("-") or hit[1] <= counts.get(low, 0)
                or sum(ch.isalpha() for ch in key) < 3):
            return token
        return _rehyphenate(token, hit[0])

    return _TOKEN_RE.sub(fix, text)
