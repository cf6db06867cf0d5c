"""`eval match tokyo-highway --cameras 2` (1280x720, 550 mm, 40 deg) of one seed with the CPU of
fit_height and of each view's read_tokyo summed in process.

    PYTHONPATH=. python bench/results/tokyofit/timed.py 90 OUT.json
"""

from __future__ import annotations

import runpy
import sys
import time
from typing import Any

import vision.tokyo.reader as reader
import vision.tokyo.stereo as stereo

ACC = {"fit_height": 0.0, "fit_calls": 0, "read_tokyo": 0.0, "read_calls": 0}


def timed(fn: Any, name: str) -> Any:
    def wrapped(*a: Any, **k: Any) -> Any:
        t = time.process_time()
        out = fn(*a, **k)
        ACC[name] += time.process_time() - t
        ACC[name.split("_")[0] + "_calls"] += 1
        return out

    return wrapped


def main() -> None:
    reader.fit_height = timed(reader.fit_height, "fit_height")
    stereo.read_tokyo = timed(stereo.read_tokyo, "read_tokyo")
    seed, out = sys.argv[1], sys.argv[2]
    sys.argv = ["cli", "eval", "match", "tokyo-highway", "--seeds", seed, "--camera", "1280x720",
                "--height", "550", "--tilt", "40", "--cameras", "2", "--json", out]
    try:
        runpy.run_module("referee_app.cli", run_name="__main__")
    except SystemExit:
        pass
    print({k: round(v, 3) for k, v in ACC.items()})


if __name__ == "__main__":
    main()
