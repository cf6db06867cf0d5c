"""The referee against a hostile page on the same machine, a crash and a damaged log (issue #22):
prints each target with what was measured. Everything stays on 127.0.0.1.

1. fuzz      >= 2,000 requests generated from docs/protocols/openapi.yaml (tests/openapi_fuzz.py)
             to a real waitress server, 8 clients at once: 5xx, hangs (no answer in 20 s), and
             changes to logs or index made without a token; then 500 with the admin token.
2. streams   120 open SSE/MJPEG connections (60 to a match that does not exist), then the latency
             of GET /api/status while they are open.
3. hint      GET /hint on an empty 4x4 board under the default budget; the server's CPU time in the
             seconds after it answered, and after a client that left at once.
4. sigkill   `highway-referee serve` killed with SIGKILL 10 times while moves are posted and an
             event stream is open; every acknowledged move must be in the logs, and the index must
             agree with the logs after the restart.
5. corrupt   single-byte damage at every position of a small log (bit flips and 4 other values):
             `log replay` and the server must report it (no traceback, no 5xx) and keep every
             record before the damage.

Wall-clock numbers are inflated on a loaded machine; CPU time (time.process_time) is given where
it is the point. Usage: python bench/hostile.py [--quick] [--only fuzz,streams,hint,sigkill,corrupt]
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import http.client
import io
import json
import logging
import os
import random
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))  # the request generator is shared with the test suite

from waitress_server import serving  # noqa: E402

from referee_app.cli import main as cli_main  # noqa: E402
from referee_app.hub import Hub  # noqa: E402
from referee_app.replay import replay  # noqa: E402
from referee_app.store import MatchStore  # noqa: E402
from referee_app.web.app import create_app  # noqa: E402
from referee_app.web.budget import HINT_SECONDS  # noqa: E402
from referee_app.web.streams import default_cap  # noqa: E402

THREADS = 32  # `serve --threads` default


# -- a real server in this process ------------------------------------------------------------------
class Served:
    """The app on waitress as `serve` runs it (32 threads, reading ahead), on a free port."""

    def __init__(self, hub: Hub, **app_options: Any) -> None:
        self.hub = hub
        self.app = create_app(hub, max_streams=default_cap(THREADS), **app_options)
        self._stack = contextlib.ExitStack()
        self.port = self._stack.enter_context(serving(self.app, threads=THREADS, drain=2, channel_timeout=30,
                                                      connection_limit=400, channel_request_lookahead=1))

    def close(self) -> None:
        # streams still open when the bench stops its server make waitress log their ends: not news
        logging.getLogger("waitress").setLevel(logging.CRITICAL)
        try:
            self._stack.close()
        finally:
            logging.getLogger("waitress").setLevel(logging.WARNING)


def send(port: int, method: str, path: str, headers: dict[str, str] | None = None, body: bytes | None = None,
         timeout: float = 20.0) -> tuple[int, bytes]:
    """One request; the whole answer read (streams end by their timeout). Header values are sent
    as UTF-8 bytes, as a hostile client may."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.putrequest(method, path, skip_accept_encoding=True)
        for name, value in (headers or {}).items():
            conn.putheader(name, value.encode("utf-8", "surrogatepass"))
        if body is not None:
            conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def grid_hub(data: Path) -> tuple[Hub, list[str]]:
    """A hub whose store has a match of each game, moves in one, a damaged and a torn log."""
    sys.path.insert(0, str(REPO / "tests"))
    from test_openapi_fuzz import referee

    hub, _app, ids = referee(data)
    return hub, ids


def state_of(hub: Hub) -> tuple:
    files = tuple((p.name, hashlib.sha256(p.read_bytes()).hexdigest())
                  for p in sorted(hub.store.data_dir.rglob("*.jsonl")))
    return files, tuple(json.dumps(i.to_json(), sort_keys=True) for i in hub.store.list())


# -- 1. fuzz ------------------------------------------------------------------------------------------
def generate(count: int, match_ids: list[str], token: str | None, seed: int) -> list[Any]:
    from hypothesis import HealthCheck, given, settings
    from openapi_fuzz import load_spec, operations, requests

    out: list[Any] = []

    @settings(max_examples=count, deadline=None, database=None, suppress_health_check=list(HealthCheck),
              phases=[__import__("hypothesis").Phase.generate])
    @given(requests(operations(load_spec()), match_ids, token=token))
    def collect(req: Any) -> None:
        out.append(req)

    random.seed(seed)
    collect()
    return out


