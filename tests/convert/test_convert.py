"""Conversion of real documents with CiteLoom's offline Docling set-up (src/citeloom/convert.py).

Scanned PDFs are OCRed with Tesseract and measured against ground truth; images (PNG, TIFF)
rendered here from a scanned page go through the same pipeline; DOCX, PPTX, HTML, Markdown
and LaTeX files written here convert and chunk with their headings.

Word recall, as used throughout: both texts are lowercased (NFKC), every character that is
not a letter or a digit becomes a space, and the rest is split on whitespace. Recall is the
share of ground-truth tokens found in the OCR output, counting multiplicity:
``sum(min(gt[w], out[w])) / sum(gt.values())`` over the token counts.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from citeloom.eval.scifact import word_recall, words

from ..conftest import CORPUS

SCANNED = CORPUS / "scanned"
GROUNDTRUTH = CORPUS / "groundtruth"
LINN = SCANNED / "ocrmypdf__linn.pdf"
LINN_TRUTH = SCANNED / "ocrmypdf__linn.groundtruth.txt"
UPRIGHT = SCANNED / "docling__ocr__ocr_test.pdf"
ROTATED = SCANNED / "docling__ocr__ocr_test_rotated_90.pdf"
FRENCH = SCANNED / "ocrmypdf__francais.pdf"
HUCK = SCANNED / "ocrmypdf__c02-22.pdf"
# The French pangram printed on ocrmypdf__francais.pdf.
FRENCH_TEXT = (
    "Portez ce vieux whisky au juge blond qui fume sur son île intérieure, à côté de "
    "l'alcôve ovoïde, où les bûches se consument dans l'âtre, ce qui lui permet de penser "
    "à la cænogenèse de l'être dont il est question dans la cause ambiguë entendue à Moÿ, "
    "dans un capharnaüm qui, pense-t-il, diminue çà et là la qualité de son œuvre."
)


def doc_text(doc) -> str:  # type: ignore[no-untyped-def]
    return "\n".join(getattr(item, "text", "") for item, _ in doc.iterate_items())


def test_word_recall_definition() -> None:
    assert word_recall("The cat, the CAT!", "the cat") == 0.5
    assert word_recall("state-of-the-art", "State of the art") == 1.0
    assert word_recall("île à Moÿ", "ile a Moy") == 0.0


# -- scanned PDFs ---------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("pdf", sorted(SCANNED.glob("*.pdf")), ids=lambda p: p.stem)
def test_every_scanned_pdf_yields_searchable_text(converted, pdf: Path) -> None:
    import pypdfium2 as pdfium

    with pdfium.PdfDocument(str(pdf)) as src:  # really image-only: no text layer at all
        assert all(not page.get_textpage().get_text_range().strip() for page in src)
    doc = converted(pdf)
    real_words = [w for w in words(doc_text(doc)) if len(w) >= 3 and w.isalpha()]
    assert len(real_words) >= 10, doc_text(doc)
    assert doc.num_pages() == 1


@pytest.mark.slow
def test_linn_word_recall_at_least_0_9(converted) -> None:
    recall = word_recall(LINN_TRUTH.read_text(encoding="utf-8"), doc_text(converted(LINN)))
    print(f"linn word recall {recall:.4f}")
    assert recall >= 0.9


@pytest.mark.slow
def test_rotated_page_reads_like_the_upright_one(converted) -> None:
    truth = GROUNDTRUTH.joinpath("docling__ocr__ocr_test.easyocr.md").read_text(encoding="utf-8")
    upright, rotated = converted(UPRIGHT), converted(ROTATED)
    # Same words in the same order, and the whole sentence in one paragraph.
    assert words(doc_text(rotated)) == words(doc_text(upright))
    assert " ".join(words(truth)) in [" ".join(words(t.text)) for t in rotated.texts]
    # The page was turned upright: portrait, although the PDF page is landscape (/Rotate 270).
    size = rotated.pages[1].size
    assert size.height > size.width


@pytest.mark.slow
def test_orientation_is_detected_only_when_needed(converter, monkeypatch) -> None:
    """The speed-up: an upright portrait scan reads well at once and costs one Tesseract
    run, not OSD + OCR; a landscape scan (likely sideways) gets OSD first, once."""
    from citeloom.convert.converter import convert_file
    from citeloom.convert.ocr import CiteloomTesseractOcrModel

    calls: list[str] = []
    real = CiteloomTesseractOcrModel._perform_osd

    def counting(self, fname):  # type: ignore[no-untyped-def]
        calls.append(fname)
        return real(self, fname)

    monkeypatch.setattr(CiteloomTesseractOcrModel, "_perform_osd", counting)
    convert_file(UPRIGHT, converter)
    assert calls == []
    doc = convert_file(ROTATED, converter)
    assert len(calls) == 1
    assert "Docling bundles PDF document conversion" in doc_text(doc)


@pytest.mark.slow
def test_multi_page_scan_pages_in_parallel_keep_their_order(converter, tmp_path: Path) -> None:
    import pypdfium2 as pdfium

    from citeloom.convert.converter import convert_file

    merged = pdfium.PdfDocument.new()
    for pdf in (ROTATED, HUCK, UPRIGHT):
        with pdfium.PdfDocument(str(pdf)) as src:
            merged.import_pages(src)
    path = tmp_path / "three_scans.pdf"
    merged.save(str(path))
    merged.close()

    doc = convert_file(path, converter)
    assert doc.num_pages() == 3
    pages_with_text = {p.page_no for t in doc.texts for p in t.prov if t.text.strip()}
    assert pages_with_text == {1, 2, 3}
    text = " ".join(words(doc_text(doc)))
    sentence = "docling bundles pdf document conversion to json and markdown"
    assert text.count(sentence) == 2  # page 1 (turned upright) and page 3
    assert text.index("tip toeing") < text.rindex(sentence)  # page 2 before page 3
    assert doc.pages[1].size.height > doc.pages[1].size.width


@pytest.mark.slow
def test_a_long_document_is_not_loaded_all_at_once(models_dir: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Docling's threaded pipeline loads pages ahead of its models; by default up to 100 a
    stage, which held a 167-page manual's pages in memory at once (2.1 GB). CiteLoom keeps
    it a few pages ahead: when the layout model runs, at most half of a 24-page document
    is loaded."""
    import pypdfium2 as pdfium

    from citeloom.convert.converter import build_converter, convert_file
    from citeloom.convert.layout import CiteloomLayoutModel
    from citeloom.provision import layout_model_path

    pdf = pdfium.PdfDocument.new()
    for _ in range(24):
        pdf.new_page(595, 842)
    path = tmp_path / "long.pdf"
    pdf.save(str(path))
    pdf.close()
    loaded: list[int] = []
    predict = CiteloomLayoutModel.predict_layout

    def counting(self, conv_res, pages):  # type: ignore[no-untyped-def]
        loaded.append(sum(p._backend is not None for p in conv_res.pages))
        return predict(self, conv_res, pages)

    monkeypatch.setattr(CiteloomLayoutModel, "predict_layout", counting)
    converter = build_converter(ocr=False, layout_model_path=layout_model_path(models_dir),
                                num_threads=1)
    assert convert_file(path, converter).num_pages() == 24
    assert loaded and max(loaded) <= 12, loaded


