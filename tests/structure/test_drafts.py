"""Papers as heldout18 showed them (issue #27, item 5, session 27): a draft whose lines are
numbered in the margin (JOSS's drafts, a review copy), a JOSS side column that names its
reviewers by handle, a byline line that ends in its "and", Elsevier's masthead above a
title, e-mail addresses in braces after the names, a version and its date after a title."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from docling_core.types.doc import BoundingBox, DocItemLabel, DoclingDocument, ProvenanceItem

from citeloom.structure.names import parse_byline

from ..conftest import SHARED
from .test_pdfmeta_more import doc_with as _doc  # page 1 as these (label, text) items

# (x, y from the page's top, size, text); Helvetica, WinAnsi (¶ and • are in it)
Row = tuple[float, float, float, str]


def _pdf(path: Path, rows: list[Row], extra: bytes = b"", title: str = "") -> Path:
    """A one-page PDF (US letter) with these text runs (and ``extra`` content operators,
    and ``title`` in its info dictionary): a real file PDFium reads."""
    def esc(s: str) -> bytes:
        return s.encode("cp1252").replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(
            b")", b"\\)")

    ops = b"".join(b"BT /F1 %.1f Tf %.1f %.1f Td (" % (size, x, 792 - y) + esc(text) + b") Tj ET\n"
                   for x, y, size, text in rows) + extra
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>",
               b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
               b"/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica "
               b"/Encoding /WinAnsiEncoding >>",
               b"<< /Length %d >>\nstream\n" % len(ops) + ops + b"endstream",
               b"<< /Title (" + esc(title) + b") >>"]
    out, offsets = b"%PDF-1.4\n", []
    for k, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % k + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info 6 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, xref)
    path.write_bytes(out)
    return path


TITLE = "Quillwork: Equivariant Widgets for Tensor Images"


def _joss_draft(tmp_path: Path) -> Path:
    body = [(90, 80, 16, TITLE),
            (90, 110, 10, "Ada M. Lovelace 1\u00b6 , Alan Turing 1,2, Grace B. Hopper 3 , and"),
            (90, 124, 10, "Edsger Dijkstra 2"),
            (90, 138, 9, "1 Department of Computing, University of Somewhere, United States 2"),
            (90, 152, 9, "Institute of Things, Elsewhere 3 Navy Research Office, Arlington"),
            (90, 166, 9, "\u00b6 Corresponding author"),
            (90, 250, 12, "Summary"),
            (90, 266, 10, "Many widgets show symmetries that can be exploited to improve"),
            (90, 280, 10, "their performance, a technique known as equivariant widgetry.")]
    # each line's number drawn with it, in the margin, as the lineno package does
    numbered = [run for k, row in enumerate(body, 1) for run in ((40, row[1], 8, str(k)), row)]
    side = [(470, 200, 8, "DOI: 10.xxxxxx/draft"), (470, 214, 8, "Editor: Open Journals"),
            (470, 228, 8, "Reviewers:"), (470, 242, 8, "\u2022 @openjournals"),
            (470, 256, 8, "Submitted: 01 January 1970")]
    return _pdf(tmp_path / "draft.pdf", numbered + side)


def test_a_drafts_line_numbers_leave_its_rows(tmp_path: Path) -> None:
    from citeloom.convert.textlayer import page_rows

    rows = page_rows(_joss_draft(tmp_path), 1)
    assert rows[0] == TITLE
    assert rows[2] == "Edsger Dijkstra 2"
    # an affiliation's own number stays; the line number before it goes
    assert rows[3].startswith("1 Department of Computing")
    assert "Summary" in rows and not any(r.startswith(("7 ", "8 ")) for r in rows)


def test_numbered_affiliations_keep_their_numbers() -> None:
    from citeloom.convert.textlayer import _unnumbered

    rows = [(t, 10.0, float(k)) for k, t in enumerate(
        ["A Title", "Ada Lovelace 1, Alan Turing 2", "1 University of Somewhere",
         "2 Institute of Things", "3 Navy Research Office", "Abstract"])]
    assert _unnumbered(rows) == rows


def test_every_long_run_of_line_numbers_goes() -> None:
    """LIPIcs's draft: the abstract's rows go unnumbered between two runs ("1 Title" …
    "7, Abstract", then "19 instance, by …"); both runs go, not only the longer."""
    from citeloom.convert.textlayer import _unnumbered

    texts = ["1 Distance Measures for Embedded Graphs -", "2 Optimal Graph Mappings",
             "3 Maike Buchin #", "4 Department of Mathematics, Ruhr University Bochum",
             "5 Bernhard Kilgus #", "6 Department of Mathematics, Ruhr University Bochum",
             "7, Abstract", "We want to compare embedded graphs at a global scale.",
             *[f"{n} line {n} of the introduction" for n in range(19, 30)]]
    rows = [(t, 10.0, float(k)) for k, t in enumerate(texts)]
    out = [t for t, _, _ in _unnumbered(rows)]
    assert out[:3] == ["Distance Measures for Embedded Graphs -", "Optimal Graph Mappings",
                       "Maike Buchin #"]
    assert out[6] == "Abstract" and out[-1] == "line 29 of the introduction"


def test_a_joss_drafts_byline_under_its_numbered_title(tmp_path: Path) -> None:
    """The side column's "Reviewers:" names handles, not people: no thesis cover; the
    byline's first line ends in its "and"."""
    from citeloom.structure.metadata import document_metadata

    pdf = _joss_draft(tmp_path)
    doc = DoclingDocument(name="draft")  # Docling kept only the margin's numbers
    for k in range(1, 10):
        doc.add_text(label=DocItemLabel.TEXT, text=str(k), prov=ProvenanceItem(
            page_no=1, bbox=BoundingBox(l=0, t=0, r=1, b=1), charspan=(0, 1)))
    meta = document_metadata(doc, pdf, TITLE)
    assert meta["authors"] == ["Lovelace, Ada M.", "Turing, Alan", "Hopper, Grace B.",
                               "Dijkstra, Edsger"]


