"""Write a labelled folder of hand-drawn sheet photos: `python -m datasets.sheets.generate OUT --count 20`.

labels.json in the realdata layout (no objects) with per item "squares": {a1..g7: {"sides",
"overpass", "station", "round"} | "unreadable" | "any"}. Deterministic from --seed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from datasets._generate import scene_parser, write_scenes
from datasets.sheets.scenes import random_content, sheet_scene


def generate(out: Path, count: int, seed: int, occlude_rate: float = 0.25, effects: float = 1.0) -> Path:
    def scene(rng: np.random.Generator) -> tuple[np.ndarray, dict]:
        scene_seed = int(rng.integers(2**31))
        content = random_content(np.random.default_rng(scene_seed))
        image, truth = sheet_scene(content, scene_seed, bool(rng.random() < occlude_rate), effects)
        return image, {"objects": [], "squares": truth, "seed": scene_seed}

    source = f"synthetic: datasets.sheets.generate --seed {seed}"
    notes = "hand-drawn Railroad Ink sheets; 'squares' gives the truth per square"
    return write_scenes(out, count, seed, "sheet", scene, source, notes)


def main(argv: list[str] | None = None) -> int:
    ap = scene_parser(__doc__, count=10)
    ap.add_argument("--occlude-rate", type=float, default=0.25)
    ap.add_argument("--effects", type=float, default=1.0)
    args = ap.parse_args(argv)
    print(generate(args.out, args.count, args.seed, args.occlude_rate, args.effects))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
