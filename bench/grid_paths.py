"""Full-board best-path evaluations per second (both players, ties kept by the engine).

Compares, in one run on the same random boards:
  naive    - walks the board recursively to enumerate every path at each evaluation (the baseline)
  engine   - engine.grid.best_path with precomputed path tables (what the referee uses)
  numpy    - engine.grid.batch.best_values: a matrix product over a batch of boards
Usage: python bench/grid_paths.py [--boards N]
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from engine.grid.batch import best_values
from engine.grid.state import best_path


def naive_best(board: tuple[int, ...], seat: int) -> int:
    step = 1 if seat == 0 else -1
    goal = (3, 3) if seat == 0 else (3, 0)

    def walk(r: int, c: int) -> list[int]:
        here = board[r * 4 + c]
        if (r, c) == goal:
            return [here]
        sums = []
        if 0 <= c + step < 4:
            sums += [here + s for s in walk(r, c + step)]
        if r + 1 < 4:
            sums += [here + s for s in walk(r + 1, c)]
        return sums

    return min(walk(0, 0 if seat == 0 else 3))


def rate(fn, boards) -> float:
    start = time.perf_counter()
    fn(boards)
    return len(boards) / (time.perf_counter() - start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--boards", type=int, default=20000)
    args = ap.parse_args()
    rng = random.Random(0)
    boards = []
    for _ in range(args.boards):
        p = list(range(1, 17))
        rng.shuffle(p)
        boards.append(tuple(p))
    arr = np.array(boards)
    few = boards[: max(1, args.boards // 4)]  # the baseline is slow: a quarter of the boards
    naive = rate(lambda bs: [(naive_best(b, 0), naive_best(b, 1)) for b in bs], few)
    engine = rate(lambda bs: [(best_path(b, 0), best_path(b, 1)) for b in bs], boards)
    batch = rate(lambda _: best_values(arr), boards)
    # The three must agree before their speeds mean anything.
    for b in boards[:200]:
        assert naive_best(b, 0) == best_path(b, 0).value and naive_best(b, 1) == best_path(b, 1).value
    print(f"boards: {args.boards}")
    print(f"naive recursive walk : {naive:>12,.0f} boards/s  (baseline)")
    print(f"engine best_path     : {engine:>12,.0f} boards/s  x{engine / naive:.1f}")
    print(f"numpy batch          : {batch:>12,.0f} boards/s  x{batch / naive:.1f}")


if __name__ == "__main__":
    main()
