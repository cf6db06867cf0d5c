"""Camera frames of the dice tray with Railroad Ink dice on it, with exact labels.

Dice are 16 mm cubes drawn by `datasets.camera` (sides, shadow, perspective); a "leaning" die rests
tilted against another, which the camera sees as a squashed top face: the reader must refuse it.
Boxes are those of each die's top face in the image.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from datasets.camera import SheetObject, project, random_pose, render_sheet, table_texture
from drawing.canvas import RasterCanvas
from drawing.rri_print import draw_tray
from vision.route_dice import geometry as g
from vision.route_dice.faces import FACES, draw_face


@cache
def tray_rgb(scale: float = 5.0) -> np.ndarray:
    c = RasterCanvas(*g.SHEET_MM, scale=scale)
    draw_tray(c)
    return c.image[..., ::-1].copy()


@cache
def face_rgba(name: str, scale: float = 10.0) -> np.ndarray:
    c = RasterCanvas(g.DIE_MM, g.DIE_MM, scale=scale)
    draw_face(c, 0, 0, name, g.DIE_MM)
    rgb = c.image[..., ::-1]
    return np.dstack([rgb, np.full(rgb.shape[:2], 255, np.uint8)])


def _free_spot(
    rng: np.random.Generator, taken: list[tuple[float, float]], gap: float
) -> tuple[float, float] | None:
    w, h = g.SHEET_MM
    for _ in range(200):
        p = (float(rng.uniform(20, w - 20)), float(rng.uniform(18, h - 18)))
        if any(x0 - 4 < p[0] < x1 + 4 and y0 - 4 < p[1] < y1 + 4 for x0, y0, x1, y1 in g.marker_boxes_mm()):
            continue
        if all(np.hypot(p[0] - q[0], p[1] - q[1]) >= gap for q in taken):
            return p
    return None


def dice_scene(
    faces: list[str],
    seed: int,
    leaning: int = 0,
    effects: float = 1.0,
    out_size: tuple[int, int] = (1280, 720),
    tilt_deg: tuple[float, float] = (0.0, 35.0),
    frame: int = 0,
) -> tuple[np.ndarray, list[dict[str, Any]]]:
    pose = random_pose(np.random.default_rng([seed, 1]), g.SHEET_MM, out_size, tilt_deg=tilt_deg)
    rng = np.random.default_rng([seed, 2])
    taken: list[tuple[float, float]] = []
    dice: list[dict[str, Any]] = []
    for name in faces:
        spot = _free_spot(rng, taken, 26.0)
        if spot is None:
            break
        taken.append(spot)
        dice.append({"face": str(name), "centre": spot, "angle": float(rng.uniform(0, 360)), "lean": 0.0})
    for _ in range(leaning):
        if not dice:
            break
        base = dice[int(rng.integers(len(dice)))]
        a = rng.uniform(0, 2 * np.pi)
        centre = (base["centre"][0] + 19 * np.cos(a), base["centre"][1] + 19 * np.sin(a))
        if not (5 < centre[0] < g.SHEET_MM[0] - 5 and 5 < centre[1] < g.SHEET_MM[1] - 5):
            continue
        dice.append(
            {
                "face": str(rng.choice(FACES)),
                "centre": centre,
                "angle": float(np.degrees(a)),
                "lean": float(rng.uniform(28, 50)),
            }
        )
    objects, labels = [], []
    for d in dice:
        s = g.DIE_MM
        squash = np.cos(np.radians(d["lean"]))
        height = s * squash + s * np.sin(np.radians(d["lean"])) * 0.3 if d["lean"] else s
        obj = SheetObject(
            face_rgba(d["face"]),
            d["centre"],
            (s * squash, s),
            d["angle"],
            float(height),
            side_bgr=(225, 228, 230),
        )
        objects.append(obj)
        top = project(pose, obj.footprint(obj.height_mm))
        box = [
            round(float(v), 1) for v in (top[:, 0].min(), top[:, 1].min(), top[:, 0].max(), top[:, 1].max())
        ]
        label = {"kind": "route-die", "value": d["face"], "bbox": box, "color": None, "endpoints": None}
        if d["lean"]:
            label["leaning"] = True
        labels.append(label)
    rng_fx = np.random.default_rng([seed, 3, frame])
    table = np.ascontiguousarray(table_texture(rng_fx, out_size))
    image, _ = render_sheet(
        tray_rgb(), g.SHEET_MM, pose, rng=rng_fx, background=table, objects=objects, effects=effects
    )
    return image, labels


def render_route_dice_frame(
    faces: list[str], seed: int = 0, effects: float = 0.6, out_size: tuple[int, int] = (1280, 720)
) -> np.ndarray:
    """A BGR camera frame of the tray showing dice with these faces (for recorded matches)."""
    image, _ = dice_scene(list(faces), seed, 0, effects, out_size, tilt_deg=(0.0, 25.0))
    return image
