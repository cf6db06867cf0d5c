"""Adalight, the framing a stock Adalight/FastLED Arduino sketch and WLED's serial input accept:
b"Ada", count-1 as two bytes (high, low), a check byte high ^ low ^ 0x55, then R G B per LED.
The board greets with b"Ada\\n" after it (re)starts; WLED leaves live mode 2.5 s after the last
frame, so the host re-sends the frame about once a second (see docs/protocols/led.md)."""

from __future__ import annotations

from collections.abc import Sequence

from referee_app.led.colors import RGB

MAGIC = b"Ada"
GREETING = b"Ada\n"
MAX_LEDS = 65536
KEEPALIVE_S = 1.0  # WLED times out after 2.5 s: twice per timeout with margin


def header(count: int) -> bytes:
    if not 1 <= count <= MAX_LEDS:
        raise ValueError(f"Adalight frames carry 1..{MAX_LEDS} LEDs, got {count}")
    hi, lo = (count - 1) >> 8, (count - 1) & 0xFF
    return MAGIC + bytes((hi, lo, hi ^ lo ^ 0x55))


def encode_frame(pixels: Sequence[RGB]) -> bytes:
    body = bytearray(3 * len(pixels))
    for i, (r, g, b) in enumerate(pixels):
        body[3 * i:3 * i + 3] = bytes((r, g, b))
    return header(len(pixels)) + bytes(body)


def frame_bytes(count: int) -> int:
    return 6 + 3 * count
