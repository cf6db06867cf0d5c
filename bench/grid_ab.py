"""Interleaved A/B of the 4x4 exact solver in two checkouts on the same positions, CPU seconds.

One worker process per checkout (its numba search loaded before timing); each position is solved by
every worker in turn, alternating which goes first, so both see the same load on a shared machine.
Positions come from bench/grid_solver.py's generator, so --seed 0 gives the positions of
`grid_solver.py --min-empty K --max-empty K`. Values must agree. Usage, e.g. main against a branch:
    git -C /work/main archive main | tar -x -C /tmp/main
    python bench/grid_ab.py /tmp/main . --empty 12 --n 16 --seed 1 [--time 300]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
from pathlib import Path

from grid_solver import position

WORKER = r'''
import json, sys, time
sys.path.insert(0, sys.argv[1])
from engine.grid import GridState
from engine.grid.solver import solve
solve(GridState((1, 2, 3, 4, 5, 6, 7, 8) + (0,) * 8))  # loads (or compiles) the compiled search
limit = float(sys.argv[2]) if sys.argv[2] != "none" else None
print("ready", flush=True)
for line in sys.stdin:
    state = GridState(tuple(json.loads(line)))
    t = time.process_time()
    r = solve(state, time_limit=limit)
    print(json.dumps({"cpu": time.process_time() - t, "value": r.value, "nodes": r.nodes,
                      "exact": r.exact}), flush=True)
'''


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("roots", nargs="+", type=Path, help="checkouts to compare (repository roots)")
    ap.add_argument("--empty", type=int, default=12)
    ap.add_argument("--n", type=int, default=16, help="positions")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--time", type=float, help="time limit passed to solve (as grid_solver.py --cap)")
    args = ap.parse_args()
    workers = []
    for root in args.roots:
        proc = subprocess.Popen([sys.executable, "-c", WORKER, str(root.resolve()), str(args.time or "none")],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert proc.stdin and proc.stdout and proc.stdout.readline().strip() == "ready"
        workers.append(proc)
    rng = random.Random(args.seed)
    cpu: list[list[float]] = [[] for _ in workers]
    nodes: list[list[int]] = [[] for _ in workers]
    for i in range(args.n):
        board = list(position(rng, args.empty).board)
        values = set()
        for k in (range(len(workers)) if i % 2 == 0 else reversed(range(len(workers)))):
            workers[k].stdin.write(json.dumps(board) + "\n")  # type: ignore[union-attr]
            workers[k].stdin.flush()  # type: ignore[union-attr]
            got = json.loads(workers[k].stdout.readline())  # type: ignore[union-attr]
            assert got["exact"], (board, args.roots[k])
            cpu[k].append(got["cpu"])
            nodes[k].append(got["nodes"])
            values.add(got["value"])
        assert len(values) == 1, (board, values)
        print(f"{i:>3} value {values.pop():>3}  " + "  ".join(f"{cpu[k][-1]:.3f} s {nodes[k][-1]:>8} nodes"
                                                         for k in range(len(workers))), flush=True)
    for k, root in enumerate(args.roots):
        p90 = statistics.quantiles(cpu[k], n=10)[-1] if len(cpu[k]) > 1 else cpu[k][0]
        print(f"{root}: median {statistics.median(cpu[k]):.3f} s, 90th percentile {p90:.3f} s, "
              f"max {max(cpu[k]):.3f} s, under 1 s {sum(c < 1.0 for c in cpu[k])}, CPU in all "
              f"{sum(cpu[k]):.1f} s, median nodes {statistics.median(nodes[k]):.0f}, "
              f"max nodes {max(nodes[k])}, nodes in all {sum(nodes[k])}")
    for proc in workers:
        proc.stdin.close()  # type: ignore[union-attr]
        proc.wait()


if __name__ == "__main__":
    main()
