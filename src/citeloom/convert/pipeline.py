"""Docling's standard PDF/image pipeline as CiteLoom runs it: our ONNX layout engine
(:mod:`citeloom.convert.layout`), our Tesseract OCR (:mod:`citeloom.convert.ocr`), a
layout post-processing stage that filters pictures, and no table-structure model (a table
comes out as a table
item whose text sits in one cell).

Docling's table-structure factory imports torch-backed plugins even when
``do_table_structure=False``, so :class:`CiteloomPdfPipeline` never builds that factory:
:class:`NoTableStructureModel` stands in for it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from docling.datamodel.accelerator_options import AcceleratorDevice, AcceleratorOptions
from docling.datamodel.base_models import LayoutPrediction, TableStructurePrediction
from docling.datamodel.pipeline_options import (
    BaseTableStructureOptions,
    OcrMode,
    PdfPipelineOptions,
    TesseractCliOcrOptions,
)
from docling.models.base_table_model import BaseTableStructureModel
from docling.models.factories.table_factory import TableStructureFactory
from docling.models.stages.layout.layout_postprocessing_model import (
    LayoutPostprocessingModel,
)
from docling.pipeline.standard_pdf_pipeline import StandardPdfPipeline

from citeloom.convert.layout import (
    CiteloomLayoutOptions,
    demote_text_heavy_pictures,
    drop_nested_text_clusters,
    extend_text_clusters_to_line_ends,
)
from citeloom.convert.ocr import (
    DEFAULT_OCR_LANGS,
    CiteloomTesseractOcrModel,
    CiteloomTesseractOcrOptions,
)

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
# The PDF/image pipeline
# --------------------------------------------------------------------------


class PictureFilteringPostprocessingModel(LayoutPostprocessingModel):
    """Docling's layout post-processing, after demoting text-heavy pictures and, on
    scanned pages, dropping text clusters nested in larger ones.

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
                cells = [c for c in page.cells if c.text.strip()]
                if cells and all(c.from_ocr for c in cells):
                    kept = drop_nested_text_clusters(kept)
                    kept = extend_text_clusters_to_line_ends(page, kept)
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
      :func:`citeloom.convert.layout.demote_text_heavy_pictures`).
    * :class:`CiteloomTesseractOcrModel` gets the layout model, to predict
      the layout of a scanned page again once it has turned the page upright.
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
        if isinstance(self.ocr_model, CiteloomTesseractOcrModel):
            self.ocr_model.relayout = self.layout_model.predict_layout

    def _assemble_document(self, conv_res: Any) -> Any:
        """Docling's assembly, then the pages' text health (the repair ladder's ledger,
        :mod:`citeloom.convert.ocr`) into the document's body metadata, where the cached
        conversion keeps it (:func:`citeloom.convert.health.ledger_of` reads it)."""
        from citeloom.convert import textlayer
        from citeloom.convert.health import attach_ledger

        conv_res = super()._assemble_document(conv_res)
        textlayer.release()
        if isinstance(self.ocr_model, CiteloomTesseractOcrModel) and conv_res.document:
            attach_ledger(conv_res.document, self.ocr_model.pop_ledger(conv_res))
        return conv_res


# Pages a stage of Docling's threaded pipeline may hold for the next one. Docling's default
# (100) lets page loading run far ahead of layout and OCR: a 167-page manual peaked at
# 2.1 GB, 2 pages ahead at 0.96 GB, the same output and speed (docs/BENCHMARKS.md).
PAGE_QUEUE = 2


def build_pdf_pipeline_options(
    ocr: bool = True,
    ocr_langs: Sequence[str] = DEFAULT_OCR_LANGS,
    force_ocr: bool = False,
    layout_model_path: Path | None = None,
    num_threads: int = 2,
    document_timeout: float | None = None,
    ocr_skip_furniture: bool = True,
    text_repair: bool = True,
) -> PdfPipelineOptions:
    """Pipeline options for PDF/image input (see
    :func:`citeloom.convert.converter.build_converter`)."""
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
        ocr_options = CiteloomTesseractOcrOptions(
            lang=list(ocr_langs), mode=ocr_mode, parallel_pages=num_threads,
            text_repair=text_repair,
        )
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
        queue_max_size=PAGE_QUEUE,
    )
