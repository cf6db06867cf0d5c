"""Where objects standing on a printed sheet appear, given the camera's pose (`vision.pose`).

A rectified top view shows the paper as it is, but not what stands on it: the top face of a die
16 mm tall lands about 16 * d / (H - 16) mm away from its cell, away from the point under the camera
(d = distance from that point, H = camera height), and the die's sides fill the strip between. Here:

* `volume_box_mm` -- the box of the sheet plane's top view that an object's footprint and top cover
  (a die 16 mm, a piece 2 mm, a Tokyo column of n units), so a reader looks for it there;
* `FaceView` -- a second top view on the plane of the dice's top faces: there every die's top face
  sits on its own cell, square and at one scale, ready for a pip counter or a crop reader;
* `view_px_per_mm` -- the rectified views' resolution: the camera's real pixels per mm on the board,
  within [MIN_VIEW_PPM, MAX_VIEW_PPM].
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cv2
import numpy as np

from vision.pose import CameraPose

DIE_MM = 16.0
# Coarser than MIN_VIEW_PPM loses pips. Finer is capped at the same 2 px/mm: the zone reader's steps
# that count pixels (its kernels, blurs and minimum areas, `int(px)`, the crop reader's 32 px input cut
# from a die's box) were tuned and proved where 720p and 1080p cameras put them, at 2 px/mm, and a view
# from a finer camera read at its own resolution ran them at other sizes (4K at 850 mm: 2.5 px/mm, its
# opening kernel 1.6 mm instead of 2, its crops shrunk 0.64x by bilinear sampling instead of 0.8x), for
# more CPU and no reading gained (docs/vision/localisation.md, issue 20)
MIN_VIEW_PPM, MAX_VIEW_PPM = 2.0, 2.0


def to_sheet_plane(pose: CameraPose, points_mm: np.ndarray) -> np.ndarray:
    """(N, 3) points (x, y, height) -> where they appear in the sheet plane's top view (N, 2) mm."""
    px = pose.project(points_mm)
    back = np.linalg.inv(pose.plane_homography(0.0))
    return cv2.perspectiveTransform(px.reshape(-1, 1, 2), back).reshape(-1, 2)


def volume_box_mm(pose: CameraPose, rect_mm: tuple[float, float, float, float],
                  height_mm: float) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) in sheet-plane top-view mm covered by a box standing on `rect_mm`
    (x, y, w, h) and `height_mm` tall: its footprint and its top face as the camera sees them."""
    x, y, w, h = rect_mm
    base = np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float64)
    top = to_sheet_plane(pose, np.column_stack([base, np.full(4, height_mm)]))
    pts = np.concatenate([base, top])
    return (float(pts[:, 0].min()), float(pts[:, 1].min()), float(pts[:, 0].max()), float(pts[:, 1].max()))


def top_offset_mm(pose: CameraPose, point_mm: tuple[float, float], height_mm: float) -> np.ndarray:
    """How far (dx, dy mm) the top of something `height_mm` tall at `point_mm` appears moved in the
    sheet plane's top view."""
    p = np.array([[point_mm[0], point_mm[1], height_mm]], np.float64)
    return to_sheet_plane(pose, p)[0] - np.asarray(point_mm, np.float64)


def view_px_per_mm(pose: CameraPose, points_mm: np.ndarray, height_mm: float = DIE_MM,
                   lo: float = MIN_VIEW_PPM, hi: float = MAX_VIEW_PPM) -> float:
    """Resolution for the rectified views: the camera's median pixels per mm over `points_mm` (e.g.
    the board's cells) on the plane `height_mm`, in half steps, within [lo, hi]."""
    ppm = float(np.median(pose.px_per_mm(points_mm, height_mm)))
    return float(np.clip(round(ppm * 2) / 2, lo, hi))


def smallest_face_px(pose: CameraPose, centres_mm: np.ndarray, side_mm: float = DIE_MM,
                     height_mm: float = DIE_MM) -> float:
    """The shortest side in pixels of a `side_mm` top face `height_mm` above any of `centres_mm`."""
    h = side_mm / 2
    worst = np.inf
    for cx, cy in np.asarray(centres_mm, np.float64).reshape(-1, 2):
        quad = np.array([[cx - h, cy - h, height_mm], [cx + h, cy - h, height_mm],
                         [cx + h, cy + h, height_mm], [cx - h, cy + h, height_mm]])
        px = pose.project(quad)
        sides = np.linalg.norm(px - np.roll(px, -1, axis=0), axis=1)
        worst = min(worst, float(sides.min()))
    return worst


Rect = tuple[int, int, int, int]  # x0, y0, x1, y1 of a view, end exclusive


