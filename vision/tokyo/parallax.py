"""Plane parallax: what stands above the table, seen from two or more calibrated views.

The table is a plane (z = 0): every calibrated view maps onto another one exactly by the table-plane
homography, and so do the table's texture, its colour and the shadows cast on it. Anything above the
table (road sticks resting on columns, columns, cars, hands) lands elsewhere in the other view, so after
warping the other views onto a reference view it differs there, whatever its colour: a tan stick on a
beige cloth that the colour-based piece mask (`foreground.py`) takes for table still shows. The
difference is taken against every other view that sees the point and the smallest one kept (a piece
must differ from all of them; one view's own occluder or glare spot must not make a table pixel count).
Glare moves with the camera, so blown-out pixels (and their rim) in either image count as no evidence.
See docs/vision/tokyo.md, "Plane parallax from the other views".
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.tokyo.calibration import PinholeCamera, TokyoCalibration

__all__ = ["parallax_mask", "parallax_strength", "table_map"]

SCALE = 0.5  # the mask is made at half size, as the fusion's piece masks are
BLUR_SIGMA = 1.5  # px at SCALE: the calibration's and the warp's subpixel errors must not read as parallax
DIFF_THRESHOLD = 0.12  # normalised colour difference above which a pixel stands above the table
GLARE_LEVEL = 245  # every channel this bright: a highlight, which moves with the camera
GLARE_GROW = 7  # px at SCALE around a highlight (its rim) that gives no evidence either
FIT_SAMPLES = 20000


def table_map(src: PinholeCamera, dst: PinholeCamera) -> np.ndarray:
    """3x3 homography taking src's pixels of the table plane (z = 0) to dst's."""
    h = dst.table_homography() @ np.linalg.inv(src.table_homography())
    return h / h[2, 2]


def _scaled(h: np.ndarray, scale: float) -> np.ndarray:
    s = np.diag([scale, scale, 1.0])
    return s @ h @ np.linalg.inv(s)


def _small(image: np.ndarray, scale: float) -> np.ndarray:
    h, w = image.shape[:2]
    return cv2.resize(image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)


def _fit_gain(ref: np.ndarray, other: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """`other` with a per-channel gain and offset fitted to `ref` over the valid pixels (the cameras'
    exposures differ); the fit is repeated on the better-fitting half so pieces do not pull it."""
    idx = np.flatnonzero(valid.ravel())
    if len(idx) < 100:
        return other
    rng = np.random.default_rng(0)
    idx = rng.choice(idx, min(FIT_SAMPLES, len(idx)), replace=False)
    r = ref.reshape(-1, 3)[idx]
    o = other.reshape(-1, 3)[idx]
    out = np.empty_like(other)
    for c in range(3):
        x, y = o[:, c], r[:, c]
        keep = np.ones(len(x), bool)
        for _ in range(2):
            a, b = np.polyfit(x[keep], y[keep], 1)
            res = np.abs(a * x + b - y)
            keep = res <= np.median(res)
        out[..., c] = a * other[..., c] + b
    return out


def parallax_strength(
    images: Sequence[np.ndarray], calibs: Sequence[TokyoCalibration], ref: int = 0, scale: float = SCALE
) -> np.ndarray:
    """Per pixel of view `ref` (at `scale` of its size): the smallest normalised colour difference to
    the other views warped onto it by the table plane (0 where no other view sees that table point, or
    where glare lies in either image)."""
    base = _small(images[ref], scale).astype(np.float32)
    h, w = base.shape[:2]
    glare_ref = base.min(2) >= GLARE_LEVEL
    ref_blur = cv2.GaussianBlur(base, (0, 0), BLUR_SIGMA)
    best = np.full((h, w), np.inf, np.float32)
    for v in range(len(images)):
        if v == ref:
            continue
        hv = _scaled(table_map(calibs[v].camera, calibs[ref].camera), scale)
        other = _small(images[v], scale).astype(np.float32)
        warped = cv2.warpPerspective(other, hv, (w, h), flags=cv2.INTER_LINEAR)
        ones = np.ones(other.shape[:2], np.uint8)
        seen = cv2.warpPerspective(ones, hv, (w, h), flags=cv2.INTER_NEAREST) > 0
        seen = cv2.erode(seen.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
        glare = (warped.min(2) >= GLARE_LEVEL) | glare_ref
        glare = cv2.dilate(glare.astype(np.uint8), np.ones((2 * GLARE_GROW + 1,) * 2, np.uint8)) > 0
        fitted = _fit_gain(ref_blur, cv2.GaussianBlur(warped, (0, 0), BLUR_SIGMA), seen & ~glare)
        diff = np.abs(ref_blur - fitted).max(2) / (ref_blur.mean(2) + 20.0)
        diff[glare] = 0.0
        best = np.where(seen, np.minimum(best, diff), best)
    best[~np.isfinite(best)] = 0.0
    return best


def parallax_mask(
    images: Sequence[np.ndarray], calibs: Sequence[TokyoCalibration], ref: int = 0, scale: float = SCALE
) -> np.ndarray:
    """Pixels of view `ref` (at `scale`, 0/255) that stand above the table by plane parallax."""
    fg = (parallax_strength(images, calibs, ref, scale) > DIFF_THRESHOLD).astype(np.uint8) * 255
    return cv2.morphologyEx(fg, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
