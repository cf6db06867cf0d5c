"""The dice-road board printed on A4 tiles and taped together, read zone by zone, against the one-piece
print (docs/formats/printing-tiles.md). Per seed: a new assembly (gaps 2-3 mm, turns up to 0.8
degrees), a new camera, 12 dice beside and across the seams; four readers: the one-piece print,
the assembled board with one homography from the corner markers (the reader before tiles), the
assembled board on the flat top view with the tiles' fits blended (the tiled reader before the 3D
one), and the assembled board read tile by tile in 3D (what the referee does). CPU time per read
(process time).
Run: .venv/bin/python bench/dice_board_tiles.py [--seeds 21-28] [--empty-frames 1]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from datasets.dice.assembled import assemble, photograph, seam_dice, seam_expected
from engine.dice_road import load_board
from referee_app.cli import main as cli
from referee_app.games.dice import BoardDiceReader, DiceAdapter
from vision.tiled import tiled_sheet_from_json

DPI = 100.0


def _rgb(path: Path) -> np.ndarray:
    return cv2.cvtColor(cv2.imread(str(path), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)


def _read(empty: np.ndarray, full: np.ndarray, one_homography: bool = False,
          flat: bool = False, empty_frames: int = 1) -> tuple[dict, float]:
    adapter = DiceAdapter()
    if flat:  # the tiled reader before the 3D one: the blended flat top view, the crop reader first
        adapter._reader = BoardDiceReader(geometry="flat", value_order="learned")
    for _ in range(empty_frames):
        adapter.read(empty)
    if one_homography:  # read the assembled board as if it were one sheet, from its corner markers
        reader = adapter._reader
        reader.tiled, reader.localiser.calibration = False, None
        reader.zones.relearn()
        adapter.read(empty)
    t = time.process_time()
    items = adapter.read(full).items
    return items, time.process_time() - t


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", default="21-28", help="first-last (default 21-28)")
    p.add_argument("--empty-frames", type=int, default=1,
                   help="how many times the empty board is shown first (a match starts with it filmed "
                        "for several frames; a tiled window waits up to 5 frames for its tile's markers)")
    args = p.parse_args()
    lo, hi = (int(v) for v in args.seeds.split("-"))
    board, want = load_board(), seam_expected()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        for extra in (["--paper", "a4"], []):
            if cli(["print", "highway-dice", *extra, "--out", tmp, "--dpi", f"{DPI:g}"]) != 0:
                return 1
        meta = json.loads((out / "highway-dice-default-a4-tiles.json").read_text())
        plan = tiled_sheet_from_json(meta)
        pages = {t.name: _rgb(out / f"highway-dice-default-a4-{t.name}.png") for t in plan.tiles}
        one = _rgb(out / "highway-dice-default.png")
    on_page = {t["tile"]: tuple(t["tile_on_page_mm"]) for t in meta["tiles"]}
    readers = ("one piece", "tiles, one homography", "tiles, per tile, flat", "tiles, per tile, 3d")
    totals = {k: np.zeros(3) for k in readers}
    for seed in range(lo, hi + 1):
        sheet = assemble(pages, plan, on_page, DPI / 25.4, np.random.default_rng(seed))
        e, f = photograph(sheet.image, sheet.size_mm, seam_dice(board, sheet.where), seed)
        flat = seam_dice(board, lambda x, y: (x, y))
        e1, f1 = photograph(one, (float(board.width), float(board.height)), flat, seed)
        line = []
        views = {"one piece": (e1, f1, False, False), "tiles, one homography": (e, f, True, False),
                 "tiles, per tile, flat": (e, f, False, True), "tiles, per tile, 3d": (e, f, False, False)}
        for name, (a, b, single, flat) in views.items():
            items, cpu = _read(a, b, single, flat, args.empty_frames)
            right = sum(items.get(k) == v for k, v in want.items())
            wrong = sum(1 for k, v in items.items() if want.get(k) != v)
            totals[name] += (right, wrong, cpu)
            line.append(f"{name}: {right} right {wrong} wrong")
        print(f"seed {seed}: " + "; ".join(line), flush=True)
    n = (hi - lo + 1)
    print(f"of {n * len(want)} zones:")
    for name, (right, wrong, cpu) in totals.items():
        print(f"  {name:24s} {int(right)} right, {int(wrong)} wrong, {cpu / n:.3f} s CPU per read")
    return 0


if __name__ == "__main__":
    sys.exit(main())
