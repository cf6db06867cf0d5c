"""The Tokyo Highway mat (A3) printed on A4 tiles and taped together, against the one-piece print: how
well `tokyo calibrate` still finds the camera from the mat's four corner markers, one on each corner
tile (docs/formats/printing-tiles.md). Per seed: a new taping (gaps 2-3 mm, turns up to 1 degree, the
rows slid up to 2 mm), the Tokyo default camera (1280 x 720, 550 mm, 40 degrees, 50 degree lens) aimed
as `eval match` aims it. The Tokyo reader reads no marker while refereeing: this calibration is all the
mat's markers are for.
Run: .venv/bin/python bench/tokyo_mat_tiles.py [--seeds 1-8]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
from pathlib import Path

import cv2
import numpy as np

from datasets.dice.assembled import assemble
from datasets.dice.scenes import render_dice_on_sheet
from datasets.match_sim import Setup
from datasets.match_sim.core import camera_pose
from referee_app.cli import main as cli
from referee_app.commands.tokyo_calibrate import calibrate_from_mat
from vision.tiled import tiled_sheet_from_json

DPI = 100.0
MAT = (420.0, 297.0)


def _rgb(path: Path) -> np.ndarray:
    return cv2.cvtColor(cv2.imread(str(path), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", default="1-8", help="first-last (default 1-8)")
    args = p.parse_args()
    lo, hi = (int(v) for v in args.seeds.split("-"))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        with contextlib.redirect_stdout(io.StringIO()):
            for extra, where in ((["--paper", "a4"], "tiles"), ([], "one")):
                if cli(["print", "tokyo-mat", "--size", "a3", *extra, "--out", str(out / where),
                        "--dpi", f"{DPI:g}"]) != 0:
                    return 1
        meta = json.loads((out / "tiles" / "tokyo-mat-a3-a4-tiles.json").read_text())
        plan = tiled_sheet_from_json(meta)
        pages = {t.name: _rgb(out / "tiles" / f"tokyo-mat-a3-a4-{t.name}.png") for t in plan.tiles}
        one = _rgb(next((out / "one").glob("*.png")))
    on_page = {t["tile"]: tuple(t["tile_on_page_mm"]) for t in meta["tiles"]}
    setup = Setup(1280, 720, 550.0, 40.0, fov_deg=50.0)
    for focal in (True, False):
        results: dict[str, list[tuple[float, float]]] = {"one piece": [], "a4 tiles": []}
        failed = dict.fromkeys(results, 0)
        for seed in range(lo, hi + 1):
            rng = np.random.default_rng(seed)
            sheet = assemble(pages, plan, on_page, DPI / 25.4, rng, (2.0, 3.0), 1.0, 1.0)
            views = {"one piece": (one, MAT), "a4 tiles": (sheet.image, sheet.size_mm)}
            for name, (image, size) in views.items():
                pose = camera_pose(setup, size, np.random.default_rng(seed + 100))
                view, _ = render_dice_on_sheet(image, size, [], pose, effects=0.0)
                try:
                    calib, err = calibrate_from_mat(view, MAT, float(pose.K[0, 0]) if focal else None)
                except ValueError:
                    failed[name] += 1
                    continue
                results[name].append((err, abs(float(calib.camera.centre[2]) - setup.height_mm)))
        print("focal length given (--focal-px):" if focal else "focal length found from the photo:")
        for name, rows in results.items():
            errs, dh = np.array([r[0] for r in rows]), np.array([r[1] for r in rows])
            print(f"  {name:10s} calibrated {len(rows)} of {len(rows) + failed[name]}; RMS reprojection "
                  f"{errs.mean():.2f} px (max {errs.max():.2f}); camera height off by {dh.mean():.1f} mm "
                  f"(max {dh.max():.1f})" if rows else f"  {name:10s} calibrated 0")
    return 0


if __name__ == "__main__":
    sys.exit(main())
