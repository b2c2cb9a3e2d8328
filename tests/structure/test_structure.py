"""Structure repair before chunking (citeloom.structure.restructure, with the rules in
citeloom.structure.headings,
citeloom.text and citeloom.structure.fonts): heading levels, title, abstract, references and
appendix, text normalisation, running headers/footers.

Real conversions come from the session's ``converted`` fixture and are copied before
``restructure`` edits them (the fixture's cache is shared with other test modules); each
restructured copy is cached for this module. Pages are checked independently of Docling,
against PDFium's text layer (pypdfium2).
"""

from __future__ import annotations

import difflib
import html
import re
from collections.abc import Callable
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
import pytest
from docling_core.types.doc import DocItemLabel, DoclingDocument
from docling_core.types.doc.document import ContentLayer, SectionHeaderItem

from citeloom.embed.chunk import Chunk, Chunker
from citeloom.structure.headings import (
    chain_kind,
    find_title,
    numbering_level,
    parse_numbering,
    section_kind,
)
from citeloom.structure.restructure import Restructurer, restructure
from citeloom.text import join_hyphen_break, normalize_text

from ..conftest import CORPUS

TEXT = CORPUS / "text"
GROUNDTRUTH = CORPUS / "groundtruth"
REDP = TEXT / "docling__redp5110_sampled.pdf"
BMC = TEXT / "cermine__example2.pdf"
WINDOW = 256


@pytest.fixture(scope="module")
def chunker(tokenizer) -> Chunker:  # type: ignore[no-untyped-def]
    return Chunker(tokenizer, WINDOW)


def _copy(doc: DoclingDocument) -> DoclingDocument:
    return DoclingDocument.model_validate_json(doc.model_dump_json())


@pytest.fixture(scope="module")
def restructured(converted) -> Callable[..., DoclingDocument]:  # type: ignore[no-untyped-def]
    """(pdf, with_pdf=True) -> restructured copy of the session's conversion, cached."""
    cache: dict[tuple[Path, bool], DoclingDocument] = {}

    def get(pdf: Path, with_pdf: bool = True) -> DoclingDocument:
        key = (pdf, with_pdf)
        if key not in cache:
            cache[key] = restructure(_copy(converted(pdf)), pdf if with_pdf else None,
                                       strict=True)
        return cache[key]

    return get


@pytest.fixture(scope="module")
def chunks_of(restructured, chunker: Chunker) -> Callable[..., list[Chunk]]:  # type: ignore[no-untyped-def]
    cache: dict[tuple[Path, bool], list[Chunk]] = {}

    def get(pdf: Path, with_pdf: bool = True) -> list[Chunk]:
        if (pdf, with_pdf) not in cache:
            cache[(pdf, with_pdf)] = chunker.chunk(restructured(pdf, with_pdf))
        return cache[(pdf, with_pdf)]

    return get


def _alnum(text: str) -> str:
    return re.sub(r"[^0-9a-z]", "", text.lower())


_PAGES: dict[Path, list[str]] = {}


def pdf_pages(pdf: Path) -> list[str]:
    """PDFium's text of each page, hyphen markers resolved, as lowercase letters/digits."""
    if pdf not in _PAGES:
        doc = pdfium.PdfDocument(str(pdf))
        try:
            _PAGES[pdf] = [_alnum(normalize_text(p.get_textpage().get_text_range()))
                           for p in doc]
        finally:
            doc.close()
    return _PAGES[pdf]


def pages_holding(pdf: Path, text: str) -> list[int]:
    """1-based pages whose text layer contains ``text`` (compared as letters/digits)."""
    needle = _alnum(text)
    return [i for i, page in enumerate(pdf_pages(pdf), start=1) if needle and needle in page]


def chunk_with(chunks: list[Chunk], phrase: str) -> Chunk:
    hits = [c for c in chunks if phrase in c.text]
    assert hits, f"no chunk contains {phrase!r}"
    return hits[0]


