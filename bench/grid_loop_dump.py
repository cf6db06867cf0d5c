"""What the Highway 4x4 reader and its referee loop make of the bundled recording, as text, to compare
two checkouts byte for byte: per frame, read with and without reuse, the items, confidences, beliefs,
blocked text, unseen cells, warnings, every cell's reading (status, number, float reprs of the
confidence, angle and region, reason), hashes of the top view and of the annotated picture; then the
loop's whole match log as run_all runs the loop (a fresh adapter that read the first frame), its times
and match id left out.

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=. .venv/bin/python bench/grid_loop_dump.py OUT [--frames N]
    cmp OUT_main OUT_branch

It imports the code on PYTHONPATH (run it from each checkout). docs/benchmarks/readers.md."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):  # before numpy, as run_all
    os.environ.setdefault(_var, "1")

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _loop_dump import digest, dump, observed  # noqa: E402


def observation(obs: Any, adapter: Any) -> str:
    last = adapter._last
    cells = None
    if last is not None:
        cells = {k: (c.status, c.number, repr(c.confidence), c.reason, repr(c.region_mm), repr(c.angle))
                 for k, c in sorted(last.cells.items())}
    return observed(obs, cells=cells, view=digest(last.view.image) if last is not None else None)


def main() -> None:
    from referee_app.games.grid import GridAdapter

    dump("highway-grid", lambda reuse: GridAdapter(reuse=reuse), observation, __doc__.splitlines()[0])


if __name__ == "__main__":
    main()
