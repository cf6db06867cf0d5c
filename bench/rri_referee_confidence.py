"""How often the sheet reader's squares are right at each of its confidence levels: the table behind
`SQUARE_SURE` in referee_app/games/railroad_ink.py (which placements are judged at once and which ask
the players to confirm).

Frames: rendered hand-drawn sheets at the reader's hardest settings (effects 1.0, tilt 0-30 degrees,
no occluder). Baseline: the accuracy over all drawn squares, whatever the confidence.
Usage: python bench/rri_referee_confidence.py [--sheets N] [--seed S]
"""

from __future__ import annotations

import argparse
from collections import defaultdict

import numpy as np

from datasets.sheets.scenes import random_content, sheet_scene
from referee_app.games.railroad_ink import SQUARE_SURE, placement_confidence
from vision.sheets import read_sheet
from vision.types import VisionError


def level(confidence: float) -> str:
    for at_least, _ in SQUARE_SURE:
        if confidence >= at_least:
            return f">= {at_least}"
    return f"< {SQUARE_SURE[-1][0]}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sheets", type=int, default=30)
    ap.add_argument("--seed", type=int, default=500)
    args = ap.parse_args()
    right: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    refused = 0
    for k in range(args.sheets):
        seed = args.seed + k
        image, truth = sheet_scene(random_content(np.random.default_rng(seed)), seed, effects=1.0)
        try:
            reading = read_sheet(image)
        except VisionError:
            refused += 1
            continue
        for name, want in truth.items():
            got = reading[name]
            if got.status != "read" or not isinstance(want, dict) or got.sides == "----":
                continue
            ok = got.sides == want["sides"] and got.overpass == want["overpass"]
            right[level(got.confidence)][0] += ok
            right[level(got.confidence)][1] += 1
    total = [sum(v[0] for v in right.values()), sum(v[1] for v in right.values())]
    print(f"{args.sheets} rendered sheets (seed {args.seed}), {refused} refused whole; drawn squares read:")
    base = total[0] / max(total[1], 1)
    print(f"baseline, all drawn squares: {total[0]}/{total[1]} right = {base:.3f}")
    for name in sorted(right, reverse=True):
        ok, n = right[name]
        share = ok / max(n, 1)
        bound = float(name.split()[-1])
        used = (f"{placement_confidence(bound):.2f}" if name.startswith(">=")
                else "the reader's own value (the players are asked)")
        print(f"reader confidence {name}: {ok}/{n} right = {share:.3f} ({share / base:.2f}x baseline); "
              f"the adapter uses {used}")


if __name__ == "__main__":
    main()
