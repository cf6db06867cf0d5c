"""Frames per second of the Railroad Ink dice reader on 1280x720 camera frames.

Baseline (same run, same frames): locating the tray from its markers alone.
Usage: python bench/route_dice_fps.py [--frames N]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from datasets.route_dice.scenes import render_route_dice_frame
from vision.localise import SheetSpec, localise
from vision.route_dice import geometry as g
from vision.route_dice.faces import FACES
from vision.route_dice.reader import read_route_dice


def fps(fn, frames: list[np.ndarray], repeat: int) -> float:
    fn(frames[0])
    t0 = time.perf_counter()
    for _ in range(repeat):
        for f in frames:
            fn(f)
    return repeat * len(frames) / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--frames", type=int, default=6)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    frames = [
        render_route_dice_frame([str(f) for f in rng.choice(FACES, 6)], seed=k) for k in range(args.frames)
    ]
    spec = SheetSpec(g.SHEET, *g.SHEET_MM)
    base = fps(lambda f: localise(f, spec), frames, args.repeat)
    reader = fps(read_route_dice, frames, args.repeat)
    print(f"frames: {len(frames)} x {args.repeat}, 1280x720, 6 dice each")
    print(f"baseline (marker localisation only): {base:.1f} fps")
    print(f"read_route_dice (localise + find + classify): {reader:.1f} fps")
    print(f"ratio reader/baseline time: {base / reader:.2f}x")


if __name__ == "__main__":
    main()
