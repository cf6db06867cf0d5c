"""Hands and other objects far wider than the pieces: reported, and cut out of the piece mask so their
outlines and fingers are not read as sticks.

Pieces are thin: nothing of theirs lies more than a column's width from the table, so a much deeper
distance transform of the piece mask means something else. Two things made that test fire on tables
with no hand (sixth session, seeds 3/6/7/8 and 301-304: 10 of 873 views without a hand warned):
* the rods' width, read as the commonest ridge width of the mask, came out at 2 px on a wood table whose
  grain streaks filled the mask, so every stick was "far wider than a rod". With a calibrated camera a
  rod's width at that place is known, and the reference is never under it (blur included);
* the lit table enclosed by shadowed roads entered the mask as one blob. Its colour is the table's; a
  hand's is not (the renders' hands: at least 0.039 in chromaticity from the table, the blobs of table
  under 0.021), so a blob of the table's own colour is not reported.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.tokyo.calibration import TokyoCalibration
from vision.tokyo.foreground import CHROMA
from vision.tokyo.observation import TokyoObservation
from vision.tokyo.sticks import _ridge, rod_half_width

DEPTH_WIDTHS = 3.5  # deeper than this many rod half-widths from the table: no piece
BLUR_GAIN = 1.3  # the mask's rod half-width over the calibrated one (blur, shading): 9-13 px for 6-10 px
TABLE_CHROMA = CHROMA  # a blob whose mean chromaticity lies this close to the table's is table


def large_objects(
    obs: TokyoObservation,
    fg: np.ndarray,
    image: np.ndarray | None = None,
    table: np.ndarray | None = None,
    calibration: TokyoCalibration | None = None,
) -> np.ndarray:
    """Warn of each large object in `fg` (cleared there in place) and return the mask (255) of the
    regions withheld. `image` and `table` (the table estimate, image-sized) let table-coloured blobs
    pass; `calibration` sets the rods' width where the mask cannot."""
    dist, ridge = _ridge(fg)
    hw = rod_half_width(dist, ridge)
    cut = np.zeros(fg.shape, np.uint8)
    deep = dist > DEPTH_WIDTHS * hw
    if not deep.any():
        return cut
    n, lab, stats, centres = cv2.connectedComponentsWithStats(deep.astype(np.uint8))
    chroma = _chroma_gap(image, table)
    for i in range(1, n):
        x, y, w, h, _ = stats[i]
        part = lab == i
        ref = hw
        if calibration is not None:
            ref = max(hw, BLUR_GAIN * _rod_half_width_at(calibration, centres[i]))
            if float(dist[part].max()) <= DEPTH_WIDTHS * ref:
                continue
        if chroma is not None and float(chroma[part].mean()) < TABLE_CHROMA:
            continue
        region = cv2.dilate(part.astype(np.uint8), np.ones((3, 3), np.uint8), iterations=int(4 * ref))
        obs.warnings.append(
            f"hand or large object near ({x + w / 2:.0f}, {y + h / 2:.0f}) px: readings there are withheld"
        )
        fg[region > 0] = 0
        cut |= region
    return cut * 255


def _rod_half_width_at(calibration: TokyoCalibration, uv: np.ndarray) -> float:
    """A stick's half-width in pixels, seen side on, where a low road would stand at pixel `uv`."""
    z = 1.5 * calibration.sizes.unit_mm
    point = calibration.camera.ray_to_plane(np.asarray(uv, np.float64).reshape(1, 2), z)[0]
    return calibration.local_scale(point)[2]


def _chroma_gap(image: np.ndarray | None, table: np.ndarray | None) -> np.ndarray | None:
    """Per pixel, how far the image's chromaticity lies from the table estimate's."""
    if image is None or table is None or table.shape[:2] != image.shape[:2]:
        return None
    f = image.astype(np.float32) + 4
    b = table.astype(np.float32) + 4
    return np.linalg.norm(f / f.sum(2, keepdims=True) - b / b.sum(2, keepdims=True), axis=2)
