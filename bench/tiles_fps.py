"""Frames per second of the numbered-piece reader on 1280x720 camera frames.

Baseline (same run, same frames): locating the board from its markers alone, which every reader
pays; the ratio says how much the reading itself adds. Usage: python bench/tiles_fps.py [--frames N]
"""

from __future__ import annotations

import numpy as np
from _fps import against_localisation, bench_args

from datasets.tiles.scenes import random_board, render_grid_frame
from vision.localise import SheetSpec
from vision.tiles import geometry as g
from vision.tiles.reader import read_grid_board


def main() -> None:
    args = bench_args(__doc__, frames=6, repeat=3)
    rng = np.random.default_rng(0)
    frames = [render_grid_frame(random_board(rng, 0.8), seed=k) for k in range(args.frames)]
    spec = SheetSpec(g.SHEET, *g.SHEET_MM)
    name = "read_grid_board (localise + 16 cells)"
    against_localisation(read_grid_board, frames, args.repeat, spec, "~13 pieces each", name)


if __name__ == "__main__":
    main()
