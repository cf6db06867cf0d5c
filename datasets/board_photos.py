"""Labelled photos of the printed dice-road board with dice on it, from a camera at a chosen tilt,
height and resolution: the folders `highway-referee eval board` scores (realdata format, each die
labelled with the `cell`, `pool:N` or `tray` it stands in; docs/formats/realdata.md).

Each set-up (one camera pose, one table, one lamp) gives one photo of the empty board (named by the
other photos' `empty` key: the referee learns the empty board from the first view of a match) and
`photos` photos with dice placed as in a match: in cells, in pools and in the tray.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from datasets.camera import Pose, random_pose, table_texture
from datasets.dice.scenes import render_dice_on_sheet

JPEG_QUALITY = 90
COLOURS = ("white", "blue", "green", "yellow")


def camera_at(rng: np.random.Generator, sheet_mm: tuple[float, float], size: tuple[int, int],
              tilt_deg: float, height_mm: float) -> Pose:
    """A camera `height_mm` above the board tilted `tilt_deg` from straight down, aimed near the
    board's centre, the board filling most of the frame."""
    return random_pose(rng, sheet_mm, size, height_mm=(height_mm, height_mm), tilt_deg=(tilt_deg, tilt_deg),
                       yaw_deg=(-4, 4), fill=(0.86, 0.95))


def _dice(rng: np.random.Generator, board: Any, n_cells: int) -> list[dict[str, Any]]:
    cells = rng.choice(sorted(board.cells), size=min(n_cells, len(board.cells)), replace=False)
    dice = []
    for cid in cells:
        c = board.cells[str(cid)]
        dice.append({"x_mm": c.x + rng.uniform(-1.5, 1.5), "y_mm": c.y + rng.uniform(-1.5, 1.5),
                     "value": int(rng.integers(1, 7)), "color": str(rng.choice(COLOURS)), "size_mm": 16.0,
                     "angle": float(rng.uniform(-25, 25)), "cell": str(cid)})
    seat = int(rng.integers(len(board.pools)))
    r = board.pools[seat]
    dice.append({"x_mm": r.x + r.w / 2 + rng.uniform(-4, 4), "y_mm": r.y + r.h / 2 + rng.uniform(-4, 4),
                 "value": int(rng.integers(1, 7)), "color": COLOURS[seat % 4], "size_mm": 16.0,
                 "angle": float(rng.uniform(0, 90)), "cell": f"pool:{seat}"})
    t = board.tray
    for k in range(int(rng.integers(0, 3))):
        dice.append({"x_mm": t.x + t.w * (0.3 + 0.4 * k) + rng.uniform(-8, 8),
                     "y_mm": t.y + t.h * 0.5 + rng.uniform(-15, 15), "value": int(rng.integers(1, 7)),
                     "color": "white", "size_mm": 16.0, "angle": float(rng.uniform(0, 90)), "cell": "tray"})
    return dice


def write_board_photos(out: Path, board: Any, sheet: np.ndarray, seed: int,
                       size: tuple[int, int] = (1920, 1080), tilt_deg: float = 15.0,
                       height_mm: float = 850.0, setups: int = 2, photos: int = 3,
                       dice_on_cells: int = 8, effects: float = 0.3) -> dict[str, Any]:
    """Write `setups` x (1 empty + `photos`) photos and labels.json into OUT; returns the labels.
    `board`: the dice-road board (engine.dice_road.load_board); `sheet`: its printable picture (RGB,
    any resolution; the caller renders it, datasets/ does not import the app)."""
    sheet_mm = (float(board.width), float(board.height))
    out.mkdir(parents=True, exist_ok=True)
    items = []
    for s in range(setups):
        rng = np.random.default_rng([seed, s])
        pose = camera_at(rng, sheet_mm, size, tilt_deg, height_mm)
        table = np.ascontiguousarray(table_texture(rng, size))
        lamp = int(rng.integers(1 << 30))
        camera = {"tilt_deg": tilt_deg, "height_mm": height_mm, "focal_px": round(float(pose.K[0, 0]), 2)}

        def shoot(dice: list[dict[str, Any]], name: str, lamp: int = lamp, pose: Pose = pose,
                  table: np.ndarray = table) -> list[dict[str, Any]]:
            image, objects = render_dice_on_sheet(sheet, sheet_mm, dice, pose, effects=effects,
                                                  rng=np.random.default_rng(lamp), background=table)
            if not cv2.imwrite(str(out / name), image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY]):
                raise OSError(f"cannot write {out / name}")
            for obj, d in zip(objects, dice, strict=True):
                obj["cell"] = d["cell"]
            return objects

        empty = f"s{s}_empty.jpg"
        shoot([], empty)
        items.append({"image": empty, "width": size[0], "height": size[1], "objects": [], "camera": camera})
        for p in range(photos):
            name = f"s{s}_{p:02d}.jpg"
            objects = shoot(_dice(rng, board, dice_on_cells), name)
            items.append({"image": name, "width": size[0], "height": size[1], "objects": objects,
                          "empty": empty, "camera": camera})
    labels = {"source": f"datasets.board_photos seed {seed}", "license": "generated", "attribution": "",
              "notes": (f"renders of the printed highway-dice board, tilt {tilt_deg} deg, height "
                        f"{height_mm} mm, {size[0]}x{size[1]}; every die labelled with its cell"),
              "labels_complete": True, "game": "highway-dice", "items": items}
    (out / "labels.json").write_text(json.dumps(labels, indent=1), encoding="utf-8")
    return labels
