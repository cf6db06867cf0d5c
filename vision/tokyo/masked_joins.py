"""Sticks cut in two by a withheld region (a glare spot or a hand over their middle) made whole again.

The rod finder sees the two visible pieces of such a stick as two sticks, each with an end running
into the mask, and the reader would withhold both (an end under a mask is unknown). When two pieces
are one stick -- nearly parallel, on one line, of one colour, their cut ends facing each other and
the gap between those ends hidden under the mask -- they are replaced by one stick between their
outer ends, which show, so the stick is kept.
"""

from __future__ import annotations

import numpy as np

from vision.tokyo.sticks import RawStick, _sample

MAX_ANGLE_DEG = 6.0
MAX_OFFSET_WIDTHS = 1.5  # perpendicular distance of one piece's ends from the other's line, in half-widths
MAX_COLOUR_STEP = 45.0  # largest per-channel difference of the two pieces' mean colours
MIN_GAP_HIDDEN = 0.6  # share of the gap between the facing ends that lies under the mask


def cut_ends(mask: np.ndarray, s: RawStick, hw: float) -> list[int]:
    """The ends (0 for p0, 1 for p1) with the mask on the stick's axis just beyond them."""
    u = (s.p1 - s.p0) / max(s.length, 1e-6)
    steps = np.arange(1.0, hw + 1.0, 1.0)[:, None]
    return [k for k, (p, sign) in enumerate(((s.p0, -1.0), (s.p1, 1.0)))
            if (_sample(mask, p[None] + sign * steps * u[None]) > 0).any()]


def _joined(mask: np.ndarray, a: RawStick, b: RawStick, hw: float) -> RawStick | None:
    if np.abs(a.bgr.astype(np.float64) - b.bgr.astype(np.float64)).max() > MAX_COLOUR_STEP:
        return None
    ua = (a.p1 - a.p0) / max(a.length, 1e-6)
    ub = (b.p1 - b.p0) / max(b.length, 1e-6)
    if abs(float(ua @ ub)) < np.cos(np.radians(MAX_ANGLE_DEG)):
        return None
    normal = np.array([-ua[1], ua[0]])
    if max(abs(float((q - a.p0) @ normal)) for q in (b.p0, b.p1)) > MAX_OFFSET_WIDTHS * max(hw, 1.0):
        return None
    ends_a = (a.p0, a.p1)
    ends_b = (b.p0, b.p1)
    for ea in cut_ends(mask, a, hw):
        for eb in cut_ends(mask, b, hw):
            near_a, far_a = ends_a[ea], ends_a[1 - ea]
            near_b, far_b = ends_b[eb], ends_b[1 - eb]
            gap = near_b - near_a
            # the cut ends face each other: the gap continues a beyond its cut end, and b beyond its own
            if float(gap @ (near_a - far_a)) <= 0 or float(-gap @ (near_b - far_b)) <= 0:
                continue
            n = max(2, int(np.linalg.norm(gap)))
            pts = near_a[None] + np.linspace(0.0, 1.0, n)[:, None] * gap[None]
            if float(np.mean(_sample(mask, pts) > 0)) < MIN_GAP_HIDDEN:
                continue
            colour = (a.bgr.astype(np.float64) + b.bgr.astype(np.float64)) / 2
            return RawStick(far_a.copy(), far_b.copy(), max(a.half_width, b.half_width),
                            a.support + b.support, colour)
    return None


def join_across_mask(mask: np.ndarray, raw: list[RawStick], hw: float) -> list[RawStick]:
    """`raw` with every pair of pieces of one stick cut apart by `mask` joined into one."""
    sticks = list(raw)
    merged = True
    while merged:
        merged = False
        for i in range(len(sticks)):
            for j in range(i + 1, len(sticks)):
                whole = _joined(mask, sticks[i], sticks[j], hw)
                if whole is not None:
                    sticks[i] = whole
                    del sticks[j]
                    merged = True
                    break
            if merged:
                break
    return sticks