class Parts:
    """A view of `shape` made part by part, on demand: `part(rect)` makes (`make(rect)`: that rect's
    pixels, as the whole view's there) what of `rect` is not made yet, in tiles of TILE px, and
    returns the whole array, where only what was asked for is sure to be made (the rest black).
    `bounds`: the only part that is ever made (the rest stays black)."""

    TILE = 32

    def __init__(self, shape: tuple[int, ...], dtype: Any, make: Callable[..., Any],
                 bounds: Rect | None = None, into: bool = False) -> None:
        """`into`: `make(rect, dst)` writes the rect's pixels into `dst` (the array's part there)
        instead of returning them: a copy less."""
        self.array = np.zeros(shape, dtype)
        self._make = make
        self._into = into
        h, w = shape[:2]
        self.bounds = bounds if bounds is not None else (0, 0, w, h)
        t = self.TILE
        self._done = np.zeros((-(-h // t), -(-w // t)), bool)

    def part(self, rect: Rect | None = None) -> np.ndarray:
        t = self.TILE
        bx0, by0, bx1, by1 = self.bounds
        x0, y0, x1, y1 = self.bounds if rect is None else rect
        x0, y0, x1, y1 = max(x0, bx0), max(y0, by0), min(x1, bx1), min(y1, by1)
        if x1 <= x0 or y1 <= y0:
            return self.array
        tx0, ty0, tx1, ty1 = x0 // t, y0 // t, -(-x1 // t), -(-y1 // t)
        todo = ~self._done[ty0:ty1, tx0:tx1]
        if todo.any():
            rows, cols = np.flatnonzero(todo.any(axis=1)), np.flatnonzero(todo.any(axis=0))
            a0, b0 = max(bx0, (tx0 + cols[0]) * t), max(by0, (ty0 + rows[0]) * t)
            a1, b1 = min(bx1, (tx0 + cols[-1] + 1) * t), min(by1, (ty0 + rows[-1] + 1) * t)
            if self._into:
                self._make((a0, b0, a1, b1), self.array[b0:b1, a0:a1])
            else:
                self.array[b0:b1, a0:a1] = self._make((a0, b0, a1, b1))
            self._done[ty0 + rows[0]:ty0 + rows[-1] + 1, tx0 + cols[0]:tx0 + cols[-1] + 1] = True
        return self.array


class FaceView:
    """The frame rectified on the plane `height_mm` above the sheet at `px_per_mm` (pixel (u, v) shows
    plane point (u, v) / px_per_mm), and `to_sheet_view`: 3x3 from its pixels to the sheet plane's
    top view pixels at the same resolution (where the same image pixel lands there). `image` may be
    given as a function making it: it is then made on first use (a frame whose zones all read empty
    by their correlations never looks at it); `size` (w, h) is known without it. `parts` (with such
    a function): a function making any part of it alone (x0, y0, x1, y1: its pixels as the whole
    view's there), so that `part(rect)` warps only what a reading looks at (and `grey(rect)`
    converts only that); `image` then makes the rest."""

    def __init__(self, image: np.ndarray | Callable[[], np.ndarray], px_per_mm: float, height_mm: float,
                 to_sheet_view: np.ndarray, size: tuple[int, int] | None = None,
                 parts: Parts | None = None) -> None:
        self._make: Callable[[], np.ndarray] | None = None
        self._image: np.ndarray | None = None
        if callable(image):
            if size is None:
                raise ValueError("a FaceView made on first use needs its size")
            self._make = image
        else:
            self._image = image
            size = (image.shape[1], image.shape[0]) if size is None else size
        self.size = size
        self.px_per_mm, self.height_mm, self.to_sheet_view = px_per_mm, height_mm, to_sheet_view
        self._parts = parts if self._image is None else None
        self._grey: Parts | None = None
        self._from_sheet: tuple[np.ndarray, np.ndarray] | None = None  # to_sheet_view and its inverse

    @property
    def image(self) -> np.ndarray:
        if self._image is None:
            if self._parts is not None:
                self._image, self._make = self._parts.part(), None
            else:
                assert self._make is not None
                self._image, self._make = self._make(), None
        return self._image

    @image.setter
    def image(self, value: np.ndarray) -> None:
        self._image, self._make, self._parts, self._grey = value, None, None, None

    def holds(self, image: np.ndarray) -> bool:
        """Whether `image` is this view's image (made whole or in part)."""
        return image is self._image or (self._parts is not None and image is self._parts.array)

    def part(self, rect: Rect) -> np.ndarray:
        """The view's image, made at least over `rect` (all of it where it was made whole)."""
        if self._image is not None or self._parts is None:
            return self.image
        return self._parts.part(rect)

    def grey(self, rect: Rect) -> np.ndarray:
        """The view in grey (cv2.COLOR_BGR2GRAY), converted at least over `rect`."""
        if self._grey is None:
            def convert(r: Rect, dst: np.ndarray) -> None:
                x0, y0, x1, y1 = r
                got = cv2.cvtColor(self.part(r)[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY, dst=dst)
                if got is not dst:  # (OpenCV wrote elsewhere)
                    dst[...] = got

            w, h = self.size
            self._grey = Parts((h, w), np.uint8, convert, into=True)
        return self._grey.part(rect)

    def from_sheet_view(self, points_px: np.ndarray) -> np.ndarray:
        pts = np.asarray(points_px, np.float64).reshape(-1, 1, 2)
        kept = self._from_sheet
        if kept is None or kept[0] is not self.to_sheet_view:  # inverted once per view (every die asks)
            kept = self._from_sheet = (self.to_sheet_view, np.linalg.inv(self.to_sheet_view))
        return cv2.perspectiveTransform(pts, kept[1]).reshape(-1, 2)

    def warp_from_sheet_view(self, sheet_view: np.ndarray) -> np.ndarray:
        """A map made on the sheet plane's view (e.g. a changed-pixels mask) brought into this view."""
        return cv2.warpPerspective(sheet_view, self.to_sheet_view, self.size,
                                   flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP)


def face_view(image: np.ndarray, pose: CameraPose, sheet_mm: tuple[float, float], px_per_mm: float,
              height_mm: float = DIE_MM, roi: tuple[int, int, int, int] | None = None,
              lazy: bool = False) -> FaceView:
    """Rectify `image` on the plane `height_mm` above the sheet (see FaceView). `roi` (x0, y0, x1, y1
    of the view): only those pixels are warped, the rest of the view is left black. `lazy`: warped
    when the view's image is first used (`image` must not change until then)."""
    scale = np.diag([px_per_mm, px_per_mm, 1.0])
    plane_to_img = pose.plane_homography(height_mm)
    view_to_img = plane_to_img @ np.linalg.inv(scale)
    size = (round(sheet_mm[0] * px_per_mm), round(sheet_mm[1] * px_per_mm))

    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP

    def warped() -> np.ndarray:
        return warp_roi(image, view_to_img, size, flags, roi)

    to_sheet = scale @ np.linalg.inv(pose.plane_homography(0.0)) @ view_to_img
    parts = None
    if lazy:  # made part by part as the zones read look at them
        parts = Parts((size[1], size[0], *image.shape[2:]), image.dtype,
                      lambda r, dst: warp_part(image, view_to_img, r, flags, dst=dst), roi, into=True)
    return FaceView(warped if lazy else warped(), px_per_mm, height_mm, to_sheet / to_sheet[2, 2], size,
                    parts)


def warp_roi(image: np.ndarray, M: np.ndarray, size: tuple[int, int], flags: int,
             roi: tuple[int, int, int, int] | None = None, **kwargs: object) -> np.ndarray:
    """cv2.warpPerspective into a `size` view, or (`roi`: x0, y0, x1, y1 of the view) only into that
    part of it, the rest left zero: the same pixels there, for a fraction of the work."""
    if roi is None:
        return cv2.warpPerspective(image, M, size, flags=flags, **kwargs)
    x0, y0, x1, y1 = roi
    out = np.zeros((size[1], size[0], *image.shape[2:]), image.dtype)
    if x1 > x0 and y1 > y0:  # warped straight into its place (a part of the view: a copy less)
        warp_part(image, M, roi, flags, dst=out[y0:y1, x0:x1], **kwargs)
    return out


def warp_part(image: np.ndarray, M: np.ndarray, part: tuple[int, int, int, int], flags: int,
              dst: np.ndarray | None = None, **kwargs: object) -> np.ndarray:
    """The pixels (x0, y0, x1, y1) of the view cv2.warpPerspective(image, M, ...) would give, alone;
    `dst` (that part's shape and type, e.g. a slice of a whole view): written into it, and returned."""
    x0, y0, x1, y1 = part
    shift = np.array([[1.0, 0.0, x0], [0.0, 1.0, y0], [0.0, 0.0, 1.0]])
    # inverse map: view pixel -> source; forward: source -> view pixel
    M2 = M @ shift if flags & cv2.WARP_INVERSE_MAP else np.linalg.inv(shift) @ M
    if dst is None:
        return cv2.warpPerspective(image, M2, (x1 - x0, y1 - y0), flags=flags, **kwargs)
    got = cv2.warpPerspective(image, M2, (x1 - x0, y1 - y0), dst=dst, flags=flags, **kwargs)
    if got is not dst:  # OpenCV wrote elsewhere (a layout it would not take)
        dst[...] = got
    return dst
