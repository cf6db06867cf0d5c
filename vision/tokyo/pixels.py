"""Where a mask is set, as `np.nonzero` gives it, for a fraction of its cost.

NumPy's `nonzero` of a 720p uint8 or bool mask takes 3-5 ms however few pixels are set (it walks
every element twice, counting first); OpenCV's `findNonZero` gives the same coordinates in the same
row-major order in about 0.1 ms. The stick pass and the rods' width floor each took one per view.
"""

from __future__ import annotations

import cv2
import numpy as np


def nonzero_yx(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`np.nonzero(mask)` of a 2-D uint8 or bool mask: (rows, columns) as intp arrays, row-major."""
    if mask.ndim != 2 or mask.dtype not in (np.uint8, np.bool_):
        return np.nonzero(mask)  # type: ignore[return-value]
    m = np.ascontiguousarray(mask.view(np.uint8))
    pts = cv2.findNonZero(m) if m.size else None
    if pts is None:
        empty = np.zeros(0, np.intp)
        return empty, empty.copy()
    pts = pts.reshape(-1, 2)
    return pts[:, 1].astype(np.intp), pts[:, 0].astype(np.intp)


# OpenCV hands the 5x5 L2 distance transform to IPP, whose float sums depend on a pixel's column
# modulo its SIMD width: a crop gives the whole frame's values only when its columns start and end
# on these multiples (checked on random masks and on the recording's piece masks:
# tests/test_tokyo_mask_boxes.py); rows need no alignment
DIST_COLUMNS = 64
DIST_MARGIN = 2  # the 5x5 mask's reach: a set pixel's neighbours all lie inside the crop


def mask_box(mask: np.ndarray, margin: int = 0, columns: int = 1) -> tuple[slice, slice] | None:
    """The bounding box of the mask's set pixels (uint8 or bool) grown by `margin` pixels, its columns
    widened out to multiples of `columns` (within the frame), as slices; None when nothing is set."""
    x, y, w, h = cv2.boundingRect(np.ascontiguousarray(mask.view(np.uint8)))
    if w == 0 or h == 0:
        return None
    rows, cols = mask.shape
    x0 = max(0, x - margin) // columns * columns
    x1 = min(cols, -(-(x + w + margin) // columns) * columns)
    return slice(max(0, y - margin), min(rows, y + h + margin)), slice(x0, x1)


def distance_l2(mask: np.ndarray) -> np.ndarray:
    """`cv2.distanceTransform(mask, cv2.DIST_L2, 5)` of a uint8 mask, the same values, worked out on
    the box of its set pixels only (a view's piece masks cover a tenth to a half of the frame): every
    pixel outside the box is unset, and so 0 either way."""
    box = mask_box(mask, DIST_MARGIN, DIST_COLUMNS)
    out = np.zeros(mask.shape, np.float32)
    if box is not None:
        out[box] = cv2.distanceTransform(mask[box], cv2.DIST_L2, 5)
    return out
