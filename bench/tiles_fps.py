"""Frames per second of the numbered-piece reader on 1280x720 camera frames.

Baseline (same run, same frames): locating the board from its markers alone, which every reader
pays; the ratio says how much the reading itself adds. Usage: python bench/tiles_fps.py [--frames N]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from datasets.tiles.scenes import random_board, render_grid_frame
from vision.localise import SheetSpec, localise
from vision.tiles import geometry as g
from vision.tiles.reader import read_grid_board


def fps(fn, frames: list[np.ndarray], repeat: int) -> float:
    fn(frames[0])  # warm-up (loads the model)
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
    frames = [render_grid_frame(random_board(rng, 0.8), seed=k) for k in range(args.frames)]
    spec = SheetSpec(g.SHEET, *g.SHEET_MM)
    base = fps(lambda f: localise(f, spec), frames, args.repeat)
    reader = fps(read_grid_board, frames, args.repeat)
    print(f"frames: {len(frames)} x {args.repeat}, 1280x720, ~13 pieces each")
    print(f"baseline (marker localisation only): {base:.1f} fps")
    print(f"read_grid_board (localise + 16 cells): {reader:.1f} fps")
    print(f"ratio reader/baseline time: {base / reader:.2f}x")


if __name__ == "__main__":
    main()
