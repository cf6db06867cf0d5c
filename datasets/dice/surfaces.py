"""Renders of dice straight on a table top (no printed tray): wood, cloth, dark and patterned
surfaces, marbled and translucent dice, oblique views, long hard shadows and a wide range of die
sizes in the frame. They widen the box detector's and the crop network's training beyond the tray
renders of datasets/dice/scenes.py (issue 21: real tables are not the tray).

`surface_scene(rng, out_size)` returns (BGR image, realdata objects), deterministic from `rng`.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from datasets.camera import SheetObject, random_pose, render_sheet
from datasets.dice.scenes import DICE_COLOURS, die_face_rgba

SURFACES = ("wood", "dark wood", "cloth", "dark", "pattern", "stone")
PX_PER_MM = 2.0


def surface_rgb(rng: np.random.Generator, kind: str, size_mm: tuple[float, float]) -> np.ndarray:
    """A table top of `kind` (RGB, PX_PER_MM px per mm)."""
    W, H = int(size_mm[0] * PX_PER_MM), int(size_mm[1] * PX_PER_MM)
    if kind in ("wood", "dark wood"):
        base = rng.uniform(150, 225) if kind == "wood" else rng.uniform(45, 110)
        tint = np.array([1.0, rng.uniform(0.7, 0.85), rng.uniform(0.45, 0.65)])
        grain = rng.normal(0, 1, (max(2, H // 3), 6)).astype(np.float32)
        grain = cv2.resize(grain, (W, H), interpolation=cv2.INTER_CUBIC)
        rings = np.sin(np.linspace(0, rng.uniform(20, 80), H)[:, None] + 3 * grain)
        img = base * tint[None, None, :] * (1 + 0.08 * grain[..., None] + 0.06 * rings[..., None])
    elif kind == "cloth":
        base = rng.uniform(40, 200, 3)
        n = cv2.GaussianBlur(rng.normal(0, 1, (H, W)).astype(np.float32), (0, 0), 0.8)
        weave = 0.5 * (np.sin(np.arange(W) * rng.uniform(1.5, 3.0))[None, :]
                       + np.sin(np.arange(H) * rng.uniform(1.5, 3.0))[:, None])
        img = base[None, None, :] * (1 + 0.15 * n[..., None] + 0.05 * weave[..., None])
    elif kind == "dark":
        img = np.broadcast_to(rng.uniform(10, 55, 3), (H, W, 3)) * (
            1 + 0.2 * cv2.GaussianBlur(rng.normal(0, 1, (H, W)).astype(np.float32), (0, 0), 3)[..., None])
    elif kind == "pattern":  # a printed cloth or board: coloured shapes and lines
        img = np.broadcast_to(rng.uniform(60, 230, 3), (H, W, 3)).astype(np.float32).copy()
        for _ in range(int(rng.integers(15, 60))):
            colour = tuple(float(c) for c in rng.uniform(0, 255, 3))
            x, y = int(rng.integers(0, W)), int(rng.integers(0, H))
            r = int(rng.uniform(0.02, 0.12) * min(W, H))
            shape = rng.integers(3)
            if shape == 0:
                cv2.circle(img, (x, y), r, colour, -1)
            elif shape == 1:
                cv2.rectangle(img, (x, y), (x + r, y + int(r * rng.uniform(0.3, 2))), colour, -1)
            else:
                cv2.line(img, (x, y), (int(rng.integers(0, W)), int(rng.integers(0, H))), colour,
                         int(rng.integers(2, 12)))
    else:  # stone: granite-like speckle
        base = rng.uniform(60, 200, 3)
        n = rng.normal(0, 1, (H, W)).astype(np.float32)
        img = base[None, None, :] * (1 + 0.25 * cv2.GaussianBlur(n, (0, 0), 1.5)[..., None])
    return np.clip(img, 0, 255).astype(np.uint8)


def _marble(rng: np.random.Generator, face: np.ndarray, body: tuple[int, ...]) -> np.ndarray:
    """Swirls of a second colour through the die body (not over the pips)."""
    S = face.shape[0]
    n = cv2.resize(rng.normal(0, 1, (6, 6)).astype(np.float32), (S, S), interpolation=cv2.INTER_CUBIC)
    veins = np.abs(np.sin(n * rng.uniform(3, 7)))[..., None]
    other = rng.uniform(0, 255, 3)
    is_body = (np.abs(face[..., :3].astype(np.int16) - np.array(body)).sum(axis=2) < 60)[..., None]
    rgb = np.where(is_body, face[..., :3] * veins + other * (1 - veins), face[..., :3])
    return np.concatenate([np.clip(rgb, 0, 255), face[..., 3:]], axis=2).astype(np.uint8)


def _die(rng: np.random.Generator, value: int, table_rgb: np.ndarray) -> tuple[np.ndarray, tuple[int, ...]]:
    """Top face RGBA and the side colour (BGR) of a random die: plain, marbled or translucent."""
    if rng.random() < 0.5:
        body, pips = DICE_COLOURS[str(rng.choice(list(DICE_COLOURS)))]
    else:
        body = tuple(int(c) for c in rng.integers(0, 256, 3))
        lum = 0.3 * body[0] + 0.59 * body[1] + 0.11 * body[2]
        pips = (20, 20, 20) if lum > 140 else (245, 245, 245)
    face = die_face_rgba(value, body, pips, px=64, corner=rng.uniform(0.08, 0.22),
                         pip_radius=rng.uniform(0.075, 0.105))
    kind = rng.random()
    side = np.array(body, np.float32)
    if kind < 0.2:
        face = _marble(rng, face, tuple(body))
    elif kind < 0.4:  # translucent: the table shows through the body, the pips stay solid
        mix = rng.uniform(0.3, 0.6)
        is_body = (np.abs(face[..., :3].astype(np.int16) - np.array(body)).sum(axis=2) < 60)[..., None]
        face = face.copy()
        seen = face[..., :3] * (1 - mix) + table_rgb * mix
        face[..., :3] = np.where(is_body, seen, face[..., :3]).astype(np.uint8)
        side = side * (1 - mix) + table_rgb * mix
    return face, tuple(int(c) for c in side[::-1])


def surface_scene(rng: np.random.Generator, out_size: tuple[int, int] = (960, 540),
                  n_dice: int | None = None) -> tuple[np.ndarray, list[dict[str, Any]]]:
    """A random photo of 1-15 dice on a random table top; labels in the realdata `objects` form."""
    kind = str(rng.choice(SURFACES))
    # the table area in view sets the dice's share of the frame: scale jitter from ~8 to ~80 px dice
    w_mm = float(rng.uniform(150, 900))
    size_mm = (w_mm, w_mm * out_size[1] / out_size[0])
    sheet = surface_rgb(rng, kind, size_mm)
    table = sheet.reshape(-1, 3).mean(axis=0)
    n = int(rng.integers(1, 16)) if n_dice is None else n_dice
    dice: list[dict[str, Any]] = []
    objects: list[SheetObject] = []
    margin = 0.05 * w_mm
    for _ in range(n * 30):
        if len(dice) == n:
            break
        s = rng.uniform(12, 22)
        x, y = rng.uniform(margin, size_mm[0] - margin), rng.uniform(margin, size_mm[1] - margin)
        if any(np.hypot(x - d["x"], y - d["y"]) <= 0.71 * (s + d["s"]) for d in dice):
            continue
        value = int(rng.integers(1, 7))
        face, side = _die(rng, value, table)
        dice.append({"x": x, "y": y, "s": s, "value": value})
        objects.append(SheetObject(face, (x, y), (s, s), float(rng.uniform(0, 90)), s, side))
    pose = random_pose(rng, size_mm, out_size=out_size, tilt_deg=(0, 45), fill=(0.8, 1.0))
    if rng.random() < 0.5:  # a low, hard light: long shadows
        ang = rng.uniform(0, 2 * np.pi)
        pose.light_dir = np.array([np.cos(ang), np.sin(ang)]) * rng.uniform(0.8, 1.6)
    # the same kind of top around the area the dice stand on, so the table fills the frame
    around = np.ascontiguousarray(surface_rgb(rng, kind, size_mm)[..., ::-1])
    img, boxes = render_sheet(sheet, size_mm, pose, rng=rng, objects=objects, background=around)
    H, W = img.shape[:2]
    labels = []
    for d, b in zip(dice, boxes, strict=True):
        x0, y0, x1, y1 = (float(v) for v in b)
        cx0, cy0, cx1, cy1 = max(0.0, x0), max(0.0, y0), min(float(W), x1), min(float(H), y1)
        # a die mostly out of the frame is not labelled (nobody could read it)
        if cx1 - cx0 < 2 or cy1 - cy0 < 2 or (cx1 - cx0) * (cy1 - cy0) < 0.6 * (x1 - x0) * (y1 - y0):
            continue
        box = [round(v, 1) for v in (cx0, cy0, cx1, cy1)]
        labels.append({"kind": "die", "value": d["value"], "bbox": box, "color": None, "endpoints": None})
    return img, labels