def bench_fuzz(count: int) -> list[str]:
    with tempfile.TemporaryDirectory() as d:
        hub, ids = grid_hub(Path(d))
        served = Served(hub, stream_seconds=2.0, idle_seconds=2.0, hint_seconds=0.2)
        lines = []
        try:
            phases = (("without a token", None, count),
                      ("with the admin token", hub.admin_token, max(100, count // 4)))
            for label, token, n in phases:
                reqs = generate(n, ids, token, 22)
                while len(reqs) < n:  # hypothesis may stop early once it has tried everything small
                    reqs += generate(n - len(reqs), ids, token, 22 + len(reqs))
                reqs = reqs[:n]
                before = state_of(hub)
                codes: dict[int, int] = {}
                hangs, errors5 = 0, []

                def one(req: Any) -> int:
                    try:
                        return send(served.port, req.method, req.path, req.headers, req.body)[0]
                    except TimeoutError:
                        return -1

                start = time.perf_counter()
                with ThreadPoolExecutor(8) as pool:
                    for req, code in zip(reqs, pool.map(one, reqs), strict=True):
                        codes[code] = codes.get(code, 0) + 1
                        if code == -1:
                            hangs += 1
                        elif code >= 500:
                            errors5.append(req)
                wall = time.perf_counter() - start
                changed = state_of(hub) != before
                seen = ", ".join(f"{k}: {v}" for k, v in sorted(codes.items()))
                lines.append(f"fuzz {label}: {len(reqs)} requests in {wall:.0f} s; 5xx: {len(errors5)}; "
                             f"hangs: {hangs}"
                             + (f"; state changed: {'YES' if changed else 'no'}" if token is None else "")
                             + f"  [statuses {seen}]")
                for req in errors5[:5]:
                    lines.append(f"    5xx: {req!r}")
        finally:
            served.close()
            hub.bus.close()
    return lines


# -- 2. streams --------------------------------------------------------------------------------------
def bench_streams(total: int = 120) -> list[str]:
    with tempfile.TemporaryDirectory() as d:
        hub = Hub(MatchStore(Path(d)))
        mid = hub.create_match("highway-grid", ["A", "B"]).match_id
        served = Served(hub)  # the server's defaults: streams of up to 300 s, idle 60 s
        stop = threading.Event()

        def frames() -> None:
            while not stop.wait(0.2):
                hub.publish_frame(os.urandom(2000), mid)

        hub.publish_frame(os.urandom(2000), mid)
        threading.Thread(target=frames, daemon=True).start()
        socks, statuses = [], {}
        paths = ["/api/matches/doesnotexist/events", "/video.mjpg?match=doesnotexist",
                 f"/api/matches/{mid}/events", f"/video.mjpg?match={mid}"]
        try:
            for k in range(total):
                s = socket.create_connection(("127.0.0.1", served.port), timeout=10)
                s.sendall(f"GET {paths[k % 4]} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
                socks.append((s, paths[k % 4]))
            for s, path in socks:
                head = b""
                with contextlib.suppress(OSError):
                    while b"\r\n" not in head:
                        chunk = s.recv(64)
                        if not chunk:
                            break
                        head += chunk
                found = re.match(rb"HTTP/1\.[01] (\d+)", head)
                code = int(found.group(1)) if found else -1
                key = ("unknown match " if "doesnotexist" in path else "real match ") + \
                    ("SSE" if "events" in path else "MJPEG")
                statuses.setdefault(key, {}).setdefault(code, 0)
                statuses[key][code] += 1
            latencies = []
            for _ in range(10):
                t = time.perf_counter()
                code, _ = send(served.port, "GET", "/api/status", timeout=30)
                latencies.append((time.perf_counter() - t, code))
                time.sleep(0.1)
            open_now = served.app.config["streams"].open
        finally:
            stop.set()
            for s, _ in socks:
                s.close()
        time.sleep(1.5)  # each stream notices its client left at its next write (frames: 0.2 s)
        left = served.app.config["streams"].open
        t = time.perf_counter()
        after_code, _ = send(served.port, "GET", "/api/status", timeout=30)
        after = time.perf_counter() - t
        served.close()
        hub.bus.close()
    worst = max(x for x, _ in latencies)
    out = [f"streams: {total} connections opened at once ({THREADS} server threads, stream cap "
           f"{default_cap(THREADS)}):"]
    for key, codes in sorted(statuses.items()):
        out.append(f"    {key}: " + ", ".join(f"{n} x {c}" for c, n in sorted(codes.items())))
    out.append(f"    GET /api/status while {open_now} streams were open: median "
               f"{statistics.median(x for x, _ in latencies) * 1000:.0f} ms, worst {worst * 1000:.0f} ms "
               f"(target < 1000 ms), statuses {sorted({c for _, c in latencies})}")
    out.append(f"    after the clients left: {left} streams still open after 1.5 s; /api/status "
               f"{after_code} in {after * 1000:.0f} ms")
    return out


# -- 3. hint ------------------------------------------------------------------------------------------
def bench_hint() -> list[str]:
    with tempfile.TemporaryDirectory() as d:
        hub = Hub(MatchStore(Path(d)))
        mid = hub.create_match("highway-grid", ["A", "B"]).match_id
        served = Served(hub)
        try:
            cpu0, t0 = time.process_time(), time.perf_counter()
            code, body = send(served.port, "GET", f"/api/matches/{mid}/hint", timeout=120)
            wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
            hint = json.loads(body).get("hint") or {}
            time.sleep(0.2)
            cpu1 = time.process_time()
            time.sleep(3)
            idle_cpu = time.process_time() - cpu1
            # a client that asks and leaves at once: the search still stops at its budget
            s = socket.create_connection(("127.0.0.1", served.port))
            s.sendall(f"GET /api/matches/{mid}/hint HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
            s.close()
            cpu2 = time.process_time()
            time.sleep(HINT_SECONDS + 2)
            left_cpu = time.process_time() - cpu2
            time.sleep(0.2)
            cpu3 = time.process_time()
            time.sleep(3)
            after_left_cpu = time.process_time() - cpu3
        finally:
            served.close()
            hub.bus.close()
    kind = "exact" if hint.get("exact") else "estimate"
    return [f"hint on an empty 4x4 board (budget {HINT_SECONDS:g} s): HTTP {code} in {wall:.2f} s wall, "
            f"{cpu:.2f} s CPU; answer {hint.get('notation')} ({kind})",
            f"    server CPU in the 3 s after it answered: {idle_cpu:.2f} s",
            f"    a client that left at once: {left_cpu:.2f} s CPU spent (at most the budget), then "
            f"{after_left_cpu:.2f} s CPU in the next 3 s"]


# -- 4. SIGKILL ---------------------------------------------------------------------------------------
def _start_server(data: Path) -> tuple[subprocess.Popen, int, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "referee_app", "serve", "--port", str(port), "--data", str(data)]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    assert proc.stdout is not None
    token = ""
    deadline = time.time() + 120
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        found = re.search(r"\?token=(\S+?)\s", line + " ")
        if found:
            token = found.group(1)
            break
    threading.Thread(target=proc.stdout.read, daemon=True).start()  # drain the rest
    if not token:
        proc.kill()
        raise RuntimeError("the server did not start")
    return proc, port, token


def bench_sigkill(kills: int) -> list[str]:
    rng = random.Random(22)
    cells = [f"{c}{r}" for c in "abcd" for r in "1234"]
    with tempfile.TemporaryDirectory() as d:
        data = Path(d)
        acked: dict[str, set[int]] = {}
        posted = 0
        for _round in range(kills):
            proc, port, token = _start_server(data)
            h = {"X-Referee-Token": token, "Content-Type": "application/json"}
            stop = threading.Event()
            counter = [0]

            def play(port: int = port, h: dict[str, str] = h, stop: threading.Event = stop,
                     counter: list[int] = counter) -> None:
                match = None
                while not stop.is_set():
                    try:
                        if match is None:
                            new = {"game": "highway-grid", "players": ["A", "B"]}
                            code, body = send(port, "POST", "/api/matches", h, json.dumps(new).encode())
                            if code != 201:
                                continue
                            match = json.loads(body)["match_id"]
                            # an event stream open on the match while it is played
                            sse = socket.create_connection(("127.0.0.1", port), timeout=5)
                            sse.sendall(f"GET /api/matches/{match}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                                        .encode())
                        move = f"{rng.randint(1, 16)}@{rng.choice(cells)}"
                        code, body = send(port, "POST", f"/api/matches/{match}/actions", h,
                                          json.dumps({"notation": move}).encode(), timeout=10)
                        counter[0] += 1
                        if code == 200:
                            acked.setdefault(match, set()).add(json.loads(body)["seq"])
                            if json.loads(body)["match"]["terminal"]:
                                match = None
                        elif code == 400:
                            continue  # the move was refused before anything was written
                        else:
                            match = None
                    except (OSError, http.client.HTTPException, ValueError):
                        return  # the server is gone

            threads = [threading.Thread(target=play, daemon=True) for _ in range(3)]
            for t in threads:
                t.start()
            time.sleep(rng.uniform(1.0, 3.0))
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            stop.set()
            for t in threads:
                t.join(timeout=15)
            posted += counter[0]
        # restart once more: the index is rebuilt at start
        proc, port, token = _start_server(data)
        code, body = send(port, "GET", "/api/matches")
        rows = {r["match_id"]: r for r in json.loads(body)["matches"]}
        served_ok = all(send(port, "GET", f"/api/matches/{m}")[0] == 200 for m in acked)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
        lost, total, disagree, torn = 0, 0, 0, 0
        logs = sorted((data / "matches").glob("*.jsonl"))
        for path in logs:
            report = replay(path)
            seqs = {c.seq for c in report.checks}
            torn += sum(1 for p in report.problems if p.torn)
            total += len(acked.get(path.stem, ()))
            lost += len(acked.get(path.stem, set()) - seqs)
            row = rows.get(path.stem)
            if row is None or row["actions"] != len(report.checks):
                disagree += 1
        missing_logs = len(set(acked) - {p.stem for p in logs})
    return [f"sigkill: {kills} SIGKILLs of `serve` mid-stream, 3 clients posting moves: {total} acknowledged "
            f"moves ({posted} requests answered), {lost} lost, {missing_logs} matches missing; "
            f"{torn} lines torn by the kills",
            f"    after the restart: {len(rows)} index rows for {len(logs)} logs, {disagree} rows disagree "
            f"with their log; every match served: {'yes' if served_ok else 'NO'}"]


# -- 5. corruption ------------------------------------------------------------------------------------
def small_log(data: Path) -> tuple[Hub, str]:
    hub = Hub(MatchStore(data))
    session = hub.create_match("highway-grid", ["Zoé", "Bo"])
    for move in ("7@b2", "3@a1", "12@c3", "12@d4"):
        session.submit_notation(move)
    session.correct(None, "5@d4", reason="misread é")
    hub.bus.drain()
    return hub, session.match_id


def bench_corrupt(stride: int) -> list[str]:
    with tempfile.TemporaryDirectory() as d:
        hub, mid = small_log(Path(d))
        client = create_app(hub, hint_seconds=0.05).test_client()
        path = hub.store.path(mid)
        good = path.read_bytes()
        header_end = good.index(b"\n")
        cases = tracebacks = server5 = lost = unchanged_bad = 0
        codes: dict[int, int] = {}
        cpu = time.process_time()
        for position in range(0, len(good), stride):
            original = good[position]
            values = {original ^ (1 << bit) for bit in range(8)} | {0xFF, ord("\n"), ord('"'), ord("}")}
            values.discard(original)
            for value in sorted(values):
                damaged = good[:position] + bytes([value]) + good[position + 1:]
                path.write_bytes(damaged)
                cases += 1
                out, err = io.StringIO(), io.StringIO()
                try:
                    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                        code = cli_main(["log", "replay", str(path)])
                except Exception:  # what the target forbids: count it
                    code = -1
                codes[code] = codes.get(code, 0) + 1
                if code == -1 or "Traceback" in out.getvalue() + err.getvalue():
                    tracebacks += 1
                if code in (0, 1) and position > header_end:
                    report = replay(path)
                    damaged_line = damaged[:position].count(b"\n") + 1
                    kept = [c.seq for c in report.checks if c.line is not None and c.line < damaged_line]
                    expect = [json.loads(line)["seq"] for line in good.split(b"\n")[1:damaged_line - 1]
                              if line and json.loads(line)["type"] == "action"]
                    if kept != expect:
                        lost += 1
                for session in hub.sessions.values():
                    session.writer.close()
                hub.sessions.clear()
                for url in (f"/api/matches/{mid}", f"/api/matches/{mid}/replay", "/api/matches",
                            f"/api/matches/{mid}/export?format=csv", f"/api/matches/{mid}/board.svg"):
                    if client.get(url).status_code >= 500:
                        server5 += 1
                if path.read_bytes() != damaged:
                    unchanged_bad += 1
        cpu = time.process_time() - cpu
        hub.bus.close()
    every = "every position" if stride == 1 else f"every {stride}th position"
    return [f"corrupt: {cases} single-byte damages ({every} of a {len(good)}-byte log, 8 bit flips + 0xFF, "
            f"newline, quote, brace) in {cpu:.0f} s CPU:",
            f"    log replay exits {dict(sorted(codes.items()))}; tracebacks {tracebacks}; "
            f"server 5xx {server5}; records before the damage lost {lost}; "
            f"logs written by a read {unchanged_bad}"]


def main() -> int:
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)  # as `serve` does
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="fewer requests, kills and positions (a smoke run)")
    p.add_argument("--only", default="fuzz,streams,hint,sigkill,corrupt")
    args = p.parse_args()
    only = set(args.only.split(","))
    sections = [("fuzz", lambda: bench_fuzz(200 if args.quick else 2000)),
                ("streams", lambda: bench_streams(40 if args.quick else 120)),
                ("hint", bench_hint),
                ("sigkill", lambda: bench_sigkill(2 if args.quick else 10)),
                ("corrupt", lambda: bench_corrupt(25 if args.quick else 1))]
    for name, run in sections:
        if name in only:
            for line in run():
                print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
