"""Colour class of a die: the face colour (the die's central pixels minus its pips) matched to the
nearest colour of a configurable palette in CIE Lab.

A face's colour as the camera gives it is the die's colour times the light's: in dim light a white
die is mid-grey, as light as the palette's green and nearer to it than to the palette's white once
hue and lightness are weighed together (tuning seed 14 of the dice-road match in dim light: every white
die read green). Where the die stands on a printed sheet, the paper round it is a white of known
colour under the same light, so `paper_gain` measures that light there and `classify_colour(...,
gain=)` matches the face's colour under it, as if under the light the palette was taken in."""

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


PAPER_MIN = 200  # a printed pixel this light in every channel (0-255) is paper, or a pale tint of it
MIN_GAIN = 0.05  # a gain under this is no light to judge a colour by (a black frame, a covered view)


def paper_gain(observed_bgr: np.ndarray, printed_bgr: np.ndarray, paper: np.ndarray) -> np.ndarray | None:
    """The light on a patch of printed sheet, per BGR channel: the median ratio of the observed to the
    printed colour over the `paper` pixels (a bool mask: pale printed pixels the die, its shadow and
    hands leave free). None when too few of them show (under a twentieth of the patch, or 16)."""
    if observed_bgr.shape != printed_bgr.shape or paper.shape != observed_bgr.shape[:2]:
        raise VisionError("paper_gain: the observed, printed and mask patches differ in size")
    ratio = observed_bgr[paper].astype(np.float32) / np.maximum(printed_bgr[paper].astype(np.float32), 1.0)
    ratio = ratio[ratio.max(axis=1) > 0]  # a warp's black border shows no paper
    if len(ratio) < max(16, paper.size // 20):
        return None
    gain = np.median(ratio, axis=0)
    return gain if float(gain.min()) >= MIN_GAIN else None


def under_white(crop_bgr: np.ndarray, gain: np.ndarray) -> np.ndarray:
    """The crop as it would look under the light the palette was taken in: each channel divided by
    the light's `gain` there (von Kries), clipped to 8 bits."""
    out = crop_bgr.astype(np.float32) / np.asarray(gain, np.float32).reshape(1, 1, 3)
    return np.clip(out, 0, 255).astype(np.uint8)


def classify_colour(crop_bgr: np.ndarray, names: list[str], lab: np.ndarray,
                    gain: np.ndarray | None = None) -> tuple[str, float]:
    """(colour name, confidence 0..1 from the margin between the two nearest palette colours).
    `gain`: the light where the die stands (`paper_gain`); without it the camera's colour is matched
    as it is."""
    face = face_colour(crop_bgr if gain is None else under_white(crop_bgr, gain))
    # lightness counts less than hue: shading changes L, not the die's colour
    d = np.sqrt(0.5 * (lab[:, 0] - face[0]) ** 2 + (lab[:, 1] - face[1]) ** 2 + (lab[:, 2] - face[2]) ** 2)
    order = np.argsort(d)
    if len(order) == 1:
        return names[order[0]], 1.0
    margin = float(d[order[1]] - d[order[0]])
    return names[order[0]], float(min(1.0, margin / (d[order[1]] + 1e-6) + 0.2))
