"""The dice road's zone reader on the same camera frames through views of different resolutions
(vision.board3d.view_px_per_mm), per photo: does a view's px/mm alone change what is read?

A tuning seed's simulated camera (eval match's set-up: camera, height, tilt, its lamp, lens softness,
noise and JPEG) films the empty board, then scenes of two rolled dice in the tray (placed as the
match simulator rolls them) with a die in each pool and a few on cells. Each frame is read as a photo
(`BoardDiceReader(reuse=False)`, the empty board learned from the first frame) once per resolution
asked for; the tray's and pools' readings are compared with the truth. Tuning seeds only (1-50).

    PYTHONPATH=. python bench/dice_view_scale.py 3 --camera 3840x2160 --scenes 30 --ppm auto,2.0
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))  # beside dice_match_frames.py
from _match_frames import add_setup  # noqa: E402
from dice_match_frames import _norm, _truth  # noqa: E402

from referee_app.commands.eval_match import make_setup, simulate


def scenes(seed: int, n: int) -> list[list[dict[str, Any]]]:
    """`n` tables: two dice in the tray (white or blue, any values), pools and a few cells held."""
    from engine.dice_road import SEAT_COLOURS, load_board

    board = load_board()
    rng = np.random.default_rng([seed, 77])
    cells = sorted(board.cells)
    t = board.tray
    out = []
    for _ in range(n):
        colour = SEAT_COLOURS[int(rng.integers(2))]
        dice = [{"x_mm": t.x + t.w * (0.3 + 0.4 * k) + rng.uniform(-8, 8),
                 "y_mm": t.y + t.h * 0.5 + rng.uniform(-15, 15), "value": int(rng.integers(1, 7)),
                 "color": colour, "size_mm": 16.0, "angle": float(rng.uniform(0, 90))} for k in range(2)]
        for s, r in enumerate(board.pools[:2]):
            if rng.random() < 0.5:
                dice.append({"x_mm": r.x + r.w / 2 + rng.uniform(-1.5, 1.5), "y_mm": r.y + r.h / 2
                             + rng.uniform(-1.5, 1.5), "value": int(rng.integers(1, 7)),
                             "color": SEAT_COLOURS[s], "size_mm": 16.0, "angle": float(rng.uniform(-25, 25))})
        for c in rng.choice(cells, int(rng.integers(0, 5)), replace=False):
            cell = board.cells[str(c)]
            dice.append({"x_mm": cell.x + rng.uniform(-1.5, 1.5), "y_mm": cell.y + rng.uniform(-1.5, 1.5),
                         "value": int(rng.integers(1, 7)), "color": SEAT_COLOURS[int(rng.integers(2))],
                         "size_mm": 16.0, "angle": float(rng.uniform(-25, 25))})
        out.append(dice)
    return out


def main() -> None:
    import vision.board3d
    from datasets.match_sim.core import Scene
    from referee_app.games.dice import BoardDiceReader

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_setup(ap, "3840x2160", 850, 30)
    ap.add_argument("--scenes", type=int, default=20)
    ap.add_argument("--ppm", default="auto", help="view px/mm, comma-separated; auto: the reader's own")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    if not 1 <= args.seed <= 50:
        raise SystemExit("tuning seeds only (1-50)")
    sim = simulate("highway-dice", args.seed, make_setup(args.camera, args.height, args.tilt, args.light))
    ph = sim.photographer
    own = vision.board3d.view_px_per_mm
    readers: dict[str, Any] = {}
    for name in args.ppm.split(","):
        readers[name] = BoardDiceReader(reuse=False)
    cpu = dict.fromkeys(readers, 0.0)
    tally: dict[str, dict[str, int]] = {name: {"tray": 0, "pools": 0, "cells": 0} for name in readers}
    wrong: dict[str, list[Any]] = {name: [] for name in readers}
    tables = [[], *scenes(args.seed, args.scenes)]
    for k, content in enumerate(tables):
        frame = ph.expose(ph.light(sim.draw(content, ph.pose), Scene(content, 1), k), k)
        truth = _truth(content)
        for name, reader in readers.items():
            if name != "auto":
                ppm = float(name)
                vision.board3d.view_px_per_mm = lambda *_a, _p=ppm, **_k: _p
            t0 = time.process_time()
            try:
                obs = reader.read(frame)
            finally:
                vision.board3d.view_px_per_mm = own
            cpu[name] += time.process_time() - t0
            if k == 0:
                continue
            for key in sorted(set(truth) | set(obs.items)):
                got, want = _norm(obs.items.get(key)), truth.get(key)
                part = "tray" if key == "tray" else "pools" if key.startswith("pool") else "cells"
                if got != want:
                    tally[name][part] += 1
                    wrong[name].append([k, key, got, want, round(obs.confidence.get(key, 0.0), 3)])
    n = args.scenes
    out = {"seed": args.seed, "camera": args.camera, "height": args.height, "tilt": args.tilt,
           "light": args.light, "scenes": n,
           "ppm": {name: r.px_per_mm for name, r in readers.items()},
           "zones_wrong": tally, "wrong": wrong,
           "cpu_s_per_frame": {name: round(c / (n + 1), 3) for name, c in cpu.items()}}
    print(json.dumps(out))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
