"""Frames per second of the Railroad Ink referee adapter (tray + sheet in one 1280x720 frame).

Measured: `RailroadInkAdapter.read` (one marker search, the sheet reader on the located sheet, the
route-dice reader on the located tray, the annotated frame). Baseline (same run, same frames): the two
readers called on their own, each finding its sheet's markers itself. Frames: the bundled recorded
match (referee_app/data/demo/railroad-ink).
Usage: python bench/rri_referee_fps.py [--frames N] [--repeat N]
"""

from __future__ import annotations

import argparse

import cv2
import numpy as np
from _fps import fps  # noqa: E402 - bench/ is on the path when run as a script

from referee_app.demo import bundled_demos
from referee_app.games.railroad_ink import RailroadInkAdapter
from vision.route_dice import read_route_dice
from vision.sheets import read_sheet


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    demo = next(d for d in bundled_demos() if d.name == "railroad-ink")
    files = [f["file"] for f in demo.manifest["frames"]]
    step = max(1, len(files) // args.frames)
    frames = [cv2.imread(str(demo.folder / name)) for name in files[::step][: args.frames]]
    adapter = RailroadInkAdapter()

    def separately(image: np.ndarray) -> None:
        read_sheet(image)
        read_route_dice(image)

    base = fps(separately, frames, args.repeat)
    ours = fps(adapter.read, frames, args.repeat)
    h, w = frames[0].shape[:2]
    print(f"frames: {len(frames)} x {args.repeat}, {w}x{h}, sheet (49 squares) + tray (up to 4 dice)")
    print(f"baseline (read_sheet + read_route_dice, each localising itself): {base:.1f} fps")
    print(f"RailroadInkAdapter.read (one marker search, both readers, annotated frame): {ours:.1f} fps")
    print(f"ratio adapter/baseline speed: {ours / base:.2f}x")


if __name__ == "__main__":
    main()
