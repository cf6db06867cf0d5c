"""Dice at any share of the frame: the box detector sees a whole frame shrunk to its input (320 px), where
it finds dice of about the size it was trained on and few others. So a frame is read whole first; the
dice found there give the die size; when that size is far from the trained one, the frame is read again
at the scale that brings a die to the trained size - in overlapping tiles when dice are small (each tile
at most as large as the detector's input: a frame is never enlarged past its own pixels), on a grey-
padded canvas when they are large (the frame is shrunk) - and the reads are merged. The extra reads
propose at the detector's ordinary confidence (EXTRA_CONF). A frame where the whole read finds no die is
tried once shrunk and once in tiles (dice may be too large or too small to be found at all).

The trained size is the box detector's training photos' (nell_byler_d6 at 320 px: median die side
20 px, 5-95 % 15-27 px); it is not fitted to any photo set that is scored.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

TRAINED_PX = 20.4  # median die side at the detector's input on its training photos
BAND = (11.6, 45.5)  # 5-95 % of those sides: a frame whose dice fall inside is read once
MAX_ZOOM = 4.0  # tiles of a quarter of the frame at most; a canvas four times the frame at most
EXPLORE = (0.5, 2.0)  # zooms tried when the whole frame shows no die
TILE_OVERLAP = 0.25  # a die (about 1/16 of a tile) on a tile's edge is whole in its neighbour
SAME_SCALE = math.log(1.3)  # zooms closer than this to one already read are not read again
CONTAINED = 0.6  # a box this much inside a surer one is the same die (a pip, a face, a half)
PAD_VALUE = 114  # the detector's letterbox grey
# proposals of the extra reads at the detector's ordinary confidence, not the whole read's generous
# one: an enlarged tile of a speckled or patterned surface offers many die-like specks
EXTRA_CONF = 0.15


@dataclass
class Read:
    """Dice read at one scale: boxes (frame pixels), die probability, value, value confidence, and
    each box's side as the detector saw it (input pixels)."""

    xyxy: np.ndarray
    p_die: np.ndarray
    values: np.ndarray
    vconf: np.ndarray
    cls: np.ndarray
    seen_px: np.ndarray

    def __len__(self) -> int:
        return len(self.xyxy)

    def take(self, keep: np.ndarray) -> Read:
        return Read(self.xyxy[keep], self.p_die[keep], self.values[keep], self.vconf[keep], self.cls[keep],
                    self.seen_px[keep])

    @staticmethod
    def join(reads: Sequence[Read]) -> Read:
        return Read(*(np.concatenate([getattr(r, k) for r in reads])
                      for k in ("xyxy", "p_die", "values", "vconf", "cls", "seen_px")))


def sides(xyxy: np.ndarray) -> np.ndarray:
    xyxy = np.asarray(xyxy, np.float64).reshape(-1, 4)
    return np.maximum(xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1])


def die_size_at_input(xyxy: np.ndarray, frame_long: int, input_px: int) -> float | None:
    """The median die side (of boxes judged to be dice) as the detector sees the whole frame."""
    if not len(xyxy):
        return None
    return float(np.median(sides(xyxy))) * input_px / frame_long


def zooms_to_try(size_at_input: float | None, tried: Sequence[float]) -> list[float]:
    """The scales still worth reading: none while the dice are in the trained band; the one bringing
    them to the trained size when they are not; both exploratory ones when no die was found. Dice
    that look small may also be pips and faces of dice too large to be found whole, so the frame is
    then read shrunk as well."""
    if size_at_input is None:
        wanted = list(EXPLORE)
    elif BAND[0] <= size_at_input <= BAND[1]:
        return []
    else:
        wanted = [min(MAX_ZOOM, max(1.0 / MAX_ZOOM, TRAINED_PX / size_at_input))]
        if size_at_input < BAND[0]:
            wanted.append(EXPLORE[0])
    return [z for z in wanted if all(abs(math.log(z / t)) >= SAME_SCALE for t in tried)]


def tile_windows(width: int, height: int, tile: int, overlap: float = 0.2) -> list[tuple[int, int, int, int]]:
    """Square windows of side `tile` (clipped to the frame) covering it with at least `overlap`."""
    def starts(length: int) -> list[int]:
        if length <= tile:
            return [0]
        n = int(np.ceil((length - tile * overlap) / (tile * (1 - overlap))))
        return [int(round(v)) for v in np.linspace(0, length - tile, max(n, 2))]
    return [(x, y, min(width, x + tile), min(height, y + tile))
            for y in starts(height) for x in starts(width)]


