"""The LED board's protocol logic, shared by the board (MicroPython) and the host emulator (CPython).

Written in the subset both run: no dataclasses, enum, typing imports or `from __future__`; only
plain annotations. The caller owns the clock: every method that needs time takes `now_ms`, so the
board passes its tick counter and the emulator passes a monotonic clock.

Two framings arrive on the same serial line, told apart by their header:
- Adalight: b"Ada", count-1 (hi, lo), hi ^ lo ^ 0x55, then R G B per LED.
- native (this project, see docs/protocols/led.md): b"HR", version, command, length (hi, lo),
  header check, payload, CRC-16/CCITT-FALSE (hi, lo) over version..payload.
Garbage, truncated frames and bad checksums are counted and skipped: the parser resynchronises on
the next header it finds, so the board never needs a reset.
"""

ADA_MAGIC = b"Ada"
NATIVE_MAGIC = b"HR"
VERSION = 1
GREETING = b"Ada\n"  # the stock Adalight sketch's greeting; hosts wait for it after opening the port

# native commands (host -> board); replies set the high bit
CMD_FRAME = 0x01  # start u16, then R G B per LED
CMD_BLINK = 0x02  # period_ms u16, cycles u8 (0 = until cleared), phase_ms u16, R G B, LED indices u16 each
CMD_BRIGHTNESS = 0x03  # level u8 (0..255)
CMD_STATUS = 0x04  # empty; answered by REPLY_STATUS
CMD_CLEAR_BLINKS = 0x05  # empty
CMD_FILL = 0x06  # R G B: every LED, blinks cleared
REPLY_STATUS = 0x84  # see status_payload()
REPLY_ERROR = 0xFF  # code u8, command u8

ERR_CRC = 1
ERR_VERSION = 2
ERR_COMMAND = 3
ERR_LENGTH = 4
ERR_OVERFLOW = 5  # a frame addressed more LEDs than the strip has (the ones that exist were set)

NATIVE_HEADER = 7
ADA_HEADER = 6
MAX_PAYLOAD = 4 * 1024  # a 1024-LED frame plus its start field fits
MAX_ADA_LEDS = 1024
FRAME_TIMEOUT_MS = 250  # a frame still incomplete this long after its last byte is dropped
STATUS_FIELDS = 9  # version, led_count, brightness, frames, crc_errors, dropped, overflows, uptime, blinks


def _crc_table():
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return table


_CRC_TABLE = _crc_table()