def test_a_thesis_cover_that_names_a_supervisor_is_still_refused(tmp_path: Path) -> None:
    from citeloom.structure.header import layer_rows

    pdf = _pdf(tmp_path / "cover.pdf", [
        (90, 80, 16, TITLE), (90, 120, 11, "Ada Lovelace"),
        (90, 160, 10, "Supervisor:"), (90, 174, 10, "Prof. Alan Turing")])
    assert layer_rows(pdf, None, TITLE) == ([], [])


T, X = DocItemLabel.TITLE, DocItemLabel.TEXT


def test_a_title_under_elseviers_masthead_is_the_title() -> None:
    """SoftwareX: the title item comes two items after "journal homepage"."""
    from citeloom.structure.headings import find_title

    doc = _doc([(X, "SoftwareX 10 (2019) 100263"),
                (X, "Contents lists available at ScienceDirect"), (X, "SoftwareX"),
                (X, "journal homepage: www.elsevier.com/locate/softx"),
                (X, "Original software publication"),
                (T, "quillwork: Scriptable widgets using a Python interface")])
    assert find_title(doc) == "quillwork: Scriptable widgets using a Python interface"


@pytest.mark.parametrize(("items", "title"), [
    # the margin's numbers, taken into the title by Docling, on a numbered page
    ([(T, "ParquetWidget: A Lightweight Widget-Based 1 Database 2"),
      *[(X, str(k)) for k in range(3, 9)]], "ParquetWidget: A Lightweight Widget-Based Database"),
    # three in the title itself, counting up
    ([(T, "Quill: A library for fair 1 offline widgets via sequential data 2 "
          "preprocessing 3")], "Quill: A library for fair offline widgets via sequential "
                               "data preprocessing"),
    # numbers of the title's own, on a page without numbered lines
    ([(T, "Porting Widgets from Python 2 to 3")], "Porting Widgets from Python 2 to 3"),
    ([(T, "Lecture 1 and Lecture 2"), (X, "5")], "Lecture 1 and Lecture 2"),
    # a number of the title's own on a page of bare numbers (a contents list's pages)
    ([(T, "The Widgets 2 classes (work in progress)"), *[(X, str(k)) for k in range(1, 9)]],
     "The Widgets 2 classes (work in progress)"),
])
def test_a_drafts_line_numbers_leave_its_title(items: list, title: str) -> None:
    from citeloom.structure.headings import find_title

    assert find_title(_doc(items)) == title


def test_addresses_in_braces_after_the_names() -> None:
    assert parse_byline("Giorgio Rossi, Rainer Kühn, Hauke Stein, Kurt Kol email: "
                        "{rossi,kuehn}@informatik.uni-x.de stein@gmail.com kol@y.com") == [
        "Rossi, Giorgio", "Kühn, Rainer", "Stein, Hauke", "Kol, Kurt"]


def test_a_version_and_its_date_after_a_title() -> None:
    from citeloom.structure.titles import _VERSION_STAMP

    assert _VERSION_STAMP.sub("", "Remote Control Quill Design Version 0.2, 5/31/2022") \
        == "Remote Control Quill Design"


