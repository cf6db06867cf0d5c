"""Copies of real training photos with extra small dice pasted in (issue 21): the box detector misses
dice that reach its 320 px input at about 8-14 px, most of all in crowds and on busy prints (epanemu's
Catan board, dice piles). Ultralytics' own copy-paste needs segment outlines, which these labels lack,
so the copies are made here: labelled dice cut from the training photos (whole-die boxes, with a soft
edge a little outside the die so little of the source table shows), shrunk to a small size at the detector's
input, and pasted into another training photo - half of them beside a die already there (a crowd), the
rest anywhere - never over a labelled die."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

SMALL_AT_INPUT = (7.0, 14.0)  # pasted die side at the detector's input (its trained median: 20 px)
INPUT_PX = 320
PER_PHOTO = (3, 8)  # dice pasted into one copy
BESIDE = 0.5  # share pasted next to a labelled die (crowds)
MAX_OVERLAP = 0.05  # a pasted die may cover at most this share of any box already there


@dataclass
class Cut:
    """One labelled die cut out of a training photo, a little context around it."""

    pixels: np.ndarray  # BGR
    box: tuple[float, float, float, float]  # the die inside `pixels`


def cut_dice(image: np.ndarray, boxes: np.ndarray, margin: float = 0.15) -> list[Cut]:
    """The dice of one photo with `margin` of their side around them (clipped to the frame)."""
    H, W = image.shape[:2]
    out = []
    for x0, y0, x1, y1 in np.asarray(boxes, np.float64).reshape(-1, 4):
        s = max(x1 - x0, y1 - y0)
        if s < 6:
            continue
        a, b = int(max(0, x0 - margin * s)), int(max(0, y0 - margin * s))
        c, d = int(min(W, np.ceil(x1 + margin * s))), int(min(H, np.ceil(y1 + margin * s)))
        out.append(Cut(image[b:d, a:c].copy(), (x0 - a, y0 - b, x1 - a, y1 - b)))
    return out


def _overlap(box: np.ndarray, others: np.ndarray) -> float:
    """The largest share of any of `others` that `box` covers."""
    if not len(others):
        return 0.0
    ix = np.clip(np.minimum(box[2], others[:, 2]) - np.maximum(box[0], others[:, 0]), 0, None)
    iy = np.clip(np.minimum(box[3], others[:, 3]) - np.maximum(box[1], others[:, 1]), 0, None)
    area = np.maximum((others[:, 2] - others[:, 0]) * (others[:, 3] - others[:, 1]), 1e-6)
    own = max((box[2] - box[0]) * (box[3] - box[1]), 1e-6)
    return float(max((ix * iy / area).max(), (ix * iy / own).max()))


def paste_small_dice(image: np.ndarray, boxes: np.ndarray, cuts: list[Cut],
                     rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """`image` with small dice pasted in and its boxes (the old ones first, then the pasted ones)."""
    out = image.copy()
    H, W = out.shape[:2]
    scale = max(H, W) / INPUT_PX
    placed = np.asarray(boxes, np.float64).reshape(-1, 4)
    old = len(placed)
    for _ in range(int(rng.integers(PER_PHOTO[0], PER_PHOTO[1] + 1))):
        if not cuts:
            break
        cut = cuts[int(rng.integers(len(cuts)))]
        bx0, by0, bx1, by1 = cut.box
        side = rng.uniform(*SMALL_AT_INPUT) * scale  # the die's side in this frame
        f = side / max(bx1 - bx0, by1 - by0)
        h, w = cut.pixels.shape[:2]
        nw, nh = max(2, int(round(w * f))), max(2, int(round(h * f)))
        if nw >= W or nh >= H:
            continue
        small = cv2.resize(cut.pixels, (nw, nh), interpolation=cv2.INTER_AREA)
        die = np.array([bx0, by0, bx1, by1]) * f
        for _try in range(20):
            if old and rng.random() < BESIDE:  # beside a labelled die: a crowd
                near = placed[int(rng.integers(old))]
                cx, cy = (near[0] + near[2]) / 2, (near[1] + near[3]) / 2
                ang, dist = rng.uniform(0, 2 * np.pi), rng.uniform(0.6, 1.2) * (
                    max(near[2] - near[0], near[3] - near[1]) / 2 + side / 2)
                x = cx + dist * np.cos(ang) - (die[0] + die[2]) / 2
                y = cy + dist * np.sin(ang) - (die[1] + die[3]) / 2
            else:
                x, y = rng.uniform(0, W - nw), rng.uniform(0, H - nh)
            x, y = int(np.clip(x, 0, W - nw)), int(np.clip(y, 0, H - nh))
            box = die + np.array([x, y, x, y])
            if _overlap(box, placed) <= MAX_OVERLAP:
                break
        else:
            continue
        # the die and a rim of its own table, soft-edged, blended into this one
        mask = np.zeros((nh, nw), np.float32)
        pad = 0.06 * side
        cv2.rectangle(mask, (int(die[0] - pad), int(die[1] - pad)), (int(np.ceil(die[2] + pad)),
                      int(np.ceil(die[3] + pad))), 1.0, -1)
        mask = cv2.GaussianBlur(mask, (0, 0), max(0.5, 0.06 * side))[..., None]
        region = out[y:y + nh, x:x + nw].astype(np.float32)
        out[y:y + nh, x:x + nw] = (mask * small + (1 - mask) * region).astype(np.uint8)
        placed = np.vstack([placed, box[None]])
    return out, placed