# --------------------------------------------------------------------------------------
# Heading numbers and kinds (unit)
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("heading", "level"), [
    ("1 Introduction", 1),
    ("1. Introduction", 1),
    ("3.2 Training", 2),
    ("3.2. Training", 2),
    ("1.2.3 Data sources", 3),
    ("4.1.2.1 Very deep", 4),
    ("IV. RESULTS", 1),
    ("XII. Conclusion", 1),
    ("Chapter 2. Roles and separation of duties", 1),
    ("Appendix A", 1),
    ("Appendix B: Proofs", 1),
    ("APPENDIX", 1),
    ("A.1 Hyperparameters", 2),
    ("B.2.3 Ablations", 3),
    ("A. Appendix-style letter", 1),
    ("Introduction", None),
    ("2019 results in review", None),
    ("A Study of Things", None),
    ("3D reconstruction", None),
])
def test_numbering_level(heading: str, level: int | None) -> None:
    assert numbering_level(heading) == level


def test_letter_sections_under_roman_numerals_are_subsections() -> None:
    assert numbering_level("A. Background", roman_sections=True) == 2
    assert numbering_level("A. Background") == 1
    num = parse_numbering("3.2.1 Data")
    assert num is not None and num.parts == (3, 2, 1) and num.rest == "Data"


@pytest.mark.parametrize(("heading", "kind"), [
    ("Abstract", "abstract"),
    ("ABSTRACT", "abstract"),
    ("Zusammenfassung", "abstract"),
    ("References", "references"),
    ("7 References", "references"),
    ("REFERENCES", "references"),
    ("Bibliography", "references"),
    ("Literature Cited", "references"),
    ("Literaturverzeichnis", "references"),
    ("Appendix A: Proofs", "appendix"),
    ("A.1 Hyperparameters", "appendix"),
    ("Supplementary Material", "appendix"),
    ("Supporting Information", "appendix"),
    ("3.2 Training", "body"),
    ("Referee comments", "body"),
    ("Reference standard and index tests", "body"),
])
def test_section_kind(heading: str, kind: str) -> None:
    assert section_kind(heading) == kind


def test_title_and_chain_kinds() -> None:
    assert section_kind("Deep  nets for  X", title="Deep nets for X") == "title"
    assert chain_kind(["Appendix A", "Proofs of Section 3"]) == "appendix"
    assert chain_kind(["References"]) == "references"
    assert chain_kind(["3 Method", "3.2 Training"]) == "body"


# --------------------------------------------------------------------------------------
# Normalisation rules (unit)
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("raw", "clean"), [
    ("recog-\nnition", "recognition"),
    ("recog- nition", "recognition"),
    ("recog-\r\n  nition rates", "recognition rates"),
    ("expec\ufffetations", "expectations"),  # PDFium's line-end hyphen marker
    ("soft\u00adware", "software"),
    ("co\u00ad\noperation", "cooperation"),
    ("the \ufb01rst \ufb02ow, \ufb00ect, \ufb03x, \ufb04e, \ufb05, \ufb06",
     "the first flow, ffect, ffix, ffle, st, st"),
    ("state-of-the-art", "state-of-the-art"),
    ("state-of-the-\nart", "state-of-the-art"),
    ("end-\nto-end", "end-to-end"),
    ("COVID-19", "COVID-19"),
    ("COVID-\n19", "COVID-19"),
    ("non-trauma", "non-trauma"),
    ("non-\ntrauma", "non-trauma"),
    ("2-\nphenylethyl", "2-phenylethyl"),
    ("HIV-\npositive", "HIV-positive"),
    ("pre- and post-processing", "pre- and post-processing"),
    ("first- or second-order", "first- or second-order"),
    ("pages 482-\n5", "pages 482-5"),
    ("a  b\t c\n\nd\u00a0e\u2009f", "a b c d e f"),
    ("zero\u200bwidth", "zerowidth"),
    ("\x0f bullet", "bullet"),
    ("al. [9]. Popglyph[suppress] lawski and glyph[suppress]Lodz", "al. [9]. Popławski and Łodz"),
])
def test_normalize_text_rules(raw: str, clean: str) -> None:
    assert normalize_text(raw) == clean


