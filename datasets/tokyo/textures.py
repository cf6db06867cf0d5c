"""Table surfaces drawn in plan (1 px per mm) and warped into the camera: wood grain, cloth, a plain mat."""

from __future__ import annotations

import cv2
import numpy as np


def _smooth_noise(rng: np.random.Generator, shape: tuple[int, int], cells: int) -> np.ndarray:
    small = rng.standard_normal((max(2, shape[0] // cells), max(2, shape[1] // cells))).astype(np.float32)
    return cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)


def wood(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    h, w = shape
    base = np.array([rng.uniform(60, 110), rng.uniform(100, 150), rng.uniform(150, 200)], np.float32)  # BGR
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ang = rng.uniform(0, np.pi)
    u = xx * np.cos(ang) + yy * np.sin(ang)
    period = rng.uniform(6, 16)
    warp = 6 * _smooth_noise(rng, shape, 60) + 2 * _smooth_noise(rng, shape, 12)
    grain = np.sin(2 * np.pi * u / period + warp)
    shade = 1 + rng.uniform(0.05, 0.14) * grain + 0.05 * _smooth_noise(rng, shape, 150)
    # planks: a darker seam every plank width across the grain
    v = -xx * np.sin(ang) + yy * np.cos(ang)
    plank = rng.uniform(90, 200)
    seam = (np.abs(((v + rng.uniform(0, plank)) % plank) - plank / 2) > plank / 2 - 1.2).astype(np.float32)
    shade *= 1 - 0.35 * seam
    return base[None, None, :] * shade[..., None]


def cloth(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    # no neutral grey cloth: grey pieces on grey cloth differ only in brightness, like shadows (documented)
    colours = [(60, 110, 40), (120, 70, 30), (170, 190, 215), (40, 40, 110), (140, 150, 90), (90, 60, 120)]
    base = np.array(colours[int(rng.integers(len(colours)))], np.float32) * rng.uniform(0.85, 1.15)
    yy, xx = np.mgrid[0 : shape[0], 0 : shape[1]]
    weave = ((xx + yy) % 2).astype(np.float32) - 0.5
    shade = (
        1
        + 0.05 * weave
        + 0.04 * rng.standard_normal(shape).astype(np.float32)
        + 0.05 * _smooth_noise(rng, shape, 80)
    )
    return base[None, None, :] * shade[..., None]


def mat(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """The project's printed play mat: a light tint that contrasts with the grey pieces."""
    tints = [(240, 205, 150), (165, 225, 170), (150, 215, 235)]  # BGR: print tokyo-mat blue, green, yellow
    base = np.array(tints[int(rng.integers(len(tints)))], np.float32) + rng.uniform(-8, 8, 3).astype(
        np.float32
    )
    shade = 1 + 0.03 * _smooth_noise(rng, shape, 100) + 0.01 * rng.standard_normal(shape).astype(np.float32)
    return base[None, None, :] * shade[..., None]


TEXTURES = {"wood": wood, "cloth": cloth, "mat": mat}
