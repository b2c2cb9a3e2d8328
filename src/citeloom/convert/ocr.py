"""OCR with Tesseract CLI that leaves the furniture of born-digital pages alone.

:class:`CiteloomTesseractOcrModel` is Docling's Tesseract CLI model with a cheaper region
policy, orientation detection only when needed, scanned pages read in one call and turned
upright (:mod:`citeloom.convert.rotation`), and pages OCRed in parallel; :func:`register_ocr_engine`
puts it on Docling's OCR factory. Also here: the OCR language checks
(:func:`installed_ocr_languages`, :func:`check_ocr_languages`) and the folder for the page
images Tesseract reads (:func:`ocr_tmpdir`).

The "auto"/RapidOCR path calls ``decide_device()``, which imports torch, so the pipeline
selects Tesseract CLI explicitly (:func:`citeloom.convert.pipeline.build_pdf_pipeline_options`).
"""

from __future__ import annotations

import contextlib
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

from docling.datamodel.base_models import LayoutPrediction
from docling.datamodel.pipeline_options import OcrMode, TesseractCliOcrOptions
from docling.models.stages.ocr.tesseract_ocr_cli_model import (
    TesseractOcrCliModel,
    _parse_orientation,
)
from docling.models.stages.ocr.tesseract_utils import tesseract_box_to_bounding_rectangle
from docling.utils.profiling import TimeRecorder
from docling_core.types.doc import BoundingBox, CoordOrigin, DocItemLabel
from docling_core.types.doc.page import TextCell
from PIL import Image
from pydantic import Field

from citeloom.convert import textlayer
from citeloom.convert.layout import render_scale
from citeloom.convert.rotation import RotatedPageBackend, rotate_bbox, rotate_rect
from citeloom.convert.texthealth import OK, REREAD, UNREADABLE, Health, health
from citeloom.errors import OcrUnavailable
from citeloom.system import pid_alive

_log = logging.getLogger(__name__)

DEFAULT_OCR_LANGS: tuple[str, ...] = ("eng", "deu")


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
    text_repair: bool = Field(
        default=True,
        description=(
            "Score each page's text (citeloom.convert.texthealth) and, where it does not read as "
            "language, read the page again: PDFium's text layer, then OCR of the whole "
            "page (when OCR is on); a page no reading makes readable is left without text "
            "and marked unreadable. Off: the parser's text is kept as it is (still scored)."
        ),
    )


#: Tesseract reads PGM straight into memory: no PNG encode/decode (~0.25 s a page).
_OCR_IMAGE_SUFFIX = ".pgm"
#: The most pixels a region is rendered at for Tesseract: an A3 page at 216 dpi (an A4 or
#: Letter page, at 4.5 MP, is never scaled down). A poster's A0 page would be 72 MP.
MAX_OCR_PIXELS = 9_500_000
#: Page images for Tesseract go to ``<root>/<pid>/``. A conversion worker killed on
#: timeout cannot delete its own; the next process to OCR removes the folders of
#: processes that are gone.
OCR_TMP_ROOT = Path(tempfile.gettempdir()) / f"citeloom-ocr-{os.getuid()}"