Detect = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]]


def proposals_at(image: np.ndarray, zoom: float, detect: Detect, input_px: int,
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Detector boxes (frame pixels), scores, classes and each box's side at the input, with the frame
    enlarged `zoom` times (> 1: overlapping tiles of 1/zoom of its longer side) or shrunk (< 1: the
    frame in the corner of a grey canvas 1/zoom times its size)."""
    H, W = image.shape[:2]
    long = max(H, W)
    parts = []
    if zoom > 1:
        # never past the frame's own pixels: an enlarged tile shows no more of a die, only its noise
        tile = min(long, max(input_px, int(round(long / zoom))))
        # the detector learned on frames shrunk to its input, which averages away pixel noise; a tile
        # read near the frame's own pixels shows it (specks that look like pips): a 3x3 median removes it
        smooth = cv2.medianBlur(image, 3) if tile <= 1.5 * input_px else image
        for x0, y0, x1, y1 in tile_windows(W, H, tile, TILE_OVERLAP):
            b, s, c = detect(smooth[y0:y1, x0:x1])
            parts.append((b + np.array([x0, y0, x0, y0], np.float32), s, c, input_px / max(x1 - x0, y1 - y0)))
    else:
        cw, ch = int(round(W / zoom)), int(round(H / zoom))
        canvas = cv2.copyMakeBorder(image, 0, ch - H, 0, cw - W, cv2.BORDER_CONSTANT,
                                    value=(PAD_VALUE, PAD_VALUE, PAD_VALUE))
        b, s, c = detect(canvas)
        b[:, [0, 2]] = b[:, [0, 2]].clip(0, W)
        b[:, [1, 3]] = b[:, [1, 3]].clip(0, H)
        parts.append((b, s, c, input_px / max(cw, ch)))
    xyxy = np.concatenate([p[0] for p in parts]).astype(np.float32).reshape(-1, 4)
    score = np.concatenate([p[1] for p in parts])
    cls = np.concatenate([p[2] for p in parts])
    seen = np.concatenate([sides(p[0]) * p[3] for p in parts]) if parts else np.zeros(0)
    keep = (xyxy[:, 2] - xyxy[:, 0] > 1) & (xyxy[:, 3] - xyxy[:, 1] > 1)  # not squeezed off the frame
    return xyxy[keep], score[keep], cls[keep], seen[keep]


def merge(reads: Sequence[Read], iou: float) -> Read:
    """One read of every die from reads at several scales. A box lying mostly inside another die's
    box is part of that die (a pip, a face): the container is kept. Of boxes overlapping at IoU >=
    `iou`, the one seen nearest the trained size (then the surest) is kept."""
    allr = Read.join(reads)
    if not len(allr):
        return allr
    off_size = np.abs(np.log(np.maximum(allr.seen_px, 1e-3) / TRAINED_PX))
    order = np.lexsort((-allr.p_die, np.round(off_size, 1)))
    b = allr.xyxy.astype(np.float64)
    area = np.maximum((b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1]), 1e-6)
    iw = np.clip(np.minimum(b[:, None, 2], b[None, :, 2]) - np.maximum(b[:, None, 0], b[None, :, 0]), 0, None)
    ih = np.clip(np.minimum(b[:, None, 3], b[None, :, 3]) - np.maximum(b[:, None, 1], b[None, :, 1]), 0, None)
    inter = iw * ih
    inside = inter / area[:, None] >= CONTAINED  # [i, j]: box i lies mostly inside box j
    np.fill_diagonal(inside, False)
    part = inside.any(axis=1) & ~(inside & inside.T).any(axis=1)  # inside a larger box, not a twin
    kept: list[int] = []
    for i in order:
        if part[i]:
            continue
        if kept:
            k = np.array(kept)
            if (inter[i, k] / (area[k] + area[i] - inter[i, k]) >= iou).any() or inside[i, k].any():
                continue
        kept.append(int(i))
    keep = np.array(sorted(kept, key=lambda j: -allr.p_die[j]), np.int64)
    return allr.take(keep)