# -- images -----------------------------------------------------------------------------


def _render(pdf: Path, dpi: int):  # type: ignore[no-untyped-def]
    import pypdfium2 as pdfium

    with pdfium.PdfDocument(str(pdf)) as src:
        return src[0].render(scale=dpi / 72).to_pil()


@pytest.mark.slow
def test_scanned_page_as_png_keeps_recall_and_size(converter, tmp_path: Path) -> None:
    from citeloom.convert.converter import convert_file

    png = tmp_path / "linn.png"
    _render(LINN, 200).save(png, dpi=(200, 200))  # without dpi Docling assumes 72
    doc = convert_file(png, converter)
    recall = word_recall(LINN_TRUTH.read_text(encoding="utf-8"), doc_text(doc))
    print(f"linn as PNG word recall {recall:.4f}")
    assert recall >= 0.9
    size = doc.pages[1].size  # 8.5 x 11 in, as in the PDF
    assert size.width == pytest.approx(612, abs=1) and size.height == pytest.approx(792, abs=1)


@pytest.mark.slow
def test_sideways_scan_as_tiff_is_turned_upright(converter, tmp_path: Path) -> None:
    from citeloom.convert.converter import convert_file

    tiff = tmp_path / "ocr_test_rotated.tiff"
    _render(ROTATED, 300).convert("L").save(tiff, dpi=(300, 300), compression="tiff_lzw")
    doc = convert_file(tiff, converter)
    truth = GROUNDTRUTH.joinpath("docling__ocr__ocr_test.easyocr.md").read_text(encoding="utf-8")
    assert words(doc_text(doc)) == words(truth)
    size = doc.pages[1].size  # the image is landscape; the page it holds is portrait
    assert size.height > size.width


