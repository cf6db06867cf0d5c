"""Sticks coloured like the table: a second pass on a stick mask with a lower chromaticity threshold.

A tan road on a beige table or cloth differs from the table's chromaticity by 0.016-0.023 (renders),
under the 0.024 the piece masks ask; the table's own pixels mostly stay under 0.010 (their 99th
percentile is 0.003-0.017 on the tuning renders), and the masks' 3x3 opening removes the isolated ones.
Lowering the threshold for every stick moves the readings of the sticks already found (fatter bands,
other ends and so other column tops), so the lower threshold only adds: its new pixels are kept where
they form a long component, the stick pass runs again on the stick mask with them, and only a stick
whose middle lies mostly on new pixels, along no stick already found, is taken, when it has table on
both sides (not a blob of pieces, shadows and rims joined by the lower threshold) and is no darker than
a cast shadow.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from vision.tokyo.labels import components
from vision.tokyo.sticks import Gradients, RawStick, _along_taken, _sample, detect_sticks

FAINT_CHROMA = 0.010  # chromaticity difference that makes a pixel a candidate piece in this pass
NEW_SHARE = 0.5  # share of a candidate's middle that must lie on pixels only the faint mask has
MIN_LEN_WIDTHS = 5.0  # as the stick pass: a component shorter than this many rod widths is no stick
# `longest` (a camera) gives 1.3 times a whole stick's span: a faint stick shows over half of one
LONGEST_SHARE = 0.4
SIDES_SHARE = 0.5  # share of a faint stick's middle with table on both sides of its band
# a band darker than the table beside it by more than this is a cast shadow, whose rim the faint mask
# can take (tuning renders: shadows 0.59-0.60, faint rods 0.85-1.45 of the table's brightness)
SHADOW_RATIO = 0.75


def _sides(s: RawStick, mid: np.ndarray, hw: float) -> tuple[np.ndarray, np.ndarray]:
    """The points two half-widths out on either side of the points `mid` along s."""
    u = (s.p1 - s.p0) / max(s.length, 1e-6)
    n = np.array([-u[1], u[0]], np.float32) * (2.0 * max(hw, s.half_width))
    return mid + n[None], mid - n[None]


def _darkening(grey: np.ndarray, s: RawStick, mid: np.ndarray, hw: float) -> float:
    """The band's median brightness over that of the table two half-widths out on both sides."""
    sides = np.concatenate([_sample(grey, p) for p in _sides(s, mid, hw)])
    return float(np.median(_sample(grey, mid))) / max(float(np.median(sides)), 1.0)


def _rod_sides(around: np.ndarray, s: RawStick, mid: np.ndarray, hw: float) -> float:
    """Share of the points `mid` along s whose two sides, two half-widths out, are table in `around`
    (any piece mask): a rod is a band with table on both sides, while the faint mask's noise on a
    table close to the pieces' colour joins pieces, shadows and rims into blobs."""
    left, right = (_sample(around, p) == 0 for p in _sides(s, mid, hw))
    return float((left & right).mean())


def faint_sticks(
    image: np.ndarray,
    fg_rods: np.ndarray,
    faint: np.ndarray,
    found: list[RawStick],
    hw: float,
    upright: Callable[[np.ndarray, np.ndarray, float, float], bool] | None = None,
    longest: Callable[[np.ndarray, np.ndarray], float] | None = None,
    gradients: Gradients | None = None,
) -> tuple[list[RawStick], np.ndarray]:
    """Sticks the ordinary stick mask `fg_rods` took for table but the faint mask `faint` shows, not
    already among `found` (the first pass's sticks, rod half-width `hw`), and the new pixels along
    them (uint8 0/255, the image's size). `gradients`: the image's, as `detect_sticks` takes them."""
    extra = ((faint > 0) & (fg_rods == 0)).astype(np.uint8)
    n, lab, stats, _ = components(extra)
    min_len = MIN_LEN_WIDTHS * 2 * hw
    # a rod's new pixels: a component at least a short stick long and holding a band of rod width
    long_ones = [
        i
        for i in range(1, n)
        if np.hypot(stats[i, 2], stats[i, 3]) >= min_len and stats[i, 4] >= min_len * hw * 0.8
    ]
    bands = np.zeros_like(fg_rods)
    if not long_ones:
        return [], bands  # the usual case: nothing to do, and no second pass to pay for
    new = np.isin(lab, long_ones).astype(np.uint8)
    mask = np.where(new > 0, 255, fg_rods).astype(np.uint8)
    cands, _ = detect_sticks(image, mask, upright=upright, longest=longest, gradients=gradients)
    out = []
    around = ((mask > 0) | (faint > 0)).astype(np.uint8)
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    ts = np.linspace(0.1, 0.9, 41)
    for s in cands:
        mid = s.p0[None] + ts[:, None] * (s.p1 - s.p0)[None]
        if (_sample(new, mid) > 0).mean() < NEW_SHARE or _along_found(s, found, hw):
            continue
        # as long as a short stick, and more than half a whole one where a camera says how long that is
        if s.length < min_len or (longest is not None and s.length < LONGEST_SHARE * longest(s.p0, s.p1)):
            continue
        if _rod_sides(around, s, mid, hw) < SIDES_SHARE or _darkening(grey, s, mid, hw) < SHADOW_RATIO:
            continue
        out.append(s)
        cv2.line(
            bands,
            tuple(int(round(v)) for v in s.p0),
            tuple(int(round(v)) for v in s.p1),
            255,
            max(3, int(round(3 * s.half_width))),
        )
    return out, np.where(new > 0, bands, 0).astype(np.uint8)


def _along_found(s: RawStick, found: list[RawStick], hw: float) -> bool:
    """Whether s runs along a stick already found (the stick pass's own test, `_along_taken`)."""
    taken = [(f.p0, (f.p1 - f.p0) / max(f.length, 1e-6), 0.0, f.length) for f in found]
    u = (s.p1 - s.p0) / max(s.length, 1e-6)
    return _along_taken(((s.p0 + s.p1) / 2)[None], u, taken, hw)
