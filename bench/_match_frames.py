"""Saving a simulated match's frames once and handing them back to the eval-match loop, shared by the
per-game replay benches (dice_match_frames.py, rri_match_frames.py)."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import cv2


def save_frames(sim: Any, folder: str | Path) -> None:
    """Write every frame the loop would get, as PNG (lossless: exactly as the loop gets them)."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.process_time()
    n = 0
    for n, frame in enumerate(sim.frames(), 1):
        cv2.imwrite(str(out / f"{n - 1:04d}.png"), frame.image, [cv2.IMWRITE_PNG_COMPRESSION, 1])
    print(f"{n} frames in {out} ({time.process_time() - t0:.0f} CPU s)")


def saved_frames(sim: Any, folder: str | Path,
                 on_frame: Callable[[int, int], None] | None = None) -> Callable[[], Iterator[Any]]:
    """A `frames()` for `sim` that reads the saved frames instead of drawing them; `on_frame(scene,
    k)` is told which scene and frame number is handed out next (a logger's truth)."""
    from datasets.match_sim.core import SimFrame

    folder = Path(folder)

    def frames() -> Iterator[SimFrame]:
        k = 0
        for i, scene in enumerate(sim.scenes):
            for j in range(scene.hold):
                image = cv2.imread(str(folder / f"{k:04d}.png"), cv2.IMREAD_COLOR)
                if image is None:
                    raise SystemExit(f"frame {k} missing in {folder}: save the match first")
                if on_frame is not None:
                    on_frame(i, k)
                yield SimFrame(image, i, scene.checkpoint if j == scene.hold - 1 else None)
                k += 1

    return frames


def add_setup(ap: argparse.ArgumentParser, camera: str, height: float, tilt: float,
              light: bool = True) -> None:
    """The match benches' `SEED` and camera set-up options, with a bench's default set-up."""
    ap.add_argument("seed", type=int)
    ap.add_argument("--camera", default=camera)
    ap.add_argument("--height", type=float, default=height)
    ap.add_argument("--tilt", type=float, default=tilt)
    if light:
        ap.add_argument("--light", default="normal")


def match_parser(doc: str, camera: str, height: float, tilt: float) -> argparse.ArgumentParser:
    """The replay benches' common command line (`save|replay SEED DIR` and the set-up), with each
    game's default set-up; a bench adds its own options."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("what", choices=("save", "replay"))
    add_setup(ap, camera, height, tilt)
    ap.add_argument("dir")
    ap.add_argument("--hands", action="store_true")
    ap.add_argument("--log", default=None)
    return ap