# -- OCR languages ------------------------------------------------------------------------


def _has_tesseract_language(code: str) -> bool:
    if shutil.which("tesseract") is None:
        return False
    out = subprocess.run(["tesseract", "--list-langs"], capture_output=True, text=True)
    return code in out.stdout.split()


@pytest.mark.slow
@pytest.mark.skipif(not _has_tesseract_language("fra"), reason="tesseract-ocr-fra not installed")
def test_ocr_language_choice_matters_for_french(models_dir: Path, converted) -> None:
    from citeloom.convert.converter import build_converter, convert_file
    from citeloom.provision import layout_model_path

    french = build_converter(ocr_langs=["fra"], layout_model_path=layout_model_path(models_dir))
    with_fra = word_recall(FRENCH_TEXT, doc_text(convert_file(FRENCH, french)))
    with_default = word_recall(FRENCH_TEXT, doc_text(converted(FRENCH)))  # eng+deu
    print(f"French pangram word recall: fra {with_fra:.3f}, eng+deu {with_default:.3f}")
    assert with_fra >= 0.9
    assert with_fra - with_default >= 0.1  # accents: île, côté, où, bûches, œuvre...


@pytest.mark.slow
@pytest.mark.skipif(not _has_tesseract_language("fra"), reason="tesseract-ocr-fra not installed")
def test_project_ocr_languages_reach_the_conversion_worker(make_settings) -> None:
    """ocr_languages from the project's configuration, through CiteLoom.ingest and the
    worker process; a BCP-47 tag (``iso:fr``, as a Zotero language maps to) works too."""
    from citeloom.config import ProjectConfig
    from citeloom.service import CiteLoom

    app = CiteLoom(make_settings(projects={
        "fr": ProjectConfig(name="fr", ocr_languages=["iso:fr"])}))
    try:
        (result,) = app.ingest([FRENCH], "fr").files
        assert result.status == "indexed", result.error
        text = " ".join(h.payload["chunk_text"] for h in app.runtime.projects.index("fr").scroll())
    finally:
        app.close()
    assert word_recall(FRENCH_TEXT, text) >= 0.9
    assert {"île", "bûches", "œuvre"} <= set(words(text))


def test_missing_ocr_language_names_the_package_to_install() -> None:
    from citeloom.convert.converter import build_converter
    from citeloom.errors import OcrUnavailable

    with pytest.raises(OcrUnavailable) as err:
        build_converter(ocr_langs=["eng", "qqq"])
    assert "qqq" in err.value.message and "tesseract-ocr-qqq" in err.value.hint
    if not _has_tesseract_language("ita"):
        with pytest.raises(OcrUnavailable, match="tesseract-ocr-ita"):
            build_converter(ocr_langs=["iso:it"])  # BCP-47 tags are mapped, then checked
    build_converter(ocr=False, ocr_langs=["qqq"])  # no OCR, no Tesseract needed


# -- other formats -------------------------------------------------------------------------


def _write_docx(path: Path) -> None:
    import docx

    d = docx.Document()
    d.add_heading("Thrombosis prophylaxis in trauma", level=1)
    d.add_paragraph("Low molecular weight heparin reduced deep vein thrombosis in the cohort.")
    d.add_heading("Methods", level=2)
    d.add_paragraph("We reviewed 412 patients admitted between 2005 and 2008.")
    d.save(str(path))