def crc16(data, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF): check value 0x29B1 for b"123456789"."""
    table = _CRC_TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[((crc >> 8) ^ byte) & 0xFF]
    return crc


def header_check(version: int, command: int, length: int) -> int:
    return version ^ command ^ (length >> 8) ^ (length & 0xFF) ^ 0x55


def encode(command: int, payload=b"", version: int = VERSION) -> bytes:
    """One native frame. The firmware uses it for replies; the host has its own encoder."""
    n = len(payload)
    head = bytes((version, command, n >> 8, n & 0xFF))
    crc = crc16(payload, crc16(head))
    return (NATIVE_MAGIC + head + bytes((header_check(version, command, n),)) + bytes(payload)
            + bytes((crc >> 8, crc & 0xFF)))


def _u16(data, i: int) -> int:
    return (data[i] << 8) | data[i + 1]


def _put32(out, value: int) -> None:
    value &= 0xFFFFFFFF
    out.append((value >> 24) & 0xFF)
    out.append((value >> 16) & 0xFF)
    out.append((value >> 8) & 0xFF)
    out.append(value & 0xFF)


class Blink:
    """LEDs `indices` show `color` for the first half of each `period_ms`, their base colour for the
    second half, `cycles` times (0: until cleared or replaced)."""

    def __init__(self, indices, color, period_ms: int, cycles: int, start_ms: int) -> None:
        self.indices = indices
        self.color = color
        self.period_ms = max(1, period_ms)
        self.cycles = cycles
        self.start_ms = start_ms

    def expired(self, now_ms: int) -> bool:
        return self.cycles > 0 and now_ms - self.start_ms >= self.cycles * self.period_ms

    def lit(self, now_ms: int) -> bool:
        return (now_ms - self.start_ms) % self.period_ms < self.period_ms // 2


class LedState:
    """What the strip shows: base colours, running blinks and a global brightness."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.base = [(0, 0, 0)] * count
        self.blinks = []
        self.brightness = 255
        self.version = 0  # bumped on every change, so a display loop can skip identical frames

    def set_range(self, start: int, colors) -> None:
        base = self.base
        for k, c in enumerate(colors):
            base[start + k] = c
        self.version += 1

    def fill(self, color) -> None:
        self.base = [color] * self.count
        self.blinks = []
        self.version += 1

    def add_blink(self, blink) -> None:
        mine = set(blink.indices)
        kept = []
        for b in self.blinks:  # a new blink replaces older ones on the same LEDs
            rest = [i for i in b.indices if i not in mine]
            if rest:
                b.indices = rest
                kept.append(b)
        kept.append(blink)
        self.blinks = kept
        self.version += 1

    def clear_blinks(self) -> None:
        self.blinks = []
        self.version += 1

    def set_brightness(self, level: int) -> None:
        self.brightness = level
        self.version += 1

    def expire(self, now_ms: int) -> None:
        if self.blinks:
            live = [b for b in self.blinks if not b.expired(now_ms)]
            if len(live) != len(self.blinks):
                self.blinks = live
                self.version += 1

    def pixels(self, now_ms: int):
        """The colours to push to the strip now, brightness applied."""
        self.expire(now_ms)
        out = list(self.base)
        if self.blinks:
            for b in self.blinks:
                if b.lit(now_ms):
                    for i in b.indices:
                        out[i] = b.color
        level = self.brightness
        if level != 255:
            out = [(r * level // 255, g * level // 255, b * level // 255) for (r, g, b) in out]
        return out


class Parser:
    """Feeds bytes from the serial line into a LedState; returns the bytes to answer with."""

    def __init__(self, state, now_ms: int = 0) -> None:
        self.state = state
        self.buf = bytearray()
        self.last_rx_ms = now_ms
        self.boot_ms = now_ms
        self.frames = 0  # complete, valid frames of either kind
        self.ada_frames = 0
        self.crc_errors = 0
        self.dropped = 0  # bytes skipped while looking for a header (garbage, truncated frames)
        self.overflows = 0
        self.last_error = ""

    def feed(self, data, now_ms: int):
        replies = []
        if data:
            self.buf.extend(data)
            self.last_rx_ms = now_ms
        while self.buf:
            progressed = self._step(now_ms, replies)
            if not progressed:
                break
        return replies

    def idle(self, now_ms: int) -> None:
        """Call when no bytes came: drops a frame that stopped arriving (a truncated frame)."""
        if self.buf and now_ms - self.last_rx_ms > FRAME_TIMEOUT_MS:
            self._drop(len(self.buf), "truncated frame dropped")

    def _drop(self, n: int, why: str) -> None:
        self.dropped += n
        self.buf = self.buf[n:]
        self.last_error = why

    def _find_header(self) -> int:
        buf = self.buf
        end = len(buf)
        for i in range(end):
            b = buf[i]
            if b == 0x41:  # 'A'
                if i + 1 >= end or (buf[i + 1] == 0x64 and (i + 2 >= end or buf[i + 2] == 0x61)):
                    return i
            elif b == 0x48:  # 'H'
                if i + 1 >= end or buf[i + 1] == 0x52:
                    return i
        return end

    def _step(self, now_ms: int, replies) -> bool:
        start = self._find_header()
        if start:
            self._drop(start, "garbage skipped")
            return True
        buf = self.buf
        if buf[0] == 0x41:
            return self._ada(buf)
        return self._native(buf, now_ms, replies)

    def _ada(self, buf) -> bool:
        if len(buf) < ADA_HEADER:
            return False
        hi, lo, chk = buf[3], buf[4], buf[5]
        count = ((hi << 8) | lo) + 1
        if chk != hi ^ lo ^ 0x55 or count > MAX_ADA_LEDS:
            self._drop(1, "bad Adalight header")
            return True
        need = ADA_HEADER + 3 * count
        if len(buf) < need:
            return False
        n = min(count, self.state.count)
        end = ADA_HEADER + 3 * n
        self.state.set_range(0, [(buf[k], buf[k + 1], buf[k + 2]) for k in range(ADA_HEADER, end, 3)])
        if count > self.state.count:
            self.overflows += 1
            self.last_error = f"Adalight frame for {count} LEDs, strip has {self.state.count}"
        self.frames += 1
        self.ada_frames += 1
        self.buf = buf[need:]
        return True

    def _native(self, buf, now_ms: int, replies) -> bool:
        if len(buf) < NATIVE_HEADER:
            return False
        version, command, length = buf[2], buf[3], _u16(buf, 4)
        if buf[6] != header_check(version, command, length) or length > MAX_PAYLOAD:
            self._drop(1, "bad native header")
            return True
        need = NATIVE_HEADER + length + 2
        if len(buf) < need:
            return False
        payload = buf[NATIVE_HEADER:NATIVE_HEADER + length]
        crc = crc16(payload, crc16(buf[2:6]))
        if crc != _u16(buf, NATIVE_HEADER + length):
            self.crc_errors += 1
            self._drop(1, "checksum mismatch")  # rescan from the next byte: a header may hide inside
            replies.append(encode(REPLY_ERROR, bytes((ERR_CRC, command))))
            return True
        self.buf = buf[need:]
        if version != VERSION:
            self.last_error = f"protocol version {version} not supported"
            replies.append(encode(REPLY_ERROR, bytes((ERR_VERSION, command))))
            return True
        self.frames += 1
        err = self._command(command, payload, now_ms, replies)
        if err:
            replies.append(encode(REPLY_ERROR, bytes((err, command))))
        return True

    def _command(self, command: int, p, now_ms: int, replies) -> int:
        state = self.state
        if command == CMD_FRAME:
            if len(p) < 2 or (len(p) - 2) % 3:
                return ERR_LENGTH
            start = _u16(p, 0)
            colors = [(p[k], p[k + 1], p[k + 2]) for k in range(2, len(p), 3)]
            fits = max(0, min(len(colors), state.count - start))
            state.set_range(start, colors[:fits])
            if fits < len(colors):
                self.overflows += 1
                last = start + len(colors) - 1
                self.last_error = f"frame for LEDs {start}..{last}, strip has {state.count}"
                return ERR_OVERFLOW
            return 0
        if command == CMD_BLINK:
            if len(p) < 8 or (len(p) - 8) % 2:
                return ERR_LENGTH
            indices = [_u16(p, k) for k in range(8, len(p), 2)]
            kept = [i for i in indices if i < state.count]
            if kept:
                # phase_ms: the blink began that long ago on the host, so a re-sent blink keeps its rhythm
                state.add_blink(Blink(kept, (p[5], p[6], p[7]), _u16(p, 0), p[2], now_ms - _u16(p, 3)))
            if len(kept) < len(indices):
                self.overflows += 1
                return ERR_OVERFLOW
            return 0
        if command == CMD_BRIGHTNESS:
            if len(p) != 1:
                return ERR_LENGTH
            state.set_brightness(p[0])
            return 0
        if command == CMD_STATUS:
            replies.append(encode(REPLY_STATUS, self.status_payload(now_ms)))
            return 0
        if command == CMD_CLEAR_BLINKS:
            state.clear_blinks()
            return 0
        if command == CMD_FILL:
            if len(p) != 3:
                return ERR_LENGTH
            state.fill((p[0], p[1], p[2]))
            return 0
        self.last_error = f"unknown command 0x{command:02x}"
        return ERR_COMMAND

    def status_payload(self, now_ms: int) -> bytes:
        """version u8, led_count u16, brightness u8, then u32: frames, crc_errors, dropped bytes,
        overflows, uptime_ms; then active blinks u8 (25 bytes)."""
        out = bytearray((VERSION, self.state.count >> 8, self.state.count & 0xFF, self.state.brightness))
        for value in (self.frames, self.crc_errors, self.dropped, self.overflows, now_ms - self.boot_ms):
            _put32(out, value)
        out.append(min(255, len(self.state.blinks)))
        return bytes(out)


GREET_EVERY_MS = 1000


class Board:
    """Everything the board does apart from I/O, so the MicroPython main loop and the host emulator
    run the same code: feed it received bytes and the clock, write back what it returns, and push
    `frame()` to the strip when it is not None."""

    def __init__(self, count: int, now_ms: int = 0, greet_every_ms: int = GREET_EVERY_MS) -> None:
        self.state = LedState(count)
        self.parser = Parser(self.state, now_ms)
        self.greet_every_ms = greet_every_ms
        self.last_greet_ms = now_ms - greet_every_ms
        self._shown_version = -1
        self._shown_lit = None

    def boot(self, now_ms: int) -> bytes:
        """What a freshly reset board sends: the Adalight greeting."""
        self.last_greet_ms = now_ms
        return GREETING

    def receive(self, data, now_ms: int) -> bytes:
        return b"".join(self.parser.feed(data, now_ms))

    def tick(self, now_ms: int) -> bytes:
        """Call when nothing arrived. While the host is silent, greet about once a second (the stock
        Adalight sketch does too): a board that does not reset when the port opens still greets."""
        self.parser.idle(now_ms)
        quiet = now_ms - self.parser.last_rx_ms >= self.greet_every_ms
        if quiet and now_ms - self.last_greet_ms >= self.greet_every_ms:
            self.last_greet_ms = now_ms
            return GREETING
        return b""

    def frame(self, now_ms: int):
        """The pixels to show if they changed since the last call, else None."""
        state = self.state
        state.expire(now_ms)
        lit = tuple(b.lit(now_ms) for b in state.blinks) if state.blinks else None
        if lit == self._shown_lit and state.version == self._shown_version:
            return None  # checked before building the pixel list: the board loop calls this often
        self._shown_version = state.version
        self._shown_lit = lit
        return state.pixels(now_ms)