def test_a_sentence_above_a_byline_is_no_title(tmp_path: Path) -> None:
    from citeloom.structure.titles import byline_title

    pdf = _pdf(tmp_path / "sample.pdf", [
        (72, 100, 12, "The present document is a sample file that was created for testing"),
        (72, 114, 12, "purposes, and you might find it useful as an example of the style."),
        (72, 128, 12, "Author: Sam Quill, Email: squill@example.edu."),
        (72, 160, 12, "Here is some text.")])
    assert parse_byline("Author: Sam Quill, Email: squill@example.edu.") == ["Quill, Sam"]
    assert byline_title(pdf) is None


def test_a_title_is_not_cut_inside_a_name() -> None:
    """"Sergei L. Kosakovsky Pond": a family name of two words after an initial; the run
    of names is not split after the initial (which gave "Pond, Kosakovsky")."""
    from citeloom.structure.metadata import title_byline

    line = "Sergio L. Castillo Vega 1 and Spencer V. Moss 2"
    assert title_byline(line) == (line, [])
    assert title_byline("Definitions of Widgets Available in Quillbase Manuel Kohl and "
                        "Martin Mauer") == ("Definitions of Widgets Available in Quillbase",
                                            ["Kohl, Manuel", "Mauer, Martin"])


# -- a draft's line numbers out of its text (session 28) ----------------------------------

DRAFT_LINES = [
    "Methods for Counting Widgets",
    "Widgets were counted in 12 of 20 trials by two observers working",
    "independently, each blind to the other's tally and to the hypothesis",
    "under test. A trial began when the first widget entered the frame.",
    "Counting stopped after exactly forty minutes had passed in every trial.",
    "The observers agreed on the total in most trials, and where they did",
    "not, a third observer counted the recording again from the beginning.",
    "Results",
    "The mean count was 31 widgets per trial with a spread of about nine.",
    "No trial was stopped early, and no recording was lost or damaged.",
]


def _numbered_draft(tmp_path: Path, every: int = 1) -> Path:
    """A page as LaTeX's lineno sets it: every line's number in the left margin (or
    every second's, ...)."""
    rows: list[Row] = []
    y = 90.0
    for k, text in enumerate(DRAFT_LINES, 1):
        heading = text in ("Methods for Counting Widgets", "Results")
        y += 24 if heading and k > 1 else 14
        rows += [(52, y, 7, str(k))] if k % every == 0 else []
        rows += [(72, y, 12 if heading else 10, text)]
    return _pdf(tmp_path / f"numbered{every}.pdf", rows)


def test_a_drafts_line_numbers_leave_its_text(tmp_path: Path, converted) -> None:  # type: ignore[no-untyped-def]
    """Docling reads the margin's numbers into the paragraphs; the index gets the
    sentences without them, and a number of the text itself ("12 of 20") stays."""
    from citeloom.structure.restructure import restructure

    pdf = _numbered_draft(tmp_path)
    raw = converted(pdf)
    before = " ".join(t.text for t in raw.texts)
    doc = restructure(raw.model_copy(deep=True), pdf_path=pdf, strict=True)
    body = " ".join(t.text for t in doc.texts if t.content_layer.value == "body")
    assert re.search(r"\b(?:[3-9]|10) ", before)  # what the conversion gives: numbers in
    assert "in 12 of 20 trials" in body
    assert "working independently, each blind" in body
    assert "had passed in every trial. The observers" in body
    assert "The mean count was 31 widgets per trial" in body
    assert not re.search(r"(?<!\S)(?:[2-9]|10)(?!\S)", body.replace("12 of 20", ""))
    # without the PDF nothing is taken out: the text alone is not evidence enough
    plain = restructure(raw.model_copy(deep=True), strict=True)
    assert re.search(r"frame\. 5 Counting", " ".join(t.text for t in plain.texts))


def test_the_pdf_shows_the_margins_numbers_and_their_lines(tmp_path: Path) -> None:
    from citeloom.structure.linenumbers import margin_numbers

    lines = margin_numbers(_numbered_draft(tmp_path), 1)
    assert sorted(lines) == list(range(1, 11))
    # each with its line's first and last words (folded), the last ones from the end
    assert lines[2] == (("widget", "were", "counte"), ("workin", "observ", "two"))
    assert lines[8] == (("result",), ("result",))
    # lineno's \modulolinenumbers[2]: every second line numbered
    assert sorted(margin_numbers(_numbered_draft(tmp_path, every=2), 1)) == [2, 4, 6, 8, 10]


@pytest.mark.parametrize(("name", "page"), [
    ("coin__MAXtest.pdf", 3),  # a table's numbered rows, the page's text wider than it
    ("Matrix__Intro2Matrix.pdf", 3),  # a sparse matrix R prints, in line with the text
    ("survival__timedep.pdf", 6),  # a data frame's row names
    ("seriation__seriation.pdf", 31),  # two columns of row numbers in an R printout
])
def test_numbered_rows_of_tables_and_printouts_are_no_line_numbers(name: str, page: int
                                                                    ) -> None:
    from citeloom.structure.linenumbers import margin_numbers

    assert margin_numbers(SHARED / "corpus2" / "pdfs" / name, page) == {}


