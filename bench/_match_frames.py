"""Saving a simulated match's frames once and handing them back to the eval-match loop, shared by the
per-game replay benches (dice_match_frames.py, rri_match_frames.py)."""

from __future__ import annotations

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
