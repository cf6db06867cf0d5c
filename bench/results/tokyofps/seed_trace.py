"""A tuning seed's `eval match tokyo-highway --cameras 2` (1280x720, 550 mm, 40 degrees, as
bench/tokyo_trace.py sets it up) with every reader output (repr of to_dict) and every adapter observation
(items, confidences, beliefs, block, warnings by repr) recorded, and the per-seed JSON without timings:

    cd CHECKOUT && PYTHONPATH=$PWD python bench/results/tokyofps/seed_trace.py SEED OUT.json

(tuning seeds only)
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import cv2

import referee_app.games.tokyo as T
import vision.tokyo as V
from datasets.match_sim.core import SecondCamera
from referee_app.commands import eval_match as em

READS: list[str] = []
OBS: list[str] = []


def main() -> None:
    cv2.setNumThreads(1)
    views, one = V.read_tokyo_views, V.read_tokyo

    def rv(*a: Any, **k: Any) -> Any:
        o = views(*a, **k)
        READS.append(repr(o.to_dict()))
        return o

    def rr(*a: Any, **k: Any) -> Any:
        o = one(*a, **k)
        READS.append(repr(o.to_dict()))
        return o

    V.read_tokyo_views, V.read_tokyo = rv, rr
    adapter_read = T.TokyoAdapter.read

    def read(self: Any, frame: Any) -> Any:
        o = adapter_read(self, frame)
        OBS.append(repr((sorted(o.items.items()), sorted(o.confidence.items()),
                         sorted(o.beliefs.items(), key=str), o.blocked, o.warnings)))
        return o

    T.TokyoAdapter.read = read  # type: ignore[method-assign]
    setup = em.make_setup("1280x720", 550, 40, "normal", False, em.LENS_DEG.get("tokyo-highway", 70.0),
                          None, 2, SecondCamera(SecondCamera.around_deg, None, None))
    res = em.run_match(em.simulate("tokyo-highway", int(sys.argv[1]), setup))
    for k in list(res):
        if any(w in k for w in ("time", "cpu", "wall", "seconds")):
            res.pop(k)
    Path(sys.argv[2]).write_text(json.dumps({"reads": READS, "obs": OBS,
                                             "res": json.loads(json.dumps(res, default=str))}))

    def digest(xs: list[str]) -> str:
        return hashlib.sha256("\n".join(xs).encode()).hexdigest()[:16]

    print(len(READS), "reads", digest(READS), len(OBS), "observations", digest(OBS))


if __name__ == "__main__":
    main()
