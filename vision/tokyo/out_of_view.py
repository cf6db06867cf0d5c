"""A road that leaves a standing column and runs out of the picture: a build the camera cannot see.

At the envelope's low, steep set-ups the structure outgrows the frame (550 mm, 40 degrees, 50 degree
lens: 8 of tuning seeds 1-6's 60 new columns stand wholly or partly outside it). The new column is
then never read, so no build is even tried, and the move was missed without a word. Its road still
shows: it leaves a column the match knows and crosses the frame's edge. This finds such roads on the
frame's piece evidence (vision.tokyo.piece_evidence), so the referee can say the build is out of view
instead of staying silent.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.tokyo.calibration import TokyoCalibration
from vision.tokyo.piece_evidence import PieceMaps, stick_axis, stick_quad

DIRECTIONS = 36  # roads tried around each standing column
SPAN = 0.9  # of the stick's reach: where the far column of a level road stands
# a road's band must show this many unexplained pixels (half size) inside the frame: a stick's
# stub of about 4 cm at 550 mm; a shorter one says too little to tell from a shadow's edge
MIN_PIXELS = 60
# mean nats per visible band pixel (a sure road pixel is +2, the bare table -2): most of the band
# must look like road, so the table's edge or a glare rim does not pass
MIN_MEAN_LLR = 0.8


@dataclass(frozen=True)
class RoadOut:
    """A road from the column at `base` (x, y, top z in mm) towards `direction_deg` (on the table,
    from +x towards +y) that leaves the picture; `score` is its band's evidence (nats)."""

    base: tuple[float, float, float]
    direction_deg: float
    score: float
    pixels: int


def _outside(uv: np.ndarray, width: int, height: int) -> bool:
    u, v = float(uv[0]), float(uv[1])
    return u < 0 or v < 0 or u >= width or v >= height


def roads_out_of_view(maps: PieceMaps, calib: TokyoCalibration, known: np.ndarray,
                      tops: list[tuple[float, float, float]]) -> list[RoadOut]:
    """Roads leaving any of the columns `tops` (x, y, top z; mm) whose far end lies outside the frame,
    as drawn by `calib` (the maps' own size), that the frame's pixels show: at most one per column,
    its best direction. `known`: the pixels of the pieces the match already holds (left out)."""
    height, width = known.shape
    reach = calib.sizes.stick_length_mm * SPAN
    out: list[RoadOut] = []
    for x, y, z in tops:
        base = np.array([x, y, z])
        best: RoadOut | None = None
        for k in range(DIRECTIONS):
            a = 2 * math.pi * k / DIRECTIONS
            far = base + np.array([reach * math.cos(a), reach * math.sin(a), 0.0])
            uv, depth = calib.camera.project(far[None])
            if depth[0] > 0 and not _outside(uv[0], width, height):
                continue  # its far column would be in view: the build readers try it there
            quad = stick_quad(calib, *stick_axis(calib, base, far)).reshape(-1, 2)
            x0, y0 = np.maximum(quad.min(0), 0)
            x1, y1 = np.minimum(quad.max(0) + 1, [width, height])
            if x1 <= x0 or y1 <= y0:
                continue
            win = (slice(int(y0), int(y1)), slice(int(x0), int(x1)))  # the band's box in the frame
            band = np.zeros((int(y1 - y0), int(x1 - x0)), np.uint8)
            cv2.fillConvexPoly(band, quad - np.array([x0, y0], np.int32), 1)
            px = (band > 0) & (known[win] == 0)
            n = int(px.sum())
            if n < MIN_PIXELS:
                continue
            score = float(maps.road[win][px].sum())
            if score / n >= MIN_MEAN_LLR and (best is None or score > best.score):
                best = RoadOut((x, y, z), math.degrees(a), score, n)
        if best is not None:
            out.append(best)
    return out
