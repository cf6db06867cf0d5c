"""Frames per second, in process CPU time, of the Highway 4x4, Railroad Ink and Highway dice road camera
readers (`GridAdapter.read`, `RailroadInkAdapter.read`, `DiceAdapter.read`: locate, read, annotate) on
their bundled recorded
matches, with the reuse of unchanged regions against the same adapter without it (the baseline), the
two called frame by frame in the same run so machine load hits both alike. Also whether the two ever
disagree on what the referee sees (items, blocked); confidences may differ slightly (a region within
noise of the last frame keeps its reading).

    OPENBLAS_NUM_THREADS=1 .venv/bin/python bench/reader_reuse.py [--repeat N] [--games A,B] [--json OUT]

`bench_game(game, repeat)` returns the numbers as a dict (for bench/run_all.py).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from referee_app.demo import bundled_demos
from referee_app.games import get_adapter

GAMES = ("highway-grid", "railroad-ink", "highway-dice")


def bench_game(game: str, repeat: int = 2) -> dict:
    demo = next(d for d in bundled_demos() if d.game == game)
    frames = list(demo.frames(realtime=False))
    cls = get_adapter(game).__class__
    cpu = {"reuse": 0.0, "baseline": 0.0}
    disagree = 0
    for _ in range(repeat):
        ours, base = cls(reuse=True), cls(reuse=False)
        ours.read(frames[0])  # warm-up: models loaded, first localisation
        base.read(frames[0])
        for f in frames:
            t0 = time.process_time()
            a = ours.read(f)
            t1 = time.process_time()
            b = base.read(f)
            t2 = time.process_time()
            cpu["reuse"] += t1 - t0
            cpu["baseline"] += t2 - t1
            disagree += (a.items, a.blocked) != (b.items, b.blocked)
    n = repeat * len(frames)
    return {"game": game, "frames": len(frames), "repeat": repeat,
            "fps_cpu": n / cpu["reuse"], "baseline_fps_cpu": n / cpu["baseline"],
            "speedup": cpu["baseline"] / cpu["reuse"], "frames_seen_differently": disagree}


def main() -> None:
    import cv2

    cv2.setNumThreads(1)
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--games", default=",".join(GAMES))
    p.add_argument("--json", type=Path)
    args = p.parse_args()
    rows = [bench_game(g, args.repeat) for g in args.games.split(",")]
    print(f"{'game':<14}{'frames':>7}{'reuse fps':>11}{'baseline fps':>14}{'speedup':>9}"
          f"{'seen differently':>18}")
    for r in rows:
        print(f"{r['game']:<14}{r['frames']:>7}{r['fps_cpu']:>11.1f}{r['baseline_fps_cpu']:>14.1f}"
              f"{r['speedup']:>8.2f}x{r['frames_seen_differently']:>18}")
    print("(process CPU time per frame, 1280x720; baseline = the same adapter with reuse=False)")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
