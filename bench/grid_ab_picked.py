"""CPU seconds and nodes of `solve` on picked positions (SEED:INDEX of bench/grid_ab.py's generator,
e.g. 5:12 is `grid_ab.py --seed 5`'s position 12), one worker process per checkout, position by
position in turn (the order flipped every other time), for several rounds:

    python bench/grid_ab_picked.py /tmp/main . --pick 5:12,11:94,11:88,1:47,1:93 --rounds 4

Prints one line per round and position (checkout, CPU seconds, nodes, value), then each checkout's
CPU per position and in all.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from pathlib import Path

from grid_ab import WORKER
from grid_solver import position


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("roots", nargs="+", type=Path, help="checkouts to compare (repository roots)")
    ap.add_argument("--pick", default="5:12,11:94,11:88,1:47,1:93", help="SEED:INDEX,...")
    ap.add_argument("--empty", type=int, default=12)
    ap.add_argument("--rounds", type=int, default=4)
    args = ap.parse_args()
    picks = [tuple(map(int, p.split(":"))) for p in args.pick.split(",")]
    boards = []
    for seed, index in picks:
        rng = random.Random(seed)
        for _ in range(index + 1):
            board = list(position(rng, args.empty).board)
        boards.append(board)
    workers = []
    for root in args.roots:
        proc = subprocess.Popen([sys.executable, "-c", WORKER, str(root.resolve()), "none"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert proc.stdin and proc.stdout and proc.stdout.readline().strip() == "ready"
        workers.append(proc)
    cpu = [[0.0] * len(boards) for _ in workers]
    for r in range(args.rounds):
        for b, board in enumerate(boards):
            got = {}
            for k in range(len(workers)) if (r + b) % 2 == 0 else reversed(range(len(workers))):
                workers[k].stdin.write(json.dumps(board) + "\n")  # type: ignore[union-attr]
                workers[k].stdin.flush()  # type: ignore[union-attr]
                got[k] = json.loads(workers[k].stdout.readline())  # type: ignore[union-attr]
                cpu[k][b] += got[k]["cpu"]
            assert len({g["value"] for g in got.values()}) == 1, (board, got)
            line = " | ".join(f"{args.roots[k]} {g['cpu']:.3f} s {g['nodes']} nodes value {g['value']}"
                              for k, g in sorted(got.items()))
            print(r, f"{picks[b][0]}:{picks[b][1]}", line, flush=True)
    for k, root in enumerate(args.roots):
        each = "  ".join(f"{s}:{i} {c:.2f}" for (s, i), c in zip(picks, cpu[k], strict=True))
        print(f"{root}: {each}  all {sum(cpu[k]):.2f} s", flush=True)
    for proc in workers:
        proc.stdin.close()  # type: ignore[union-attr]
        proc.wait()


if __name__ == "__main__":
    main()