def test_document_spelling_decides_ambiguous_breaks() -> None:
    # The document's own spelling wins over the default "join" rule ...
    assert normalize_text("well- being", counts={"well-being": 3}) == "well-being"
    assert normalize_text("data- base", counts={"data-base": 2, "database": 0}) == "data-base"
    # ... and over the keep-hyphen prefixes.
    assert normalize_text("non- linear", counts={"nonlinear": 4}) == "nonlinear"
    assert join_hyphen_break("self", "care", {"self-care": 1, "selfcare": 1}, closed_self=1) \
        == "self-care"


def test_code_and_formula_items_are_not_normalised() -> None:
    code = "def f(x):\n    return x- \n  1  # ﬁne\n"
    formula = "a^{2}  +  b-\nc = \u00ad d"
    doc = DoclingDocument(name="code")
    doc.add_heading(text="1 Intro", level=1)
    doc.add_text(label=DocItemLabel.TEXT, text="A recog- nition  of the ﬁrst kind.")
    doc.add_code(text=code)
    doc.add_formula(text=formula)
    restructure(doc, strict=True)
    texts = {t.label: t.text for t in doc.texts}
    assert texts[DocItemLabel.CODE] == code
    assert texts[DocItemLabel.FORMULA] == formula
    assert texts[DocItemLabel.TEXT] == "A recognition of the first kind."


# --------------------------------------------------------------------------------------
# Heading chains (synthetic document, real chunker)
# --------------------------------------------------------------------------------------


def _flat_paper() -> DoclingDocument:
    """Like our PDF conversions: every heading at level 1."""
    doc = DoclingDocument(name="paper")
    for heading, text in [
        ("Deep Learning for Things: A Study", "Alice Example, Bob Example"),
        ("Abstract", "We study things."),
        ("1 Introduction", "Things matter."),
        ("3 Method", "Our method has two parts."),
        ("3.1 Data", "Data text."),
        ("3.2 Training", "Training text about optimisers."),
        ("3.2.1 Schedules", "Schedule text."),
        ("4 Results", "Results text."),
        ("References", "[1] A. Author. A paper. 2020."),
        ("Appendix A: Proofs", "Proof text."),
        ("A.1 Lemma 2", "Lemma text."),
    ]:
        doc.add_heading(text=heading, level=1)
        doc.add_text(label=DocItemLabel.TEXT, text=text)
    return doc


def _headings(chunks: list[Chunk], phrase: str) -> list[str]:
    return chunk_with(chunks, phrase).heading_chain


def test_numbered_headings_nest_in_chunk_paths(chunker: Chunker) -> None:
    flat = chunker.chunk(_flat_paper())
    # The problem: with all headings at level 1 a subsection loses its section.
    assert _headings(flat, "Training text") == ["3.2 Training"]

    chunks = chunker.chunk(restructure(_flat_paper(), strict=True))
    assert _headings(chunks, "Training text") == ["3 Method", "3.2 Training"]
    assert _headings(chunks, "Schedule text") == ["3 Method", "3.2 Training", "3.2.1 Schedules"]
    assert _headings(chunks, "Data text") == ["3 Method", "3.1 Data"]
    assert _headings(chunks, "Results text") == ["4 Results"]
    assert _headings(chunks, "We study") == ["Abstract"]
    assert _headings(chunks, "A paper") == ["References"]
    assert _headings(chunks, "Lemma text") == ["Appendix A: Proofs", "A.1 Lemma 2"]
    assert chain_kind(_headings(chunks, "Lemma text")) == "appendix"
    # The title is no section: not in any path, but kept (furniture) for the catalogue.
    assert all("Deep Learning for Things" not in " ".join(c.heading_chain) for c in chunks)


