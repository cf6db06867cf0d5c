"""Frames per second of the Railroad Ink sheet reader on 1280x720 camera frames.

Baseline (same run, same frames): locating the sheet from its markers alone.
Usage: python bench/sheets_fps.py [--frames N]
"""

from __future__ import annotations

import numpy as np
from _fps import against_localisation, bench_args

from datasets.sheets.scenes import random_content, sheet_scene
from vision.localise import SheetSpec
from vision.sheets import geometry as g
from vision.sheets.reader import read_sheet


def main() -> None:
    args = bench_args(__doc__, frames=4, repeat=2)
    frames = [
        sheet_scene(random_content(np.random.default_rng(k)), k, effects=0.5)[0] for k in range(args.frames)
    ]
    spec = SheetSpec(g.SHEET, *g.SHEET_MM)
    name = "read_sheet (localise + 49 squares)"
    against_localisation(read_sheet, frames, args.repeat, spec, "49 squares each", name)


if __name__ == "__main__":
    main()
