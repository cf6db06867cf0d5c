"""4x4 solver CPU time against the number of empty cells (median and max over random positions).

Each position is a random legal mid-game board (random pieces on random cells). For 4 and 5 empty
cells the plain minimax of the tests (no pruning, no table) runs on the same positions as the
baseline. A solve that exceeds --cap seconds (wall) is counted as not solved; times are CPU seconds
(time.process_time). With --outcome only who wins is searched (`grid solve --outcome`).
Usage: python bench/grid_solver.py [--max-empty 9] [--positions 7] [--cap 30] [--outcome]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from engine.grid import GridState
from engine.grid.solver import brute_force_value, solve


def position(rng: random.Random, empties: int) -> GridState:
    pieces, cells = list(range(1, 17)), list(range(16))
    rng.shuffle(pieces)
    rng.shuffle(cells)
    board = [0] * 16
    for p, c in zip(pieces[: 16 - empties], cells[: 16 - empties], strict=True):
        board[c] = p
    return GridState(tuple(board))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--min-empty", type=int, default=4)
    ap.add_argument("--max-empty", type=int, default=9)
    ap.add_argument("--positions", type=int, default=7)
    ap.add_argument("--cap", type=float, default=30.0, help="seconds allowed per solve")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--outcome", action="store_true", help="who wins only (the win/draw/loss search)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    print(f"{'empty':>5} {'median s':>9} {'max s':>8} {'max nodes':>10} {'solved':>7}  baseline (minimax)"
          + ("   (who wins only)" if args.outcome else ""))
    within_one_second = args.min_empty - 1  # largest k with every k' <= k solved in under 1 s
    for k in range(args.min_empty, args.max_empty + 1):
        times, nodes, solved, base = [], [], 0, []
        for _ in range(args.positions):
            state = position(rng, k)
            start = time.process_time()
            result = solve(state, time_limit=args.cap, outcome=args.outcome)
            times.append(time.process_time() - start)
            nodes.append(result.nodes)
            solved += result.exact
            if k <= 5:
                start = time.process_time()
                want = brute_force_value(state)
                assert (want > 0) - (want < 0) == result.value if args.outcome else want == result.value
                base.append(time.process_time() - start)
        line = f"{k:>5} {statistics.median(times):>9.3f} {max(times):>8.3f} {max(nodes):>10} " \
               f"{solved:>3}/{len(times):<3}"
        if base:
            speedup = statistics.median(base) / statistics.median(times)
            line += f"  median {statistics.median(base):.3f} s, solver x{speedup:.0f}"
        print(line, flush=True)
        if solved == len(times) and max(times) < 1.0 and within_one_second == k - 1:
            within_one_second = k
    print(f"solved exactly within 1 s on every sampled position: up to {within_one_second} empty cells")


if __name__ == "__main__":
    main()
