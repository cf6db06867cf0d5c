"""Write a labelled folder of dice-tray scenes: `python -m datasets.route_dice.generate OUT --count 40`.

Realdata format: objects of kind "route-die" with the face name as value and the top face's box;
a die leaning on another carries "leaning": true (the reader must refuse it). Deterministic from --seed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from datasets._generate import scene_parser, write_scenes
from datasets.route_dice.scenes import dice_scene
from vision.route_dice.faces import FACES


def generate(out: Path, count: int, seed: int, leaning_rate: float = 0.3, effects: float = 1.0) -> Path:
    def scene(rng: np.random.Generator) -> tuple[np.ndarray, dict]:
        faces = [str(f) for f in rng.choice(FACES, int(rng.integers(3, 9)))]
        leaning = 1 if rng.random() < leaning_rate else 0
        scene_seed = int(rng.integers(2**31))
        image, objects = dice_scene(faces, scene_seed, leaning, effects)
        return image, {"objects": objects, "seed": scene_seed}

    source = f"synthetic: datasets.route_dice.generate --seed {seed}"
    notes = "Railroad Ink dice in the printed tray; boxes are the top faces"
    return write_scenes(out, count, seed, "dice", scene, source, notes)


def main(argv: list[str] | None = None) -> int:
    ap = scene_parser(__doc__, count=20)
    ap.add_argument("--leaning-rate", type=float, default=0.3)
    ap.add_argument("--effects", type=float, default=1.0)
    args = ap.parse_args(argv)
    print(generate(args.out, args.count, args.seed, args.leaning_rate, args.effects))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
