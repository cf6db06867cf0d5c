"""Write a labelled folder of board scenes: `python -m datasets.tiles.generate OUT --count 50 --seed 1`.

Realdata format (labels.json + JPEGs): objects of kind "tile" with the number as value, and per
item a "cells" truth (number, null = empty, "unreadable" = a fault, "any" = borderline).
Deterministic from --seed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from datasets._generate import scene_parser, write_scenes
from datasets.tiles.scenes import LOOKS, grid_scene, random_board


def generate(
    out: Path, count: int, seed: int, look: str = "mixed", fault_rate: float = 0.3, effects: float = 1.0
) -> Path:
    def scene(rng: np.random.Generator) -> tuple[np.ndarray, dict]:
        board = random_board(rng)
        faults = int(rng.integers(1, 3)) if rng.random() < fault_rate else 0
        scene_seed = int(rng.integers(2**31))
        image, objects, cells = grid_scene(board, scene_seed, look, faults, effects)
        return image, {"objects": objects, "cells": cells, "look": look, "seed": scene_seed}

    source = f"synthetic: datasets.tiles.generate --seed {seed} --look {look}"
    notes = "4x4 Highway board scenes; 'cells' gives the truth per cell"
    return write_scenes(out, count, seed, "tiles", scene, source, notes)


def main(argv: list[str] | None = None) -> int:
    ap = scene_parser(__doc__, count=20)
    ap.add_argument("--look", choices=LOOKS, default="mixed")
    ap.add_argument("--fault-rate", type=float, default=0.3)
    ap.add_argument("--effects", type=float, default=1.0, help="lighting and sensor faults, 0..1")
    args = ap.parse_args(argv)
    print(generate(args.out, args.count, args.seed, args.look, args.fault_rate, args.effects))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
