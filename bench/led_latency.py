"""LED output benchmark on a 256-LED board (16 x 16 serpentine) against the emulator on a pty.

1. Latency: time from publishing a verdict on the EventBus to the last byte of its frame written to
   the port (p50/p95), for both protocols. Baseline: the time that frame needs on a 115200-baud wire.
2. Sustained frames per second, the host pushing frames as fast as the LedOutput queue takes them:
   on the bare pty (software headroom) and with the emulator reading at 115200 baud (8N1: 11520 bytes/s).
   Baseline: the wire limit, 11520 / frame bytes.

Run: .venv/bin/python bench/led_latency.py [--events 200] [--seconds 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

from firmware.emulator import Emulator
from referee_app import events as ev
from referee_app.led import adalight, native
from referee_app.led.layout import Layout, serpentine_layout
from referee_app.led.output import LedOutput
from referee_app.led.scene import LedFrame

BAUD = 115200
BYTES_PER_S = BAUD / 10  # 8N1: start + 8 data + stop bits


def board_layout() -> Layout:
    rows = [[f"{chr(97 + c)}{r + 1}" for c in range(16)] for r in range(16)]
    return serpentine_layout("bench-256", rows, seats=0, status=(), brightness=1.0)


def frame_bytes(protocol: str, count: int) -> int:
    return adalight.frame_bytes(count) if protocol == "adalight" else native.OVERHEAD + 2 + 3 * count


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def latency(protocol: str, layout: Layout, events: int) -> list[float]:
    written: list[float] = []
    cells = list(layout.cells)
    with Emulator(layout.led_count) as emu:
        bus = ev.EventBus()
        out = LedOutput(layout, emu.path, protocol, greeting_timeout=2).attach(bus).start()
        out.on_write = lambda frame: written.append(time.time() - frame.event_t)
        bus.publish(ev.TURN, "bench", layout.game, player=0, players=["A"])  # connects before timing
        out.wait_idle(5)
        time.sleep(0.2)
        written.clear()
        for k in range(events):
            legal = k % 3 != 0
            bus.publish(ev.VERDICT, "bench", layout.game, player=0, cells=[cells[k % len(cells)]],
                        verdict={"legal": legal, "rule": "bench", "reason": "",
                                 "consequence": "none" if legal else "turn_lost"})
            time.sleep(0.01)
        bus.drain()
        out.wait_idle(5)
        out.stop()
        bus.close()
    return written


def sustained_fps(protocol: str, layout: Layout, seconds: float, baud: int | None,
                  warmup: float = 1.0) -> tuple[float, float]:
    """(frames/s written by the host, frames/s parsed by the firmware), counted after `warmup` seconds
    so the kernel's pty buffer filling up at the start does not count as throughput."""
    n = layout.led_count
    with Emulator(n, baud=baud) as emu:
        out = LedOutput(layout, emu.path, protocol, greeting_timeout=2, queue_size=2).start()
        out.submit(LedFrame(((0, 0, 0),) * n))
        out.wait_idle(5)
        start = time.monotonic()
        marks: list[tuple[float, int, int]] = []
        k = 0
        while True:
            now = time.monotonic()
            if not marks and now - start >= warmup:
                marks.append((now, out.stats.frames_sent, emu.board.parser.frames))
            if now - start >= warmup + seconds:
                marks.append((now, out.stats.frames_sent, emu.board.parser.frames))
                break
            k += 1
            out.submit(LedFrame(tuple(((k + i) % 256, i % 256, 0) for i in range(n)), seq=k))
            time.sleep(0.001)
        out.stop()
    (t0, sent0, parsed0), (t1, sent1, parsed1) = marks
    return (sent1 - sent0) / (t1 - t0), (parsed1 - parsed0) / (t1 - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=3.0)
    args = ap.parse_args()
    layout = board_layout()
    n = layout.led_count
    print(f"256-LED board ({n} LEDs), emulator on a pty, {BAUD} baud wire = {BYTES_PER_S:.0f} bytes/s")
    for protocol in ("adalight", "native"):
        size = frame_bytes(protocol, n)
        wire_ms = size / BYTES_PER_S * 1000
        lat = [v * 1000 for v in latency(protocol, layout, args.events)]
        print(f"[{protocol}] verdict -> last byte written: n={len(lat)} p50 {statistics.median(lat):.2f} ms "
              f"p95 {p95(lat):.2f} ms | baseline: one {size}-byte frame on the wire {wire_ms:.1f} ms | "
              f"ratio p95/wire {p95(lat) / wire_ms:.3f}")
        limit = BYTES_PER_S / size
        for label, baud in (("bare pty", None), (f"emulator paced at {BAUD} baud", BAUD)):
            sent, parsed = sustained_fps(protocol, layout, args.seconds, baud)
            print(f"[{protocol}] sustained, {label}: host wrote {sent:.1f} fps, firmware parsed "
                  f"{parsed:.1f} fps | baseline: wire limit {limit:.2f} fps | "
                  f"ratio parsed/limit {parsed / limit:.2f}")


if __name__ == "__main__":
    main()
