"""Whole-die boxes from pip boxes (realdata `box_convention: "pips"`, e.g. matteop65_d6), for training
the box detector only: it must learn to frame the whole die, as on every other set.

Grown with the image, not by a fixed factor: around the pip box, the die's top face is the bright,
grey-ish blob that holds the pips. Pixels brighter than the table (Otsu on HSV value in a
window three pip-boxes wide) are closed over the dark pips, and the connected blob under the pip box's
centre gives the box. When that blob is implausible (smaller than the pip box, or more than 2.2 times
its longer side: the die merged with a white object), a square of FALLBACK (1.55) times the pip box's
longer side about its centre is used instead, and counted, so a card can say how many boxes were guessed.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

FALLBACK = 1.55  # die side / pip box side where the image does not show the die clearly: the median
# ratio of the boxes grown from the image on matteop65_d6 (10th-90th percentile 1.34-1.75)
MAX_GROW = 2.2


def grow_pip_box(image: np.ndarray, box: Sequence[float]) -> tuple[list[float], bool]:
    """(whole-die box [x0, y0, x1, y1], grown from the image: True; fallback square: False)."""
    H, W = image.shape[:2]
    x0, y0, x1, y1 = (float(v) for v in box)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    side = max(x1 - x0, y1 - y0, 4.0)
    half = 1.5 * side
    wx0, wy0 = int(max(0, cx - half)), int(max(0, cy - half))
    wx1, wy1 = int(min(W, cx + half)), int(min(H, cy + half))
    fallback = [max(0.0, cx - FALLBACK * side / 2), max(0.0, cy - FALLBACK * side / 2),
                min(float(W), cx + FALLBACK * side / 2), min(float(H), cy + FALLBACK * side / 2)]
    if wx1 - wx0 < 8 or wy1 - wy0 < 8:
        return fallback, False
    hsv = cv2.cvtColor(image[wy0:wy1, wx0:wx1], cv2.COLOR_BGR2HSV).astype(np.int16)
    # the dark pips would pull Otsu's threshold down to them: raise everything below the window's
    # median (the table, the pips) to the median, so the threshold falls between table and die
    value = hsv[..., 2]
    white = np.maximum(value, np.median(value)).astype(np.uint8)
    _, mask = cv2.threshold(white, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    k = max(3, int(side / 3) | 1)  # closes the pips (dark holes) into the face
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    n, lab, stats, _ = cv2.connectedComponentsWithStats(mask)
    px, py = int(cx) - wx0, int(cy) - wy0
    if not (0 <= py < lab.shape[0] and 0 <= px < lab.shape[1]) or lab[py, px] == 0:
        return fallback, False
    bx, by, bw, bh, _ = stats[lab[py, px]]
    grown = [float(wx0 + bx), float(wy0 + by), float(wx0 + bx + bw), float(wy0 + by + bh)]
    longest = max(bw, bh)
    inside = grown[0] <= x0 + 1 and grown[1] <= y0 + 1 and grown[2] >= x1 - 1 and grown[3] >= y1 - 1
    if not inside or longest > MAX_GROW * side or bx == 0 or by == 0 or bx + bw >= wx1 - wx0 \
            or by + bh >= wy1 - wy0:  # touching the window's edge: merged with the table or another die
        return fallback, False
    return grown, True
