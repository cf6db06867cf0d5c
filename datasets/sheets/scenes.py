"""Camera frames of hand-drawn Railroad Ink sheets with exact per-square labels.

Truth per square: {"sides", "overpass", "station", "round"} or "unreadable" (under an occluder) or
"any" (an occluder just grazes it; evaluation skips it).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import cv2
import numpy as np

from datasets.camera import random_pose, render_sheet, table_texture
from datasets.sheets.draw import Hand, draw_square
from drawing.canvas import RasterCanvas
from drawing.rri_print import draw_sheet
from vision.sheets import geometry as g

SCALE = 6.0  # px/mm of the drawn sheet before the camera sees it
# (canonical sides, station) of what players draw: route dice, junctions and the six specials
PIECES = [
    ("R--R", False),
    ("R-R-", False),
    ("RRR-", False),
    ("HHH-", False),
    ("H-H-", False),
    ("H--H", False),
    ("H-R-", True),
    ("HR--", True),
    ("HRHR", False),
    ("HHRH", True),
    ("HRRR", True),
    ("HHHH", False),
    ("RRRR", False),
    ("HRRH", True),
    ("HRHR", True),
]


@cache
def blank_sheet() -> np.ndarray:
    c = RasterCanvas(*g.SHEET_MM, scale=SCALE)
    draw_sheet(c)
    return c.image[..., ::-1].copy()


def _turn(sides: str, k: int) -> str:
    return sides[-k:] + sides[:-k] if k else sides


def random_content(rng: np.random.Generator, fill: float | None = None) -> dict[str, dict[str, Any]]:
    fill = rng.uniform(0.3, 0.9) if fill is None else fill
    out = {}
    for name in g.square_names():
        if rng.random() > fill:
            continue
        sides, station = PIECES[int(rng.integers(len(PIECES)))]
        sides = _turn(sides, int(rng.integers(4)))
        overpass = not station and sides in ("HRHR", "RHRH")
        out[name] = {
            "sides": sides,
            "overpass": overpass,
            "station": station,
            "round": int(rng.integers(1, 8)) if rng.random() < 0.8 else None,
        }
    return out


def draw_content(content: dict[str, dict[str, Any]], rng: np.random.Generator) -> np.ndarray:
    img = blank_sheet().copy()
    hand = Hand.random(rng)
    for name, sq in content.items():
        draw_square(
            img,
            g.square_origin_mm(name),
            g.SQUARE_MM,
            SCALE,
            sq["sides"],
            sq["station"],
            sq["overpass"],
            sq["round"],
            hand,
            rng,
        )
    return img


def sheet_scene(
    content: dict[str, dict[str, Any]],
    seed: int,
    occlude: bool = False,
    effects: float = 1.0,
    out_size: tuple[int, int] = (1280, 720),
    tilt_deg: tuple[float, float] = (0.0, 30.0),
) -> tuple[np.ndarray, dict[str, Any]]:
    rng = np.random.default_rng(seed)
    img = draw_content(content, rng)
    truth: dict[str, Any] = {
        name: content.get(name, {"sides": "----", "overpass": False, "station": False, "round": None})
        for name in g.square_names()
    }
    if occlude:  # a hand-coloured blob over part of the grid
        mask = np.zeros(img.shape[:2], np.uint8)
        ox, oy = g.GRID_ORIGIN_MM
        span = g.SQUARES * g.SQUARE_MM
        cx, cy = rng.uniform(ox, ox + span), rng.uniform(oy, oy + span)
        axes = (rng.uniform(12, 30), rng.uniform(8, 20))
        cv2.ellipse(
            mask,
            (int(cx * SCALE), int(cy * SCALE)),
            (int(axes[0] * SCALE), int(axes[1] * SCALE)),
            rng.uniform(0, 180),
            0,
            360,
            255,
            -1,
        )
        skin = np.array([rng.uniform(170, 235), rng.uniform(110, 160), rng.uniform(80, 130)])
        img[mask > 0] = skin.astype(np.uint8)
        for name in g.square_names():
            sx, sy = (round(v * SCALE) for v in g.square_origin_mm(name))
            n = round(g.SQUARE_MM * SCALE)
            f = float((mask[sy : sy + n, sx : sx + n] > 0).mean())
            if f > 0.04:
                truth[name] = "unreadable"
            elif f > 0:
                truth[name] = "any"
    # the sheet fills most of the frame: hand-drawn ties need about 3 px/mm (see docs/vision/sheets.md)
    pose = random_pose(rng, g.SHEET_MM, out_size, tilt_deg=tilt_deg, fill=(0.8, 0.97))
    table = np.ascontiguousarray(table_texture(rng, out_size))
    image, _ = render_sheet(img, g.SHEET_MM, pose, rng=rng, background=table, effects=effects)
    return image, truth