def test_missing_parent_heading_is_not_replaced_by_a_wrong_one(chunker: Chunker) -> None:
    doc = DoclingDocument(name="sampled")
    for heading, text in [("Chapter 1. Security", "Chapter one."), ("1.1 Basics", "Basics."),
                          ("2.1.6 Commands", "Commands text."), ("2.2 Duties", "Duties text."),
                          ("2.2.1 Roles", "Roles text.")]:
        doc.add_heading(text=heading, level=1)
        doc.add_text(label=DocItemLabel.TEXT, text=text)
    chunks = chunker.chunk(restructure(doc, strict=True))
    assert _headings(chunks, "Basics.") == ["Chapter 1. Security", "1.1 Basics"]
    # Chapter 2's heading is missing (a sampled document): "2.1.6" is not in chapter 1.
    assert _headings(chunks, "Commands text") == ["2.1.6 Commands"]
    assert _headings(chunks, "Roles text") == ["2.2 Duties", "2.2.1 Roles"]


def test_source_levels_are_kept() -> None:
    doc = DoclingDocument(name="docx")
    doc.add_heading(text="Overview", level=1)
    doc.add_heading(text="Details", level=2)
    doc.add_heading(text="1 Numbered but nested", level=3)
    restructure(doc, strict=True)
    assert [h.level for h in doc.texts if isinstance(h, SectionHeaderItem)] == [1, 2, 3]


# --------------------------------------------------------------------------------------
# Acceptance on real papers
# --------------------------------------------------------------------------------------


@pytest.mark.slow
def test_numbered_subsection_path_and_page_redbook(chunks_of) -> None:  # type: ignore[no-untyped-def]
    """IBM Redbook sample: "1.1 Security fundamentals" sits in "Chapter 1", on page 6 (and
    "2.1.6", whose chapter heading is not in the sample, gets no wrong parent)."""
    chunks = chunks_of(REDP)
    sentence = "Before reviewing database security techniques, there are two fundamental steps"
    c = chunk_with(chunks, sentence)
    assert c.section_path == ("Chapter 1. Securing and protecting IBM DB2 data"
                              " > 1.1 Security fundamentals")
    assert pages_holding(REDP, sentence) == [6]
    assert (c.page_start, c.page_end) == (6, 6)

    c = chunk_with(chunks, "Some IBM i clients have tried augmenting the all-or-nothing")
    assert c.heading_chain == ["Chapter 1. Securing and protecting IBM DB2 data",
                               "1.3.1 Existing row and column control"]

    c = chunk_with(chunks, "The following CL commands can be used to work with")
    assert c.heading_chain == ["2.1.6 Change Function Usage CL command"]


@pytest.mark.slow
def test_leaked_footer_no_longer_shifts_the_page(converted, chunker, chunks_of) -> None:  # type: ignore[no-untyped-def]
    """Docling merged page 6's footer ("2 Row and Column Access Control Support in IBM DB2
    for i") into the paragraph that starts page 7, so its chunk claimed page 6."""
    sentence = "Many businesses are trying to limit data access to a need-to-know basis"
    assert pages_holding(REDP, sentence) == [7]
    before = chunk_with(chunker.chunk(converted(REDP)), sentence)
    after = chunk_with(chunks_of(REDP), sentence)
    assert before.page_start == 6 and "Row and Column Access Control Support" in before.text
    assert (after.page_start, after.page_end) == (7, 7)
    assert not re.search(r"\d+ Row and Column Access Control Support in IBM DB2 for i",
                         " ".join(c.text for c in chunks_of(REDP)))


