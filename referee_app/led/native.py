"""The project's own LED protocol, host side (the board side is firmware/ledproto.py, kept separate
because it must run under MicroPython; tests check the two agree byte for byte).

Frame: b"HR", version, command, payload length (u16 big-endian), header check
(version ^ command ^ len_hi ^ len_lo ^ 0x55), payload, CRC-16/CCITT-FALSE (u16 big-endian) over
version..payload. Replies use the same framing with the command's high bit set."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from referee_app.led.colors import RGB

MAGIC = b"HR"
VERSION = 1
FRAME = 0x01
BLINK = 0x02
BRIGHTNESS = 0x03
STATUS = 0x04
CLEAR_BLINKS = 0x05
FILL = 0x06
REPLY_STATUS = 0x84
REPLY_ERROR = 0xFF
ERRORS = {1: "checksum mismatch", 2: "protocol version not supported", 3: "unknown command",
          4: "bad payload length", 5: "more LEDs than the strip has"}
MAX_PAYLOAD = 4096
# the longest reply the board sends (status: 25 bytes). The host waits for no longer one: a noise
# header claiming 4 KiB would otherwise hold every real reply behind it until 4 KiB more arrived.
MAX_REPLY = 64
OVERHEAD = 9  # 7 header bytes + 2 CRC bytes


class ProtocolError(ValueError):
    pass


def _crc_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return tuple(table)


_TABLE = _crc_table()


def crc16(data: bytes | bytearray, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection): 0x29B1 for b"123456789"."""
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ _TABLE[((crc >> 8) ^ byte) & 0xFF]
    return crc


def encode(command: int, payload: bytes = b"", version: int = VERSION) -> bytes:
    n = len(payload)
    if n > MAX_PAYLOAD:
        raise ProtocolError(f"payload of {n} bytes exceeds {MAX_PAYLOAD}")
    head = bytes((version, command, n >> 8, n & 0xFF))
    check = version ^ command ^ (n >> 8) ^ (n & 0xFF) ^ 0x55
    crc = crc16(payload, crc16(head))
    return MAGIC + head + bytes((check,)) + payload + crc.to_bytes(2, "big")


def _rgb(pixels: Sequence[RGB]) -> bytes:
    return bytes(v for px in pixels for v in px)


def frame(pixels: Sequence[RGB], start: int = 0) -> bytes:
    return encode(FRAME, start.to_bytes(2, "big") + _rgb(pixels))


def blink(indices: Sequence[int], color: RGB, period_ms: int, cycles: int, phase_ms: int = 0) -> bytes:
    """`cycles` periods (0: until cleared) counted from `phase_ms` ago (0 <= phase_ms < period_ms)."""
    if not 0 <= cycles <= 255 or not 1 <= period_ms <= 65535 or not 0 <= phase_ms < period_ms:
        raise ProtocolError(f"blink needs cycles 0..255, period 1..65535 ms and 0 <= phase < period, got "
                            f"{cycles}, {period_ms}, {phase_ms}")
    body = period_ms.to_bytes(2, "big") + bytes((cycles,)) + phase_ms.to_bytes(2, "big") + bytes(color)
    return encode(BLINK, body + b"".join(i.to_bytes(2, "big") for i in indices))


def brightness(level: int) -> bytes:
    return encode(BRIGHTNESS, bytes((max(0, min(255, level)),)))


def fill(color: RGB) -> bytes:
    return encode(FILL, bytes(color))


def status_query() -> bytes:
    return encode(STATUS)


def clear_blinks() -> bytes:
    return encode(CLEAR_BLINKS)


@dataclass(frozen=True)
class BoardStatus:
    version: int
    led_count: int
    brightness: int
    frames: int
    crc_errors: int
    dropped_bytes: int
    overflows: int
    uptime_ms: int
    blinks: int

    @classmethod
    def from_payload(cls, p: bytes) -> BoardStatus:
        if len(p) < 25:
            raise ProtocolError(f"status reply of {len(p)} bytes, expected 25")
        u32 = [int.from_bytes(p[4 + 4 * k:8 + 4 * k], "big") for k in range(5)]
        return cls(p[0], int.from_bytes(p[1:3], "big"), p[3], *u32, p[24])


class ReplyReader:
    """Collects reply frames from the bytes a board sends back, skipping anything else (greetings,
    boot messages, noise)."""

    def __init__(self) -> None:
        self.buf = bytearray()

    def feed(self, data: bytes) -> list[tuple[int, bytes]]:
        self.buf += data
        out: list[tuple[int, bytes]] = []
        while True:
            start = self.buf.find(MAGIC)
            if start < 0:
                del self.buf[:max(0, len(self.buf) - 1)]
                return out
            del self.buf[:start]
            if len(self.buf) < 7:
                return out
            ver, cmd, n = self.buf[2], self.buf[3], int.from_bytes(self.buf[4:6], "big")
            if self.buf[6] != ver ^ cmd ^ (n >> 8) ^ (n & 0xFF) ^ 0x55 or n > MAX_REPLY:
                del self.buf[:1]
                continue
            if len(self.buf) < 9 + n:
                return out
            payload = bytes(self.buf[7:7 + n])
            if crc16(payload, crc16(bytes(self.buf[2:6]))) != int.from_bytes(self.buf[7 + n:9 + n], "big"):
                del self.buf[:1]
                continue
            del self.buf[:9 + n]
            out.append((cmd, payload))
