"""Grey-level morphology by a disc (OpenCV's MORPH_ELLIPSE element), bit for bit as
`cv2.morphologyEx`, in a fraction of its time.

OpenCV applies a non-rectangular element pixel by pixel over all of its ~0.8 k^2 points, while a
rectangle is applied as two 1-D passes. A disc is the union of centred rectangles (one per distinct
row width), and a dilation by a union is the maximum of the dilations by its parts (an erosion, the
minimum). The rectangles nest like stairs: sorted by width, their heights grow, so they share their
passes: the horizontal passes grow one width from the last, the vertical ones add each rectangle's
extra height on the way out. Every pass picks among the input's values, so the result is exact.
"""

from __future__ import annotations

from functools import cache

import cv2
import numpy as np


@cache
def _stairs(size: int) -> tuple[tuple[int, int], ...]:
    """(width, height) of the centred rectangles whose union is the `size` ellipse element, narrowest
    (tallest) first."""
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
    c = size // 2
    half = [int(np.flatnonzero(row).max()) - c for row in disc]  # every row is a centred span
    assert all(int(np.flatnonzero(row).min()) == c - h for row, h in zip(disc, half, strict=True))
    out = []
    for w in sorted(set(half)):
        rows = [r for r in range(size) if half[r] >= w]
        out.append((2 * w + 1, len(rows)))
    return tuple(out)


def _disc_pass(src: np.ndarray, size: int, dilate: bool) -> np.ndarray:
    op = cv2.dilate if dilate else cv2.erode
    pick = cv2.max if dilate else cv2.min
    stairs = _stairs(size)
    wide: list[np.ndarray] = []  # src dilated (eroded) along rows by each rectangle's width
    cur, done = src, 1
    for w, _ in stairs:
        if w > done:
            cur = op(cur, np.ones((1, w - done + 1), np.uint8))
            done = w
        wide.append(cur)
    # from the tallest rectangle outwards: grow the running result by the height step, take the next
    acc, tall = wide[0], stairs[0][1]
    for (_, h), part in zip(stairs[1:], wide[1:], strict=True):
        if tall > h:
            acc = op(acc, np.ones((tall - h + 1, 1), np.uint8))
        acc, tall = pick(acc, part), h
    return op(acc, np.ones((tall, 1), np.uint8)) if tall > 1 else acc


def close_disc(src: np.ndarray, size: int) -> np.ndarray:
    """`cv2.morphologyEx(src, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE,
    (size, size)))` for an odd `size` and a single-channel image (default borders)."""
    return _disc_pass(_disc_pass(src, size, True), size, False)


def open_disc(src: np.ndarray, size: int) -> np.ndarray:
    """`cv2.morphologyEx(src, cv2.MORPH_OPEN, <the same disc>)`, as `close_disc`."""
    return _disc_pass(_disc_pass(src, size, False), size, True)
