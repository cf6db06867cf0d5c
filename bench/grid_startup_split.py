"""CPU seconds of each step of a `grid solve` in one fresh process (the CLI's imports and parser,
numba's import, numba's first load of a cached function, the solve), for one checkout:

    PYTHONPATH=/tmp/main python bench/grid_startup_split.py    # seed 5's position 12 by default

The compiled search must be cached for that checkout (`highway-referee grid compile`). What the
interpreter spends after the answer (its exit) is not seen here: bench/grid_first_call.py counts it.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--position", default=". . . 6 / . 12 9 . / . . . . / 11 . . .")
    args = ap.parse_args()
    marks = [("interpreter and numpy", time.process_time())]

    def mark(name: str) -> None:
        marks.append((name, time.process_time()))

    import referee_app.cli as cli

    argv = ["grid", "solve", args.position, "--json"]
    try:
        tree = cli.load_commands(argv)
    except TypeError:  # a checkout whose load_commands takes no command line
        tree = cli.load_commands()
    tree.build().parse_args(argv)
    mark("CLI imports + parser")
    import numba  # noqa: F401

    mark("numba import")
    from engine.grid import jitsearch as jit

    mark("jitsearch import")
    st = np.zeros(jit.STATE, np.int64)
    jit._place(st, np.zeros((2, 20), np.int64), np.zeros((2, 20), np.int64), np.zeros((2, 4), np.int64), 6, 3)
    mark("numba's first load (_place)")
    from engine.grid import parse_position
    from engine.grid.solver import solve

    result = solve(parse_position(args.position), time_limit=10)
    mark(f"solve (--time 10): {result.nodes} nodes, exact={result.exact}")
    prev = 0.0
    for name, t in marks:
        print(f"{name:48s} {t - prev:6.3f}")
        prev = t
    print(f"{'total':48s} {prev:6.3f}")


if __name__ == "__main__":
    main()
