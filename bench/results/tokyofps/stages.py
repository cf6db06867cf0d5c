"""Per-stage CPU of the Tokyo referee loop (bench/tokyo_loop.py's run_loop over the bundled match's first
40 frames, the frames bench/run_all.py's readers section times), each function timed where it is looked
up by a wrapper summing process time (nested calls of one function counted once):

    cd CHECKOUT && OPENBLAS_NUM_THREADS=1 PYTHONPATH=$PWD python bench/results/tokyofps/stages.py [passes]
"""

from __future__ import annotations

import collections
import importlib
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path.cwd() / "bench"))
import cv2  # noqa: E402

cv2.setNumThreads(1)
import tokyo_loop as tl  # noqa: E402

ACC: collections.defaultdict[str, float] = collections.defaultdict(float)
COUNT: collections.Counter[str] = collections.Counter()
SITES = {
    "vision.tokyo.reader": ["pieces_masks", "_glare_and_objects", "_probe_hand", "detect_sticks",
                            "faint_sticks", "find_blobs", "_columns_calibrated", "_crossings",
                            "cars_on_sticks",
                            "rod_half_width_floor", "trim_column_runs", "extend_hidden_ends", "_sticks",
                            "estimate_table", "large_objects", "glare_masks", "distance_l2"],
    "vision.tokyo.stereo": ["read_tokyo", "fuse_views"],
    "vision.tokyo.foreground": ["_classify", "_normalised_table", "_table_planes", "_thumb"],
    "vision.tokyo.columns": ["_base_scores", "_body_scores_all"],
    "vision.tokyo.sticks": ["_run_on_line", "_fit_line", "_refine_axis", "_extend_ends", "_axis_half_width"],
    "referee_app.games.tokyo": ["read_builds", "camera_drift", "column_bodies", "annotate"],
    "cv2": ["HoughLines", "GaussianBlur", "resize", "medianBlur", "morphologyEx", "distanceTransform"],
}


def wrap(owner: Any, name: str, label: str) -> None:
    f = getattr(owner, name)
    depth = [0]

    def timed(*a: Any, **k: Any) -> Any:
        if depth[0]:
            return f(*a, **k)
        depth[0] += 1
        t = time.process_time()
        try:
            return f(*a, **k)
        finally:
            ACC[label] += time.process_time() - t
            COUNT[label] += 1
            depth[0] -= 1

    setattr(owner, name, timed)


def main() -> None:
    for module, names in SITES.items():
        mod = importlib.import_module(module)
        for name in names:
            if hasattr(mod, name):
                wrap(mod, name, f"{module.split('.')[-1]}.{name}")
    from referee_app.games import tokyo, tokyo_reuse

    wrap(tokyo.TokyoAdapter, "_table", "TokyoAdapter._table")
    wrap(tokyo.TokyoAdapter, "_build_views", "TokyoAdapter._build_views")
    wrap(tokyo_reuse.StillViews, "settle", "StillViews.settle")
    demo, frames = tl._frames(40)
    tl.run_loop(frames, demo)  # warm-up pass (numba caches, the fit memo's own adapter is fresh each pass)
    passes = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    ACC.clear()
    COUNT.clear()
    total = sum(tl.run_loop(frames, demo)[0] for _ in range(passes))
    print(f"loop CPU {total / passes:.3f} s / {len(frames)} frames -> {len(frames) * passes / total:.2f} fps")
    for k, v in sorted(ACC.items(), key=lambda x: -x[1]):
        print(f"{k:40s} {1000 * v / passes:8.1f} ms/pass  {COUNT[k] // passes:5d} calls")


if __name__ == "__main__":
    main()