def ocr_tmpdir() -> Path:
    """This process's folder for OCR images, created on first use; on creation,
    the folders left by dead processes are removed."""
    mine = OCR_TMP_ROOT / str(os.getpid())
    if not mine.is_dir():
        mine.mkdir(parents=True, exist_ok=True)
        for other in OCR_TMP_ROOT.iterdir():
            if other != mine and other.name.isdigit() and not pid_alive(int(other.name)):
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

    #: Set by :class:`~citeloom.convert.pipeline.CiteloomPdfPipeline`: re-predicts the layout of a
    #: turned page.
    relayout: Callable[[Any, list[Any]], Sequence[LayoutPrediction]] | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.enabled:
            ocr_tmpdir()  # and sweep what killed workers left behind
        self._ledgers: dict[int, dict[int, dict[str, Any]]] = {}
        self._ledger_lock = threading.Lock()

    # -- text health: the repair ladder ------------------------------------------------
    def pop_ledger(self, conv_res: Any) -> dict[int, dict[str, Any]]:
        """The pages' health entries of this conversion (Docling's page numbers, from 1), once."""
        with self._ledger_lock:
            return self._ledgers.pop(id(conv_res), {})

    def _note(self, conv_res: Any, page: Any, entry: dict[str, Any]) -> None:
        with self._ledger_lock:
            self._ledgers.setdefault(id(conv_res), {})[page.page_no] = entry

    def _over_scan(self, page: Any) -> bool:
        """The page's text lies over a bitmap covering most of it: an OCR layer."""
        return self._bitmap_share(page) >= getattr(
            self.options, "scanned_page_min_bitmap_coverage", 0.5)

    @staticmethod
    def _bitmap_share(page: Any) -> float:
        if page.size is None or page.size.width * page.size.height <= 0:
            return 0.0
        full = BoundingBox(l=0, t=0, r=page.size.width, b=page.size.height,
                           coord_origin=CoordOrigin.TOPLEFT)
        try:
            bitmaps = list(page._backend.get_bitmap_rects())
        except Exception:  # noqa: BLE001 - a backend without bitmap info: no bitmaps
            return 0.0
        covered = sum(
            full.intersection_area_with(b.to_top_left_origin(page_height=page.size.height))
            for b in bitmaps
        )
        return covered / (page.size.width * page.size.height)

    @staticmethod
    def _set_cells(page: Any, cells: list[TextCell]) -> None:
        """Make ``cells`` the page's text (lines; the parser's words and characters go)."""
        from docling.models.base_ocr_model import _empty_segmented_page

        if page.parsed_page is None:
            page.parsed_page = _empty_segmented_page(page)
        for i, cell in enumerate(cells):
            cell.index = i
        page.parsed_page.textline_cells = cells
        page.parsed_page.has_lines = bool(cells)
        page.parsed_page.word_cells = []
        page.parsed_page.char_cells = []
        page.parsed_page.has_words = page.parsed_page.has_chars = False

    def _scale(self, rect: BoundingBox) -> float:
        """Docling's OCR scale (216 dpi), or less for a region so large (a poster's page)
        that it would render to more than :data:`MAX_OCR_PIXELS`: its type is large too."""
        return render_scale(rect.width, rect.height, self.scale, MAX_OCR_PIXELS)

    def _full_page_ocr(self, page: Any) -> list[TextCell]:
        rect = BoundingBox(l=0, t=0, r=page.size.width, b=page.size.height,
                           coord_origin=CoordOrigin.TOPLEFT)
        scale = self._scale(rect)
        image = page._backend.get_page_image(scale=scale, cropbox=rect)
        words, orientation, read_image = self._recognise(image)
        return self._cells(words, rect, scale, orientation, read_image.size)

    def _repair(self, conv_res: Any, page: Any) -> dict[str, Any] | None:
        """Run the ladder on a page whose parsed text does not read as language; returns
        its ledger entry, or None when the page's text is fine (the usual path goes on)."""
        cells = [c for c in page.cells if c.text.strip()]
        if not cells or all(c.from_ocr for c in cells):
            return None  # nothing parsed (a scan): OCR reads it the usual way
        first = health(" ".join(c.text for c in cells))
        ocr_layer = self._over_scan(page)
        suspect = ocr_layer and not first.reads_as_words()
        soup = not ocr_layer and first.letter_soup()
        if not first.judged or (first.score >= REREAD and not suspect and not soup):
            return None
        if not getattr(self.options, "text_repair", True):
            return {"method": "parser", "score": round(first.score, 3),
                    "before": round(first.score, 3), "lexical": _lexical(first)}
        tried = [("parser", cells, first)]
        source = Path(str(conv_res.input.file))
        glyphs = 0  # what the page prints, by PDFium's count (0: unknown)
        if source.suffix.lower() == ".pdf" and page.size is not None:
            try:
                layer, glyphs = textlayer.page_cells(source, page.page_no, page.size.height,
                                                     _password(conv_res))
            except Exception as exc:  # noqa: BLE001 - the next rung reads it
                _log.warning("PDFium could not read page %d: %s", page.page_no, exc)
                layer = []
            if layer:
                tried.append(("text-layer", layer, health(" ".join(c.text for c in layer))))
        if soup and len(tried) > 1 and _prose(tried[1][2]):
            # Letter soup against a text layer that reads as prose: the soup counts for nothing.
            tried[0] = ("parser", cells, Health(0.0, 1.0, first.lexical, first.chars, first.words))
        kept = _best(tried, ocr_layer)[2]
        if (not _good(kept, ocr_layer) or _recovered(kept, tried, ocr_layer, glyphs) < OK) \
                and self.enabled:
            ocr_cells = self._full_page_ocr(page)
            if ocr_cells:
                tried.append(("ocr", ocr_cells, health(" ".join(c.text for c in ocr_cells))))
        method, new_cells, result = _best(tried, ocr_layer)
        if _recovered(result, tried, ocr_layer, glyphs) < UNREADABLE:
            # No reading works: keep the lines that read as text on their own (a heading
            # in another font), drop the rest rather than index glyph soup.
            method = "unreadable"
            new_cells = [c for c in new_cells if health(c.text).score >= OK]
        if method != "parser":
            self._set_cells(page, new_cells)
        score = (min(result.score, _recovered(result, tried, ocr_layer, glyphs))
                 if method == "unreadable" else result.score if result.judged else 1.0)
        return {"method": method, "score": round(score, 3), "before": round(first.score, 3),
                "lexical": _lexical(first)}

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
        return self._bitmap_share(page) >= opts.scanned_page_min_bitmap_coverage

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
            c.model_copy(update={"rect": rotate_rect(c.rect, angle, w, h)}) for c in old_cells
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
            scale = self._scale(rect)
            image = page._backend.get_page_image(scale=scale, cropbox=rect)
            osd_first = scanned and page.size.width > page.size.height
            words, orientation, read_image = self._recognise(image, osd_first=osd_first)
            if orientation and scanned:
                angle = (-orientation) % 360  # counter-clockwise turn that made it upright
                w, h = page.size.width, page.size.height
                self._turn_page(conv_res, page, angle)
                turned_rect = rotate_bbox(rect, angle, w, h)
                return self._cells(words, turned_rect, scale, 0, read_image.size)
            cells.extend(self._cells(words, rect, scale, orientation, read_image.size))
        return cells

    def _process(self, conv_res: Any, page: Any) -> Any:
        if page._backend is None or not page._backend.is_valid():
            return page
        with TimeRecorder(conv_res, "ocr"):
            entry = self._repair(conv_res, page)
            if entry is None or entry["method"] == "text-layer":
                if self.enabled:
                    cells = self._ocr_page(conv_res, page)
                    self.post_process_cells(cells, page, conv_res)
                if entry is None:
                    cells = [c for c in page.cells if c.text.strip()]
                    read = health(" ".join(c.text for c in cells))
                    scanned = bool(cells) and all(c.from_ocr for c in cells)
                    entry = {"method": "ocr" if scanned else "parser",
                             "score": round(read.score, 3), "lexical": _lexical(read)}
            self._note(conv_res, page, entry)
        return page

    def __call__(self, conv_res: Any, page_batch: Iterable[Any]) -> Iterable[Any]:
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


