"""Grow a die's box from the face the crop network framed to the whole visible die.

Seen obliquely (a low camera, large dice near it), a die shows its top face and one or two side faces,
and the crop network, whose re-framing learned mostly from dice seen from above, frames one face: the
top or the big front face. A whole-die box is the face plus the body beside it. The body is the same
plastic, so it keeps the face's *chromaticity* (r, g, b over their sum: a side face is darker, not
another hue), while the table, the mat and the die's shadow on them keep the table's. Around each box
the pixels nearer the face's chromaticity than the table's are the die; the connected region of them
holding the face, when it ends before the search window does (it is one die, not a run into a
neighbour or a table of the die's colour), gives the grown box. Growth only: a box never shrinks.
"""

from __future__ import annotations

import cv2
import numpy as np

REACH = 0.8  # search up to this many box sides beyond each edge (a side face seen at 45 degrees or less)
MIN_GROW = 0.1  # an edge moved by less than this share of the side is framing jitter, not a side face
MAX_GROW = 1.9  # grown longer than this many times the face's longer side: a leak, not a die
DARK = 40.0  # pixels darker than this (sum of r, g, b / 3) have no trustworthy chromaticity
MARGIN = 0.02  # chromaticity: the table's reference must differ from the face's at least this much


WORK = 24.0  # the search runs at a scale where the box's longer side is at most this many pixels
SUM = np.ones((1, 3), np.float32)


def chromaticity(bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(H, W, 3) chromaticity and (H, W) brightness (channel mean) of a BGR picture."""
    f = bgr.astype(np.float32)
    total = cv2.transform(f, SUM)
    return f / np.maximum(total, 1.0)[..., None], total / 3.0


def grow_box(image: np.ndarray, box: np.ndarray, others: np.ndarray | None = None) -> np.ndarray:
    """`box` (x0, y0, x1, y1) grown to the die's body around it, or the box itself when no body is
    told from the table. `others`: the boxes of the other dice found, which the body never enters (a
    touching die of the same colour is not this die's side)."""
    return body(image, box, others)[0]


def body(image: np.ndarray, box: np.ndarray, others: np.ndarray | None = None,
         outline: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
    """`grow_box`'s box and, with `outline` and when the box grew, the body's convex outline ((K, 2)
    image x, y: the hull of the search grid's cells in the region), else None."""
    same = np.asarray(box, np.float32), None
    H, W = image.shape[:2]
    x0, y0, x1, y1 = (float(v) for v in box)
    side = max(x1 - x0, y1 - y0, 4.0)
    wx0, wy0 = max(0, int(x0 - REACH * side)), max(0, int(y0 - REACH * side))
    wx1, wy1 = min(W, int(np.ceil(x1 + REACH * side))), min(H, int(np.ceil(y1 + REACH * side)))
    if wx1 - wx0 < 4 or wy1 - wy0 < 4:
        return same
    s = min(1.0, WORK / side)  # large dice: fewer pixels, the same shapes
    win = image[wy0:wy1, wx0:wx1]
    if s < 1.0:
        win = cv2.resize(win, (max(4, round(win.shape[1] * s)), max(4, round(win.shape[0] * s))),
                         interpolation=cv2.INTER_AREA)
    sx, sy = win.shape[1] / (wx1 - wx0), win.shape[0] / (wy1 - wy0)
    chroma, light = chromaticity(win)
    bright = light >= DARK
    bx0, by0, bx1, by1 = (x0 - wx0) * sx, (y0 - wy0) * sy, (x1 - wx0) * sx, (y1 - wy0) * sy
    w, h = bx1 - bx0, by1 - by0
    inner = np.zeros(win.shape[:2], bool)
    inner[int(by0 + 0.2 * h):int(np.ceil(by1 - 0.2 * h)),
          int(bx0 + 0.2 * w):int(np.ceil(bx1 - 0.2 * w))] = True
    ring = np.ones(win.shape[:2], bool)
    b = max(2, int(0.15 * side * s))
    ring[b:-b, b:-b] = False
    face_px, table_px = inner & bright, ring & bright
    if face_px.sum() < 8 or table_px.sum() < 8:
        return same
    face = np.median(chroma[face_px], axis=0)
    table = np.median(chroma[table_px], axis=0)
    if np.abs(face - table).sum() < MARGIN:
        return same
    d_face = cv2.transform(np.abs(chroma - face.astype(np.float32)), SUM)
    d_table = cv2.transform(np.abs(chroma - table.astype(np.float32)), SUM)
    die = ((d_face < d_table) & bright).astype(np.uint8)
    for ox0, oy0, ox1, oy1 in np.asarray(others if others is not None else [], np.float64).reshape(-1, 4):
        die[max(0, int((oy0 - wy0) * sy)):max(0, int(np.ceil((oy1 - wy0) * sy))),
            max(0, int((ox0 - wx0) * sx)):max(0, int(np.ceil((ox1 - wx0) * sx)))] = 0
    die = cv2.morphologyEx(die, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, lab, stats, _ = cv2.connectedComponentsWithStats(die, connectivity=4)
    core = lab[inner]
    core = core[core > 0]
    if n <= 1 or not len(core):
        return same
    k = int(np.bincount(core).argmax())
    cx, cy, cw, ch = (int(v) for v in stats[k, :4])
    if cx <= 0 or cy <= 0 or cx + cw >= win.shape[1] or cy + ch >= win.shape[0]:
        return same  # runs out of the window: a neighbour or the table, not a die
    gx0, gy0 = min(bx0, cx), min(by0, cy)
    gx1, gy1 = max(bx1, cx + cw), max(by1, cy + ch)
    if max((gx1 - gx0) / sx, (gy1 - gy0) / sy) > MAX_GROW * side:
        return same
    if max(bx0 - gx0, gx1 - bx1) / sx < MIN_GROW * side and max(by0 - gy0, gy1 - by1) / sy < MIN_GROW * side:
        return same  # no side face in view: the die was seen from above
    grown = np.array([gx0 / sx + wx0, gy0 / sy + wy0, gx1 / sx + wx0, gy1 / sy + wy0], np.float32)
    if not outline:
        return grown, None
    ys, xs = np.nonzero(lab == k)
    cells = np.concatenate([np.stack([xs + dx, ys + dy], axis=1) for dx in (0, 1) for dy in (0, 1)])
    hull = cv2.convexHull(cells.astype(np.float32)).reshape(-1, 2)
    return grown, (hull / np.array([sx, sy], np.float32) + np.array([wx0, wy0], np.float32))


def grow_boxes(image: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
    if not len(boxes):
        return boxes.copy()
    return np.stack([grow_box(image, b, np.delete(boxes, k, axis=0)) for k, b in enumerate(boxes)])


def top_face_box(whole: np.ndarray) -> np.ndarray:
    """The top face's part of whole-die boxes seen by an upright camera: a square as wide as the die
    from its upper edge (the whole box when the die is wider than tall)."""
    whole = np.asarray(whole, np.float32).reshape(-1, 4)
    bottom = np.minimum(whole[:, 1] + (whole[:, 2] - whole[:, 0]), whole[:, 3])
    return np.stack([whole[:, 0], whole[:, 1], whole[:, 2], bottom], axis=1)