@pytest.mark.slow
def test_every_chunk_starts_on_its_page(chunks_of) -> None:  # type: ignore[no-untyped-def]
    """For each chunk, the first and last 50 letters/digits of its text are looked up in
    PDFium's text layer: where the start is found on exactly one page, that page is
    page_start; where the end is, that page lies within page_start..page_end.

    Measured before restructure: 2 of BMC's chunks started a page early (a paragraph
    Docling joined across a page break, cut into several chunks that all claimed its first
    page), and 8 of the Redbook's (page 2's table of contents merged into the cover text,
    running footers merged into the next page's first paragraph)."""
    for pdf in (REDP, BMC):
        checked, wrong = 0, []
        for c in chunks_of(pdf):
            text = _alnum(c.text)
            if len(text) < 30:
                continue
            head = [i for i, p in enumerate(pdf_pages(pdf), start=1) if text[:50] in p]
            tail = [i for i, p in enumerate(pdf_pages(pdf), start=1) if text[-50:] in p]
            if len(head) == 1:
                checked += 1
                if head[0] != c.page_start:
                    wrong.append((c.index, c.page_start, head, c.text[:60]))
            if len(tail) == 1 and not c.page_start <= tail[0] <= c.page_end:
                wrong.append((c.index, (c.page_start, c.page_end), tail, c.text[-60:]))
        assert checked >= 15, (pdf.name, checked)
        assert not wrong, (pdf.name, wrong)


@pytest.mark.slow
def test_unnumbered_subsections_from_fonts_bmc(chunks_of, restructured) -> None:  # type: ignore[no-untyped-def]
    """BMC paper without section numbers: with the PDF's fonts, "Setting" (9.2 pt) is a
    subsection of "Methods" (10.3 pt bold); without them every heading stays at level 1."""
    chunks = chunks_of(BMC)
    sentence = "The Medical Department of the Kamuzu Central Hospital (KCH), is a tertiary"
    c = chunk_with(chunks, sentence)
    assert c.section_path == "Methods > Setting"
    assert pages_holding(BMC, sentence) == [2] and c.page_start == 2
    assert chunk_with(chunks, "The study revealed important shortcomings in documentation") \
        .heading_chain == ["Discussion", "Documentation"]
    refs = [c for c in chunks if c.heading_chain and c.heading_chain[0] == "References"]
    assert refs and all("reference" in c.item_labels for c in refs)
    assert _headings(chunks, "Knowledge regarding the best approaches") == ["Abstract"]

    title = find_title(restructured(BMC))
    assert title is not None and title.startswith("Understanding the barriers to setting up")
    assert all(title not in c.heading_chain for c in chunks)

    assert chunk_with(chunks_of(BMC, with_pdf=False), sentence).heading_chain == ["Setting"]


@pytest.mark.slow
def test_running_headers_and_page_numbers_leave_the_body(converted, chunks_of) -> None:  # type: ignore[no-untyped-def]
    raw = " ".join(t.text for t, _ in converted(BMC).iterate_items() if hasattr(t, "text"))
    assert re.search(r"Page \d+ of 10", raw)  # leaked into the body by the layout model
    text = " ".join(c.text for c in chunks_of(BMC))
    assert not re.search(r"Page \d+ of 10", text)
    assert "BMC Health Services Research 2014, 14:1" not in text
    code = TEXT / "docling__code_and_formula.pdf"
    assert not [c for c in chunks_of(code) if c.text.strip().isdigit()]


def _markdown_words(markdown: str) -> list[str]:
    kept = []
    for line in markdown.splitlines():
        line = line.strip()
        if line.startswith("|") or line.startswith("```"):
            continue
        line = re.sub(r"<!--.*?-->", " ", line)
        line = re.sub(r"^(#+|[-*\u2022\u00b7]|\d+\.)\s+", "", line)
        kept.append(html.unescape(line.replace("\\_", "_")))
    return re.findall(r"\w+|[^\w\s]", " ".join(kept).lower())


def similarity(reference_md: str, doc: DoclingDocument) -> tuple[float, float, float]:
    """(ratio, recall, precision) of our body text against Docling's reference Markdown.

    Both sides are Markdown from Docling's own serializer (the reference was produced by it,
    ours by ``export_to_markdown`` on the restructured document's body, i.e. the text the
    chunker reads). From both, table rows (``|`` lines: we run no table-structure model, so
    tables never match), code fences, HTML comments (image/formula placeholders), heading
    and list markers are removed and HTML entities unescaped; the rest is lowercased and
    split into words and single punctuation marks. No other normalisation: a ligature,
    a closed-up compound or a leaked page header costs us.

    ``ratio`` is difflib's SequenceMatcher ratio on those token sequences (autojunk off):
    2M/(|reference| + |ours|) with M tokens matched *in order*, so text we lose (recall
    M/|reference|), text we add (precision M/|ours|: headers, footers, tables of contents)
    and reading-order errors all lower it, and line wrapping or Markdown layout do not."""
    ref = _markdown_words(reference_md)
    ours = _markdown_words(doc.export_to_markdown())
    matcher = difflib.SequenceMatcher(None, ref, ours, autojunk=False)
    matched = sum(b.size for b in matcher.get_matching_blocks())
    return matcher.ratio(), matched / max(1, len(ref)), matched / max(1, len(ours))


