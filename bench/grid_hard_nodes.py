"""Node counts (deterministic) of the compiled exact search on chosen 12-empty positions, with its
options switched: e.g. the killer moves on and off on the hardest positions of tuning seeds 1-3.

Positions are bench/grid_solver.py's (the ones `bench/grid_ab.py --seed S` times), named SEED:INDEX.
Usage: python bench/grid_hard_nodes.py [--positions 1:47 2:85 ...] [--off killers bound_order]
"""

from __future__ import annotations

import argparse
import random
import time

from grid_solver import position

# The five positions with the most nodes of each of tuning seeds 1-3
# (bench/results/grid_ab_12empty_seed*_n100_cellgroups*.txt).
HARD = ("1:47 1:93 1:21 1:88 1:19 2:85 2:48 2:65 2:19 2:47 3:39 3:90 3:57 3:1 3:73").split()


def board(name: str, empties: int = 12) -> tuple[int, ...]:
    seed, index = (int(x) for x in name.split(":"))
    rng = random.Random(seed)
    for _ in range(index):
        position(rng, empties)
    return position(rng, empties).board


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--positions", nargs="+", default=list(HARD))
    ap.add_argument("--off", nargs="*", default=["killers"],
                    help="JitSearch options set to None in the second run")
    args = ap.parse_args()
    from engine.grid.jitsearch import JitSearch

    JitSearch((1, 2, 3, 4, 5, 6, 7, 8) + (0,) * 8).exact_value()  # loads (or compiles) the search
    total = {"on": [0, 0.0], "off": [0, 0.0]}
    for name in args.positions:
        b = board(name)
        row = []
        for label, kw in (("on", {}), ("off", {k: None for k in args.off})):
            search = JitSearch(b, **kw)
            t = time.process_time()
            value = search.exact_value()
            cpu = time.process_time() - t
            total[label][0] += search.nodes
            total[label][1] += cpu
            row.append(f"{label} {search.nodes:>9} nodes {cpu:6.2f} s")
        print(f"{name:>6} value {value:>3}  " + "  ".join(row), flush=True)
    for label, (nodes, cpu) in total.items():
        print(f"{label}: {nodes} nodes, {cpu:.1f} CPU s in all")


if __name__ == "__main__":
    main()