def _readable(h: Health, ocr_layer: bool) -> float:
    """How much of a reading reads as text: its characters times its quality."""
    return h.chars * h.quality(ocr_layer)


def _best(tried: list[tuple[str, list[TextCell], Health]], ocr_layer: bool
          ) -> tuple[str, list[TextCell], Health]:
    """The reading to keep: the one with the most readable text; a later rung only when it
    has clearly more (by 1 %)."""
    best = tried[0]
    for candidate in tried[1:]:
        if _readable(candidate[2], ocr_layer) > 1.01 * _readable(best[2], ocr_layer):
            best = candidate
    return best


def _lexical(h: Health) -> float | None:
    """The ledger's ``lexical``: the parser's share of known words (None: too few words).
    Its presence says the page was judged by a ladder that knows letter soup."""
    return None if h.lexical is None else round(h.lexical, 3)


def _prose(h: Health) -> bool:
    """A reading whose words are words (enough of them known to the lexicon)."""
    return h.judged and h.lexical is not None and h.reads_as_words() and h.score >= OK


def _good(h: Health, ocr_layer: bool) -> bool:
    return h.quality(ocr_layer) >= OK and (not ocr_layer or h.reads_as_words())


def _recovered(best: Health, tried: list[tuple[str, list[TextCell], Health]],
               ocr_layer: bool, glyphs: int = 0) -> float:
    """Share of the page's text the kept reading makes readable: its readable characters
    over the glyphs the page prints (PDFium's count; else the most characters a reading
    found). A reading that keeps a heading and loses the body recovers little."""
    most = glyphs or max(t[2].chars for t in tried)
    return min(1.0, _readable(best, ocr_layer) / most) if most else 1.0


def _password(conv_res: Any) -> str | None:
    options = getattr(conv_res.input, "backend_options", None)
    password = getattr(options, "password", None)
    if password is None:
        return None
    return password.get_secret_value() if hasattr(password, "get_secret_value") else password


def register_ocr_engine(allow_external_plugins: bool = True) -> None:
    """Register :class:`CiteloomTesseractOcrModel` on Docling's cached OCR factory."""
    from docling.models.factories import get_ocr_factory

    factory = get_ocr_factory(allow_external_plugins=allow_external_plugins)
    if CiteloomTesseractOcrOptions not in factory.classes:
        factory.register(CiteloomTesseractOcrModel, "citeloom", __name__)


# --------------------------------------------------------------------------
# OCR languages
# --------------------------------------------------------------------------


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


def tesseract_code(lang: str) -> str:
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
        code = tesseract_code(lang)
        if code not in installed:
            missing.append(code)
    if missing:
        pkgs = " ".join(f"tesseract-ocr-{m.lower().replace('_', '-')}" for m in missing)
        raise OcrUnavailable(
            f"Tesseract has no data for OCR language(s) {', '.join(missing)} "
            f"(installed: {', '.join(installed) or 'none'})",
            f"install {pkgs} (Debian/Ubuntu), or change ocr_languages for the project",
        )
