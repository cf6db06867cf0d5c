"""Shared geometry and features of the dice reader, used alike at training and at reading time.

This OpenCV build has no HOG or ml module, so the gradient features are computed here with numpy:
per 4x4-pixel cell a 9-bin histogram of gradient orientation (unsigned, so dark-on-light and
light-on-dark pips look alike), normalised by the gradient energy of the 3x3 cells around it.
Computed once per image, the cell map lets a linear detector score every window by correlation.

The detector looks at square windows of `WIN` px holding a die of `WIN / CONTEXT` px, so it sees the
die's outline against the table. The value reader looks at the die box resized to `VALUE_SIZE`.
"""

from __future__ import annotations

import cv2
import numpy as np

CELL = 4  # pixels per cell side
WIN_CELLS = 10  # detector window, in cells
WIN = CELL * WIN_CELLS  # 40 px
CONTEXT = 1.25  # window side / die side
BINS = 9
VALUE_SIZE = 48  # value reader crop (px)


def cell_features(image_bgr: np.ndarray, cell: int = CELL) -> np.ndarray:
    """(H // cell, W // cell, BINS) float32 normalised orientation histograms."""
    img = image_bgr.astype(np.float32)
    gx = cv2.Sobel(img, cv2.CV_32F, 1, 0, ksize=1)
    gy = cv2.Sobel(img, cv2.CV_32F, 0, 1, ksize=1)
    if img.ndim == 3:  # per pixel, the colour channel with the strongest edge
        mag_c = gx * gx + gy * gy
        bx, by, best = gx[..., 0], gy[..., 0], mag_c[..., 0]
        for ch in (1, 2):
            better = mag_c[..., ch] > best
            bx = np.where(better, gx[..., ch], bx)
            by = np.where(better, gy[..., ch], by)
            best = np.maximum(best, mag_c[..., ch])
        gx, gy = bx, by
    mag, ang = cv2.cartToPolar(gx, gy)
    ang = (ang % np.pi) * (BINS / np.pi) - 0.5
    lo = np.floor(ang).astype(np.int32)
    frac = ang - lo
    lo %= BINS
    hi = (lo + 1) % BINS
    H, W = mag.shape
    Hc, Wc = H // cell, W // cell
    if Hc == 0 or Wc == 0:
        return np.zeros((Hc, Wc, BINS), np.float32)
    mag, frac, lo, hi = (a[:Hc * cell, :Wc * cell] for a in (mag, frac, lo, hi))
    # one weighted bincount over (cell, bin) indices: far cheaper than an HxWxBINS array
    cell_idx = ((np.arange(Hc * cell) // cell)[:, None] * Wc + (np.arange(Wc * cell) // cell)[None, :]) * BINS
    w_hi = mag * frac
    hist = np.bincount((cell_idx + lo).ravel(), (mag - w_hi).ravel(), Hc * Wc * BINS)
    hist += np.bincount((cell_idx + hi).ravel(), w_hi.ravel(), Hc * Wc * BINS)
    hist = hist.reshape(Hc, Wc, BINS).astype(np.float32)
    energy = (hist * hist).sum(axis=2)
    norm = np.sqrt(cv2.boxFilter(energy, -1, (3, 3), normalize=False, borderType=cv2.BORDER_REFLECT)) + 1e-3
    return np.minimum(hist / norm[..., None], 0.5).astype(np.float32)


def square_window(box: np.ndarray, context: float = CONTEXT) -> np.ndarray:
    """The square [x0, y0, x1, y1] centred on `box`, `context` times its larger side."""
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    half = max(x1 - x0, y1 - y0) * context / 2
    return np.array([cx - half, cy - half, cx + half, cy + half])


def crop(image: np.ndarray, box: np.ndarray, size: int) -> np.ndarray:
    """`box` (any position, may leave the image) resampled to size x size, border replicated."""
    x0, y0, x1, y1 = (float(v) for v in box)
    sx = (x1 - x0) / size
    sy = (y1 - y0) / size
    M = np.array([[sx, 0, x0 + sx / 2 - 0.5], [0, sy, y0 + sy / 2 - 0.5]], np.float32)
    interp = cv2.INTER_AREA if sx > 1.5 else cv2.INTER_LINEAR
    return cv2.warpAffine(image, M, (size, size), flags=interp | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)


def window_patch(image: np.ndarray, window: np.ndarray) -> np.ndarray:
    """The window resampled to WIN px plus one cell of context on each side, so features computed
    on it match what the dense detector computes on the whole image."""
    x0, y0, x1, y1 = window
    m = (x1 - x0) / WIN_CELLS
    return crop(image, np.array([x0 - m, y0 - m, x1 + m, y1 + m]), WIN + 2 * CELL)


def patch_features(patch: np.ndarray) -> np.ndarray:
    return cell_features(patch)[1:-1, 1:-1].ravel()


def window_features(image: np.ndarray, window: np.ndarray) -> np.ndarray:
    """Detector features of one window (WIN_CELLS^2 * BINS values)."""
    return patch_features(window_patch(image, window))


def dihedral(img: np.ndarray, k: int) -> np.ndarray:
    """The k-th (0..7) rotation/flip of a square image; a die's value is the same in all eight."""
    out = np.rot90(img, k % 4)
    return np.ascontiguousarray(out[:, ::-1] if k >= 4 else out)


def value_features(crop_bgr: np.ndarray) -> np.ndarray:
    """Polarity-free features of a die crop (VALUE_SIZE square): orientation histograms of 4x4 cells,
    a 16x16 map of how far each pixel's colour is from the face colour (pips stand out whether dark
    or light) and the classical pip count (vision/dice/pips.py) as a one-hot vector."""
    from vision.dice.pips import SIZE, count_pips

    lab = cv2.cvtColor(crop_bgr, cv2.COLOR_BGR2Lab).astype(np.float32)
    c, q = VALUE_SIZE // 2, VALUE_SIZE // 4
    face = np.median(lab[c - q:c + q, c - q:c + q].reshape(-1, 3), axis=0)
    dist = np.linalg.norm(lab - face, axis=2)
    dist = dist / (np.percentile(dist, 95) + 8.0)
    coarse = cv2.resize(dist, (16, 16), interpolation=cv2.INTER_AREA).ravel()
    hog = cell_features(crop_bgr).ravel()
    n, quality, _ = count_pips(cv2.resize(crop_bgr, (SIZE, SIZE), interpolation=cv2.INTER_LINEAR))
    pips = np.zeros(11, np.float32)
    pips[min(n, 9)] = 1.0
    pips[10] = quality
    return np.concatenate([hog, coarse, pips]).astype(np.float32)


def die_angle(crop_bgr: np.ndarray) -> float:
    """In-plane turn of a die in a crop (degrees, -45..45): the dominant edge direction modulo 90,
    as a magnitude-weighted circular mean of 4x the gradient angle (pips' round edges cancel out)."""
    gray = cv2.cvtColor(crop_bgr, cv2.COLOR_BGR2GRAY).astype(np.float32)
    gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)
    mag, ang = cv2.cartToPolar(gx, gy)
    w = mag * mag
    return float(np.degrees(np.arctan2((w * np.sin(4 * ang)).sum(), (w * np.cos(4 * ang)).sum()) / 4))


def die_crop(image: np.ndarray, box: np.ndarray, size: int = VALUE_SIZE, top_shift: float = 0.0,
             scale: float = 1.0) -> np.ndarray:
    """The die in `box` as a size x size crop turned upright (its edges along the crop's axes), so the
    pips of every value fall on the same 3x3 grid whatever the die's turn on the table.
    `top_shift` moves the crop away from the image centre by that fraction of the die's offset from
    it: seen from above, a die's top face lies outward of its box centre (the sides facing the
    camera are visible on the inner side); `scale` shrinks the crop towards the top face."""
    box = np.asarray(box, np.float64)
    if top_shift or scale != 1.0:
        H, W = image.shape[:2]
        c = (box[:2] + box[2:]) / 2
        c = c + top_shift * (c - np.array([W / 2, H / 2]))
        half = (box[2:] - box[:2]) / 2 * scale
        box = np.concatenate([c - half, c + half])
    big = crop(image, square_window(box, 1.5), int(size * 1.5))
    c = big.shape[0] / 2
    inner = big[int(c - size / 2):int(c - size / 2) + size, int(c - size / 2):int(c - size / 2) + size]
    M = cv2.getRotationMatrix2D((c, c), die_angle(inner), 1.0)
    M[:, 2] -= (c - size / 2)
    return cv2.warpAffine(big, M, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def verifier_features(img: np.ndarray, box: np.ndarray) -> np.ndarray:
    """Window orientation features plus colour statistics of the die box and its surround."""
    win = square_window(box)
    f = patch_features(window_patch(img, win))
    inner = crop(img, box, 16).reshape(-1, 3).astype(np.float32)
    outer = crop(img, win, 20).astype(np.float32)
    ring = np.concatenate([outer[:3].reshape(-1, 3), outer[-3:].reshape(-1, 3), outer[:, :3].reshape(-1, 3),
                           outer[:, -3:].reshape(-1, 3)])
    stats = np.concatenate([inner.mean(0), inner.std(0), ring.mean(0), ring.std(0)]) / 64.0
    return np.concatenate([f, stats]).astype(np.float32)
