"""How far the frame is smeared (motion or defocus), measured on the tray's own markers.

Each marker's black border meets its white quiet zone in four straight edges. A step edge blurred
over L mm rises with a slope of step / L at most, so the rise width along x (left and right edges)
and along y (top and bottom edges) gives the blur's extent in each direction; their hypotenuse is
the blur's length, whatever its direction. The size search (`search.py`) only reads faces up to the
blur that the face classifier was trained on: beyond it, a face smeared across its neighbour's
picture can be named wrongly with confidence.
"""

from __future__ import annotations

import numpy as np

from vision.route_dice import geometry as g
from vision.tiles.rectify import TopView

HALF_STRIP_MM = 2.5  # profile half-length across an edge: inside the quiet zone and the black border


def _rise_mm(profile: np.ndarray, ppm: float) -> float | None:
    """Width in mm of a blurred step: its height over its steepest slope; None if no clear step. The
    height is taken from the profile's extremes, not its ends: a long blur mixes the felt beyond the
    3.3 mm quiet zone into the profile's white end."""
    step = float(profile.max() - profile.min())
    if step < 30:
        return None
    slope = float(np.abs(np.diff(profile)).max())
    return step / max(slope, 1e-6) / ppm


def blur_mm(view: TopView, gray: np.ndarray) -> float | None:
    """The blur's length in mm on the tray, from the markers in view; None if no marker edge shows."""
    ppm = view.px_per_mm
    ox, oy = view.origin_mm
    h, w = gray.shape
    along_x: list[float] = []
    along_y: list[float] = []
    m = g.MARKER_MM
    for x0, y0, _, _ in g.marker_boxes_mm():
        q = g.MARKER_MM / 6  # the boxes include the quiet zone
        bx, by = x0 + q, y0 + q  # the black square's corner
        for edge in ("left", "right", "top", "bottom"):
            if edge in ("left", "right"):
                ex = bx if edge == "left" else bx + m
                xs = np.arange((ex - HALF_STRIP_MM - ox) * ppm, (ex + HALF_STRIP_MM - ox) * ppm)
                ys = np.arange((by + 0.25 * m - oy) * ppm, (by + 0.75 * m - oy) * ppm)
            else:
                ey = by if edge == "top" else by + m
                ys = np.arange((ey - HALF_STRIP_MM - oy) * ppm, (ey + HALF_STRIP_MM - oy) * ppm)
                xs = np.arange((bx + 0.25 * m - ox) * ppm, (bx + 0.75 * m - ox) * ppm)
            xi, yi = np.round(xs).astype(int), np.round(ys).astype(int)
            if xi.min() < 0 or yi.min() < 0 or xi.max() >= w or yi.max() >= h:
                continue
            patch = gray[np.ix_(yi, xi)].astype(np.float32)
            profile = patch.mean(0) if edge in ("left", "right") else patch.mean(1)
            rise = _rise_mm(profile, ppm)
            if rise is not None:
                (along_x if edge in ("left", "right") else along_y).append(rise)
    if not along_x or not along_y:
        return None
    return float(np.hypot(np.median(along_x), np.median(along_y)))
