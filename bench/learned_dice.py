"""Frames per second of the dice readers on 1280x720 rendered frames, one OpenCV thread (one core).

Baseline in the same run: the classical reader (vision.dice.read_dice's DiceReader). Compared: the
learned detector alone (boxes only), the combination (learned boxes re-scored by the classical
verifier, classical value nets per crop with 8, 2 or 1 rotations), the same with 640-px tiles, and
the crops reader (low-confidence learned boxes judged and read by the learned crop network).
Timed in CPU seconds of this process with one OpenCV and onnxruntime thread (one core).
Usage: python bench/learned_dice.py [--frames N] [--runs N]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import cv2
import numpy as np

from datasets.dice import random_scene
from vision.dice.reader import DiceReader
from vision.learned.reader import MODELS, LearnedDiceReader


def fps(fn: Callable[[np.ndarray], object], frames: list[np.ndarray], runs: int) -> float:
    fn(frames[0])  # warm-up (first DNN call allocates)
    t = time.process_time()  # this process's CPU time: other jobs on a shared machine do not count
    for _ in range(runs):
        for f in frames:
            fn(f)
    return runs * len(frames) / (time.process_time() - t)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=4)
    ap.add_argument("--runs", type=int, default=2)
    args = ap.parse_args()
    cv2.setNumThreads(1)
    frames = [random_scene(np.random.default_rng([99, k]), (1280, 720), n_dice=8)[0]
              for k in range(args.frames)]
    die = MODELS / "dice_die_n320.onnx"
    detector = LearnedDiceReader(die, mode="combo")
    readers: dict[str, Callable[[np.ndarray], object]] = {
        "classical (baseline)": DiceReader().read,
        "learned boxes only": detector.boxes,
        "combo, tta 8": detector.read,
        "combo, tta 2": LearnedDiceReader(die, mode="combo", tta=2).read,
        "combo, tta 1": LearnedDiceReader(die, mode="combo", tta=1).read,
        "combo, tiles 640, tta 1": LearnedDiceReader(die, mode="combo", tile=640, tta=1).read,
        "crops (default), tta 4": LearnedDiceReader(die, mode="crops", tta=4).read,
        "crops, tta 1": LearnedDiceReader(die, mode="crops", tta=1).read,
        "crops, tiles 640, tta 4": LearnedDiceReader(die, mode="crops", tile=640, tta=4).read,
    }
    base = None
    print(f"{len(frames)} frames 1280x720, 8 dice each, {args.runs} runs, one thread, CPU time; "
          f"detector backend {detector.net.backend}")
    for name, fn in readers.items():
        v = fps(fn, frames, args.runs)
        base = base or v
        print(f"{name:>26}: {v:7.1f} fps  ({1000 / v:6.1f} ms/frame)  x{v / base:.2f} vs classical")


if __name__ == "__main__":
    main()
