"""fit_height per call, the plain copy in tests/test_tokyo_fit_height_window.py against the current one,
on the recorded scene's blobs and column-size boxes round their middles (CPU ms, best of 3).

    PYTHONPATH=. python bench/results/tokyofit/micro.py
"""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee_app.games.tokyo import load_calibration
from vision.tokyo.foreground import BRIGHT, pieces_masks
from vision.tokyo.supports import find_blobs, fit_height

TEST = Path(__file__).resolve().parents[3] / "tests" / "test_tokyo_fit_height_window.py"


def main() -> None:
    spec = importlib.util.spec_from_file_location("plain", TEST)
    assert spec is not None and spec.loader is not None
    t = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(t)
    calib = load_calibration(t.DEMO / "calibration.json")[0]
    cases: list[tuple[np.ndarray, tuple[int, int, int, int]]] = []
    for name in ("003.jpg", "009.jpg", "018.jpg"):
        image = cv2.imread(str(t.DEMO / name))
        (fg,), _ = pieces_masks(image, (BRIGHT,))
        cases += [(fg, b.bbox) for b in find_blobs(image, fg, 6.0, np.zeros(fg.shape, np.uint8))]
    for fg, (x0, y0, x1, y1) in list(cases):  # a bare column's box is some 20 x 60 px
        cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
        cases.append((fg, (cx - 12, cy - 30, cx + 12, cy + 30)))

    def run(fn: Any, sel: list[Any]) -> float:
        t0 = time.process_time()
        for fg, box in sel:
            fn(calib, fg, box, None, hw=6.0)
        return (time.process_time() - t0) / len(sel) * 1000

    half = len(cases) // 2
    for label, sel in (("whole blobs", cases[:half]), ("column-size boxes", cases[half:])):
        old, new = [], []
        for _ in range(3):
            old.append(run(t._fit_height_plain, sel))
            new.append(run(fit_height, sel))
        print(f"{label}: plain {min(old):.1f} ms/call, new {min(new):.1f} ms/call")


if __name__ == "__main__":
    main()
