"""Hand-drawn routes, stations, overpasses and round numbers on a sheet raster.

Conventions a player follows (printed on the sheet and in docs/vision/sheets.md): a highway is one
bold stroke, a railway a thin line with cross ties, a station a filled box where they meet, an
overpass a highway drawn straight through with the railway stopping on both sides of it, and the
round number written in the square's top-left corner. Every stroke wobbles, and pen width, tie
spacing and neatness vary from drawing to drawing.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

INK = (25, 30, 40)
DIR = {"N": (0.0, -1.0), "E": (1.0, 0.0), "S": (0.0, 1.0), "W": (-1.0, 0.0)}
DIGIT_FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_PLAIN,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_SCRIPT_SIMPLEX,
    cv2.FONT_HERSHEY_SCRIPT_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
)


@dataclass
class Hand:
    """One player's drawing habits."""

    highway_mm: float
    rail_mm: float
    tie_mm: float
    tie_gap_mm: float
    wobble_mm: float
    ink: tuple[int, int, int]

    @classmethod
    def random(cls, rng: np.random.Generator) -> Hand:
        ink = (int(rng.integers(10, 60)), int(rng.integers(10, 60)), int(rng.integers(20, 110)))
        return cls(
            highway_mm=float(rng.uniform(1.6, 2.6)),
            rail_mm=float(rng.uniform(0.45, 0.8)),
            tie_mm=float(rng.uniform(3.6, 4.6)),
            tie_gap_mm=float(rng.uniform(2.4, 3.4)),
            wobble_mm=float(rng.uniform(0.05, 0.45)),
            ink=ink,
        )


def _wobbly(rng: np.random.Generator, a: np.ndarray, b: np.ndarray, wobble: float, n: int = 10) -> np.ndarray:
    t = np.linspace(0, 1, n)[:, None]
    pts = a + (b - a) * t
    normal = np.array([-(b - a)[1], (b - a)[0]]) / (np.linalg.norm(b - a) + 1e-9)
    noise = np.convolve(rng.normal(0, wobble, n + 4), np.ones(5) / 5, mode="valid")[:n]
    return pts + normal * noise[:, None]


def _line(
    img: np.ndarray, pts_mm: np.ndarray, ppm: float, width_mm: float, ink: tuple[int, int, int]
) -> None:
    p = np.round(pts_mm * ppm * 16).astype(np.int32).reshape(-1, 1, 2)
    cv2.polylines(img, [p], False, ink, max(1, round(width_mm * ppm)), cv2.LINE_AA, 4)


def draw_square(
    img: np.ndarray,
    origin_mm: tuple[float, float],
    size_mm: float,
    ppm: float,
    sides: str,
    station: bool,
    overpass: bool,
    number: int | None,
    hand: Hand,
    rng: np.random.Generator,
) -> None:
    """Draw one square's content onto `img` (RGB raster of the sheet at `ppm` px/mm)."""
    ox, oy = origin_mm
    c = np.array([ox + size_mm / 2, oy + size_mm / 2]) + rng.uniform(-0.6, 0.6, 2)
    half = size_mm / 2
    for side, kind in zip("NESW", sides, strict=True):
        if kind == "-":
            continue
        d = np.array(DIR[side])
        end = np.array([ox + size_mm / 2, oy + size_mm / 2]) + d * (half + 0.2)
        start = c.copy()
        if overpass and kind == "R":
            start = c + d * (hand.highway_mm / 2 + rng.uniform(1.2, 2.2))
        elif station:
            start = c + d * 2.6
        pts = _wobbly(rng, start, end, hand.wobble_mm)
        if kind == "H":
            _line(img, pts, ppm, hand.highway_mm * rng.uniform(0.9, 1.1), hand.ink)
        else:
            _line(img, pts, ppm, hand.rail_mm, hand.ink)
            length = float(np.linalg.norm(end - start))
            normal = np.array([-d[1], d[0]])
            s = rng.uniform(0.8, 1.8)
            while s < length - 0.6:
                p = start + d * s
                tilt = rng.normal(0, 0.12)
                nrm = normal + d * tilt
                tie_len = hand.tie_mm * rng.uniform(0.85, 1.15)
                seg = np.array([p - nrm * tie_len / 2, p + nrm * tie_len / 2])
                _line(img, seg, ppm, hand.rail_mm * rng.uniform(0.9, 1.3), hand.ink)
                s += hand.tie_gap_mm * rng.uniform(0.85, 1.15)
    if station:
        bw = rng.uniform(5.6, 6.6)
        ang = rng.uniform(-10, 10)
        box = cv2.boxPoints(((c[0] * ppm, c[1] * ppm), (bw * ppm, bw * ppm * rng.uniform(0.85, 1.1)), ang))
        cv2.fillConvexPoly(img, np.round(box * 16).astype(np.int32), hand.ink, cv2.LINE_AA, 4)
    if number is not None:
        draw_digit(img, (ox + rng.uniform(0.8, 1.6), oy + rng.uniform(0.8, 1.6)), number, ppm, hand, rng)


def digit_image(number: int, rng: np.random.Generator, px: int = 48) -> np.ndarray:
    """A handwritten-looking digit as a px x px coverage mask (0..255), upright with small slant."""
    font = int(DIGIT_FONTS[rng.integers(len(DIGIT_FONTS))]) | (cv2.FONT_ITALIC if rng.random() < 0.3 else 0)
    canvas = np.zeros((px * 2, px * 2), np.uint8)
    (w, h), _ = cv2.getTextSize(str(number), font, 1.0, 1)
    scale = px * rng.uniform(0.6, 0.8) / max(h, 1)
    thick = max(1, round(px * rng.uniform(0.05, 0.13)))
    (w, h), _ = cv2.getTextSize(str(number), font, scale, thick)
    cv2.putText(canvas, str(number), (px - w // 2, px + h // 2), font, scale, 255, thick, cv2.LINE_AA)
    M = cv2.getRotationMatrix2D((px, px), rng.uniform(-12, 12), rng.uniform(0.9, 1.05))
    M[0, 1] += rng.uniform(-0.25, 0.25)  # shear: hand slant
    M[:, 2] += rng.uniform(-2, 2, 2)
    canvas = cv2.warpAffine(canvas, M, (px * 2, px * 2))
    ys, xs = np.nonzero(canvas > 60)
    if len(xs) == 0:
        return canvas[px // 2 : px // 2 + px, px // 2 : px // 2 + px]
    cy, cx = int((ys.min() + ys.max()) / 2), int((xs.min() + xs.max()) / 2)
    out = np.zeros((px, px), np.uint8)
    sub = canvas[max(0, cy - px // 2) : cy + px // 2, max(0, cx - px // 2) : cx + px // 2]
    out[: sub.shape[0], : sub.shape[1]] = sub
    return out


def draw_digit(
    img: np.ndarray,
    corner_mm: tuple[float, float],
    number: int,
    ppm: float,
    hand: Hand,
    rng: np.random.Generator,
) -> None:
    size_mm = rng.uniform(5.0, 6.5)
    n = max(8, round(size_mm * ppm))
    mask = cv2.resize(digit_image(number, rng), (n, n), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
    x, y = round(corner_mm[0] * ppm), round(corner_mm[1] * ppm)
    region = img[y : y + n, x : x + n].astype(np.float32)
    m = mask[: region.shape[0], : region.shape[1], None]
    img[y : y + n, x : x + n] = (region * (1 - m) + np.array(hand.ink, np.float32) * m).astype(np.uint8)
