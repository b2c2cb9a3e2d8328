"""Steps 3 and 4 of the restructuring pass
(:func:`citeloom.structure.restructure.restructure`): which
section headers are headings, which one is the title, and every heading's level.

3. **Headings** (:meth:`HeadingSteps.promote_headings`, :meth:`HeadingSteps.mark_title`,
   :meth:`HeadingSteps.demote_non_headings`): standalone "Abstract"/"References"/... text
   items become headings; section headers that are no headings (a symbol, a formula, a
   sentence, body-size regular type) become text; the title becomes a ``TitleItem`` on the
   furniture layer.
4. **Levels** (:meth:`HeadingSteps.assign_levels`): from numbering, then, given the PDF,
   from font size/weight/case (:meth:`HeadingSteps._styles`), else from letter case only.

:class:`HeadingSteps` is mixed into :class:`citeloom.structure.restructure.Restructurer`, which
provides the document and the item helpers these steps use: ``doc``, ``pdf_path``,
``password``, ``report`` (a :class:`citeloom.structure.restructure.Report`), ``_title_text``,
``_body_texts``, ``_replace``, ``_inside_float`` and ``_fragment``. The rules on heading
text are in :mod:`citeloom.structure.headings`; fonts are read by :mod:`citeloom.structure.fonts`.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from docling_core.types.doc import DocItemLabel, DoclingDocument
from docling_core.types.doc.document import (
    ContentLayer,
    SectionHeaderItem,
    TextItem,
    TitleItem,
)

from citeloom.structure.fonts import Style, read_pdf_styles
from citeloom.structure.headings import (
    BACK_MATTER_RE,
    BARE_LETTER_RE,
    TOP_LEVEL_RE,
    Numbering,
    clean_text,
    find_title,
    parse_numbering,
    section_kind,
)
from citeloom.structure.titles import title_head

# A title line cut after one of these continues on the next line.
_TITLE_OPEN_END = frozenset(["of", "the", "and", "for", "in", "on", "with", "to", "a", "an",
                             "from", "into", "via", "versus", "vs", "by", "at", "or"])
# Words journals print above a title ("RESEARCH ARTICLE Open Access").
_KICKER_RE = re.compile(
    r"^(?:(?:research|original|review|short|brief|open access|white|technical)\s+"
    r"(?:article|paper|research|communication|report|note)|editorial|open access)"
    r"[\s:|\u2013\u2014-]+(?=\S)", re.I)


class HeadingSteps:
    """Headings, title and levels of one document; a mixin of
    :class:`citeloom.structure.restructure.Restructurer` (see the module notes for what it
    provides)."""

    doc: DoclingDocument
    pdf_path: Path | None
    password: str | None
    report: Any
    _title_text: str | None

    # -- 3. headings --------------------------------------------------------------------

    def promote_headings(self) -> None:
        """A standalone "Abstract", "References", "Acknowledgements" or "Appendix" text item
        is a heading the layout model missed."""
        for item in self._body_texts({DocItemLabel.TEXT, DocItemLabel.PARAGRAPH}):
            text = clean_text(item.text).rstrip(" .:")
            if not text or len(text) > 40 or not text[0].isupper() or self._inside_float(item):
                continue
            kind = section_kind(text)
            if kind != "body" or re.match(r"^acknowledge?ments?$", text, re.I):
                self._replace(item, SectionHeaderItem, level=1)
                self.report.promoted.append(text)

    def _headers(self) -> list[SectionHeaderItem]:
        return [i for i in self._body_texts() if isinstance(i, SectionHeaderItem)]

    def _styles(self) -> tuple[dict[str, Style], Style | None]:
        if self.pdf_path is None:
            return {}, None
        boxes = {}
        for item in self._body_texts({DocItemLabel.SECTION_HEADER, DocItemLabel.TITLE}):
            if not item.prov:
                continue
            prov = item.prov[0]
            page = self.doc.pages.get(prov.page_no)
            if page is None:
                continue
            box = prov.bbox.to_bottom_left_origin(page.size.height)
            text = self._fragment(item, prov)
            boxes[item.self_ref] = (prov.page_no, (box.l, box.b, box.r, box.t), text)
        try:
            styles, body = read_pdf_styles(self.pdf_path, boxes, self.password)
        except Exception:  # fonts are a refinement; without them numbering still works
            return {}, None
        texts = {i.self_ref: i.text for i in self._body_texts()}
        styles = {ref: Style(s.size, s.bold, s.italic, _is_caps(_heading_rest(texts[ref])),
                             s.font)
                  for ref, s in styles.items() if ref in texts}
        return styles, body

    def mark_title(self, styles: Mapping[str, Style]) -> None:
        """Move the title to the furniture layer as a TitleItem (see the module notes)."""
        if any(isinstance(t, TitleItem) and t.content_layer == ContentLayer.FURNITURE
               for t in self.doc.texts):  # done before (restructure run twice)
            self._title_text = find_title(self.doc)
            return
        body = self._body_texts()
        position = {item.self_ref: i for i, item in enumerate(body)}
        titles = [i for i in body if isinstance(i, TitleItem)]
        headers = self._headers()
        title: TextItem | None = None
        if len(titles) == 1:
            first_header = next((i for i in body if isinstance(i, SectionHeaderItem)), None)
            if (first_header is None
                    or position[titles[0].self_ref] < position[first_header.self_ref]):
                title = titles[0]
        elif not titles:
            title = self._find_title_candidate(headers, styles)
        if title is None:
            return
        text = clean_text(title.text)
        stripped = _KICKER_RE.sub("", text)
        if stripped != text and _plausible_title(stripped):
            text = stripped
        # Kickers above the title ("WHITE PAPER") are not sections.
        first_page = title.prov[0].page_no if title.prov else None
        title_pos = position[title.self_ref]
        for header in headers:
            if position[header.self_ref] >= title_pos:
                break
            if (header.prov[0].page_no if header.prov else None) == first_page:
                self._replace(header, TextItem, label=DocItemLabel.TEXT)
                self.report.demoted.append(header.text)
        # A title's last line the layout model cut off as text ("... review of the" +
        # "literature"): short, lowercase, right after it on the same page.
        pos = position[title.self_ref]
        nxt = body[pos + 1] if pos + 1 < len(body) else None
        if (nxt is not None and type(nxt) is TextItem and nxt.prov and title.prov
                and nxt.prov[0].page_no == title.prov[0].page_no
                and (text.split()[-1].lower() in _TITLE_OPEN_END or text.endswith((":", "-")))
                and nxt.text[:1].islower() and len(nxt.text.split()) <= 6):
            text = f"{text} {clean_text(nxt.text)}"
            nxt.content_layer = ContentLayer.FURNITURE
        # ... or its first line, ending in a colon, right before it on the same page.
        prev = body[pos - 1] if pos > 0 else None
        if (prev is not None and type(prev) is TextItem and prev.prov and title.prov
                and prev.prov[0].page_no == title.prov[0].page_no
                and title_head(prev.text, text)):
            text = f"{clean_text(prev.text)} {text}"
            prev.content_layer = ContentLayer.FURNITURE
        new = self._replace(title, TitleItem, text=text)
        new.content_layer = ContentLayer.FURNITURE
        self.report.title = text
        self._title_text = text

    def _find_title_candidate(self, headers: list[SectionHeaderItem],
                              styles: Mapping[str, Style]) -> SectionHeaderItem | None:
        """First-page heading before the document's structure starts, plausible as a title,
        and (with fonts) printed clearly larger than any section heading."""
        start = None
        for idx, h in enumerate(headers):
            text = clean_text(h.text)
            if (parse_numbering(text) is not None or section_kind(text) != "body"
                    or TOP_LEVEL_RE.match(text)):
                start = idx
                break
        if start is None or start == 0:
            return None
        pool = [h for h in headers[:start] if (not h.prov or h.prov[0].page_no <= 2)
                and _plausible_title(_KICKER_RE.sub("", clean_text(h.text)))]
        if not pool:
            return None
        if styles:
            styled = [h for h in pool if h.self_ref in styles]
            if styled:
                best = max(styled, key=lambda h: styles[h.self_ref].size)
                others = [styles[h.self_ref].size for h in headers[start:]
                          if h.self_ref in styles and clean_text(h.text) != clean_text(best.text)]
                if others and styles[best.self_ref].size < 1.15 * max(others):
                    return None
                return best
        return pool[0]

    def demote_non_headings(self, styles: Mapping[str, Style], body: Style | None) -> None:
        """Section headers that are not headings become text: no letters ("®"), a formula or
        code ("a2 + 8 = 12", "ENABLE ;"), a sentence (> 20 words), or, with fonts, a sentence
        (final period, or > 8 words) in the body's own font, size and regular upright type
        ("None." under "Conflict of interest"). Known section names are never demoted."""
        for h in self._headers():
            text = clean_text(h.text)
            if (parse_numbering(text) is not None or section_kind(text) != "body"
                    or BACK_MATTER_RE.match(text) or TOP_LEVEL_RE.match(text)):
                continue
            letters = sum(ch.isalpha() for ch in text)
            style = styles.get(h.self_ref)
            plain_body = (style is not None and body is not None and not style.bold
                          and not style.italic and not style.caps and style.font == body.font
                          and style.size <= body.size * 1.05 + 0.1
                          and (text.endswith((".", "!", "?")) or len(text.split()) > 8))
            if (letters < 2 or re.search(r"[=;{}]", text) or len(text.split()) > 20
                    or plain_body):
                self._replace(h, TextItem, label=DocItemLabel.TEXT)
                self.report.demoted.append(text)

    # -- 4. levels ----------------------------------------------------------------------

    def assign_levels(self, styles: Mapping[str, Style]) -> None:
        headers = self._headers()
        if not headers:
            return
        if len({h.level for h in headers}) > 1:  # the source had levels (DOCX, HTML, ...)
            self.report.level_source = "source"
            return
        title = self._title_text
        texts = [clean_text(h.text) for h in headers]
        nums = [parse_numbering(t) for t in texts]
        roman = sum(1 for n in nums if n and n.scheme == "roman") >= 2
        seen_refs = False
        for i, (text, num) in enumerate(zip(texts, nums, strict=True)):
            if num is None and seen_refs and BARE_LETTER_RE.match(text):
                m = BARE_LETTER_RE.match(text)
                assert m is not None
                nums[i] = Numbering("appendix", (m.group(1),), m.group(2))
            elif num is not None and num.scheme == "letter" and not roman:
                nums[i] = Numbering("appendix", num.parts, num.rest)
            if section_kind(text) == "references":
                seen_refs = True
        numbered = sum(1 for n in nums if n is not None)
        use_styles = bool(styles) and sum(1 for h in headers if h.self_ref in styles) >= 0.7 * len(
            headers)
        size_class = _size_classes([styles[h.self_ref].size for h in headers
                                    if h.self_ref in styles]) if use_styles else {}

        def prominence(ref: str) -> tuple[float, int, int, int] | None:
            s = styles.get(ref)
            return s.prominence(size_class.get(s.size, s.size)) if s and use_styles else None

        # Level of each style among numbered headings (for unnumbered ones in the same style).
        style_levels: dict[tuple, Counter[int]] = defaultdict(Counter)
        for h, num in zip(headers, nums, strict=True):
            p = prominence(h.self_ref)
            if num is not None and p is not None and num.scheme != "letter":
                style_levels[p][num.depth] += 1

        if numbered >= 2 or (numbered and numbered == len(headers)):
            self.report.level_source = "numbering+fonts" if use_styles else "numbering"
            levels = self._levels_numbered(headers, texts, nums, prominence, style_levels,
                                           title)
        elif use_styles:
            self.report.level_source = "fonts"
            levels = self._levels_by_style(headers, texts, prominence, title)
        else:
            self.report.level_source = "case"
            levels = self._levels_by_case(texts, title)
        for h, text, level in zip(headers, texts, levels, strict=True):
            h.level = max(1, min(level, 100))
            self.report.levels[text] = h.level

    def _levels_numbered(self, headers, texts, nums, prominence, style_levels, title
                         ) -> list[int]:
        open_: dict[int, Numbering | None] = {}  # the chunker's heading stack, simulated
        levels: list[int] = []
        last_numbered_level = 0
        for h, text, num in zip(headers, texts, nums, strict=True):
            kind = section_kind(text, title)
            if num is not None:
                level = 2 if num.scheme == "letter" else num.depth
                if num.scheme != "letter":
                    # An open heading whose number is not a prefix of this one is no
                    # ancestor: "2.1.6" must not sit under "Chapter 1" when chapter 2's
                    # heading is missing.
                    for lvl in sorted(open_):
                        if lvl >= level:
                            break
                        anc = open_[lvl]
                        if anc is None or anc.parts != num.parts[:len(anc.parts)]:
                            level = lvl
                            break
                last_numbered_level = level
            elif kind != "body" or BACK_MATTER_RE.match(text) or TOP_LEVEL_RE.match(text):
                level = 1
            else:
                p = prominence(h.self_ref)
                if p is not None and p in style_levels:
                    level = style_levels[p].most_common(1)[0][0]
                elif p is not None and style_levels:
                    above = [lv for sp, c in style_levels.items() if sp > p
                             for lv in [c.most_common(1)[0][0]]]
                    level = (max(above) + 1) if above else 1
                else:
                    level = last_numbered_level + 1
            for k in [k for k in open_ if k >= level]:
                del open_[k]
            open_[level] = num if num is not None and num.scheme != "letter" else None
            levels.append(level)
        return levels

    def _levels_by_style(self, headers, texts, prominence, title) -> list[int]:
        ranks = sorted({p for h in headers if (p := prominence(h.self_ref)) is not None},
                       reverse=True)
        first = next((prominence(h.self_ref) for h, t in zip(headers, texts, strict=True)
                      if section_kind(t, title) == "body" and not BACK_MATTER_RE.match(t)
                      and prominence(h.self_ref) is not None), None)
        if first is None:
            return [1] * len(headers)
        below = [p for p in ranks if p < first]
        level_of = {p: 1 for p in ranks if p >= first}
        level_of.update({p: min(2 + i, 4) for i, p in enumerate(below)})
        levels = []
        top_text = ""
        for h, text in zip(headers, texts, strict=True):
            p = prominence(h.self_ref)
            level = level_of.get(p, 1) if p is not None else 1
            kind = section_kind(text, title)
            if kind in ("abstract", "references", "appendix", "title"):
                level = 1
            elif BACK_MATTER_RE.match(text):
                container = bool(re.search(r"declaration|additional information|back matter|"
                                           r"end matter|information", top_text, re.I))
                level = min(level, 2 if container else 1)
            if level == 1:
                top_text = text
            levels.append(level)
        return levels

    def _levels_by_case(self, texts, title) -> list[int]:
        """Without fonts or numbers: when section names are in capitals (INTRODUCTION,
        METHODS) and other headings are not, the others are their subsections."""
        regular = [t for t in texts if section_kind(t, title) == "body"
                   and not BACK_MATTER_RE.match(t)]
        caps = [t for t in regular if _is_caps(t)]
        if not (len(caps) >= 2 and len(caps) < len(regular) and _is_caps(regular[0])):
            self.report.level_source = "flat"
            return [1] * len(texts)
        out = []
        for t in texts:
            sub = (section_kind(t, title) == "body" and not BACK_MATTER_RE.match(t)
                   and not _is_caps(t) and not TOP_LEVEL_RE.match(t))
            out.append(2 if sub else 1)
        return out


def _heading_rest(text: str) -> str:
    num = parse_numbering(text)
    return num.rest if num else text


def _is_caps(text: str) -> bool:
    cased = [ch for ch in text if ch.isupper() or ch.islower()]
    return len(cased) >= 3 and all(ch.isupper() for ch in cased)


def _size_classes(sizes: list[float]) -> dict[float, float]:
    """Sizes within 0.6 pt of each other are one class (named by its largest size)."""
    out: dict[float, float] = {}
    group: list[float] = []
    for s in sorted(set(sizes)):
        if group and s - group[0] > 0.6:
            for g in group:
                out[g] = group[-1]
            group = []
        group.append(s)
    for g in group:
        out[g] = group[-1]
    return out


def _plausible_title(text: str) -> bool:
    words = re.findall(r"[^\W\d_]{2,}", text)
    if len(words) < 3 or len(text) > 400:
        return False
    letters = sum(ch.isalpha() for ch in text)
    return letters / max(1, len(text.replace(" ", ""))) > 0.7
