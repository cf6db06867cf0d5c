"""Colour class names from measured colour, independent of any one set's exact paint."""

from __future__ import annotations

import cv2
import numpy as np

# hue (OpenCV 0..180) band upper limits -> name, for saturated colours
_HUES = (
    (8, "red"),
    (21, "orange"),
    (34, "yellow"),
    (78, "green"),
    (96, "teal"),
    (128, "blue"),
    (150, "purple"),
    (172, "pink"),
    (181, "red"),
)


def colour_name(bgr: tuple[float, float, float] | np.ndarray) -> str:
    px = np.clip(np.asarray(bgr, np.float32), 0, 255).astype(np.uint8).reshape(1, 1, 3)
    h, s, v = (int(x) for x in cv2.cvtColor(px, cv2.COLOR_BGR2HSV)[0, 0])
    if v < 60:
        return "black"
    if s < 50:
        return "white" if v > 200 else "grey"
    if 8 <= h < 26 and v < 235 and s < 150:
        return "natural"  # unpainted wood / beige
    for top, name in _HUES:
        if h < top:
            return name
    return "red"


def is_support_colour(bgr: np.ndarray) -> tuple[bool, bool]:
    """(support-like, junction-yellow) for a mean colour."""
    name = colour_name(bgr)
    return name in ("grey", "white", "yellow"), name == "yellow"
