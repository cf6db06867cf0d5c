"""The timing harness the reader benches share (`python bench/<reader>_fps.py` puts bench/ on the path).

A reader is timed against the marker localisation it pays on every frame, on the same frames in the
same run, so the ratio says how much the reading itself adds.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from vision.localise import SheetSpec, localise


def fps(fn: Callable[[np.ndarray], object], frames: list[np.ndarray], repeat: int) -> float:
    fn(frames[0])  # warm-up (loads the model)
    t0 = time.perf_counter()
    for _ in range(repeat):
        for f in frames:
            fn(f)
    return repeat * len(frames) / (time.perf_counter() - t0)


def bench_args(doc: str | None, frames: int, repeat: int) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=doc)
    ap.add_argument("--frames", type=int, default=frames)
    ap.add_argument("--repeat", type=int, default=repeat)
    return ap.parse_args()


def against_localisation(
    read: Callable[[np.ndarray], object],
    frames: list[np.ndarray],
    repeat: int,
    spec: SheetSpec,
    each: str,
    name: str,
) -> None:
    """Print frames per second of `read` (called `name`) and of localising `spec` alone, and their ratio."""
    base = fps(lambda f: localise(f, spec), frames, repeat)
    reader = fps(read, frames, repeat)
    print(f"frames: {len(frames)} x {repeat}, 1280x720, {each}")
    print(f"baseline (marker localisation only): {base:.1f} fps")
    print(f"{name}: {reader:.1f} fps")
    print(f"ratio reader/baseline time: {base / reader:.2f}x")
