"""How often the sheet reader's drawn squares are right in each bin of `square_bin` - the table behind
`SURE` in referee_app/games/railroad_ink.py, which decides which placements are judged at once and
which ask the players to confirm.

Frames: rendered hand-drawn sheets at the reader's hardest settings (effects 1.0, tilt 0-30 degrees,
no occluder). Baseline: the share right over all drawn squares, whatever the bin.
Usage: python bench/rri_referee_confidence.py [--sheets N] [--seed S]
"""

from __future__ import annotations

import argparse
from collections import defaultdict

import numpy as np

from datasets.sheets.scenes import random_content, sheet_scene
from referee_app.games.railroad_ink import LOOP_CONFIRMS_BELOW, square_bin, square_confidence
from vision.sheets import read_sheet
from vision.types import VisionError


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sheets", type=int, default=40)
    ap.add_argument("--seed", type=int, default=500)
    args = ap.parse_args()
    right: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    reported: dict[str, float] = {}
    judged_wrong = judged = refused = 0
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
            kind = square_bin(got)
            right[kind][0] += ok
            right[kind][1] += 1
            conf = square_confidence(got)
            reported[kind] = max(reported.get(kind, 0.0), conf)
            if conf >= LOOP_CONFIRMS_BELOW:
                judged += 1
                judged_wrong += not ok
    total = [sum(v[0] for v in right.values()), sum(v[1] for v in right.values())]
    base = total[0] / max(total[1], 1)
    print(f"{args.sheets} rendered sheets (seed {args.seed}), {refused} refused whole; drawn squares read:")
    print(f"baseline, all drawn squares: {total[0]}/{total[1]} right = {base:.3f}")
    for kind in sorted(right, key=lambda b: -right[b][1]):
        ok, n = right[kind]
        print(f"  {kind}: {ok}/{n} right = {ok / max(n, 1):.3f} ({ok / max(n, 1) / base:.2f}x baseline); "
              f"the adapter reports up to {reported[kind]:.2f}")
    print(f"judged without asking (confidence >= {LOOP_CONFIRMS_BELOW}): {judged}/{total[1]}, of them wrong "
          f"{judged_wrong} = {judged_wrong / max(judged, 1):.3f}")


if __name__ == "__main__":
    main()
