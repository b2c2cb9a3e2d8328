"""Structure repair between conversion and chunking.

Docling's PDF pipeline with our CDLA layout model leaves a document that chunks badly for
citation: every heading sits at level 1, the paper title is a section header (so it heads
the front matter like a section), running headers, page numbers and a table of contents
leak into the body (and, merged into a paragraph across a page break, give its chunk the
wrong first page), and Docling's line joiner drops real hyphens at line ends
("population-\\nbased" -> "populationbased", "482-\\n5" -> "4825").

:func:`restructure` repairs that in place, in this order (docs/CHUNKING.md has the rules
and the measurements). This module holds the pass itself and steps 0-2; steps 3-4
(headings, title, levels) are in :mod:`citeloom.structure.levels`. The rules they apply live in
:mod:`citeloom.text` (text), :mod:`citeloom.structure.headings` (numbering, section kinds, the
title) and :mod:`citeloom.structure.fonts` (styles and line-end hyphens read from the PDF):

0. **Prose in floats** (:meth:`Restructurer.unwrap_prose`): running text the layout model
   boxed as a table or picture goes back into the reading order.
1. **Furniture** (:meth:`Restructurer.drop_furniture`): short lines in the page margins
   that repeat on two or more pages (digits ignored), page numbers ("7", "Page 5 of 10",
   "5/16", "xi") and tables of contents (dot leaders) move to the furniture layer, which the
   chunker never reads. A running line merged into a paragraph is cut out of its text
   together with its provenance entry, so the paragraph keeps only its real pages. Then
   paragraphs joined across a page break are split there
   (:meth:`Restructurer.split_at_pages`), so every chunk cites its own first page.
   A draft's margin line numbers, read into the paragraphs beside them, are cut out
   (:meth:`Restructurer.drop_line_numbers`, :mod:`citeloom.structure.linenumbers`), and a
   watermark drawn across the page ("DRAFT") off the item it was read into
   (:mod:`citeloom.structure.watermarks`).
2. **Text** (:func:`~citeloom.text.normalize_text`): ligatures, soft hyphens, hyphens
   at line breaks, control characters, whitespace; code and formulas untouched. Then
   compounds Docling closed up at a line break get their hyphen back: given the PDF,
   exactly where its text layer shows a line-end hyphen that was real; without it, where
   the document itself spells the word hyphenated more often.
3. **Headings**: standalone "Abstract"/"References"/... text items become headings; section
   headers that are no headings (a symbol, a formula, a sentence, body-size regular type)
   become text; the title becomes a ``TitleItem`` on the furniture layer (see below).
4. **Levels**: from numbering (1 / 1.2 / 1.2.3, "1.", "Chapter 2", roman "IV.", "A." under
   roman sections, "Appendix A", "A.1"), then, given the PDF, from font size/weight/case,
   else from letter case only. Docling's ``HierarchicalChunker`` keeps one heading per
   level and drops every kept heading whose level is >= a new heading's level, so a
   heading's level decides its chunk's ``meta.headings`` (the section path).

The title is kept out of section paths on purpose: ``HierarchicalChunker`` treats a body
``TitleItem`` as level 0, i.e. it would prefix *every* chunk's headings. On the furniture
layer it stays in the document (see :func:`~citeloom.structure.headings.find_title`) but out of
chunks.

Font information: a ``DoclingDocument`` carries none (no font name, size or weight on any
item; Docling's parsed pages, which know font names but not sizes, are dropped after
conversion). With ``pdf_path`` the heading styles are read from the PDF with pypdfium2
(effective size = font size x text-matrix scale, weight, font name, italic flag) at each
heading's provenance box. Without it, numbering and letter case are all there is, and
unnumbered headings in a document without numbering and without an upper/lower-case
pattern stay at level 1.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docling_core.types.doc import DocItemLabel, DoclingDocument
from docling_core.types.doc.document import (
    CodeItem,
    ContentLayer,
    FormulaItem,
    PictureItem,
    ProvenanceItem,
    SectionHeaderItem,
    TableItem,
    TextItem,
    TitleItem,
)

from citeloom.structure import linenumbers, watermarks
from citeloom.structure.fonts import Style, line_end_hyphens
from citeloom.structure.headings import clean_text
from citeloom.structure.levels import HeadingSteps
from citeloom.text import (
    compound_forms,
    fill_lost_glyphs,
    join_hyphen_break,
    normalize_text,
    repair_joined_compounds,
    word_counts,
)

_log = logging.getLogger(__name__)

_TEXTUAL = {DocItemLabel.TEXT, DocItemLabel.PARAGRAPH, DocItemLabel.SECTION_HEADER,
            DocItemLabel.PAGE_HEADER, DocItemLabel.PAGE_FOOTER, DocItemLabel.TITLE}
_ROMAN_LOWER = r"(?=[ivxlc])c{0,3}(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})"
_PAGE_NUMBER_RE = re.compile(rf"^(?:page\s*)?(?:#|{_ROMAN_LOWER})(?:\s*(?:/|of)\s*#)?$")
_LEADER_RE = re.compile(r"(?:\.\s?){4,}\.?")
# A contents entry: a dot leader, then its page number, then not more dots (". . . . 1 . . 1"
# is a printed sparse matrix in running text, not a contents line).
_LEADER_ENTRY_RE = re.compile(r"(?:\.\s?){4,}\s*(?:\d{1,4}|[ivxlc]{1,6})\b(?!\s?\.)", re.I)
MARGIN = 0.15  # fraction of the page height (or width, for sideways text) counted as margin
MAX_RUNNING_WORDS = 60


def _running_key(text: str) -> str:
    key = unicodedata.normalize("NFKC", text).lower()
    key = re.sub(r"\d+", "#", key)
    return " ".join(key.split()).strip(" .,;:|-\u2013\u2014")


@dataclass
class Report:
    """What :func:`restructure` changed (for logs and tests)."""

    title: str | None = None
    furniture: list[str] = field(default_factory=list)
    cut_fragments: list[str] = field(default_factory=list)
    toc: int = 0
    page_splits: int = 0
    unwrapped: list[str] = field(default_factory=list)
    promoted: list[str] = field(default_factory=list)
    demoted: list[str] = field(default_factory=list)
    levels: dict[str, int] = field(default_factory=dict)
    level_source: str = "numbering"
    text_changed: int = 0
    line_numbers: int = 0
    watermarks: int = 0
    errors: list[str] = field(default_factory=list)


class Restructurer(HeadingSteps):
    """One document's repair; :func:`restructure` runs all steps."""

    def __init__(self, doc: DoclingDocument, pdf_path: str | Path | None = None, *,
                 password: str | None = None, strict: bool = False) -> None:
        self.doc = doc
        self.password = password
        self.strict = strict
        self.pdf_path = Path(pdf_path) if pdf_path else None
        if self.pdf_path and (not self.pdf_path.is_file()
                              or self.pdf_path.suffix.lower() != ".pdf"):
            self.pdf_path = None
        self.report = Report()
        self._title_text: str | None = None
        self._layers: dict[int, list[Any]] = {}  # page -> the PDF's lines (``_layer``)
        self.paged = any(getattr(t, "prov", None) for t in doc.texts)

    def run(self) -> DoclingDocument:
        """All steps in order. A step that fails is logged and skipped (unless ``strict``):
        the repair is best effort and must never cost the document its ingestion."""
        styles: dict[str, Style] = {}
        body: Style | None = None

        def read_styles() -> None:
            nonlocal styles, body
            styles, body = self._styles()

        steps: list[tuple[str, Callable[[], None]]] = []
        if self.paged:
            steps += [("unwrap_prose", self.unwrap_prose), ("drop_furniture", self.drop_furniture),
                      ("split_at_pages", self.split_at_pages),
                      ("line_numbers", self.drop_line_numbers),
                      ("watermarks", self.drop_watermarks)]
        steps += [("normalise", self.normalise), ("promote_headings", self.promote_headings),
                  ("styles", read_styles), ("mark_title", lambda: self.mark_title(styles)),
                  ("demote", lambda: self.demote_non_headings(styles, body)),
                  ("levels", lambda: self.assign_levels(styles))]
        for name, step in steps:
            try:
                step()
            except Exception as exc:
                if self.strict:
                    raise
                _log.warning("restructure: step %s failed on %s: %s", name, self.doc.name, exc)
                self.report.errors.append(f"{name}: {type(exc).__name__}: {exc}")
        r = self.report
        _log.debug("restructure %s: title=%r levels from %s, %d furniture, %d cut, %d toc, "
                   "%d page splits, %d unwrapped, %d texts changed", self.doc.name, r.title,
                   r.level_source, len(r.furniture), len(r.cut_fragments), r.toc,
                   r.page_splits, len(r.unwrapped), r.text_changed)
        return self.doc

    # -- helpers ------------------------------------------------------------------------

    def _replace(self, item: TextItem, cls: type[TextItem], **changes: Any) -> TextItem:
        """Swap ``item`` for an instance of ``cls`` under the same reference."""
        idx = int(item.self_ref.rsplit("/", 1)[1])
        data = {name: getattr(item, name) for name in cls.model_fields
                if name not in ("label", "level") and hasattr(item, name)}
        data.update(changes)
        new = cls(**data)
        self.doc.texts[idx] = new
        return new

    def _inside_float(self, item: Any) -> bool:
        """Whether the item belongs to a table or picture (cells, figure text)."""
        parent = item.parent
        while parent is not None:
            node = parent.resolve(self.doc)
            if isinstance(node, TableItem | PictureItem):
                return True
            parent = getattr(node, "parent", None)
        return False

    def _body_texts(self, labels: set[DocItemLabel] | None = None) -> list[TextItem]:
        out = []
        for item, _ in self.doc.iterate_items():
            if isinstance(item, TextItem) and (labels is None or item.label in labels):
                out.append(item)
        return out

    def _band(self, prov: ProvenanceItem) -> str | None:
        page = self.doc.pages.get(prov.page_no)
        if page is None:
            return None
        height, width = page.size.height, page.size.width
        box = prov.bbox.to_bottom_left_origin(height)
        if box.b >= height * (1 - MARGIN):
            return "top"
        if box.t <= height * MARGIN:
            return "bottom"
        tall = (box.t - box.b) > 2 * (box.r - box.l)
        if tall and (box.r <= width * 0.08 or box.l >= width * 0.92):
            return "side"
        return None

    @staticmethod
    def _fragment(item: TextItem, prov: ProvenanceItem) -> str:
        if len(item.prov) == 1:
            return item.text
        start, end = prov.charspan
        return item.text[start:end]

    # -- 0. prose inside tables and pictures ---------------------------------------------

    def unwrap_prose(self) -> None:
        """Text the layout model boxed as a table or picture but which is running prose
        (sentences, not cells or labels) goes back into the reading order as text.

        Without a table-structure model our tables have a single empty cell and their text
        in child items; Docling's chunker labels that text "table", and drops text inside
        pictures altogether. A table or picture holds prose when at least 30 words sit in
        its text items (captions and footnotes aside: they are chunked with it) and at
        least 60% of them in items of 10 or more words. Such a table's text all moves out
        and the table, now an empty shell, goes to the furniture layer; a picture keeps its
        short labels and only its long (>= 10 words) items move out."""
        for node in [*self.doc.tables, *self.doc.pictures]:
            if node.content_layer != ContentLayer.BODY or node.parent is None:
                continue
            is_table = isinstance(node, TableItem)
            if is_table and node.data.num_rows * node.data.num_cols > 1 \
                    and any(c.text.strip() for c in node.data.table_cells):
                continue
            satellites = {r.cref for r in [*node.captions, *node.footnotes]}
            texts = [i for i, _ in self.doc.iterate_items(
                root=node, traverse_pictures=True, included_content_layers=set(ContentLayer))
                if isinstance(i, TextItem) and i.self_ref not in satellites]
            words = [len(t.text.split()) for t in texts]
            total = sum(words)
            if total < 30 or sum(w for w in words if w >= 10) < 0.6 * total:
                continue
            if not is_table:
                texts = [t for t, w in zip(texts, words, strict=True) if w >= 10]
            self._lift(node, texts)
            if is_table:
                node.content_layer = ContentLayer.FURNITURE
            self.report.unwrapped.append(node.self_ref)

    def _lift(self, node: Any, texts: list[TextItem]) -> None:
        """Move ``texts`` (descendants of ``node``) to ``node``'s parent, right after it."""
        parent = node.parent.resolve(self.doc)
        moved = {t.self_ref for t in texts}
        for desc, _ in list(self.doc.iterate_items(root=node, with_groups=True,
                                                   traverse_pictures=True,
                                                   included_content_layers=set(ContentLayer))):
            desc.children = [c for c in desc.children if c.cref not in moved]
        at = next(i for i, c in enumerate(parent.children) if c.cref == node.self_ref) + 1
        for t in texts:
            t.parent = parent.get_ref()
        parent.children[at:at] = [t.get_ref() for t in texts]

    # -- 1. furniture -------------------------------------------------------------------

    def drop_furniture(self) -> None:
        """Running headers/footers, page numbers and tables of contents out of the body."""
        doc = self.doc
        candidates: list[tuple[TextItem, ProvenanceItem, str, str]] = []
        pages_by_key: dict[str, set[int]] = defaultdict(set)
        furniture_keys: set[str] = set()
        for item in doc.texts:
            if item.content_layer == ContentLayer.FURNITURE and item.text.strip():
                furniture_keys.add(_running_key(item.text))
        for item in self._body_texts(_TEXTUAL):
            if not item.prov or self._inside_float(item):
                continue
            for prov in item.prov:
                band = self._band(prov)
                frag = self._fragment(item, prov).strip()
                if not frag or len(frag.split()) > MAX_RUNNING_WORDS:
                    continue
                # A text item that is only a number is a page or chapter number wherever it
                # sits (table cells and figure labels are not looked at).
                if band is None and not (len(item.prov) == 1 and frag.isdigit()
                                         and len(frag) <= 4):
                    continue
                key = _running_key(frag)
                candidates.append((item, prov, frag, key))
                pages_by_key[key].add(prov.page_no)

        def running(item: TextItem, key: str) -> bool:
            # A heading repeated at the top of two pages may be two sections of one name
            # ("Results" in paper and supplement): headings need three pages.
            repeats = 3 if isinstance(item, SectionHeaderItem) else 2
            return (bool(_PAGE_NUMBER_RE.match(key)) or len(pages_by_key[key]) >= repeats
                    or key in furniture_keys)

        cut: dict[str, list[ProvenanceItem]] = defaultdict(list)
        items: dict[str, TextItem] = {}
        for item, prov, _frag, key in candidates:
            if key and running(item, key):
                cut[item.self_ref].append(prov)
                items[item.self_ref] = item
        for ref, provs in cut.items():
            self._cut(items[ref], provs)
        self._drop_toc()

    def _cut(self, item: TextItem, provs: list[ProvenanceItem]) -> None:
        """Remove fragments (provenance entries) from an item, or the whole item."""
        rest = [p for p in item.prov if p not in provs]
        top = all(self._band(p) == "top" for p in provs)
        if not rest:
            self._to_furniture(item, DocItemLabel.PAGE_HEADER if top else
                               DocItemLabel.PAGE_FOOTER)
            self.report.furniture.append(item.text)
            return
        text = item.text
        spans = []
        for p in provs:
            frag = text[p.charspan[0]:p.charspan[1]].strip()
            spans.append((p.charspan[0], p.charspan[1], frag))
            self.report.cut_fragments.append(frag)
        for start, end, frag in sorted(spans, reverse=True):
            if text[start:end].strip() != frag:  # spans out of step with the text: skip
                continue
            text = text[:start] + text[end:]
        new_text = " ".join(text.split())
        # Re-base the remaining spans on the new text.
        offset, new_provs = 0, []
        for p in rest:
            frag = clean_text(item.text[p.charspan[0]:p.charspan[1]])
            pos = new_text.find(frag, offset) if frag else -1
            if pos >= 0:
                p = p.model_copy(update={"charspan": (pos, pos + len(frag))})
                offset = pos + len(frag)
            new_provs.append(p)
        item.text = new_text
        item.prov = new_provs

    def _to_furniture(self, item: TextItem, label: DocItemLabel) -> None:
        if type(item) is TextItem:
            item.label = label
        elif isinstance(item, SectionHeaderItem | TitleItem):
            item = self._replace(item, TextItem, label=label)
        item.content_layer = ContentLayer.FURNITURE

    def _drop_toc(self) -> None:
        """Tables of contents (dot leaders before page numbers) leave the body: they repeat
        the headings, and a hit on them would cite the contents page, not the section."""
        for item in self._body_texts(_TEXTUAL | {DocItemLabel.LIST_ITEM}):
            if self._inside_float(item):
                continue
            provs = [p for p in item.prov if self._is_toc(self._fragment(item, p))]
            if not provs and not (not item.prov and self._is_toc(item.text)):
                continue
            if len(provs) == len(item.prov):
                self._to_furniture(item, DocItemLabel.TEXT)
            else:
                self._cut(item, provs)
            self.report.toc += 1

    @staticmethod
    def _is_toc(text: str) -> bool:
        entries = len(_LEADER_ENTRY_RE.findall(text))
        if not entries:
            return False
        leader_chars = sum(len(m.group()) for m in _LEADER_RE.finditer(text))
        return leader_chars >= 0.25 * len(text) or entries >= 3

    # -- 1b. one page per paragraph ----------------------------------------------------

    def split_at_pages(self) -> None:
        """A paragraph Docling joined across a page break becomes one item per page.

        The chunker gives a chunk the pages of all its items; a long paragraph that runs
        from page 7 to 8 is cut into several chunks, and every one of them would claim
        page 7 as its first page, also those whose text is all on page 8. Split at the
        page break (at the nearest space: a word broken across the pages stays whole on
        the first page), each piece cites its own page, and the chunker still merges
        neighbours under the same headings up to its token budget."""
        for item in self._body_texts({DocItemLabel.TEXT, DocItemLabel.PARAGRAPH,
                                      DocItemLabel.FOOTNOTE, DocItemLabel.REFERENCE}):
            if type(item) is not TextItem or len({p.page_no for p in item.prov}) < 2 \
                    or self._inside_float(item):
                continue
            groups: list[list[ProvenanceItem]] = []
            for prov in item.prov:
                if groups and groups[-1][-1].page_no == prov.page_no:
                    groups[-1].append(prov)
                else:
                    groups.append([prov])
            cuts = [self._cut_point(item.text, g[0].charspan[0]) for g in groups[1:]]
            if any(c is None for c in cuts) or cuts != sorted(cuts):
                continue
            bounds = [0, *cuts, len(item.text)]  # type: ignore[list-item]
            pieces = [item.text[a:b].strip() for a, b in zip(bounds, bounds[1:], strict=False)]
            if not all(pieces):
                continue
            parent = item.parent.resolve(self.doc)
            at = next(i for i, c in enumerate(parent.children) if c.cref == item.self_ref)
            item.text, item.orig, item.prov = pieces[0], pieces[0], groups[0]
            for k, (piece, group) in enumerate(zip(pieces[1:], groups[1:], strict=True)):
                new = item.model_copy(deep=True)
                new.self_ref = f"#/texts/{len(self.doc.texts)}"
                new.text, new.orig, new.children = piece, piece, []
                new.prov = [p.model_copy(update={"charspan": (0, len(piece))}) for p in group]
                self.doc.texts.append(new)
                parent.children.insert(at + 1 + k, new.get_ref())
            self.report.page_splits += 1

    @staticmethod
    def _cut_point(text: str, start: int) -> int | None:
        """Whitespace nearest to a recorded fragment start (Docling's spans drift by a
        character or two where it closed up a hyphen at the break)."""
        for delta in range(0, 25):
            for pos in (start - 1 + delta, start - 1 - delta):
                if 0 < pos < len(text) and text[pos].isspace():
                    return pos
        return None

    def _layer(self, page_no: int) -> list[Any]:
        """Page ``page_no``'s lines as PDFium reads them (``textlayer.page_lines``), read
        once for the steps that compare Docling's text with them; none when unreadable."""
        if page_no not in self._layers:
            from citeloom.convert.textlayer import page_lines

            try:
                self._layers[page_no] = page_lines(self.pdf_path,  # type: ignore[arg-type]
                                                   page_no, password=self.password)
            except Exception:  # noqa: BLE001 - no other reading: the text stays as it is
                self._layers[page_no] = []
        return self._layers[page_no]

    def _prose_by_page(self, *, one_page: bool) -> dict[int, list[TextItem]]:
        """The body's text items by their (first) page, in reading order: no code,
        formula, table cell or figure text; ``one_page``: only items on a single page."""
        pages: dict[int, list[TextItem]] = defaultdict(list)
        for item in self._body_texts():
            if item.prov and not (one_page and len({p.page_no for p in item.prov}) > 1) \
                    and not isinstance(item, CodeItem | FormulaItem) \
                    and not self._inside_float(item):
                pages[item.prov[0].page_no].append(item)
        return pages

    def drop_line_numbers(self) -> None:
        """A draft's margin line numbers out of the text beside them
        (:mod:`citeloom.structure.linenumbers`): only on pages whose text holds a run of
        them and whose PDF prints them down a margin; code and formulas keep theirs."""
        if self.pdf_path is None:
            return
        for page_no, items in sorted(self._prose_by_page(one_page=True).items()):
            texts = [item.text for item in items]
            if not linenumbers.candidate(texts):
                continue
            lines = linenumbers.numbered_column(self._layer(page_no))
            for item, where in zip(items, linenumbers.spans(texts, lines), strict=True):
                if where:
                    item.text = linenumbers.cut(item.text, where).strip()
                    item.prov = [p.model_copy(update={"charspan": (
                        linenumbers.moved(p.charspan[0], where),
                        linenumbers.moved(p.charspan[1], where))}) for p in item.prov]
                    self.report.line_numbers += len(where)
                    if not item.text.strip():
                        self._to_furniture(item, DocItemLabel.PAGE_FOOTER)

    def drop_watermarks(self) -> None:
        """A watermark drawn across the page ("DRAFT") off the item Docling read it into
        (:mod:`citeloom.structure.watermarks`)."""
        if self.pdf_path is None:
            return
        pages = self._prose_by_page(one_page=False)
        for page_no in watermarks.suspect_pages({p: [t.text for t in items]
                                                 for p, items in pages.items()}):
            marks = watermarks.across(self._layer(page_no))
            items = pages[page_no]
            for item, new in zip(items, watermarks.strip([t.text for t in items], marks),
                                 strict=True):
                if new != item.text:
                    item.text = new
                    self.report.watermarks += 1
                    if not new:
                        self._to_furniture(item, DocItemLabel.PAGE_HEADER)

    # -- 2. text ------------------------------------------------------------------------

    def normalise(self) -> None:
        doc = self.doc
        editable = [t for t in doc.texts if not isinstance(t, CodeItem | FormulaItem)
                    and t.label not in (DocItemLabel.CODE, DocItemLabel.FORMULA)
                    and not self._inside_float(t)]
        counts = word_counts(t.text for t in editable)
        for item in editable:
            new = normalize_text(item.text, counts=counts)
            if new != item.text:
                item.text = new
                self.report.text_changed += 1
        if self.pdf_path is not None:
            self._fill_lost_glyphs(editable)
            # The PDF says exactly which words were broken at a line end.
            self._restore_line_hyphens(editable, word_counts(t.text for t in editable))
            return
        counts = word_counts(t.text for t in editable)
        forms = compound_forms(counts)
        for item in editable:
            new = repair_joined_compounds(item.text, counts, forms)
            if new != item.text:
                item.text = new
                self.report.text_changed += 1

    def _fill_lost_glyphs(self, items: list[TextItem]) -> None:
        """Words with a glyph the parser could not map (U+FFFD: an old TeX font's "fi"
        ligature, "Simpli\ufffded") spelt as PDFium reads the same page
        (:func:`~citeloom.text.fill_lost_glyphs`)."""
        for item in items:
            if "\ufffd" not in item.text or not item.prov:
                continue
            reading = " ".join(text for text, _ in self._layer(item.prov[0].page_no))
            new = fill_lost_glyphs(item.text, reading)
            if new != item.text:
                item.text = new
                self.report.text_changed += 1

    def _restore_line_hyphens(self, items: list[TextItem], counts: Mapping[str, int]) -> None:
        """Where the PDF prints "population-" / "based" over a line break and Docling wrote
        "populationbased", put a real hyphen back (see :func:`join_hyphen_break`), at
        that place only: matched on that page, after the text that precedes it."""
        try:
            pairs = line_end_hyphens(self.pdf_path, self.password)  # type: ignore[arg-type]
        except Exception:  # the PDF is optional evidence; a damaged file changes nothing
            return
        by_page: dict[int, list[TextItem]] = defaultdict(list)
        for t in items:
            for page_no in dict.fromkeys(p.page_no for p in t.prov):
                by_page[page_no].append(t)
        for page_no, page_pairs in pairs.items():
            on_page = by_page.get(page_no, [])
            for context, before, after in page_pairs:
                fixed = join_hyphen_break(before, after, counts, closed_self=1)
                if fixed == before + after:
                    continue
                ctx = r"\s*".join(re.escape(w) for w in context.split())
                if not ctx and len(before + after) < 6:
                    continue
                pattern = re.compile(
                    rf"((?<![\w-]){ctx}\s*){re.escape(before + after)}(?!\w)" if ctx else
                    rf"((?<![\w-])){re.escape(before + after)}(?!\w)")
                for item in on_page:
                    new, n = pattern.subn(lambda m, f=fixed: f"{m.group(1)}{f}", item.text,
                                          count=1)
                    if n:
                        item.text = new
                        self.report.text_changed += 1
                        break


def restructure(doc: DoclingDocument, pdf_path: str | Path | None = None, *,
                password: str | None = None, strict: bool = False) -> DoclingDocument:
    """Repair a converted document's structure in place (see the module notes) and return
    it.

    ``pdf_path``: the PDF it was converted from (``password`` if encrypted); adds
    font-based heading levels and hyphens restored from the PDF's text layer. Any other
    path, or none, is fine: everything else works from the document alone.
    ``strict``: raise instead of logging and skipping a step that fails (tests).

    The text-health ledger the conversion keeps in the body's metadata is taken out first:
    Docling's serializers (Markdown, the chunker's) would print it as text. Read it before
    (``health.ledger_of``), as ``prepare`` does."""
    from citeloom.convert.health import detach_ledger

    detach_ledger(doc)
    return Restructurer(doc, pdf_path, password=password, strict=strict).run()
