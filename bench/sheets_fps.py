"""Frames per second of the Railroad Ink sheet reader on 1280x720 camera frames.

Baseline (same run, same frames): locating the sheet from its markers alone.
Usage: python bench/sheets_fps.py [--frames N]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from datasets.sheets.scenes import random_content, sheet_scene
from vision.localise import SheetSpec, localise
from vision.sheets import geometry as g
from vision.sheets.reader import read_sheet


def fps(fn, frames: list[np.ndarray], repeat: int) -> float:
    fn(frames[0])
    t0 = time.perf_counter()
    for _ in range(repeat):
        for f in frames:
            fn(f)
    return repeat * len(frames) / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--frames", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    frames = [
        sheet_scene(random_content(np.random.default_rng(k)), k, effects=0.5)[0] for k in range(args.frames)
    ]
    spec = SheetSpec(g.SHEET, *g.SHEET_MM)
    base = fps(lambda f: localise(f, spec), frames, args.repeat)
    reader = fps(read_sheet, frames, args.repeat)
    print(f"frames: {len(frames)} x {args.repeat}, 1280x720, 49 squares each")
    print(f"baseline (marker localisation only): {base:.1f} fps")
    print(f"read_sheet (localise + 49 squares): {reader:.1f} fps")
    print(f"ratio reader/baseline time: {base / reader:.2f}x")


if __name__ == "__main__":
    main()
