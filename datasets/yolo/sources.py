"""One rendered scene per kind, straight from each game's own synthetic generator.

Each function returns the BGR image and the realdata item fields the generator itself labels
(objects with boxes, values, stick ends; plus what the generator adds: cells, crossings, ...), so the
YOLO lines are derived from the generators' labels, never from geometry recomputed here.
Scene k of seed S draws only from its own stream, so scene k is the same whatever N is. The scene
parameters mirror the generators' command-line defaults (tiles: mixed looks, a fault in 30 % of
scenes; route dice: 3-8 dice, a leaning die in 30 %); Tokyo uses `datasets.tokyo.dataset`'s own
stream (seed * 100003 + k), so its scenes are those of `highway-referee dataset tokyo --seed S`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

Size = tuple[int, int]
Render = Callable[[int, int, Size], tuple[np.ndarray, dict[str, Any]]]

FAULT_RATE = 0.3  # as datasets.tiles.generate's default
LEANING_RATE = 0.3  # as datasets.route_dice.generate's default


def tiles_scene(seed: int, k: int, size: Size) -> tuple[np.ndarray, dict[str, Any]]:
    from datasets.tiles.scenes import grid_scene, random_board

    rng = np.random.default_rng([seed, k])
    board = random_board(rng)
    faults = int(rng.integers(1, 3)) if rng.random() < FAULT_RATE else 0
    scene_seed = int(rng.integers(2**31))
    image, objects, cells = grid_scene(board, scene_seed, "mixed", faults, 1.0, out_size=size)
    return image, {"objects": objects, "cells": cells, "look": "mixed", "seed": scene_seed,
                   "board": board, "faults": faults}


def route_dice_scene(seed: int, k: int, size: Size) -> tuple[np.ndarray, dict[str, Any]]:
    from datasets.route_dice.scenes import dice_scene
    from vision.route_dice.faces import FACES

    rng = np.random.default_rng([seed, k])
    faces = [str(f) for f in rng.choice(FACES, int(rng.integers(3, 9)))]
    leaning = 1 if rng.random() < LEANING_RATE else 0
    scene_seed = int(rng.integers(2**31))
    image, objects = dice_scene(faces, scene_seed, leaning, 1.0, out_size=size)
    return image, {"objects": objects, "seed": scene_seed, "faces": faces, "leaning": leaning}


def sticks_scene(seed: int, k: int, size: Size) -> tuple[np.ndarray, dict[str, Any]]:
    from datasets.tokyo.render import render_tokyo_frame
    from datasets.tokyo.scene import random_scene

    s = seed * 100003 + k  # datasets.tokyo.dataset.write_dataset's stream for image k
    scene = random_scene(np.random.default_rng(s))
    image, labels = render_tokyo_frame(scene, s, width=size[0], height=size[1])
    labels = {key: v for key, v in labels.items() if key not in ("width", "height")}
    return image, {**labels, "scene": scene}


RENDERERS: dict[str, Render] = {"tiles": tiles_scene, "route-dice": route_dice_scene, "sticks": sticks_scene}
GENERATORS = {
    "tiles": "datasets.tiles.scenes.grid_scene (random_board, mixed looks)",
    "route-dice": "datasets.route_dice.scenes.dice_scene",
    "sticks": "datasets.tokyo.scene.random_scene + datasets.tokyo.render.render_tokyo_frame",
}
