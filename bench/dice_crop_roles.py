"""How many crops the dice road's crop network runs on the referee loop as bench/run_all.py runs it (the
bundled recording's first N frames, a fresh hub, match and adapter that learned the first frame, after
a reader-alone pass), by what asked for them: a tray or pool die's re-framing read (`refine`: its six
boxes' first views and re-framing crops), the best box's turned views (`_views`), its rivals' views
(`_rivals`), the re-framed box read again (`read_best_above`), a cell's plain read, the glimpse,
the best box's first turned views of a quick read (`_sure`, dicefps8b). Counts
only (deterministic): compare two checkouts by running it with each on PYTHONPATH.

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=. .venv/bin/python bench/dice_crop_roles.py [--frames 40]

docs/benchmarks/readers.md ("Highway dice road: the re-framed die's views stop early")."""

from __future__ import annotations

import argparse
import collections
import itertools
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=40)
    args = ap.parse_args()

    from run_all import demo_loop  # bench/ is on the path when run as a script

    import vision.learned.crops as crops_mod
    import vision.zones as zones
    from referee_app.demo import bundled_demos
    from referee_app.games import get_adapter

    stack: list[str] = []
    crops: collections.Counter[str] = collections.Counter()
    runs: collections.Counter[str] = collections.Counter()
    run = crops_mod.OnnxModel.run

    def counted(self: Any, blob: Any) -> Any:
        role = "/".join(stack) or "other"
        crops[role] += len(blob)
        runs[role] += 1
        return run(self, blob)

    def tagged(fn: Callable[..., Any], tag: Callable[..., str]) -> Callable[..., Any]:
        def inner(*a: Any, **k: Any) -> Any:
            stack.append(tag(*a, **k))
            try:
                return fn(*a, **k)
            finally:
                stack.pop()
        return inner

    crops_mod.OnnxModel.run = counted  # type: ignore[method-assign]
    for cls, name in ((crops_mod.CropReader, "_views"), (crops_mod.CropReader, "_rivals"),
                      (crops_mod.CropReader, "read_best_above"), (crops_mod.CropReader, "_sure"),
                      (zones.ZoneDiceReader, "_glimpse")):
        if hasattr(cls, name):  # (read_best_above: not on a checkout before dicefps8)
            setattr(cls, name, tagged(getattr(cls, name), lambda *a, _n=name, **k: _n))
    zones.ZoneDiceReader._crop_read = tagged(  # type: ignore[method-assign]
        zones.ZoneDiceReader._crop_read,
        lambda self, image, box, refine=False, *a, **k: "refine" if refine else "plain")

    demo = next(d for d in bundled_demos() if d.game == "highway-dice")
    frames = list(itertools.islice(demo.frames(realtime=False), args.frames))
    warm = get_adapter(demo.game)
    for f in [frames[0], *frames]:  # run_all's reader-alone pass
        warm.read(f)
    crops.clear()
    runs.clear()
    with tempfile.TemporaryDirectory() as tmp:
        hub, loop = demo_loop(demo, frames, Path(tmp))
        loop.run()
        hub.bus.drain()
        hub.bus.close()
    for role, n in crops.most_common():
        print(f"{n:6d} crops {runs[role]:5d} runs  {role}")
    print(f"{sum(crops.values()):6d} crops {sum(runs.values()):5d} runs  in all, {len(frames)} frames")


if __name__ == "__main__":
    main()
