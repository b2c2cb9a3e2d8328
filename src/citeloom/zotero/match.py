"""Which Zotero item a PDF on disk belongs to.

In order: the attachment it *is* (same file), a DOI (PDF metadata, then the text of its
first pages, in order of appearance), then a fuzzy title match (difflib ratio ≥ 0.8 on
normalised titles) against the metadata title or runs of the first lines of text.
Unmatched files are the caller's to index with a MetadataMissing warning.
"""

from __future__ import annotations

import logging
import os
import re
import unicodedata
from collections.abc import Iterable
from difflib import SequenceMatcher
from pathlib import Path
from typing import Literal

from citeloom.system import open_pdf, pdf_info
from citeloom.zotero.base import ZoteroItem, find_dois

log = logging.getLogger(__name__)

MatchHow = Literal["attachment", "doi", "title"]
TITLE_THRESHOLD = 0.8
# A title this short ("Introduction", "Logic") matches too many first lines; it only
# counts when it equals the PDF's metadata title.
_MIN_TEXT_TITLE_CHARS = 16
_FIRST_LINES = 40
_MAX_WINDOW_LINES = 6


def normalise_title(text: str) -> str:
    """Lower-case ASCII-folded words, punctuation and markup dropped."""
    text = re.sub(r"<[^>]+>", " ", text or "")  # Zotero allows <i>…</i> in titles
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return " ".join(re.sub(r"[^\w]+", " ", text.casefold()).split())


def pdf_first_pages_text(path: Path, pages: int = 2) -> str:
    """Text of the first ``pages`` pages (empty for scans or unreadable files)."""
    try:
        with open_pdf(path) as doc:
            out = []
            for i in range(min(pages, len(doc))):
                textpage = doc[i].get_textpage()
                out.append(textpage.get_text_range())
                textpage.close()
            return "\n".join(out)
    except Exception as exc:
        log.debug("no text from %s: %s", path, exc)
        return ""


class ItemMatcher:
    """Indexes items once (paths, DOIs, titles) for matching many files against them."""

    def __init__(self, items: Iterable[ZoteroItem]) -> None:
        self.items = list(items)
        self._by_path: dict[str, ZoteroItem] = {}
        self._by_doi: dict[str, ZoteroItem] = {}
        self._titles: list[tuple[str, set[str], ZoteroItem]] = []
        for it in self.items:
            for att in it.attachments:
                if att.path is not None:
                    self._by_path.setdefault(_path_key(att.path), it)
            if it.doi:
                self._by_doi.setdefault(it.doi, it)
            title = normalise_title(it.title)
            if title:
                self._titles.append((title, set(title.split()), it))

    def match(self, pdf_path: Path, first_pages_text: str | None = None
              ) -> tuple[ZoteroItem | None, MatchHow | None]:
        pdf_path = Path(pdf_path)
        hit = self._by_path.get(_path_key(pdf_path))
        if hit is None and pdf_path.is_file():
            hit = self._same_file(pdf_path)
        if hit is not None:
            return hit, "attachment"

        meta = pdf_info(pdf_path)
        if first_pages_text is None:
            first_pages_text = pdf_first_pages_text(pdf_path) if pdf_path.is_file() else ""
        meta_text = " ".join(meta.get(k, "") for k in ("Subject", "Keywords", "Title"))
        for doi in find_dois(meta_text) + find_dois(first_pages_text):
            if doi in self._by_doi:
                return self._by_doi[doi], "doi"

        hit = self._title_match(meta.get("Title", ""), first_pages_text)
        return (hit, "title") if hit is not None else (None, None)

    def _same_file(self, pdf_path: Path) -> ZoteroItem | None:
        # Path spellings differ (symlinks, case-insensitive disks): ask the filesystem,
        # but only for attachments with the same file name, to keep it cheap.
        for it in self.items:
            for att in it.attachments:
                if att.path is not None and att.path.name == pdf_path.name and att.exists:
                    try:
                        if os.path.samefile(att.path, pdf_path):
                            return it
                    except OSError:
                        continue
        return None

    def _title_match(self, meta_title: str, text: str) -> ZoteroItem | None:
        candidates: list[str] = []
        meta_norm = normalise_title(meta_title)
        if meta_norm:
            candidates.append(meta_norm)
        lines = [normalise_title(ln) for ln in (text or "").splitlines()]
        lines = [ln for ln in lines if ln][:_FIRST_LINES]
        for start in range(len(lines)):
            for size in range(1, _MAX_WINDOW_LINES + 1):
                if start + size <= len(lines):
                    candidates.append(" ".join(lines[start:start + size]))
        if not candidates:
            return None
        words = set(" ".join(candidates).split())
        best, best_ratio = None, TITLE_THRESHOLD
        for title, title_words, it in self._titles:
            # Cheap filter first: most of the title's words must appear somewhere.
            if len(title_words & words) < 0.6 * len(title_words):
                continue
            if len(title) >= _MIN_TEXT_TITLE_CHARS:
                pool = candidates
            elif meta_norm:
                pool = [meta_norm]
            else:
                continue
            matcher = SequenceMatcher(None, autojunk=False)
            matcher.set_seq2(title)  # b is the side difflib indexes: reuse it per title
            for cand in pool:
                if not 0.6 * len(title) <= len(cand) <= 1.6 * len(title):
                    continue
                matcher.set_seq1(cand)
                if matcher.real_quick_ratio() < best_ratio or matcher.quick_ratio() < best_ratio:
                    continue
                ratio = matcher.ratio()
                if ratio >= best_ratio:
                    best, best_ratio = it, ratio
        return best


def _path_key(path: Path) -> str:
    try:
        return os.path.normcase(str(Path(path).expanduser().resolve()))
    except OSError:
        return os.path.normcase(str(path))


def match_item(pdf_path: Path, items: Iterable[ZoteroItem], first_pages_text: str | None = None
               ) -> tuple[ZoteroItem | None, MatchHow | None]:
    """The item ``pdf_path`` belongs to and how it was found, or ``(None, None)``.

    ``first_pages_text`` is the text of the first page(s) if the caller has it (e.g. from
    the conversion); otherwise it is read with pypdfium2. For many files against one
    library, build an :class:`ItemMatcher` once instead.
    """
    return ItemMatcher(items).match(pdf_path, first_pages_text)
