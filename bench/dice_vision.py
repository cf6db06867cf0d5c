"""Frames per second of the full dice path (find, verify, read value and colour) on a 1280x720 frame
with 10 dice, on one core (OpenCV and onnxruntime limited to one thread; CPU time of this process is
what counts, so other jobs on the machine do not distort it).

Baseline, measured in the same run: the classical reader without knowing the die size (full image
pyramid for dice of 20..72 px). Then the classical reader calibrated to the die size (+-15 %), and the
reader `eval dice` and the referee use: learned box proposals read by the learned crop network
("crops", vision/learned), with 4 views per likely die (default) and with 1, and that reader reading
at any scale (`eval dice --scales any`: this frame's dice are about 10 px at the detector's input, below
its trained size, so it reads tiles too).
Run: .venv/bin/python bench/dice_vision.py [--frames N]
"""

from __future__ import annotations

import os

# one core: BLAS must not spread the small network products over threads (set before numpy loads)
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from datasets.camera import random_pose  # noqa: E402
from datasets.dice.scenes import render_dice_on_sheet  # noqa: E402
from drawing.dice_tray import tray_rgb  # noqa: E402
from vision.dice.reader import DiceReader  # noqa: E402
from vision.dice.tray import TRAY_SIZE_MM  # noqa: E402
from vision.learned.reader import LearnedDiceReader  # noqa: E402


def scene(seed: int = 5) -> tuple[np.ndarray, list[dict]]:
    rng = np.random.default_rng(seed)
    pose = random_pose(rng, TRAY_SIZE_MM, out_size=(1280, 720), tilt_deg=(0, 10), fill=(0.6, 0.6))
    dice = [{"x_mm": 60 + 45 * (k % 5), "y_mm": 70 + 55 * (k // 5), "value": k % 6 + 1,
             "color": ["white", "blue", "green", "yellow", "red"][k % 5], "size_mm": 16, "angle": 17 * k}
            for k in range(10)]
    return render_dice_on_sheet(tray_rgb(3.0), TRAY_SIZE_MM, dice, pose, rng, effects=0.5)


def measure(reader: Any, img: np.ndarray, frames: int) -> tuple[float, float, int]:
    reader.read(img)  # warm-up
    c0, w0 = time.process_time(), time.perf_counter()
    for _ in range(frames):
        n = len(reader.read(img))
    return (time.process_time() - c0) / frames, (time.perf_counter() - w0) / frames, n


def read_right(reader: Any, img: np.ndarray, labels: list[dict]) -> int:
    """Labelled dice found (IoU >= 0.5) with the right value: speed is only worth having if so."""
    from vision.realdata import greedy_match, iou_matrix

    det = reader.read(img)
    gt = np.array([o["bbox"] for o in labels], np.float32)
    pairs = greedy_match(iou_matrix(gt, det.xyxy), 0.5) if len(det) else []
    return sum(int(det.values[j]) == int(labels[i]["value"]) for i, j in pairs)


def compare_models(pairs: list[str], img: np.ndarray, labels: list[dict], frames: int) -> None:
    """The default crops reader (4 views) with each model pair, in one run, so the numbers compare."""
    print(f"frame 1280x720, {len(labels)} dice, one thread, CPU time of the process")
    for pair in pairs:
        label, _, files = pair.partition("=")
        detector, _, crops = files.partition(",")
        r = LearnedDiceReader(Path(detector), mode="crops", crop_model=Path(crops))
        c, w, n = measure(r, img, frames)
        print(f"{label}: crops reader, 4 views: {1 / c:6.2f} fps CPU ({1000 * c:.1f} ms), wall "
              f"{1000 * w:.0f} ms, {n} dice found ({read_right(r, img, labels)} read right); "
              f"30 fps: {1 / c >= 30}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=5)
    ap.add_argument("--models", action="append", default=[], metavar="LABEL=DETECTOR,CROPS",
                    help="only the default crops reader, once per model pair given (e.g. old and new "
                         "models side by side in one run)")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    img, labels = scene()
    if args.models:
        compare_models(args.models, img, labels, args.frames)
        return
    sides = [max(b[2] - b[0], b[3] - b[1]) for b in (o["bbox"] for o in labels)]
    die_px = (0.85 * min(sides), 1.15 * max(sides))  # the calibration's prediction, +-15 %
    base_cpu, base_wall, n0 = measure(DiceReader(), img, args.frames)
    cal_cpu, cal_wall, n1 = measure(DiceReader(die_px=die_px), img, args.frames)
    print(f"frame 1280x720, {len(labels)} dice, die boxes {min(sides):.0f}-{max(sides):.0f} px, one thread")
    print(f"baseline (no calibration, dice 20-72 px): {1 / base_cpu:6.2f} fps CPU "
          f"({1000 * base_cpu:.0f} ms), "
          f"wall {1000 * base_wall:.0f} ms, {n0} dice found")
    print(f"calibrated (dice {die_px[0]:.0f}-{die_px[1]:.0f} px):        {1 / cal_cpu:6.2f} fps CPU "
          f"({1000 * cal_cpu:.0f} ms), wall {1000 * cal_wall:.0f} ms, {n1} dice found")
    fast_cpu, fast_wall, n2 = measure(DiceReader(die_px=die_px, tta=2, tta_scales=(1.0,)), img, args.frames)
    print(f"calibrated, light value reading (2 views instead of 24): {1 / fast_cpu:6.2f} fps CPU "
          f"({1000 * fast_cpu:.0f} ms), wall {1000 * fast_wall:.0f} ms, {n2} dice found")
    default_cpu = base_cpu
    for tta in (4, 1):
        r = LearnedDiceReader(mode="crops", tta=tta)
        c, w, n = measure(r, img, args.frames)
        print(f"crops reader ({r.net.backend}), {tta} view(s) per likely die: {1 / c:6.2f} fps CPU "
              f"({1000 * c:.0f} ms), wall {1000 * w:.0f} ms, {n} dice found ({read_right(r, img, labels)} "
              f"read right), x{base_cpu / c:.1f} vs baseline")
        default_cpu = c if tta == 4 else default_cpu
    r = LearnedDiceReader(mode="crops", any_scale=True)  # re-reads at the trained die size when far from it
    c, w, n = measure(r, img, args.frames)
    print(f"crops reader, any scale (eval dice --scales any): {1 / c:6.2f} fps CPU ({1000 * c:.0f} ms), "
          f"wall {1000 * w:.0f} ms, {n} dice found ({read_right(r, img, labels)} read right)")
    print(f"speed-up over baseline: {base_cpu / cal_cpu:.2f}x (light: {base_cpu / fast_cpu:.2f}x); "
          f"target 30 fps reached by the default reader (crops, 4 views): {1 / default_cpu >= 30}")


if __name__ == "__main__":
    main()
