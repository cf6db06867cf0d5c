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

import argparse
import hashlib
import itertools
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):  # before numpy, as run_all
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

VARYING = ("t", "started", "ended", "match_id")  # the log's wall-clock times and the random match id


def digest(a: np.ndarray | None) -> str | None:
    return None if a is None else hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]


def observation(obs: Any, adapter: Any) -> str:
    last = adapter._last
    cells = None
    if last is not None:
        cells = {k: (c.status, c.number, repr(c.confidence), c.reason, repr(c.region_mm), repr(c.angle))
                 for k, c in sorted(last.cells.items())}
    return json.dumps({"items": repr(sorted(obs.items.items())), "conf": repr(sorted(obs.confidence.items())),
                       "beliefs": repr(sorted((k, repr(v)) for k, v in (obs.beliefs or {}).items())),
                       "blocked": obs.blocked, "unseen": sorted(obs.unseen or []), "warnings": obs.warnings,
                       "annotated": digest(obs.annotated), "cells": cells,
                       "view": digest(last.view.image) if last is not None else None},
                      sort_keys=True)


def main() -> None:
    import cv2

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from run_all import _restamp

    from referee_app.demo import bundled_demos
    from referee_app.games import get_adapter
    from referee_app.games.grid import GridAdapter
    from referee_app.hub import Hub
    from referee_app.loop import RefereeLoop
    from referee_app.store import MatchStore

    cv2.setNumThreads(1)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--frames", type=int, default=10**9, help="the recording's first N frames (default all)")
    args = ap.parse_args()
    demo = next(d for d in bundled_demos() if d.game == "highway-grid")
    frames = list(itertools.islice(demo.frames(realtime=False), args.frames))
    lines = []
    for reuse in (True, False):
        adapter = GridAdapter(reuse=reuse)
        for i, f in enumerate(frames):
            lines.append(f"reuse={reuse} frame {i} {observation(adapter.read(f), adapter)}")
    m = demo.manifest
    with tempfile.TemporaryDirectory() as tmp:
        hub = Hub(MatchStore(Path(tmp)))
        session = hub.create_match(demo.game, list(m["players"]), dict(m.get("variant") or {}))
        fresh = get_adapter(demo.game).__class__()
        fresh.read(frames[0])
        loop = RefereeLoop(hub, session, fresh, iter(_restamp(frames)), int(m.get("frames_needed", 3)))
        loop.run()
        hub.bus.drain()
        for path in sorted(Path(tmp).rglob("*.jsonl")):
            for text in path.read_text().splitlines():
                record = json.loads(text)
                for key in VARYING:
                    record.pop(key, None)
                lines.append("log " + json.dumps(record, sort_keys=True))
        s = loop.stats
        lines.append(f"stats frames {s.frames} judged {s.judged} mismatches {s.mismatches} "
                     f"confirmations {s.confirmations} settled {s.settled}")
        hub.bus.close()
    args.out.write_text("\n".join(lines) + "\n")
    print(f"{len(frames)} frames, {len(lines)} lines -> {args.out}")


if __name__ == "__main__":
    main()
