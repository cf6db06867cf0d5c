"""CPU seconds and nodes of `solve` on one position in one checkout (its compiled search loaded first).

Interleave checkouts by hand, e.g. on seed 2's worst position at 12 empty cells:
    for r in 1 2; do for root in /tmp/main .; do
        python bench/grid_one.py $root "3 . 10 8 / . . . . / . . . . / . . . 4"; done; done
Prints: checkout, value, nodes, CPU seconds.
"""

from __future__ import annotations

import sys
import time

sys.path.insert(0, sys.argv[1])

from engine.grid import GridState  # noqa: E402
from engine.grid.position import parse_position  # noqa: E402
from engine.grid.solver import solve  # noqa: E402

solve(GridState((1, 2, 3, 4, 5, 6, 7, 8) + (0,) * 8))  # loads (or compiles) the compiled search
state = parse_position(sys.argv[2])
start = time.process_time()
result = solve(state)
print(sys.argv[1], result.value, result.nodes, round(time.process_time() - start, 2), flush=True)
