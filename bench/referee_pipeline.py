"""Referee pipeline benchmark: per game with a bundled recorded match,
- frames per second of the whole loop (read -> gate -> explain -> judge -> fsync'ed log -> event),
  against the reader alone on the same frames (the baseline: what the referee adds on top);
- latency from a frame's capture to its verdict event (p50, p95);
and for the web server, how many page viewers (open event streams) it holds while streaming, and
how long a verdict takes to reach all of them.

    OPENBLAS_NUM_THREADS=1 .venv/bin/python bench/referee_pipeline.py [--viewers 8,16,32] [--frames 40]
"""

from __future__ import annotations

import argparse
import http.client
import json
import tempfile
import threading
import time
from pathlib import Path

from referee_app import events
from referee_app.demo import bundled_demos
from referee_app.games import get_adapter
from referee_app.hub import Hub
from referee_app.loop import RefereeLoop
from referee_app.store import MatchStore


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def bench_game(demo, data: Path, max_frames: int) -> dict:
    frames = list(demo.frames(realtime=False))[:max_frames]
    adapter = get_adapter(demo.game)
    t0 = time.perf_counter()
    for f in frames:  # baseline: the reader alone
        adapter.read(f)
    read_s = time.perf_counter() - t0
    hub = Hub(MatchStore(data / demo.name))
    verdict_times: list[float] = []
    hub.bus.subscribe(lambda e: verdict_times.append(time.time()) if e.kind == events.VERDICT else None)
    m = demo.manifest
    session = hub.create_match(demo.game, list(m["players"]), dict(m.get("variant") or {}))
    fresh = get_adapter(demo.game).__class__()
    loop = RefereeLoop(hub, session, fresh, iter(_restamp(frames)), int(m.get("frames_needed", 3)))
    t0 = time.perf_counter()
    loop.run()
    hub.bus.drain()
    total_s = time.perf_counter() - t0
    hub.bus.close()
    lat = loop.stats.latencies or []
    return {"game": demo.game, "frames": len(frames), "reader_fps": len(frames) / read_s,
            "pipeline_fps": len(frames) / total_s, "overhead_ratio": total_s / read_s,
            "verdicts": loop.stats.judged, "latency_p50_ms": 1000 * pct(lat, 0.5),
            "latency_p95_ms": 1000 * pct(lat, 0.95)}


def _restamp(frames):
    """Give each frame the time it is handed to the loop, as a camera would."""
    for f in frames:
        f.timestamp = time.time()
        yield f


def bench_viewers(counts: list[int], data: Path) -> list[dict]:
    from waitress.server import create_server

    from referee_app.web.app import create_app

    out = []
    for n in counts:
        hub = Hub(MatchStore(data / f"viewers{n}"))
        server = create_server(create_app(hub, stream_seconds=20), host="127.0.0.1", port=0, threads=n + 8)
        threading.Thread(target=server.run, daemon=True).start()
        port = server.effective_port
        session = hub.create_match("highway-grid", ["A", "B"])
        streams = []
        got: list[float] = []
        lock = threading.Lock()

        def viewer(c: http.client.HTTPConnection, r, got: list[float] = got, lock=lock) -> None:
            while True:
                line = r.readline()
                if not line:
                    return
                if b"grid.place" in line:
                    with lock:
                        got.append(time.perf_counter())
                    return

        for _ in range(n):
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
            c.request("GET", f"/api/matches/{session.match_id}/events?timeout=10")
            r = c.getresponse()
            t = threading.Thread(target=viewer, args=(c, r), daemon=True)
            t.start()
            streams.append((c, t))
        time.sleep(0.3)
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        t_status = time.perf_counter()
        c.request("GET", "/api/status")
        status_ok = c.getresponse().status == 200
        status_ms = 1000 * (time.perf_counter() - t_status)
        t_send = time.perf_counter()
        session.submit(session.parse("1@a1"))
        for _c, t in streams:
            t.join(timeout=10)
        reached = len(got)
        fanout_ms = 1000 * (max(got) - t_send) if got else float("nan")
        for c2, _t in streams:
            c2.close()
        server.close()
        hub.bus.close()
        out.append({"viewers": n, "reached": reached, "status_ok_while_streaming": status_ok,
                    "status_ms": status_ms, "verdict_to_all_viewers_ms": fanout_ms})
    return out


def main() -> None:
    import cv2

    cv2.setNumThreads(1)  # one core: OpenCV's own worker threads off too
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--viewers", default="8,16,32")
    p.add_argument("--frames", type=int, default=40, help="frames per game (from its recorded match)")
    p.add_argument("--json", type=Path)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        games = [bench_game(d, Path(tmp), args.frames) for d in bundled_demos()]
        viewers = bench_viewers([int(v) for v in args.viewers.split(",")], Path(tmp))
    print(f"{'game':<16}{'frames':>7}{'reader fps':>12}{'pipeline fps':>14}{'ratio':>7}{'p50 ms':>9}"
          f"{'p95 ms':>9}")
    for g in games:
        print(f"{g['game']:<16}{g['frames']:>7}{g['reader_fps']:>12.1f}{g['pipeline_fps']:>14.1f}"
              f"{g['overhead_ratio']:>7.2f}{g['latency_p50_ms']:>9.1f}{g['latency_p95_ms']:>9.1f}")
    print("(ratio = pipeline time / reader-alone time on the same frames; latency = frame handed to the loop"
          " -> its verdict published, for frames that produced a verdict)")
    print(f"{'viewers':>8}{'reached':>9}{'status ok':>11}{'status ms':>11}{'verdict->all ms':>17}")
    for v in viewers:
        print(f"{v['viewers']:>8}{v['reached']:>9}{v['status_ok_while_streaming']!s:>11}{v['status_ms']:>11.1f}"
              f"{v['verdict_to_all_viewers_ms']:>17.1f}")
    if args.json:
        args.json.write_text(json.dumps({"games": games, "viewers": viewers}, indent=1))


if __name__ == "__main__":
    main()
