"""The common part of bench/dice_loop_dump.py and bench/grid_loop_dump.py: read a game's bundled
recording with and without reuse, one text line per frame (the game's own `observation` text), then
run the referee loop over it as run_all does and append the match log without its times and match id,
so that two checkouts' outputs can be compared byte for byte."""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

VARYING = ("t", "started", "ended", "match_id")  # the log's wall-clock times and the random match id


def digest(a: np.ndarray | None) -> str | None:
    return None if a is None else hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]


def observed(obs: Any, **extra: Any) -> str:
    """An Observation's fields as sorted JSON text, with the game's own `extra` fields."""
    return json.dumps({"items": repr(sorted(obs.items.items())), "conf": repr(sorted(obs.confidence.items())),
                       "beliefs": repr(sorted((k, repr(v)) for k, v in (obs.beliefs or {}).items())),
                       "blocked": obs.blocked, "unseen": sorted(obs.unseen or []), "warnings": obs.warnings,
                       "annotated": digest(obs.annotated), **extra},
                      sort_keys=True)


def dump(game: str, make_adapter: Callable[[bool], Any], observation: Callable[[Any, Any], str],
         description: str) -> None:
    """The command line of a dump script: OUT [--frames N]."""
    import cv2

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from run_all import _restamp

    from referee_app.demo import bundled_demos
    from referee_app.games import get_adapter
    from referee_app.hub import Hub
    from referee_app.loop import RefereeLoop
    from referee_app.store import MatchStore

    cv2.setNumThreads(1)
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("out", type=Path)
    ap.add_argument("--frames", type=int, default=10**9, help="the recording's first N frames (default all)")
    args = ap.parse_args()
    demo = next(d for d in bundled_demos() if d.game == game)
    frames = list(itertools.islice(demo.frames(realtime=False), args.frames))
    lines = []
    for reuse in (True, False):
        adapter = make_adapter(reuse)
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