SIMILARITY: dict[str, tuple[float, float, float]] = {}


@pytest.mark.slow
@pytest.mark.parametrize("name", [
    "docling__2305.03393v1-pg9", "docling__code_and_formula", "docling__redp5110_sampled"])
def test_text_matches_docling_reference(name: str, restructured, converted) -> None:  # type: ignore[no-untyped-def]
    """Measured (this conversion, ocr=True): pg9 1.000, code_and_formula 0.992,
    redp5110 0.925 after restructure (0.72 before: table of contents, running footers)."""
    pdf = TEXT / f"{name}.pdf"
    reference = (GROUNDTRUTH / f"{name}.docling.md").read_text(encoding="utf-8")
    before = similarity(reference, converted(pdf))
    after = similarity(reference, restructured(pdf))
    SIMILARITY[name] = after
    print(f"{name}: before {before}, after {after}")
    assert after[0] >= 0.9, (name, before, after)
    assert after[0] >= before[0] - 0.002


# --------------------------------------------------------------------------------------
# Hyphenation and ligatures on real corpus text
# --------------------------------------------------------------------------------------


def _raw_page(pdf: Path, page_no: int) -> str:
    doc = pdfium.PdfDocument(str(pdf))
    try:
        return doc[page_no - 1].get_textpage().get_text_range()
    finally:
        doc.close()


def test_hyphenated_line_breaks_in_raw_pdf_text() -> None:
    """PDFium's text layer of the corpus: a syllable break at a line end is U+FFFE in
    pypdfium2's text (printed "expec-" / "tations"), a real hyphen stays "-" + CRLF."""
    raw = _raw_page(BMC, 2)
    assert "expec\ufffetations are high" in raw
    assert "non\ufffemedical" in _raw_page(BMC, 7) or "non\ufffemedical" in " ".join(
        _raw_page(BMC, p) for p in range(1, 11))
    clean = normalize_text(raw)
    assert "expectations are high" in clean
    # The same break as printed: hyphen, then the rest on the next line.
    printed = raw.replace("\ufffe", "-\r\n")
    assert "expec-\r\ntations" in printed
    assert "expectations are high" in normalize_text(printed)
    bmc_all = normalize_text(" ".join(_raw_page(BMC, p) for p in range(1, 11)))
    assert "non-medical" in bmc_all and "nonmedical" not in bmc_all

    trauma = TEXT / "cermine__test1.pdf"
    refs = _raw_page(trauma, 3)
    assert "482-\r\n5" in refs
    assert "482-5" in normalize_text(refs)
    removal = _raw_page(trauma, 4)
    assert "317-\r\nday" in removal and "317-day" in normalize_text(removal)
    # Real hyphens in running text are left alone.
    assert "non-trauma" in normalize_text(_raw_page(trauma, 2))
    assert "need-to-know" in normalize_text(_raw_page(REDP, 7))
    masks = TEXT / "p2md__Flash-Masques-Temperature.pdf"
    assert "COVID-19" in normalize_text(_raw_page(masks, 2))


