"""Frames per second of the Railroad Ink dice reader on 1280x720 camera frames.

Baseline (same run, same frames): locating the tray from its markers alone. Run twice: on frames as
the recorded matches render them, and on the same frames with a 6 px motion blur, where most faces
lose their frame contour and are found by the size search instead.
Usage: python bench/route_dice_fps.py [--frames N]
"""

from __future__ import annotations

import numpy as np
from _fps import against_localisation, bench_args

from datasets.camera import motion_blur
from datasets.route_dice.scenes import render_route_dice_frame
from vision.localise import SheetSpec
from vision.route_dice import geometry as g
from vision.route_dice.faces import FACES
from vision.route_dice.reader import read_route_dice


def main() -> None:
    args = bench_args(__doc__, frames=6, repeat=3)
    rng = np.random.default_rng(0)
    frames = [
        render_route_dice_frame([str(f) for f in rng.choice(FACES, 6)], seed=k) for k in range(args.frames)
    ]
    spec = SheetSpec(g.SHEET, *g.SHEET_MM)
    name = "read_route_dice (localise + find + classify)"
    against_localisation(read_route_dice, frames, args.repeat, spec, "6 dice each", name)
    blurred = [motion_blur(f, 6, 40.0 * k) for k, f in enumerate(frames)]
    against_localisation(read_route_dice, blurred, args.repeat, spec, "6 dice each, 6 px motion blur", name)


if __name__ == "__main__":
    main()
