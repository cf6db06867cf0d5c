"""From a piece's pixels to the classifier's input: an ink map normalised for position, scale and
(a candidate) rotation, so one classifier reads every font, piece shape and turn.

The ink map is centred on the ink's centroid and scaled by the ink's radius, both of which turn
with the piece, so rotating the patch by the candidate angle is all that rotation needs. The
classifier (see `reader`) has a "wrong way up" class and picks the angle itself.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.quantiles import percentiles
from vision.tiles.geometry import BOARD_RGB

PATCH = 28  # classifier input is PATCH x PATCH
ANGLES = np.arange(0, 360, 15)  # candidate turns; training jitters by up to +-9 degrees

_bh, _bs, _bv = cv2.cvtColor(np.uint8([[BOARD_RGB[::-1]]]), cv2.COLOR_BGR2HSV)[0, 0]
BOARD_HUE = int(_bh)


def board_mask(bgr: np.ndarray, hue: int = BOARD_HUE, hue_tol: int = 14) -> np.ndarray:
    """Pixels of the printed board (saturated board blue). Hue and saturation do not change when the
    light gets dimmer or brighter, so this holds under uneven light."""
    hsv = cv2.cvtColor(bgr, cv2.COLOR_BGR2HSV)
    dh = np.abs(hsv[..., 0].astype(np.int16) - hue)
    dh = np.minimum(dh, 180 - dh)
    return (dh <= hue_tol) & (hsv[..., 1] >= 70) & (hsv[..., 2] >= 20)


def ink_map(gray: np.ndarray, mask: np.ndarray) -> np.ndarray | None:
    """0..1 ink strength inside `mask` (the piece face, eroded); None when the face has no marks.
    Dark-on-light and light-on-dark pieces both give ink = the minority tone."""
    vals = gray[mask]
    if vals.size < 30:
        return None
    lo, med, hi = percentiles(vals, [2, 50, 98])
    if hi - lo < 28:
        return None
    g = gray.astype(np.float32)
    if hi - med > med - lo:  # the face is mostly dark: light ink
        ink = (g - med) / max(hi - med, 1.0)
    else:
        ink = (med - g) / max(med - lo, 1.0)
    ink = np.clip(ink * 1.25 - 0.15, 0, 1)
    ink[~mask] = 0
    return ink


def ink_frame(ink: np.ndarray) -> tuple[float, float, float] | None:
    """Centroid (x, y) and radius of the ink; None when there is too little."""
    ys, xs = np.nonzero(ink > 0.5)
    if len(xs) < 12:
        return None
    cx, cy = float(xs.mean()), float(ys.mean())
    r = float(percentiles(np.hypot(xs - cx, ys - cy), [98])[0]) + 1.0
    return cx, cy, r


def patches(ink: np.ndarray, frame: tuple[float, float, float], angles: np.ndarray) -> np.ndarray:
    """(len(angles), PATCH*PATCH) float32: the ink turned by each angle (degrees, counter-clockwise
    in the image) about its centroid and scaled to fill the patch."""
    cx, cy, r = frame
    scale = (PATCH / 2 - 1.5) / r
    if scale < 0.8:
        ink = cv2.GaussianBlur(ink, (0, 0), 0.45 / scale)
    out = np.empty((len(angles), PATCH * PATCH), np.float32)
    for i, a in enumerate(angles):
        M = cv2.getRotationMatrix2D((cx, cy), float(a), scale)
        M[:, 2] += (PATCH / 2 - cx, PATCH / 2 - cy)
        out[i] = cv2.warpAffine(ink, M, (PATCH, PATCH), flags=cv2.INTER_LINEAR).ravel()
    return out


def piece_ink(bgr: np.ndarray, blob: np.ndarray, erode_px: int, keep_rim: bool = False) -> np.ndarray | None:
    """Ink map of one piece: `blob` is its boolean footprint in `bgr` (same size). Unless
    `keep_rim`, marks touching the face's rim are dropped: mostly the piece's own side seen at a
    tilt, a neighbour's edge or a shadow through blur, which would pull the centroid and radius the
    patch is normalised by; but a big number on a small token can reach the rim too, so the reader
    checks the reading with them kept (see `reader.classify_piece`)."""
    inks = piece_inks(bgr, blob, erode_px)
    return inks.full if keep_rim else inks.clean


@dataclass
class PieceInks:
    """One piece's ink maps with and without the marks at its rim (`piece_ink`), and its face: what
    the reader's checks share instead of each making them again."""

    face: np.ndarray  # the footprint eroded (uint8 0/1)
    full: np.ndarray | None  # the ink map with the rim's marks
    clean: np.ndarray | None  # ... without them


def piece_inks(bgr: np.ndarray, blob: np.ndarray, erode_px: int) -> PieceInks:
    """`piece_ink` with and without `keep_rim`, from one grey conversion, erosion and ink map."""
    gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    k = max(1, erode_px)
    face = cv2.erode(blob.astype(np.uint8), np.ones((2 * k + 1, 2 * k + 1), np.uint8))
    full = ink_map(gray, face > 0)
    if full is None:
        return PieceInks(face, None, None)
    ink = full.copy()
    rim = (face > 0) & (cv2.erode(face, np.ones((5, 5), np.uint8)) == 0)
    count, marks = cv2.connectedComponents((ink > 0.15).astype(np.uint8), connectivity=8)
    if count > 1:  # the marks touching the rim, by a table over their labels
        touching = np.zeros(count, bool)
        touching[marks[rim]] = True
        touching[0] = False
        ink[touching[marks]] = 0
    return PieceInks(face, full, ink)


def two_tone(bgr: np.ndarray, blob: np.ndarray, erode_px: int, ink: np.ndarray | None = None,
             face: np.ndarray | None = None) -> float:
    """Share of the face (away from ink) whose colour is far from the face's median colour. A piece
    is one colour; a piece partly lying on another of a different colour is two. Lab chroma only,
    so uneven light and shadow bands, which change lightness, do not count. `ink`: the piece's
    `piece_ink(bgr, blob, erode_px)` when the caller has it already, and `face` its `PieceInks.face`."""
    k = max(1, erode_px)
    if face is None:
        face = cv2.erode(blob.astype(np.uint8), np.ones((2 * k + 1, 2 * k + 1), np.uint8))
    face = face > 0
    if ink is None:
        ink = piece_ink(bgr, blob, erode_px)
    if ink is not None:
        face &= cv2.dilate((ink > 0.1).astype(np.uint8), np.ones((5, 5), np.uint8)) == 0
    # Lab of the face's pixels alone (8-bit Lab is per pixel), and the share away from their median
    # in integers: the chroma channels are whole numbers, the median a whole or half one, so
    # (2 * distance)^2 > 36^2 is exactly the float32 `norm(ab - median) > 18`
    ab = cv2.cvtColor(bgr[face].reshape(1, -1, 3), cv2.COLOR_BGR2LAB).reshape(-1, 3)[:, 1:]
    n = len(ab)
    if n < 20:
        return 0.0
    twice = 2 * ab.astype(np.int32) - np.array([_twice_median(ab[:, 0]), _twice_median(ab[:, 1])])
    return float(np.count_nonzero((twice * twice).sum(1) > 36 * 36)) / n


def _twice_median(values: np.ndarray) -> int:
    """Twice the median of uint8 values (an integer: the median is whole or half)."""
    ends = np.cumsum(np.bincount(values, minlength=256))
    n = len(values)
    lo, hi = np.searchsorted(ends, [(n - 1) // 2, n // 2], side="right")
    return int(lo) + int(hi)