@pytest.mark.slow
def test_compounds_docling_closed_up_get_their_hyphen_back(converted, restructured) -> None:  # type: ignore[no-untyped-def]
    """Docling's line joiner drops a hyphen at a line end whenever a word follows, so
    "resource-" / "limited" became "resourcelimited" and "482-" / "5" (a page range)
    "4825". With the PDF, restructure puts back the hyphens that were real."""
    def body(doc: DoclingDocument) -> str:
        return " ".join(t.text for t in doc.texts if t.content_layer == ContentLayer.BODY)

    raw, fixed = body(converted(BMC)), body(restructured(BMC))
    for closed, hyphenated in [("resourcelimited", "resource-limited"),
                               ("nonmedical", "non-medical"), ("firstand", "first- and")]:
        assert closed in raw, closed
        assert closed not in fixed and hyphenated in fixed, hyphenated
    assert "expectations" in fixed  # syllable breaks stay joined

    trauma = TEXT / "cermine__test1.pdf"
    raw, fixed = body(converted(trauma)), body(restructured(trauma))
    assert "73:4825" in raw and "73:482-5" in fixed
    assert "317day" in raw and "317-day" in fixed


def _ligature_glyph_runs(pdf: Path, page_no: int) -> tuple[str, str, int]:
    """PDFium's characters of a page, and the same text with every ligature glyph (two or
    three letters PDFium maps from one glyph, i.e. sharing one glyph box) written as its
    Unicode ligature, as an extractor without the font's ToUnicode expansion emits it."""
    lig = {"ff": "\ufb00", "fi": "\ufb01", "fl": "\ufb02", "ffi": "\ufb03", "ffl": "\ufb04"}
    doc = pdfium.PdfDocument(str(pdf))
    try:
        textpage = doc[page_no - 1].get_textpage()
        n = textpage.count_chars()
        chars = [chr(pdfium_c.FPDFText_GetUnicode(textpage.raw, i)) for i in range(n)]
        boxes = [textpage.get_charbox(i) for i in range(n)]
    finally:
        doc.close()
    plain, with_lig, count, i = [], [], 0, 0
    while i < n:
        j = i
        while j + 1 < n and chars[j + 1].isalpha() and boxes[j + 1] == boxes[i]:
            j += 1
        run = "".join(chars[i:j + 1])
        plain.append(run)
        if j > i and run in lig:
            with_lig.append(lig[run])
            count += 1
        else:
            with_lig.append(run)
        i = j + 1
    return "".join(plain).replace("\x02", "\ufffe"), "".join(with_lig).replace(
        "\x02", "\ufffe"), count


def test_ligature_glyphs_of_a_real_paper_expand() -> None:
    """No corpus PDF yields U+FB00-FB06 from PDFium or Docling (the fonts' ToUnicode maps
    each ligature glyph to its letters, and Docling expands ligatures itself), but the
    glyphs are there: cermine__example1 draws "fi"/"fl"/"ff" as single glyphs (62 times in
    8 pages). Its text with those glyphs as Unicode ligatures normalises to PDFium's
    letters."""
    pdf = TEXT / "cermine__example1.pdf"
    runs = [_ligature_glyph_runs(pdf, page) for page in range(1, 9)]
    plain = "\n".join(r[0] for r in runs)
    ligatured = "\n".join(r[1] for r in runs)
    assert sum(r[2] for r in runs) >= 50
    assert re.search("[\ufb00-\ufb04]", ligatured) and not re.search("[\ufb00-\ufb06]", plain)
    assert normalize_text(ligatured) == normalize_text(plain)
    assert not re.search("[\ufb00-\ufb06]", normalize_text(ligatured))


@pytest.mark.slow
def test_real_code_and_formula_text_untouched(converted) -> None:  # type: ignore[no-untyped-def]
    """The code listing and formula of docling__code_and_formula.pdf, as PDFium prints them
    (line breaks, spacing), in Code and Formula items of the converted document: restructure
    leaves them byte for byte, while the surrounding text is normalised."""
    pdf = TEXT / "docling__code_and_formula.pdf"
    raw = _raw_page(pdf, 1)
    start = raw.index("function add")
    code = raw[start:raw.index("\r\nLorem", start)]
    assert code == "function add(a, b) {\r\nreturn a + b;\r\n}\r\nconsole .log (add (3 , 5) ) ;"
    page2 = _raw_page(pdf, 2)
    formula = page2[page2.index("a\r\n2 + 8"):page2.index("= 12") + 4]  # a² on its own line
    doc = _copy(converted(pdf))
    doc.add_code(text=code)
    doc.add_formula(text=formula)
    restructure(doc, pdf, strict=True)
    assert [t.text for t in doc.texts if t.label == DocItemLabel.CODE] == [code]
    assert [t.text for t in doc.texts if t.label == DocItemLabel.FORMULA] == [formula]
    assert all("  " not in t.text for t in doc.texts if t.label == DocItemLabel.TEXT)


