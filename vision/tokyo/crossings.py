"""Which stick is on top where two sticks cross in the image.

The upper stick runs unbroken through the crossing, so (1) the crossing's core has the upper stick's
colour, and (2) the upper stick's two long edges continue across while the lower stick's are cut. The
colour cue decides when the two sticks' colours differ; otherwise the edge cue decides.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.tokyo.sticks import RawStick, _sample


def intersect(a: RawStick, b: RawStick) -> tuple[np.ndarray, float, float] | None:
    da, db = a.p1 - a.p0, b.p1 - b.p0
    den = float(da[0] * db[1] - da[1] * db[0])
    if abs(den) < 1e-9:
        return None
    w = b.p0 - a.p0
    s = float(w[0] * db[1] - w[1] * db[0]) / den
    t = float(w[0] * da[1] - w[1] * da[0]) / den
    if not (0 <= s <= 1 and 0 <= t <= 1):
        return None
    return a.p0 + s * da, s, t


def _edge_strength(grad: np.ndarray, s: RawStick, centre: np.ndarray, half_span: float) -> float:
    u = (s.p1 - s.p0) / max(s.length, 1e-6)
    n = np.array([-u[1], u[0]])
    ts = np.linspace(-half_span, half_span, 9)
    vals = []
    for off in (-s.half_width + 0.5, s.half_width - 0.5):
        pts = centre + ts[:, None] * u + off * n
        vals.append(_sample(grad, pts))
    return float(np.mean(vals))


def decide_top(
    image: np.ndarray, grad: np.ndarray, a: RawStick, b: RawStick, point: np.ndarray
) -> tuple[int, float, str]:
    """(0 if a is on top else 1, confidence, cue)."""
    core = np.median(
        _sample(image, point + np.random.default_rng(0).normal(0, a.half_width * 0.25, (15, 2))), 0
    ).astype(np.float32)
    ca, cb = a.bgr.astype(np.float32), b.bgr.astype(np.float32)
    sep = float(np.linalg.norm(ca - cb))
    if sep > 40:
        da, db = np.linalg.norm(core - ca), np.linalg.norm(core - cb)
        conf = float(np.clip(abs(db - da) / sep, 0, 1))
        return (0 if da < db else 1), conf, "colour"
    ea = _edge_strength(grad, a, point, b.half_width * 0.8)
    eb = _edge_strength(grad, b, point, a.half_width * 0.8)
    conf = float(np.clip(abs(ea - eb) / max(ea + eb, 1e-6) * 2, 0, 1))
    return (0 if ea > eb else 1), conf, "edges"


def gradient(image: np.ndarray) -> np.ndarray:
    g = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)
    return cv2.magnitude(gx, gy)