def test_a_drafts_watermark_leaves_its_text(tmp_path: Path, converted) -> None:  # type: ignore[no-untyped-def]
    """"DRAFT" drawn across the page, as JOSS's drafts have it: read by Docling into the
    text, taken off again; the word in the text itself stays."""
    from citeloom.structure.restructure import restructure

    rows: list[Row] = [(72, 90 + 14 * k, 10, text) for k, text in enumerate([
        "A first DRAFT of the protocol was written by both observers together.",
        *DRAFT_LINES[1:7]])]
    mark = b"BT /F1 96 Tf 0.7071 0.7071 -0.7071 0.7071 160 300 Tm (DRAFT) Tj ET\n"
    pdf = _pdf(tmp_path / "watermarked.pdf", rows, mark)
    raw = converted(pdf)
    doc = restructure(raw.model_copy(deep=True), pdf_path=pdf, strict=True)
    body = " ".join(t.text for t in doc.texts if t.content_layer.value == "body")
    assert " ".join(t.text for t in raw.texts).count("DRAFT") == 2
    assert body.count("DRAFT") == 1 and "A first DRAFT of the protocol" in body
    assert "Widgets were counted in 12 of 20 trials" in body


def test_only_a_word_across_the_page_is_a_watermark() -> None:
    from citeloom.structure.watermarks import across, strip, suspect_pages

    lines = [(f"line {k} of the text", (72.0, 90.0 + 12 * k, 500.0, 99.0 + 12 * k))
             for k in range(40)]
    stamp = ("arXiv:2501.01234v1 [cs.LG] 3 Jan 2025", (20.0, 200.0, 34.0, 600.0))  # margin
    title = ("QUILLWORK", (72.0, 40.0, 540.0, 86.0))  # large, but one line high
    mark = ("PREPRINT", (100.0, 200.0, 500.0, 600.0))  # drawn across the page
    assert across([*lines, stamp, title]) == []
    assert across([*lines, stamp, title, mark]) == ["PREPRINT"]
    assert strip(["PREPRINT The widgets", "A PREPRINT server", "PREPRINT"], ["PREPRINT"]) == \
        ["The widgets", "A PREPRINT server", "PREPRINT"]
    assert strip(["A PREPRINT server", "PREPRINT"], ["PREPRINT"]) == ["A PREPRINT server", ""]
    # the PDF is read only where a word in capitals starts or ends items on two pages
    assert suspect_pages({1: ["DRAFT The widgets"], 2: ["Results DRAFT"], 3: ["NOTE x"]}) \
        == [1, 2]


def test_the_pdf_is_read_only_where_the_text_counts_up() -> None:
    from citeloom.structure.linenumbers import candidate

    assert candidate(["geometric 34 images where", "35 C is a 36 given by 37", "38 a"])
    assert candidate(["particular, 24 we use", "26 with gridded", "28 trained 30 accuracy 32"])
    assert not candidate(["between 2019 and 2020 in 7 of 9 sites", "Table 3 and 4"])


def test_a_theses_title_is_above_its_note_not_the_note(tmp_path: Path) -> None:
    """A thesis's title page in one type size (JHU's): the rows right above the author are
    the degree note, not the title."""
    from citeloom.structure.titles import byline_title

    rows = [(150, 211, 12, "STATE-OF-THE-ART METHODS FOR IMPROVING LOW-RESOURCE"),
            (200, 229, 12, "NEURAL MACHINE TRANSLATION"),
            (260, 378, 12, "A THESIS"),
            (150, 396, 12, "SUBMITTED TO THE DEPARTMENT OF COMPUTER SCIENCE"),
            (160, 414, 12, "AND THE COMMITTEE ON GRADUATE STUDIES"),
            (170, 432, 12, "OF THE JOHNS HOPKINS UNIVERSITY"),
            (150, 450, 12, "IN PARTIAL FULFILLMENT OF THE REQUIREMENTS"),
            (230, 469, 12, "FOR THE DEGREE OF"),
            (220, 487, 12, "MASTER OF SCIENCE"),
            (250, 634, 10, "Tanay Agarwal"),
            (250, 650, 10, "December 2018")]
    assert byline_title(_pdf(tmp_path / "thesis.pdf", rows)) == (
        "STATE-OF-THE-ART METHODS FOR IMPROVING LOW-RESOURCE NEURAL MACHINE TRANSLATION")
