"""Cars stand on roads: along each stick's axis, a stretch of a clearly different colour, about a car
long and not where another stick crosses, is a car."""

from __future__ import annotations

import numpy as np

from vision.tokyo.colours import colour_name
from vision.tokyo.observation import CarReading
from vision.tokyo.sticks import RawStick, _sample


def _near_other(p: np.ndarray, raw: list[RawStick], skip: int, tol: float) -> bool:
    for k, s in enumerate(raw):
        if k == skip:
            continue
        d = s.p1 - s.p0
        t = float(np.clip(np.dot(p - s.p0, d) / max(np.dot(d, d), 1e-9), 0, 1))
        if np.linalg.norm(p - (s.p0 + t * d)) < tol:
            return True
    return False


def cars_on_sticks(image: np.ndarray, fg: np.ndarray, raw: list[RawStick], hw: float) -> list[CarReading]:
    """A car is a stretch along a stick, about a car long, away from the stick's ends (its columns) and
    from crossings, in another colour than the stick. A car painted exactly like its road is not found
    (a width cue was tried and only added false cars on renders)."""
    cars = []
    for i, s in enumerate(raw):
        n = int(s.length)
        if n < 10:
            continue
        ts = np.linspace(0.0, 1.0, n)
        pts = s.p0 + ts[:, None] * (s.p1 - s.p0)
        cols = _sample(image, pts).astype(np.float32)
        odd = np.abs(cols - s.bgr).sum(1) > 90
        margin = int(4 * hw)  # the ends rest on columns
        odd[:margin] = False
        odd[n - margin :] = False
        edges = np.diff(np.r_[0, odd.astype(int), 0])
        starts, ends = np.nonzero(edges == 1)[0], np.nonzero(edges == -1)[0]
        for a, b in zip(starts, ends, strict=True):
            length = b - a
            if not (1.6 * hw <= length <= 7 * hw):
                continue
            mid = pts[(a + b) // 2]
            if _near_other(mid, raw, i, 2.5 * hw):
                continue  # a crossing stick, not a car
            bgr = np.median(cols[a:b], 0)
            x0, y0 = pts[a:b].min(0) - hw
            x1, y1 = pts[a:b].max(0) + hw
            conf = float(np.clip(odd[a:b].mean(), 0, 1)) * 0.9
            cars.append(
                CarReading(
                    (float(mid[0]), float(mid[1])),
                    (float(x0), float(y0), float(x1), float(y1)),
                    colour_name(bgr),
                    conf,
                    i,
                )
            )
    return cars
