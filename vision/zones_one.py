"""Whether a light die showing 1 stands in a tray or pool blob, from its pip's place (vision.zones).

The crop reader's chance that a blob is a die is unstable on a light 1: the face is nearly blank, and
in perspective (a 30 degree camera) its chance swings 0.09-0.87 from frame to frame, so the die was
taken for a shadow in most frames. The pip counter's "1" alone is no presence test either: it looks
1.5 dice around a blob, so a die's shadow beside a 1 counts that 1's pip. A 1 face is told by where
its pip is: one large round dark mark in or at the edge of the blob (in perspective a white die's
blob is mostly its side and shadow), ringed by a face as light as the paper with no other mark on it
(a shadow's ring is darker than paper; another face has more pips). The die's centre is then that
pip, so a shadow blob beside a 1 that finds the same pip is read as the same die, not a second one.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.quantiles import percentiles

ONE_PIP_AREA = (1.75, 2.6)  # a 1's pip, in plain pip areas (vision.zones.count_pips's pip_area)
PLAIN_PIP = (0.3, 1.3)  # another face's pips, in plain pip areas
ONE_TO_PLAIN = 1.6  # a 1's pip is drawn 1.45 times a plain pip's radius (2.1 times its area); slack
ONE_PIP_FLOOR = 1.4  # plain pip areas: never a 1's pip below this, however small the others come out
RING = (0.2, 0.36)  # the face ring round a 1's pip, in die sides: inside the top face at any turn
FACE_LIGHT = 35.0  # grey levels a light face may lie below the paper round it (a shadow: far more)
REACH = 0.5  # die sides: a 1's pip may lie this far outside its blob (in perspective the blob is
# mostly the die's side and shadow, its top face at the blob's edge)
BESIDE_REACH = 1.0  # die sides, for a 1 beside a die read from the same blob (vision.zones._dice_beside):
# its blob may be its shadow alone, whose edge lies up to half a face plus the face's lean off the pip
LIT_SHARE = 0.85  # share of the ring that must be that light (the ring touches no edge or shadow)
PIP_DEPTH = 80.0  # grey levels a light die's pip lies below the paper at least, in full light
PIP_SHARE = 0.35  # ... and as a share of the paper's grey: a pip reflects a fixed fraction of the light


def paper_level(grey: np.ndarray) -> float:
    """`float(np.percentile(grey.astype(np.float32), 70))` of a uint8 window, bit for bit, from its
    histogram (vision/quantiles.py): numpy's generic percentile cost ~0.3 ms a window, a few per cent
    of the dice road's loop. tests/test_zones_paper_level.py."""
    if grey.dtype != np.uint8 or grey.size == 0:  # not a window of grey levels: numpy's own
        return float(np.percentile(grey.astype(np.float32), 70))
    return float(percentiles(grey.ravel(), [70], np.float32)[0])


def pip_depth(paper: float, darkest: float) -> float:
    """How far below the paper's grey a mark must be to be a light die's pip: 80 levels was set in
    full light (paper at 230-255); a pip and the paper reflect the same lamp, so in dim light (paper at
    about 115) the pips' whole contrast shrinks with it and only their blurred cores passed 80 (2-6 px
    of a 26 px pip at 2 px/mm: tuning seed 8, 1080p/850 mm/30 degrees dim, a white 2 beside a 6 never
    counted). So the depth scales with the paper below full light; and at least 55 % of the way to the
    window's darkest mark, as before."""
    return max(min(PIP_DEPTH, PIP_SHARE * paper), 0.55 * (paper - darkest))


def one_pip_face(grey: np.ndarray, blob: np.ndarray, die_px: float,
                 changed: np.ndarray | None = None, reach: float = REACH,
                 least: float | None = None) -> np.ndarray | None:
    """The centre (px of `grey`) of the pip of a light die showing 1 whose face lies in `blob`
    (x0, y0, x1, y1 on the same view: the blob of its body and shadow), or None when none does.
    `reach`: die sides the pip may lie outside the blob. `least`: the smallest area a 1's pip may
    come out at, in plain pip areas (ONE_PIP_AREA's by default)."""
    H, W = grey.shape[:2]
    x0, y0, x1, y1 = (float(v) for v in blob)
    cx, cy, half = (x0 + x1) / 2, (y0 + y1) / 2, 1.5 * die_px
    # three dice round the blob's centre, and for a blob over a die long (two dice joined) the blob
    # with the pip's reach and half a face round it
    out = (reach + 0.5) * die_px
    a0, b0 = max(0, int(min(cx - half, x0 - out))), max(0, int(min(cy - half, y0 - out)))
    a1, b1 = min(W, int(max(cx + half, x1 + out))), min(H, int(max(cy + half, y1 + out)))
    if a1 - a0 < die_px or b1 - b0 < die_px:
        return None
    g8 = cv2.GaussianBlur(grey[b0:b1, a0:a1], (3, 3), 0)
    g = g8.astype(np.float32)
    paper = paper_level(g8)
    dark = (paper - g) > pip_depth(paper, float(g.min()))
    if changed is not None:  # printed marks are on the empty sheet too
        dark &= changed[b0:b1, a0:a1] > 0
    n, _lab, stats, cents = cv2.connectedComponentsWithStats(dark.astype(np.uint8))
    pip_area = np.pi * (0.09 * die_px) ** 2
    round_ = [i for i in range(1, n) if max(stats[i][2], stats[i][3]) <= 1.6 * min(stats[i][2], stats[i][3])]
    areas = {i: float(stats[i][4]) for i in round_}
    lo, hi = ONE_PIP_AREA
    lo = lo if least is None else least
    # a neighbour's pips, thresholded alike, say how large pips come out here: a 1's pip is about
    # twice their area (at 2 px/mm a 1's pip beside a 6 measured 1.73 plain areas, the 6's 0.7-0.8)
    plain = [a for a in areas.values() if PLAIN_PIP[0] * pip_area <= a <= PLAIN_PIP[1] * pip_area]
    if len(plain) >= 2:
        lo = max(ONE_PIP_FLOOR, min(lo, ONE_TO_PLAIN * float(np.median(plain)) / pip_area))
    pips = [cents[i] + (a0, b0) for i in round_ if lo * pip_area <= areas[i] <= hi * pip_area]
    # only a pip within reach of the blob can be its die's: the window (three dice wide) also holds
    # a neighbour 1's pip, which alone must not void this one (tuning seed 1 at 4K/850 mm/30 degrees,
    # two white 1s 33 mm apart: the crop reader gave the first 0.13 chance of a die, and its pip was
    # refused for the other's, so the roll 1 1 read as one 1)
    reach = reach * die_px
    pips = [p for p in pips if x0 - reach <= p[0] <= x1 + reach and y0 - reach <= p[1] <= y1 + reach]
    if len(pips) != 1:
        return None  # none (a die further off is not this blob's), or two 1s too close to tell apart
    px, py = pips[0]
    yy, xx = np.mgrid[b0:b1, a0:a1]
    r = np.hypot(xx - px, yy - py) / die_px
    ring = (r >= RING[0]) & (r <= RING[1])
    if ring.sum() < 0.5 * np.pi * (RING[1] ** 2 - RING[0] ** 2) * die_px ** 2:
        return None  # the ring runs off the view
    lit = g[ring] >= paper - FACE_LIGHT
    if float(lit.mean()) < LIT_SHARE or bool(dark[ring].any()):
        return None
    return np.array([px, py], np.float64)