def _write_pptx(path: Path) -> None:
    import pptx

    p = pptx.Presentation()
    for title, body in [("Vena cava filters", "Retrievable filters migrated in 3 of 120 cases."),
                        ("Outcomes", "No pulmonary embolism occurred after placement.")]:
        slide = p.slides.add_slide(p.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text = body
    p.save(str(path))


FORMATS = {
    "paper.docx": (_write_docx, [
        (["Thrombosis prophylaxis in trauma"], "Low molecular weight heparin"),
        (["Thrombosis prophylaxis in trauma", "Methods"], "We reviewed 412 patients"),
    ]),
    "talk.pptx": (_write_pptx, [
        (["Vena cava filters"], "Retrievable filters migrated"),
        (["Outcomes"], "No pulmonary embolism occurred"),
    ]),
    "page.html": ("<html><head><title>Study</title></head><body>"
                  "<h1>Quality improvement in Malawi</h1>"
                  "<p>Hospitals reported staff shortages and low motivation.</p>"
                  "<h2>Interventions</h2><p>Supervision visits were held every month.</p>"
                  "</body></html>", [
        (["Quality improvement in Malawi"], "Hospitals reported staff shortages"),
        (["Quality improvement in Malawi", "Interventions"], "Supervision visits were held"),
    ]),
    "notes.md": ("# Reading notes\n\nThe questionnaire was translated into Chichewa.\n\n"
                 "## Open questions\n\nHow were the interviewers trained?\n", [
        (["Reading notes"], "The questionnaire was translated into Chichewa."),
        (["Reading notes", "Open questions"], "How were the interviewers trained?"),
    ]),
    "paper.tex": ("\\documentclass{article}\n\\title{Layout analysis benchmarks}\n"
                  "\\begin{document}\n\\maketitle\n\\section{Introduction}\n"
                  "DocLayNet contains 80863 manually annotated pages.\n"
                  "\\subsection{Labels}\nThere are eleven distinct class labels.\n"
                  "\\end{document}\n", [
        (["Introduction"], "DocLayNet contains 80863 manually annotated pages."),
        (["Introduction", "Labels"], "There are eleven distinct class labels."),
    ]),
}


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_other_formats_convert_and_chunk_with_headings(name: str, converter, tokenizer,
                                                        tmp_path: Path) -> None:
    from citeloom.convert.converter import available_formats, convert_file
    from citeloom.embed.chunk import Chunker
    from citeloom.provision import dense_spec

    source, expected = FORMATS[name]
    path = tmp_path / name
    if callable(source):
        source(path)
    else:
        path.write_text(source, encoding="utf-8")
    fmt = {".docx": "docx", ".pptx": "pptx", ".html": "html", ".md": "md", ".tex": "latex"}
    assert fmt[path.suffix] in {f.value for f in available_formats()}

    doc = convert_file(path, converter)
    window = dense_spec("sentence-transformers/all-MiniLM-L6-v2").window
    chunks = Chunker(tokenizer, window, 256).chunk(doc)
    for headings, text in expected:
        match = [c for c in chunks if text in c.text]
        assert match, [(c.heading_chain, c.text) for c in chunks]
        # The chain ends with the expected headings (LaTeX puts the \title above them).
        assert match[0].heading_chain[-len(headings):] == headings
        assert all(h in match[0].embed_text for h in headings)  # embedded with its context


@pytest.mark.parametrize(("width", "height", "poster"), [
    (595, 842, False),  # A4
    (612, 792, False),  # Letter
    (842, 1191, False),  # A3
    (2384, 3370, True),  # A0: a poster
])
def test_a_poster_page_is_rendered_no_larger_than_the_models_need(
        width: float, height: float, poster: bool) -> None:
    """The layout model's 144-dpi render and Tesseract's 216-dpi one, capped in pixels: a
    paper's page renders as before, an A0 poster's at a lower scale (it peaked a worker at
    2 GB at full scale)."""
    from citeloom.convert.layout import MAX_LAYOUT_PIXELS, render_scale
    from citeloom.convert.ocr import MAX_OCR_PIXELS

    for scale, cap in ((2.0, MAX_LAYOUT_PIXELS), (3.0, MAX_OCR_PIXELS)):
        used = render_scale(width, height, scale, cap)
        if not poster:
            assert used == scale
            continue
        assert used < scale and width * height * used**2 <= cap * 1.0001
        assert width * used >= 608 and height * used >= 800  # more than the model's input
