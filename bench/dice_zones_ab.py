"""The dice road loop as bench/run_all.py measures it (the bundled recording's first 12 frames, a fresh
hub, match and adapter per pass that learned the first frame, models loaded), with another checkout's
`vision/zones.py` steps against this tree's, alternated pass by pass in one process so that both see
the same load (on the shared machine separate runs scatter by more than the difference). The steps
swapped: `_prep_exact`, `_nccs` and `ZoneDiceReader._apply_refreshes` (what branch dicefps5 changed);
the rest of the loop is this tree's in both. Prints, for each, the median and best pass and the sum of
each frame's least CPU over the passes (fps, CPU time), and the median ratio of paired passes.

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=. .venv/bin/python bench/dice_zones_ab.py ../main-checkout [--passes 10]

docs/benchmarks/readers.md ("the per-pixel normalisation's cost cut")."""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def main() -> None:
    import cv2

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base", type=Path, help="the other checkout (its vision/zones.py is loaded)")
    ap.add_argument("--passes", type=int, default=10, help="passes of each")
    args = ap.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    cv2.setNumThreads(1)
    from run_all import _restamp

    import vision.zones as zn
    from referee_app.demo import bundled_demos
    from referee_app.games import get_adapter
    from referee_app.hub import Hub
    from referee_app.loop import RefereeLoop
    from referee_app.store import MatchStore

    spec = importlib.util.spec_from_file_location("base_zones", args.base / "vision" / "zones.py")
    assert spec is not None and spec.loader is not None
    other = importlib.util.module_from_spec(spec)
    sys.modules["base_zones"] = other  # (dataclasses look their module up)
    spec.loader.exec_module(other)
    steps: dict[str, dict[str, Any]] = {
        name: {"_prep_exact": mod._prep_exact, "_nccs": mod._nccs,
               "_apply_refreshes": mod.ZoneDiceReader._apply_refreshes}
        for name, mod in (("base", other), ("this", zn))}

    def use(name: str) -> None:
        zn._prep_exact, zn._nccs = steps[name]["_prep_exact"], steps[name]["_nccs"]
        zn.ZoneDiceReader._apply_refreshes = steps[name]["_apply_refreshes"]

    demo = next(d for d in bundled_demos() if d.game == "highway-dice")
    frames = list(itertools.islice(demo.frames(realtime=False), 12))
    m = demo.manifest
    for name in steps:  # models loaded, kernels compiled, buffers made: as run_all's warm-up leaves them
        use(name)
        warm = get_adapter(demo.game)
        for f in [frames[0], *frames]:
            warm.read(f)
    totals: dict[str, list[float]] = {name: [] for name in steps}
    per: dict[str, list[list[float]]] = {name: [[] for _ in frames] for name in steps}
    with tempfile.TemporaryDirectory() as tmp:
        for p in range(2 * args.passes):
            name = ("base", "this")[p % 2]
            use(name)
            hub = Hub(MatchStore(Path(tmp) / f"p{p}"))
            session = hub.create_match(demo.game, list(m["players"]), dict(m.get("variant") or {}))
            fresh = get_adapter(demo.game).__class__()
            fresh.read(frames[0])
            loop = RefereeLoop(hub, session, fresh, iter(()), int(m.get("frames_needed", 3)))
            start = time.process_time()
            for i, f in enumerate(_restamp(frames)):
                t = time.process_time()
                loop.process(f)
                per[name][i].append(time.process_time() - t)
            hub.bus.drain()
            totals[name].append(time.process_time() - start)
            hub.bus.close()
    out: dict[str, Any] = {
        name: {"median_fps": round(len(frames) / statistics.median(totals[name]), 2),
               "best_fps": round(len(frames) / min(totals[name]), 2),
               "least_sum_fps": round(len(frames) / sum(min(x) for x in per[name]), 2)}
        for name in steps}
    out["base_over_this_median"] = round(statistics.median(
        a / b for a, b in zip(totals["base"], totals["this"], strict=True)), 3)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
