"""Frames per second of read_tokyo on a 1280x720 render with 20 sticks.

Baseline measured in the same run: OpenCV's probabilistic Hough transform on Canny edges of the same
frame (a bare line finder with no stick pairing, supports, heights or crossings), so the ratio says what
the full reading costs over the cheapest line detection. Two and three views: the same scene from more
cameras (datasets.tokyo.render_tokyo_views), read with vision.tokyo.stereo.read_tokyo_views; its rate is
sets of frames per second, against the calibrated one-view reading of the first frame in the same run; the
fusion alone is timed on the columns only and on everything (junctions and sticks need the images).
The faint-stick pass (sticks coloured like the table) is timed alone, as a share of the calibrated reading.
Usage: python bench/tokyo_vision.py [--runs N]
"""

from __future__ import annotations

import argparse
import time

import cv2
import numpy as np

from datasets.tokyo import random_scene, render_tokyo_frame
from datasets.tokyo.views import render_tokyo_views
from vision.tokyo import TokyoCalibration, read_tokyo
from vision.tokyo.faint_sticks import FAINT_CHROMA, faint_sticks
from vision.tokyo.foreground import BRIGHT, CHROMA, pieces_masks
from vision.tokyo.reader import STICK_BRIGHT
from vision.tokyo.stereo import fuse_views, read_tokyo_views
from vision.tokyo.sticks import detect_sticks


def _baseline(image: np.ndarray) -> int:
    edges = cv2.Canny(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), 50, 150)
    lines = cv2.HoughLinesP(edges, 1, np.pi / 360, 60, minLineLength=60, maxLineGap=10)
    return 0 if lines is None else len(lines)


def _fps(fn, image, runs: int) -> float:
    fn(image)  # warm-up
    t = time.perf_counter()
    for _ in range(runs):
        fn(image)
    return runs / (time.perf_counter() - t)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    rng = np.random.default_rng(2026)
    for seed in range(50):
        scene = random_scene(np.random.default_rng(seed), n_sticks=20)
        if len(scene["sticks"]) >= 20:
            break
    frame_seed = int(rng.integers(1 << 30))
    image, labels = render_tokyo_frame(scene, frame_seed, width=1280, height=720)
    n = sum(1 for o in labels["objects"] if o["kind"] == "stick")
    base = _fps(_baseline, image, args.runs * 5)
    unc = _fps(lambda im: read_tokyo(im, None), image, args.runs)
    cal = _fps(lambda im: read_tokyo(im, labels["calibration"]), image, args.runs)
    print(f"frame 1280x720, {n} sticks, {len(labels['supports'])} supports")
    print(f"baseline Canny+HoughLinesP   {base:8.2f} fps")
    print(f"read_tokyo uncalibrated      {unc:8.2f} fps   ratio to baseline {unc / base:.4f}")
    print(f"read_tokyo calibrated        {cal:8.2f} fps   ratio to baseline {cal / base:.4f}")
    # the faint-stick pass (sticks coloured like the table) on its own, from the reader's masks
    gains, chromas = (BRIGHT, STICK_BRIGHT, STICK_BRIGHT), (CHROMA, CHROMA, FAINT_CHROMA)
    (_, rods, faint), _ = pieces_masks(image, gains, chromas)
    raw, hw = detect_sticks(image, rods)
    fnt = _fps(lambda im: faint_sticks(im, rods, faint, raw, hw), image, args.runs * 5)
    print(f"faint-stick pass alone       {fnt:8.2f} /s    share of a calibrated reading {cal / fnt:.4f}")
    for n_views in (2, 3):
        _views(scene, frame_seed, n_views, cal, args.runs)


def _views(scene: dict, frame_seed: int, n_views: int, one_view_fps: float, runs: int) -> None:
    """Reading and fusion rates for the scene seen by n_views cameras."""
    views = render_tokyo_views(scene, frame_seed, n_views, width=1280, height=720)
    images = [im for im, _ in views]
    calibs = [lab["calibration"] for _, lab in views]
    sets = _fps(lambda _: read_tokyo_views(images, calibs), None, runs)
    obs = [read_tokyo(im, c) for im, c in zip(images, calibs, strict=True)]
    tc = [TokyoCalibration.from_dict(c) for c in calibs]
    fuse = _fps(lambda _: fuse_views(obs, tc), None, runs * 20)
    fuse_all = _fps(lambda _: fuse_views(obs, tc, images), None, runs * 5)
    print(f"read_tokyo_views, {n_views} frames   {sets:8.2f} sets/s   ratio to calibrated one view "
          f"{sets / one_view_fps:.4f}")
    print(f"fuse_views alone, columns    {fuse:8.2f} /s")
    print(f"fuse_views alone, all        {fuse_all:8.2f} /s   (columns, junctions, sticks: with the images)")

if __name__ == "__main__":
    main()
