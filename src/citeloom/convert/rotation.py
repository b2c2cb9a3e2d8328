"""Pages turned upright for OCR: a scanned page whose text Tesseract finds sideways or
upside down is seen through :class:`RotatedPageBackend`, and boxes and rectangles move
into the turned frame with :func:`rotate_bbox` / :func:`rotate_rect`.

Used by :class:`citeloom.convert.ocr.CiteloomTesseractOcrModel`.
"""

from __future__ import annotations

from collections.abc import Iterable

from docling.backend.pdf_backend import PdfPageBackend
from docling_core.types.doc import BoundingBox, CoordOrigin, Size
from docling_core.types.doc.page import BoundingRectangle, SegmentedPdfPage, TextCell
from PIL import Image


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


def rotate_bbox(box: BoundingBox, angle: int, w: float, h: float) -> BoundingBox:
    """``box`` (top-left origin) in the frame turned ``angle`` degrees counter-clockwise."""
    x0, y0 = _rotate_xy(box.l, box.t, angle, w, h)
    x1, y1 = _rotate_xy(box.r, box.b, angle, w, h)
    return BoundingBox(
        l=min(x0, x1), t=min(y0, y1), r=max(x0, x1), b=max(y0, y1),
        coord_origin=CoordOrigin.TOPLEFT,
    )


def rotate_rect(rect: BoundingRectangle, angle: int, w: float, h: float) -> BoundingRectangle:
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
        return rotate_bbox(box.to_top_left_origin(page_height=self._h), self.angle,
                            self._w, self._h)

    def _to_inner(self, box: BoundingBox) -> BoundingBox:
        size = self.get_size()
        return rotate_bbox(box.to_top_left_origin(page_height=size.height),
                            (360 - self.angle) % 360, size.width, size.height)

    def get_text_in_rect(self, bbox: BoundingBox) -> str:
        return self.inner.get_text_in_rect(self._to_inner(bbox))

    def get_segmented_page(self) -> SegmentedPdfPage | None:
        return None  # the pipeline parses cells before any page is turned

    def get_text_cells(self) -> Iterable[TextCell]:
        return [
            c.model_copy(update={"rect": rotate_rect(c.rect, self.angle, self._w, self._h)})
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