def test_restructure_is_idempotent_and_keeps_a_valid_tree() -> None:
    doc = restructure(_flat_paper(), strict=True)
    assert doc.validate_tree(doc.body, raise_on_error=True)
    again = restructure(_copy(doc), strict=True)
    assert again.export_to_markdown() == doc.export_to_markdown()
    assert find_title(again) == "Deep Learning for Things: A Study"


@pytest.mark.slow
def test_markdown_source_keeps_its_levels(converter, tmp_path: Path, chunker: Chunker) -> None:  # type: ignore[no-untyped-def]
    """Formats that carry heading levels (Markdown, DOCX, HTML) keep them; their TITLE item
    leaves the section paths too, and code blocks stay as written."""
    from citeloom.convert.converter import convert_file

    md = tmp_path / "paper.md"
    md.write_text("# A Paper About Things\n\n## 1 Introduction\n\nIntro with a recog- nition "
                  "and the \ufb01rst try.\n\n### 1.1 Scope\n\nScope text.\n\n```\ncode  with- \n"
                  "  spaces \ufb01\n```\n\n## 2 Results\n\nResults text.\n", encoding="utf-8")
    doc = restructure(convert_file(md, converter), strict=True)
    chunks = chunker.chunk(doc)
    assert find_title(doc) == "A Paper About Things"
    assert _headings(chunks, "Scope text") == ["1 Introduction", "1.1 Scope"]
    assert _headings(chunks, "Results text") == ["2 Results"]
    assert "Intro with a recognition and the first try." in chunk_with(chunks, "Intro").text
    assert [t.text for t in doc.texts if t.label == DocItemLabel.CODE] == [
        "code  with- \n  spaces \ufb01"]


def test_a_failing_step_is_logged_not_fatal(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(self, styles):  # type: ignore[no-untyped-def]
        raise RuntimeError("boom")

    monkeypatch.setattr(Restructurer, "assign_levels", boom)
    r = Restructurer(_flat_paper(), Path("/nonexistent.pdf"))
    doc = r.run()
    assert r.report.errors == ["levels: RuntimeError: boom"]
    assert find_title(doc) == "Deep Learning for Things: A Study"  # the other steps ran
    with pytest.raises(RuntimeError):
        restructure(_flat_paper(), strict=True)


def test_a_printed_sparse_matrix_is_not_a_table_of_contents(restructured) -> None:
    """Matrix's sparseModels vignette prints `6 x 20 sparse Matrix` rows (". . . . 1 . . 1")
    in the paragraph that explains them; dot runs before a number made the whole paragraph
    a contents entry, and its prose left the index. A real contents line still is one."""
    doc = restructured(CORPUS.parent.parent / "corpus2" / "pdfs" / "Matrix__sparseModels.pdf")
    [item] = [t for t in doc.texts if "Since 2007, the Matrix package" in t.text]
    assert item.content_layer == ContentLayer.BODY
    assert Restructurer._is_toc("1 Introduction . . . . . . . . . . . . . 1 2 Sparse model "
                                "matrices . . . . . . . . . . 3 3 Interactions . . . . . 5")
    assert Restructurer._is_toc("Preface . . . . . . . . . . . . . . . . . . . . . . . . vii")
    assert not Restructurer._is_toc("_ . . . . . . . . . . 1 . . 1 . 1 . . . . a . . 1 . . "
                                    ". . . . . . . . . 1 . . 1 . . ck . . . . . . . . 1 . .")
