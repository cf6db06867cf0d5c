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

from vision.tokyo.piece_evidence import LLR_SCALE, PieceMaps

MIN_ROAD_CORE_PX = 150  # fewer standing-road pixels than this (half size) measure nothing: the map stays
RATE_FLOOR = 0.005  # the least share either rate is taken to be (a frame's few pixels are no certainty)
CORE_SHRINK_PX = 1  # the roads' drawn outlines shrunk by this: their rims blend into the table
TABLE_STRIDE = 4  # the table's rate is measured on every 4th pixel in x and y


def road_share(road: np.ndarray) -> np.ndarray:
    """The road map's log-likelihood ratios back to each pixel's soft road share, 0..1."""
    return np.clip(road / (2 * LLR_SCALE) + 0.5, 0.0, 1.0)


def road_rates(maps: PieceMaps, roads: np.ndarray, known: np.ndarray,
               grown_px: int = 3) -> tuple[float, float] | None:
    """(p_road, p_table): the mean road share on the standing roads' core pixels and on the pixels no
    known piece covers (`known`, the grown known-pieces mask); pixels the maps are blind on (glare)
    are left out. `roads` is non-zero on the roads' pixels drawn grown by `grown_px` without their
    columns (vision.tokyo.under_roads.RoadPixels.label, already drawn for the frame): shrunk back,
    and by CORE_SHRINK_PX more. None when the roads hold too few pixels to measure."""
    shrink = grown_px + CORE_SHRINK_PX
    core = cv2.erode((roads > 0).view(np.uint8), np.ones((2 * shrink + 1,) * 2, np.uint8))
    # the yellow map is ±2 wherever the maps see, 0 where they are blind
    on = (core > 0) & (maps.yellow != 0)
    if int(np.count_nonzero(on)) < MIN_ROAD_CORE_PX:
        return None
    # the table's rate on every TABLE_STRIDE-th pixel each way: a rate of a few in a thousand is
    # measured as well on ten thousand pixels as on all of them, at a sixteenth of the cost
    k = TABLE_STRIDE
    off = (known[::k, ::k] == 0) & (maps.yellow[::k, ::k] != 0)
    if not off.any():
        return None
    return float(road_share(maps.road[on]).mean()), float(road_share(maps.road[::k, ::k][off]).mean())


def weighed(p_road: float, p_table: float) -> tuple[float, float]:
    """(nats for a pixel that is surely road-coloured, nats for one that surely is not), each within
    ±LLR_SCALE and never against its own sign (a road that shows less than the table does says
    nothing)."""
    r = min(max(p_road, RATE_FLOOR), 1.0 - RATE_FLOOR)
    t = min(max(p_table, RATE_FLOOR), 1.0 - RATE_FLOOR)
    pos = min(LLR_SCALE, max(0.0, math.log(r / t)))
    neg = max(-LLR_SCALE, min(0.0, math.log((1.0 - r) / (1.0 - t))))
    return pos, neg


def with_road_visibility(maps: PieceMaps, roads: np.ndarray | None, known: np.ndarray,
                         grown_px: int = 3) -> PieceMaps:
    """`maps` with the road channel weighed by how well the match's standing roads (`roads`, see
    `road_rates`; None: no road stands) show in them: the same object when they show fully, or
    cannot be measured."""
    rates = None if roads is None else road_rates(maps, roads, known, grown_px)
    if rates is None:
        return maps
    pos, neg = weighed(*rates)
    if pos == LLR_SCALE and neg == -LLR_SCALE:
        return maps
    # q (pos - neg) + neg on the seen pixels, from the map's s (2q - 1): one linear map of it
    care = (maps.yellow != 0).astype(np.float32)
    road = maps.road * np.float32((pos - neg) / (2 * LLR_SCALE)) + care * np.float32((pos + neg) / 2)
    return replace(maps, road=road.astype(np.float32))
