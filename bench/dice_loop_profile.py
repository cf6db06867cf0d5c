"""cProfile (in process CPU time) of the dice road's referee loop as bench/run_all.py times it: the bundled
recording's first N frames, a fresh hub, match and adapter that learned the first frame, after a
reader-alone pass over the frames (as run_all measures the reader alone first: models loaded, first
uses' imports and compilations done; `--cold`: after one warm-up read only, as before). Prints the
loop's CPU, each frame's CPU (ms) and the top functions by own and by inclusive time. The profiler's
own cost inflates the total (about 1.4x): compare shares, not fps.

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=. .venv/bin/python bench/dice_loop_profile.py [--frames 40] [--cold]

docs/benchmarks/readers.md ("Highway dice road: the 40-frame loop's profile")."""

from __future__ import annotations

import argparse
import cProfile
import itertools
import pstats
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=40)
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--cold", action="store_true", help="warm up on the first frame only")
    args = ap.parse_args()

    from run_all import demo_loop  # bench/ is on the path when run as a script

    import referee_app.loop as loop_mod
    from referee_app.demo import bundled_demos
    from referee_app.games import get_adapter

    demo = next(d for d in bundled_demos() if d.game == "highway-dice")
    frames = list(itertools.islice(demo.frames(realtime=False), args.frames))
    per_frame: list[float] = []
    process = loop_mod.RefereeLoop.process

    def timed(self: Any, *a: Any, **k: Any) -> Any:
        t = time.process_time()
        try:
            return process(self, *a, **k)
        finally:
            per_frame.append(time.process_time() - t)

    loop_mod.RefereeLoop.process = timed  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as tmp:
        warm = get_adapter(demo.game)
        for f in frames[:1] if args.cold else [frames[0], *frames]:  # run_all's reader-alone pass
            warm.read(f)
        hub, loop = demo_loop(demo, frames, Path(tmp))
        prof = cProfile.Profile(time.process_time)
        t = time.process_time()
        prof.enable()
        loop.run()
        hub.bus.drain()
        prof.disable()
        total = time.process_time() - t
        hub.bus.close()
    print(f"loop CPU {total:.3f} s for {len(frames)} frames (with the profiler)")
    print("per frame, ms:", [round(1000 * x, 1) for x in per_frame])
    ranked = sorted(per_frame, reverse=True)
    print(f"costliest 10 frames {sum(ranked[:10]) / total:.0%} of the loop, "
          f"costliest 20 {sum(ranked[:20]) / total:.0%}")
    stats = pstats.Stats(prof)
    stats.sort_stats("tottime").print_stats(args.top)
    stats.sort_stats("cumtime").print_stats(args.top)


if __name__ == "__main__":
    main()
