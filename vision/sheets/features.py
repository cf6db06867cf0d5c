"""What the learned side and station classifiers see: the paper-relative darkness of a side's strip
or of the square's centre, resampled to a fixed small grid so any top-view scale gives the same input.

A side's strip runs from just outside a station box to just inside the square's edge, rows going
outwards from the centre and columns across, so the four sides of a square share one classifier.
"""

from __future__ import annotations

import cv2
import numpy as np

SIDE_SPAN_MM = (3.6, 9.6)  # from the square's centre outwards
SIDE_HALF_MM = 3.0  # either side of the side's axis
SIDE_SHAPE = (15, 15)  # rows (along) x columns (across): 2.5 px/mm
CENTRE_HALF_MM = 4.5
CENTRE_SHAPE = (18, 18)  # 2 px/mm
SIDES = "NESW"
_DIRS = {"N": (0.0, -1.0), "E": (1.0, 0.0), "S": (0.0, 1.0), "W": (-1.0, 0.0)}


def darkness(ratio: np.ndarray) -> np.ndarray:
    """Brightness relative to the paper -> 0 (paper) .. 1 (black), float32."""
    if ratio.dtype != np.float32:
        return np.clip(1.0 - ratio, 0.0, 1.0).astype(np.float32)
    out = 1.0 - ratio  # float32 already: clipped in place, no second copy
    return np.clip(out, 0.0, 1.0, out=out)


def smoothed(dark: np.ndarray, ppm: float) -> tuple[np.ndarray, np.ndarray]:
    """The darkness pre-blurred for `side_patch` and for `centre_patch` (once per view, not per
    square: the blur keeps the down-sampling from aliasing railway ties)."""
    along = (SIDE_SPAN_MM[1] - SIDE_SPAN_MM[0]) / SIDE_SHAPE[0] * ppm
    across = 2 * SIDE_HALF_MM / SIDE_SHAPE[1] * ppm
    step = 2 * CENTRE_HALF_MM / CENTRE_SHAPE[1] * ppm
    side = cv2.GaussianBlur(dark, (0, 0), 0.5 * min(along, across)) if min(along, across) > 1.2 else dark
    centre = cv2.GaussianBlur(dark, (0, 0), 0.5 * step) if step > 1.2 else dark
    return side, centre


def side_patch(src: np.ndarray, centre: np.ndarray, side: str, ppm: float) -> np.ndarray:
    """SIDE_SHAPE darkness of one side's strip (flattened), sampled by an affine warp from `src`,
    the first image of `smoothed`."""
    dx, dy = _DIRS[side]
    rows, cols = SIDE_SHAPE
    r0, r1 = SIDE_SPAN_MM
    along = (r1 - r0) / rows * ppm  # view px per output row
    across = 2 * SIDE_HALF_MM / cols * ppm
    # output (col, row) -> view (x, y): x = cx + (row step along the side) + (col step across it)
    start = (
        centre
        + np.array([dx, dy]) * (r0 * ppm + along / 2)
        + np.array([-dy, dx]) * (-SIDE_HALF_MM * ppm + across / 2)
    )
    M = np.array([[-dy * across, dx * along, start[0]], [dx * across, dy * along, start[1]]], np.float64)
    out = cv2.warpAffine(src, M, (cols, rows), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
    return out.ravel()


def centre_patch(src: np.ndarray, centre: np.ndarray, ppm: float) -> np.ndarray:
    """CENTRE_SHAPE darkness round the square's centre (flattened) from `src`, the second image of
    `smoothed`."""
    rows, cols = CENTRE_SHAPE
    step = 2 * CENTRE_HALF_MM / cols * ppm
    start = centre - CENTRE_HALF_MM * ppm + step / 2
    M = np.array([[step, 0, start[0]], [0, step, start[1]]], np.float64)
    return cv2.warpAffine(src, M, (cols, rows), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP).ravel()


def side_patches(src: np.ndarray, centres: np.ndarray, ppm: float) -> np.ndarray:
    """`side_patch` of each side (N, E, S, W in turn) of each square centred at `centres` (n, 2), as
    (4n, rows*cols) rows: one `cv2.remap` instead of 4n warps (the same values, see `_patches`)."""
    rows, cols = SIDE_SHAPE
    r0, r1 = SIDE_SPAN_MM
    along = (r1 - r0) / rows * ppm
    across = 2 * SIDE_HALF_MM / cols * ppm
    d = np.array([_DIRS[s] for s in SIDES])  # (4, 2): the way out of the square
    normal = np.stack([-d[:, 1], d[:, 0]], 1)  # across the side
    c = np.asarray(centres, np.float64).reshape(-1, 1, 2)
    start = c + d * (r0 * ppm + along / 2) + normal * (-SIDE_HALF_MM * ppm + across / 2)  # (n, 4, 2)
    n = len(c)
    return _patches(src, start.reshape(-1, 2), np.tile(normal * across, (n, 1)), np.tile(d * along, (n, 1)),
                    rows, cols)


def centre_patches(src: np.ndarray, centres: np.ndarray, ppm: float) -> np.ndarray:
    """`centre_patch` of each square centred at `centres` (n, 2), as (n, rows*cols) rows."""
    rows, cols = CENTRE_SHAPE
    step = 2 * CENTRE_HALF_MM / cols * ppm
    start = np.asarray(centres, np.float64).reshape(-1, 2) - CENTRE_HALF_MM * ppm + step / 2
    n = len(start)
    return _patches(src, start, np.tile([step, 0.0], (n, 1)), np.tile([0.0, step], (n, 1)), rows, cols)


def _patches(src: np.ndarray, start: np.ndarray, col_step: np.ndarray, row_step: np.ndarray, rows: int,
             cols: int) -> np.ndarray:
    """Patch k's pixel (row, col) sampled bilinearly at start[k] + col * col_step[k] + row *
    row_step[k] (zero outside `src`). The coordinates are computed as `cv2.warpAffine` computes them
    for the matrix [[col_step, row_step, start]] (in double, as x*M0 + y*M1 + M2) and handed to
    `cv2.remap` as float32, which samples them as the warp does (tests/test_vision_sheets_features.py
    checks the values are the same)."""
    if not len(start):
        return np.zeros((0, rows * cols), np.float32)
    yy, xx = np.mgrid[0:rows, 0:cols].astype(np.float64)
    maps = [(col_step[:, k, None, None] * xx + row_step[:, k, None, None] * yy + start[:, k, None, None])
            .reshape(-1, cols).astype(np.float32) for k in (0, 1)]
    out = cv2.remap(src, maps[0], maps[1], cv2.INTER_LINEAR)
    return out.reshape(len(start), rows * cols)
