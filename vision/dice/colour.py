"""Colour class of a die: the face colour (the die's central pixels minus its pips) matched to the
nearest colour of a configurable palette in CIE Lab."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import cv2
import numpy as np

from vision.types import VisionError

# RGB reference colours of common dice; the first four are the players' colours of the road games.
DEFAULT_PALETTE: dict[str, tuple[int, int, int]] = {
    "white": (235, 235, 228),
    "blue": (40, 80, 190),
    "green": (40, 150, 70),
    "yellow": (235, 200, 40),
    "black": (35, 35, 40),
    "red": (200, 35, 40),
    "orange": (235, 120, 30),
    "purple": (110, 50, 140),
}


def palette_lab(colors: Mapping[str, Sequence[int]] | Sequence[str] | None) -> tuple[list[str], np.ndarray]:
    """Names and Lab values of a palette given as {name: (r, g, b)} or as names of DEFAULT_PALETTE."""
    if colors is None:
        colors = DEFAULT_PALETTE
    if not isinstance(colors, Mapping):
        unknown = [c for c in colors if c not in DEFAULT_PALETTE]
        if unknown:
            known = list(DEFAULT_PALETTE)
            raise VisionError(f"unknown colour names {unknown}; give RGB values or use {known}")
        colors = {c: DEFAULT_PALETTE[c] for c in colors}
    if not colors:
        raise VisionError("the colour palette is empty")
    names = list(colors)
    try:
        rgb = np.array([[list(map(int, colors[n]))[:3] for n in names]], np.uint8)
    except (TypeError, ValueError) as exc:
        raise VisionError(f"palette colours must be (r, g, b) triples: {exc}") from exc
    if rgb.shape != (1, len(names), 3):
        raise VisionError("palette colours must be (r, g, b) triples")
    lab = cv2.cvtColor(rgb, cv2.COLOR_RGB2Lab).reshape(-1, 3).astype(np.float32)
    return names, lab


def face_colour(crop_bgr: np.ndarray) -> np.ndarray:
    """Median Lab colour of the middle of a die crop, ignoring pip pixels (far from the median)."""
    h, w = crop_bgr.shape[:2]
    mid = crop_bgr[h // 5: h - h // 5, w // 5: w - w // 5]
    lab = cv2.cvtColor(mid, cv2.COLOR_BGR2Lab).reshape(-1, 3).astype(np.float32)
    med = np.median(lab, axis=0)
    near = lab[np.linalg.norm(lab - med, axis=1) < 25]
    return np.median(near, axis=0) if len(near) else med


def classify_colour(crop_bgr: np.ndarray, names: list[str], lab: np.ndarray) -> tuple[str, float]:
    """(colour name, confidence 0..1 from the margin between the two nearest palette colours)."""
    face = face_colour(crop_bgr)
    # lightness counts less than hue: shading changes L, not the die's colour
    d = np.sqrt(0.5 * (lab[:, 0] - face[0]) ** 2 + (lab[:, 1] - face[1]) ** 2 + (lab[:, 2] - face[2]) ** 2)
    order = np.argsort(d)
    if len(order) == 1:
        return names[order[0]], 1.0
    margin = float(d[order[1]] - d[order[0]])
    return names[order[0]], float(min(1.0, margin / (d[order[1]] + 1e-6) + 0.2))
