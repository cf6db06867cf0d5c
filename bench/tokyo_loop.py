"""Tokyo Highway's whole referee loop on its bundled recorded match, in process CPU time: the loop
of bench/run_all.py's readers section (`bench_readers`: a fresh adapter warmed on the first frame,
then every frame through `RefereeLoop`) for this one game, and what the loop saw.

    OPENBLAS_NUM_THREADS=1 .venv/bin/python bench/tokyo_loop.py [--frames N] [--repeat R]
    .venv/bin/python bench/tokyo_loop.py --dump seen.json      (what the loop saw, frame by frame)
    .venv/bin/python bench/tokyo_loop.py --profile loop.prof   (cProfile of one pass)
    .venv/bin/python bench/tokyo_loop.py --hold 8 --noise 3    (as a live camera sends it, see below)

`--dump` writes, for every frame, the observation the adapter gave (items, confidences, beliefs,
blocked, warnings, SHA-256 of the annotated pictures of every camera) and the match's events
(kind and data, no times): two code versions read the match alike when their dumps are equal.

`--hold N --noise A`: every frame of the recording sent N times, each time with its own sensor noise
(every pixel and channel moved by up to A grey levels, from a few fixed seeded noise fields), as a
camera holding each scene for N frames sends it: the recording itself holds a scene for one to three
frames and repeats the very same picture, which a live camera never does.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]

GAME = "tokyo-highway"


def _sha(image: Any) -> str | None:
    import numpy as np

    return None if image is None else hashlib.sha256(np.ascontiguousarray(image).data).hexdigest()


def _frames(count: int | None) -> tuple[Any, list[Any]]:
    from referee_app.demo import bundled_demos

    demo = next(d for d in bundled_demos() if d.game == GAME)
    return demo, list(itertools.islice(demo.frames(realtime=False), count))


NOISE_FIELDS = 6  # distinct noise fields cycled over the held frames (made once, outside the timing)


def held(frames: list[Any], hold: int, noise: int, seed: int = 1) -> list[Any]:
    """Each frame `hold` times, each copy with sensor noise of up to `noise` grey levels (see --hold);
    the copies' images are made as the loop asks for them (`_restamp`), so only `frames` are kept."""
    import copy

    import numpy as np

    rng = np.random.default_rng(seed)
    shape = frames[0].image.shape
    fields = []
    for _ in range(NOISE_FIELDS):
        n = rng.integers(-noise, noise + 1, shape)
        fields.append((np.clip(n, 0, None).astype(np.uint8), np.clip(-n, 0, None).astype(np.uint8)))
    out = []
    for f in frames:
        for _ in range(hold):
            g = copy.copy(f)
            g.index = len(out)
            g.noise = fields[len(out) % NOISE_FIELDS]  # type: ignore[attr-defined]
            out.append(g)
    return out


def _noisy(f: Any) -> Any:
    """The frame with its noise field applied (camera 1 and every other camera's image)."""
    import copy

    import cv2

    up, down = getattr(f, "noise", (None, None))
    if up is None:
        return f
    g = copy.copy(f)
    g.image = cv2.subtract(cv2.add(f.image, up), down)
    if getattr(f, "others", None):
        g.others = [copy.copy(o) for o in f.others]
        for o in g.others:
            if o.image is not None and o.image.shape == up.shape:
                o.image = cv2.subtract(cv2.add(o.image, up[::-1]), down[::-1])
    return g


def _restamp(frames: list[Any]) -> Any:
    for f in frames:
        f = _noisy(f)
        f.timestamp = time.time()
        yield f


def run_loop(frames: list[Any], demo: Any, record: bool = False) -> tuple[float, dict[str, Any]]:
    """CPU seconds of one pass of the loop over `frames` (a fresh adapter, warmed on the first frame),
    and (with `record`) what it saw."""
    from referee_app.games import get_adapter
    from referee_app.hub import Hub
    from referee_app.loop import RefereeLoop
    from referee_app.store import MatchStore

    seen: list[dict[str, Any]] = []
    events: list[Any] = []
    with tempfile.TemporaryDirectory() as tmp:
        hub = Hub(MatchStore(Path(tmp)))
        m = demo.manifest
        session = hub.create_match(demo.game, list(m["players"]), dict(m.get("variant") or {}))
        adapter = get_adapter(demo.game).__class__()
        adapter.read(_noisy(frames[0]))
        if record:
            hub.bus.subscribe(events.append)
            read, take = adapter.read, adapter.take_view_images

            def recorded(frame: Any) -> Any:
                obs = read(frame)
                seen.append({"items": repr(sorted(obs.items.items())),
                             "confidence": repr(sorted(obs.confidence.items())),
                             "beliefs": repr(sorted(obs.beliefs.items(), key=str)),
                             "blocked": obs.blocked, "warnings": list(obs.warnings),
                             "annotated": _sha(obs.annotated)})
                return obs

            def taken() -> dict[int, Any]:
                got = take()
                seen[-1]["views"] = {str(cam): _sha(im) for cam, im in sorted(got.items())}
                return got

            adapter.read, adapter.take_view_images = recorded, taken  # type: ignore[method-assign]
        loop = RefereeLoop(hub, session, adapter, iter(_restamp(frames)), int(m.get("frames_needed", 3)))
        t = time.process_time()
        loop.run()
        hub.bus.drain()
        cpu = time.process_time() - t
        hub.bus.close()
    out = {"frames": seen,
           "events": [{"kind": e.kind, "data": json.loads(json.dumps(e.data, default=str))} for e in events],
           "played": [{"notation": p.action.notation(), "legal": p.verdict.legal} for p in session.played]}
    return cpu, out


def main(argv: list[str] | None = None) -> None:
    import cv2

    cv2.setNumThreads(1)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, help="the first N frames (default: all)")
    ap.add_argument("--repeat", type=int, default=3, help="passes; the fastest counts (default 3)")
    ap.add_argument("--dump", type=Path, help="write what the loop saw to this JSON and stop")
    ap.add_argument("--hold", type=int, default=1, help="send every frame this many times (default 1)")
    ap.add_argument("--noise", type=int, default=0, help="... each time with up to this many grey levels "
                    "of sensor noise (default 0: the very same picture)")
    ap.add_argument("--profile", type=Path, help="write a cProfile of one pass to this file and stop")
    args = ap.parse_args(argv)
    demo, frames = _frames(args.frames)
    if args.hold > 1 or args.noise:
        frames = held(frames, args.hold, args.noise)
    if args.dump:
        _, seen = run_loop(frames, demo, record=True)
        args.dump.write_text(json.dumps(seen, indent=1))
        print(f"{len(seen['frames'])} frames, {len(seen['events'])} events -> {args.dump}")
        return
    if args.profile:
        import cProfile

        prof = cProfile.Profile()
        prof.enable()
        run_loop(frames, demo)
        prof.disable()
        prof.dump_stats(str(args.profile))
        return
    cpus = [run_loop(frames, demo)[0] for _ in range(args.repeat)]
    print(json.dumps({"frames": len(frames), "cpu_s": [round(c, 3) for c in cpus],
                      "fps_cpu": [round(len(frames) / c, 2) for c in cpus],
                      "best_fps_cpu": round(len(frames) / min(cpus), 2)}))


if __name__ == "__main__":
    main()
