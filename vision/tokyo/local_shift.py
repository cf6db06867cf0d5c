"""A knocked camera's last pixels: where near a place its picture still lies a pixel or two off the
calibrated drawing, as a belief over small shifts found from the match's own pieces there.

A knocked camera's frame is brought back to the calibrated view by one turn and shift for the whole
picture (piece_evidence.align_to_known). That is a plane's approximation of a camera that moved:
near a build the drawing can still miss the picture by 2-3 px (half size). A new road's band is long
and thin, so a 2 px miss across it costs a few hundred nats, as much as a unit of height does (the
road's far end rises 10 mm a unit): on tuning seed 118's ninth move at 550/40, two cameras, camera 1
(knocked three moves before) preferred a column one unit low by 437 nats of its road's band, the
unknocked camera 2 the one built by 117, and a grey h3 the rules forbid was committed at 0.90.

The standing pieces near the place show where the picture lies: their pixels (drawn, not grown)
carry piece evidence at the shift that lines them up. Each whole-pixel shift within `REACH_PX` is
weighed by that evidence (`weights`, on the scale of the build scores: nats over `temperature`),
and a candidate is scored on the maps moved by each of the likely ones, the scores combined as a
mixture (tokyo_builds: no one shift is trusted, none needs a gate).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.tokyo.piece_evidence import PieceMaps

REACH_PX = 4  # the largest residual looked for at half size (the tuning seeds' knocks leave 2-3 px)
RADIUS_PX = 130  # the standing pieces within this of the place (half size) say how it lies
MIN_PIXELS = 200  # fewer standing pieces' pixels near the place than this say nothing: no shift
KEEP = 4  # the likeliest shifts scored (the rest hold under 1 % of the weight on the tuning frames)
LEAST_WEIGHT = 0.01  # a shift weighed less than this (against the best) is not scored


def piece_nats(maps: PieceMaps) -> np.ndarray:
    """Per pixel, the log-likelihood ratio that some piece shows there (column grey, road, or a
    junction's yellow) against the table: the best of the three maps."""
    return np.maximum(np.maximum(maps.grey, maps.road), maps.yellow)


def weights(nats: np.ndarray, drawn: np.ndarray, centre: tuple[float, float], temperature: float,
            radius: float = RADIUS_PX, reach: int = REACH_PX) -> list[tuple[int, int, float]]:
    """(dx, dy, log weight) of the likeliest whole-pixel shifts of the picture near `centre` (px):
    a shift s says the picture shows at p + s what the calibrated drawing puts at p. Each is weighed
    by the piece evidence of the standing pieces' pixels within `radius` of the centre (`drawn`:
    their drawn pixels, not grown) at p + s, in nats over `temperature`. [(0, 0, 0.0)] when too few
    pieces stand near to say."""
    h, w = drawn.shape
    cx, cy = centre
    x0, x1 = max(0, int(cx - radius)), min(w, int(cx + radius) + 1)
    y0, y1 = max(0, int(cy - radius)), min(h, int(cy + radius) + 1)
    if x1 <= x0 or y1 <= y0:
        return [(0, 0, 0.0)]
    ys, xs = np.nonzero(drawn[y0:y1, x0:x1])
    near = (xs + x0 - cx) ** 2 + (ys + y0 - cy) ** 2 < radius * radius
    xs, ys = xs[near] + x0, ys[near] + y0
    if len(xs) < MIN_PIXELS:
        return [(0, 0, 0.0)]
    scored = []
    for dy in range(-reach, reach + 1):
        yy = np.clip(ys + dy, 0, h - 1)
        for dx in range(-reach, reach + 1):
            scored.append((dx, dy, float(nats[yy, np.clip(xs + dx, 0, w - 1)].sum()) / temperature))
    best = max(s for _, _, s in scored)
    # the weights normalised over every shift; the likeliest kept
    norm = best + math.log(sum(math.exp(s - best) for _, _, s in scored))
    kept = sorted(scored, key=lambda t: -t[2])[:KEEP]
    return [(dx, dy, s - norm) for dx, dy, s in kept if s - best >= math.log(LEAST_WEIGHT)]


def shifted(maps: PieceMaps, dx: int, dy: int) -> PieceMaps:
    """The maps moved so that what the picture shows at p + (dx, dy) lies at p (edges repeated)."""
    if dx == 0 and dy == 0:
        return maps
    h, w = maps.grey.shape
    m = np.float32([[1, 0, -dx], [0, 1, -dy]])
    return PieceMaps(*(cv2.warpAffine(a, m, (w, h), flags=cv2.INTER_NEAREST, borderMode=cv2.BORDER_REPLICATE)
                       for a in (maps.grey, maps.road, maps.yellow)))


def mixed(scores: list[float], log_weights: list[float], temperature: float) -> float:
    """A candidate's score over the shifts, each score on the maps moved by one shift: the log of the
    weighted mean of their likelihoods, on the scores' own scale."""
    terms = [s / temperature + lw for s, lw in zip(scores, log_weights, strict=True)]
    top = max(terms)
    total = sum(math.exp(t - top) for t in terms) / sum(math.exp(lw) for lw in log_weights)
    return temperature * (top + math.log(total))
