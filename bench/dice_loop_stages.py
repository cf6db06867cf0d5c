"""Where the dice road's referee loop spends its CPU, as bench/run_all.py measures the loop: the bundled
recording's first N frames, a fresh hub, match and adapter per pass (the adapter has learned the
first frame), after the models were loaded. A process-CPU timer round each named stage (inclusive:
a stage's figure holds the stages it calls); the median pass, and per frame the least of the passes.

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=. .venv/bin/python bench/dice_loop_stages.py [--frames 12] [--passes 5]

It imports the code on PYTHONPATH, so another checkout can be measured with this same script, side by
side (docs/benchmarks/readers.md). The timers cost a little CPU of their own: compare runs of this
script with each other, not with run_all's figures.
"""

from __future__ import annotations

import argparse
import collections
import importlib
import itertools
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

STAGES = """referee_app.loop:RefereeLoop.process
referee_app.decoder.decide:Decoder.push
referee_app.games.dice:BoardDiceReader.read
referee_app.games.dice:BoardDiceReader._localise
referee_app.games.dice:BoardDiceReader._top_view
referee_app.games.dice:_annotate
vision.zones_reuse:ZoneWatch.plan
vision.zones_reuse:ZoneWatch.record
vision.zones:ZoneDiceReader.read
vision.zones:_prep_roi
vision.zones:_changed_mask
vision.zones:ZoneDiceReader._faces_prep
vision.zones:_nccs
vision.zones:ZoneDiceReader._read_zone
vision.zones:ZoneDiceReader._read_cell_on_faces
vision.zones:ZoneDiceReader._dice_beside
vision.zones:ZoneDiceReader._blobs
vision.zones:ZoneDiceReader._apply_refreshes
vision.zones:ZoneDiceReader._light
vision.zones:count_pips
vision.board3d:Parts.part
vision.learned.crops:CropReader.read_best
vision.learned.onnx_model:OnnxModel.run""".split()


def timed(spent: dict[str, float], calls: collections.Counter, name: str,
          fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        t = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[name] += time.process_time() - t
            calls[name] += 1

    return wrapper


def main() -> None:
    import cv2

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from run_all import _restamp

    from referee_app.demo import bundled_demos
    from referee_app.games import get_adapter
    from referee_app.hub import Hub
    from referee_app.loop import RefereeLoop
    from referee_app.store import MatchStore

    cv2.setNumThreads(1)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=12)
    ap.add_argument("--passes", type=int, default=5)
    args = ap.parse_args()
    spent: dict[str, float] = collections.defaultdict(float)
    calls: collections.Counter = collections.Counter()
    for stage in STAGES:
        module, attr = stage.split(":")
        mod = importlib.import_module(module)
        *owner_path, name = attr.split(".")
        owner = getattr(mod, owner_path[0]) if owner_path else mod
        fn = getattr(owner, name)
        wrapped = timed(spent, calls, attr, fn)
        setattr(owner, name, wrapped)
        for other in list(sys.modules.values()):  # a function imported by name elsewhere too
            names = getattr(other, "__dict__", {})
            for key, value in list(names.items()):
                if value is fn:
                    names[key] = wrapped
    demo = next(d for d in bundled_demos() if d.game == "highway-dice")
    frames = list(itertools.islice(demo.frames(realtime=False), args.frames))
    warm = get_adapter(demo.game)
    for f in [frames[0], *frames]:  # models loaded, as run_all's reader-alone pass leaves them
        warm.read(f)
    m = demo.manifest
    passes: list[tuple[float, dict[str, float], dict[str, int]]] = []
    per_frame: list[list[float]] = [[] for _ in frames]
    with tempfile.TemporaryDirectory() as tmp:
        for p in range(args.passes):
            hub = Hub(MatchStore(Path(tmp) / f"p{p}"))
            session = hub.create_match(demo.game, list(m["players"]), dict(m.get("variant") or {}))
            fresh = get_adapter(demo.game).__class__()
            fresh.read(frames[0])
            loop = RefereeLoop(hub, session, fresh, iter(()), int(m.get("frames_needed", 3)))
            spent.clear()
            calls.clear()
            start = time.process_time()
            for i, f in enumerate(_restamp(frames)):
                t = time.process_time()
                loop.process(f)
                per_frame[i].append(time.process_time() - t)
            hub.bus.drain()
            passes.append((time.process_time() - start, dict(spent), dict(calls)))
            hub.bus.close()
    passes.sort(key=lambda x: x[0])
    total, stages, counts = passes[len(passes) // 2]
    print(f"passes, ms: {[round(1000 * x[0]) for x in passes]}; median {1000 * total:.0f} ms "
          f"({len(frames) / total:.1f} fps with the timers)")
    for name in sorted(stages, key=lambda k: -stages[k]):
        share = 100 * stages[name] / total
        print(f"  {1000 * stages[name]:7.1f} ms {share:5.1f} % {counts[name]:5d} calls  {name}")
    print("per frame, least of the passes, ms:", [round(1000 * min(x), 1) for x in per_frame])


if __name__ == "__main__":
    main()
