"""Tokyo Highway engine speed: placements judged per second with 30 sticks on the table.

A 30-stick table is grown by seeded random play (sticks per player raised to 20 so the players
still have material); then a fixed set of sampled builds around the open ends is judged, once with
the spatial pre-filter (plan bounding boxes) and once without it (every piece gets the exact
geometry: the naive baseline), in the same run. Usage: python bench/tokyo_engine.py [--n 3000]
"""

from __future__ import annotations

import argparse
import math
import random
import time

from engine.core import EngineError, step
from engine.tokyo import Build, NewSupport, Skip, TokyoState, checks, new_state


def grow_table(sticks: int, seed: int) -> TokyoState:
    for attempt in range(50):
        rng = random.Random(seed + attempt)
        s = new_state(sticks=20)
        while len(s.sticks) < sticks and not s.is_terminal():
            builds = [a for a in s.legal_actions() if not isinstance(a, Skip)]
            if not builds:
                break
            s, _ = step(s, rng.choice(builds))
        if len(s.sticks) >= sticks and not s.is_terminal():
            return s
    raise SystemExit("could not grow a table with that many sticks")


def sample_builds(s: TokyoState, n: int, seed: int) -> list[Build]:
    rng = random.Random(seed)
    g = s.rules.geometry
    bases = s.open_bases(s.current_player())
    out: list[Build] = []
    while len(out) < n:
        b = rng.choice(bases)
        ang = rng.uniform(0, 2 * math.pi)
        run = rng.uniform(0.3, 1.0) * g.stick_length_mm
        h = max(1, b.height + rng.choice((-1, 1, 2)))
        x, y = b.x + run * math.cos(ang), b.y + run * math.sin(ang)
        a = Build(b.id, NewSupport(x, y, h, h == b.height + 2))
        try:
            s.judge(a)
        except EngineError:
            continue  # on top of another support: not a placement
        out.append(a)
    return out


def rate(s: TokyoState, builds: list[Build], prefilter: bool, repeat: int = 3) -> tuple[float, float, int]:
    """Best of `repeat` runs: placements per wall-clock second and per CPU second of this process
    (the CPU figure is steadier on a shared machine), and how many were legal."""
    checks.PREFILTER = prefilter
    best_wall = best_cpu = math.inf
    legal = 0
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        legal = sum(1 for a in builds if s.judge(a).legal)
        best_wall = min(best_wall, time.perf_counter() - t0)
        best_cpu = min(best_cpu, time.process_time() - c0)
    checks.PREFILTER = True
    return len(builds) / best_wall, len(builds) / max(best_cpu, 1e-9), legal


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=3000, help="placements to judge (default 3000)")
    ap.add_argument("--sticks", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    t0 = time.perf_counter()
    s = grow_table(args.sticks, args.seed)
    grown = time.perf_counter() - t0
    builds = sample_builds(s, args.n, args.seed)
    fast, fast_cpu, legal_fast = rate(s, builds, True)
    naive, naive_cpu, legal_naive = rate(s, builds, False)
    assert legal_fast == legal_naive, "the pre-filter must not change any verdict"
    print(f"table: {len(s.sticks)} sticks, {len(s.supports)} supports, {len(s.cars)} cars "
          f"(grown by random play in {grown:.1f} s)")
    print(f"placements judged: {len(builds)} ({legal_fast} legal)")
    print(f"with spatial pre-filter : {fast:10.0f} placements/s wall, {fast_cpu:10.0f} per CPU second")
    print(f"naive (no pre-filter)   : {naive:10.0f} placements/s wall, {naive_cpu:10.0f} per CPU second")
    print(f"ratio pre-filter/naive  : {fast / naive:10.2f}x wall, {fast_cpu / naive_cpu:.2f}x CPU   "
          f"(target >= 10,000/s: {'met' if fast >= 10_000 else 'NOT met'} on the wall clock)")


if __name__ == "__main__":
    main()
