"""CPU seconds of a fresh `grid solve POSITION` process (start-up, numba's cache loads and the search,
what a user's first call costs), one checkout after another, interleaved, for several rounds:

    python bench/grid_first_call.py /tmp/main . --rounds 3   # seed 5's position 12 by default

Each run is `python -m referee_app.cli grid solve POSITION` with PYTHONPATH at the checkout; its CPU
(user + system, of the child process) is read from resource.getrusage(RUSAGE_CHILDREN). The numba
cache of each checkout must be warm (run its search once before), else the first run compiles.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
from pathlib import Path


def child_cpu(root: Path, position: str) -> tuple[float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([sys.executable, "-m", "referee_app.cli", "grid", "solve", position],
                         capture_output=True, text=True, cwd=root,
                         env={**os.environ, "PYTHONPATH": str(root)}, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    value = next((line for line in out.stdout.splitlines() if "value" in line), out.stdout.strip()[:60])
    return cpu, value.strip()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("roots", nargs="+", type=Path, help="checkouts to compare (repository roots)")
    ap.add_argument("--position", default=". . . 6 / . 12 9 . / . . . . / 11 . . .")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    total = [0.0] * len(args.roots)
    for r in range(args.rounds):
        order = range(len(args.roots)) if r % 2 == 0 else reversed(range(len(args.roots)))
        for k in order:
            cpu, value = child_cpu(args.roots[k].resolve(), args.position)
            total[k] += cpu
            print(r, args.roots[k], f"{cpu:.3f} s", value, flush=True)
    for k, root in enumerate(args.roots):
        print(f"{root}: mean {total[k] / args.rounds:.3f} s over {args.rounds} rounds", flush=True)


if __name__ == "__main__":
    main()
