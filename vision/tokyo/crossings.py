"""Which stick is on top where two sticks cross in the image.

The upper stick runs unbroken through the crossing, so (1) the crossing's core has the upper stick's
colour, and (2) the upper stick's two long edges continue across while the lower stick's are cut. The
colour cue decides when the two sticks' colours differ; otherwise the edge cue decides.
"""

from __future__ import annotations

import numpy as np

from vision.tokyo.sticks import RawStick, _sample, image_gradients


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


def edge_offsets(gx: np.ndarray, gy: np.ndarray, s: RawStick) -> tuple[float, float]:
    """Where the stick's two long edges are (signed offsets from its axis, px): the peaks of the
    across-stick gradient, averaged along the stick. The foreground's width is blurred and can include
    a side face, so it is not used for this."""
    u = (s.p1 - s.p0) / max(s.length, 1e-6)
    n = np.array([-u[1], u[0]])
    offs = np.arange(-1.6 * s.half_width, 1.6 * s.half_width + 0.01, 0.5)
    along = np.linspace(0.15, 0.85, 15)
    prof = np.zeros(len(offs))
    for t in along:
        c = s.p0 + t * (s.p1 - s.p0)
        pts = c[None] + offs[:, None] * n[None]
        prof += np.abs(_sample(gx, pts) * n[0] + _sample(gy, pts) * n[1])
    neg, pos = offs < -1, offs > 1
    if not neg.any() or not pos.any():
        return -s.half_width, s.half_width
    return float(offs[neg][np.argmax(prof[neg])]), float(offs[pos][np.argmax(prof[pos])])


def _edge_ratio(gx: np.ndarray, gy: np.ndarray, s: RawStick, other: RawStick, centre: np.ndarray) -> float:
    """How much of the stick's own edge contrast survives inside the crossing (1 = unbroken): the
    gradient across each long edge where that edge passes under/over the other stick's middle, over
    the same measure further along the edge, clear of the crossing."""
    u = (s.p1 - s.p0) / max(s.length, 1e-6)
    n = np.array([-u[1], u[0]])
    uo = (other.p1 - other.p0) / max(other.length, 1e-6)
    no = np.array([-uo[1], uo[0]])
    un = float(np.dot(u, no))
    if abs(un) < 0.3:
        un = 0.3 if un >= 0 else -0.3
    o0, o1 = edge_offsets(gx, gy, other)
    half_o = (o1 - o0) / 2
    mid_o = other.p0 + ((o0 + o1) / 2) * no  # the other stick's true middle line passes here
    inside_vals, outside_vals = [], []
    for off in edge_offsets(gx, gy, s):
        q0 = centre + off * n
        tc = -float(np.dot(q0 - mid_o, no)) / un  # where this edge line meets the other's middle line
        span = 0.6 * half_o / abs(un)  # stay clear of the other stick's own edges
        ts_in = tc + np.linspace(-span, span, 7)
        ts_out = tc + np.r_[np.linspace(2.5, 5, 6), -np.linspace(2.5, 5, 6)] * half_o / abs(un)
        for ts, acc in ((ts_in, inside_vals), (ts_out, outside_vals)):
            pts = q0[None] + ts[:, None] * u[None]
            acc.append(np.abs(_sample(gx, pts) * n[0] + _sample(gy, pts) * n[1]))
    return float(np.mean(inside_vals)) / max(float(np.mean(outside_vals)), 1e-3)


def decide_top(
    image: np.ndarray, grad: tuple[np.ndarray, np.ndarray], a: RawStick, b: RawStick, point: np.ndarray
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
    gx, gy = grad
    ea = _edge_ratio(gx, gy, a, b, point)
    eb = _edge_ratio(gx, gy, b, a, point)
    conf = float(np.clip(abs(ea - eb) / max(ea + eb, 1e-6) * 1.5, 0, 1))
    return (0 if ea > eb else 1), conf, "edges"


def gradient(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return image_gradients(image)()
