"""How well a road shows in one picture, measured on the match's own roads, and the road evidence
weighed by it.

The piece maps' road channel (piece_evidence.piece_maps) calls a pixel a road by its chromaticity off
the table's local colour, and scores a road's band ±2 nats a pixel: a band with no such colour counts
strongly against a road there. That holds where roads do show. But a natural-wood road on the yellow
mat, under a warm lamp, can differ from the mat by a chromaticity of 0.006-0.008 (tuning seed 73,
camera 1: road BGR 122,172,204 on mat 149,220,253, darker but the same hue), the foot of the map's
ramp: the match's standing roads score about -1.5 nats a pixel there, and every new road about -1500
over its band, so three builds whose columns both cameras showed (+250 to +540 nats of grey) read
"no build" and were missed.

Here the road channel is a measurement with a likelihood learnt from the picture itself: `p_road`,
the share of the match's standing roads' pixels the map calls road (their cores: drawn through the
calibration, columns taken out, shrunk by a pixel for the drift's and the blur's error), and `p_table`,
the share of the other pixels it calls road. A pixel's soft road share q then weighs
q log(p_road / p_table) + (1 - q) log((1 - p_road) / (1 - p_table)), each term within ±2 nats: where
the roads show (p_road of 0.87 or more) that is the map's ±2 exactly and the map is left as it is;
where they barely show, a band without road colour is weak evidence against a road, not proof.
"""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np

from vision.tokyo.calibration import TokyoCalibration
from vision.tokyo.piece_evidence import LLR_SCALE, PieceMaps, column_hull, stick_quad

MIN_ROAD_CORE_PX = 150  # fewer standing-road pixels than this (half size) measure nothing: the map stays
RATE_FLOOR = 0.005  # the least share either rate is taken to be (a frame's few pixels are no certainty)
CORE_SHRINK_PX = 1  # the roads' drawn outlines shrunk by this: their rims blend into the table


def road_share(road: np.ndarray) -> np.ndarray:
    """The road map's log-likelihood ratios back to each pixel's soft road share, 0..1."""
    return np.clip(road / (2 * LLR_SCALE) + 0.5, 0.0, 1.0)


def road_rates(maps: PieceMaps, calib: TokyoCalibration, columns: list[tuple[float, float, float]],
               sticks: list, known: np.ndarray) -> tuple[float, float] | None:
    """(p_road, p_table): the mean road share on the standing roads' core pixels (`sticks`, their
    lower edges' ends as piece_evidence.known_mask takes them, less the `columns`) and on the pixels
    no known piece covers (`known`, the grown known-pieces mask); pixels the maps are blind on (glare)
    are left out. None when the roads hold too few pixels to measure."""
    if not sticks:
        return None
    shape = maps.road.shape
    core = np.zeros(shape, np.uint8)
    for a, b in sticks:
        cv2.fillConvexPoly(core, stick_quad(calib, a, b), 1)
    for x, y, z in columns:
        cv2.fillConvexPoly(core, column_hull(calib, x, y, 0.0, z), 0)
    if CORE_SHRINK_PX > 0:
        core = cv2.erode(core, np.ones((2 * CORE_SHRINK_PX + 1,) * 2, np.uint8))
    care = maps.yellow != 0  # the yellow map is ±2 wherever the maps see, 0 where they are blind
    on = (core > 0) & care
    if int(np.count_nonzero(on)) < MIN_ROAD_CORE_PX:
        return None
    share = road_share(maps.road)
    off = (known == 0) & care
    if not off.any():
        return None
    return float(share[on].mean()), float(share[off].mean())


def weighed(p_road: float, p_table: float) -> tuple[float, float]:
    """(nats for a pixel that is surely road-coloured, nats for one that surely is not), each within
    ±LLR_SCALE and never against its own sign (a road that shows less than the table does says
    nothing)."""
    r = min(max(p_road, RATE_FLOOR), 1.0 - RATE_FLOOR)
    t = min(max(p_table, RATE_FLOOR), 1.0 - RATE_FLOOR)
    pos = min(LLR_SCALE, max(0.0, math.log(r / t)))
    neg = max(-LLR_SCALE, min(0.0, math.log((1.0 - r) / (1.0 - t))))
    return pos, neg


def with_road_visibility(maps: PieceMaps, calib: TokyoCalibration, columns: list[tuple[float, float, float]],
                         sticks: list, known: np.ndarray) -> PieceMaps:
    """`maps` with the road channel weighed by how well the match's standing roads show in them (the
    same object when they show fully, or cannot be measured)."""
    rates = road_rates(maps, calib, columns, sticks, known)
    if rates is None:
        return maps
    pos, neg = weighed(*rates)
    if pos == LLR_SCALE and neg == -LLR_SCALE:
        return maps
    # q (pos - neg) + neg on the seen pixels, from the map's s (2q - 1): one linear map of it
    care = (maps.yellow != 0).astype(np.float32)
    road = maps.road * np.float32((pos - neg) / (2 * LLR_SCALE)) + care * np.float32((pos + neg) / 2)
    return replace(maps, road=road.astype(np.float32))
