"""The two ways of talking to a board, over an open Transport: `AdalightDriver` (stock firmware:
the host animates blinks by sending frames, and re-sends about once a second for WLED) and
`NativeDriver` (this project's firmware: frames, blinks and brightness as commands, and a status
reply that tells the LED count)."""

from __future__ import annotations

import time
from abc import ABC, abstractmethod

from referee_app.led import adalight, native
from referee_app.led.colors import RGB
from referee_app.led.scene import Blink, LedFrame
from referee_app.led.transport import LedPortError, Transport

PROTOCOLS = ("adalight", "native")


class Driver(ABC):
    name = ""
    host_animates = False  # True: blinks are drawn by re-sending frames from the host

    def __init__(self, transport: Transport) -> None:
        self.t = transport
        self.led_count: int | None = None

    @abstractmethod
    def connect(self, timeout: float) -> None:
        """Handshake after the port opened; raises LedPortError when the board stays silent."""

    @abstractmethod
    def send(self, frame: LedFrame, now: float, full: bool = False) -> None:
        """Show `frame`; `full` after a (re)connect, when the board has forgotten everything."""

    @abstractmethod
    def keepalive(self, frame: LedFrame, now: float) -> None:
        """Re-send what keeps the board showing `frame` (WLED's live mode, a lost byte)."""

    @abstractmethod
    def pixels(self, pixels: list[RGB]) -> None:
        """Show these exact colours (the LED walk of `led test`)."""

    def animate(self, frame: LedFrame, now: float) -> bool:
        """Host-drawn blinks: write `frame` as it looks at `now` if that changed; True if written."""
        return False


class AdalightDriver(Driver):
    name = "adalight"
    host_animates = True

    def connect(self, timeout: float) -> None:
        if timeout <= 0:
            return  # WLED and some sketches never greet
        got = b""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            got = (got + self.t.read(64, min(0.1, max(0.0, deadline - time.monotonic()))))[-64:]
            if adalight.MAGIC in got:
                return
        raise LedPortError(
            f"no Adalight greeting (\"Ada\") from {self.t.path} within {timeout:.1f} s: is an Adalight "
            "sketch running at this baud rate? For WLED or a board that does not greet, pass --no-greeting")

    _last: list[RGB] | None = None

    def send(self, frame: LedFrame, now: float, full: bool = False) -> None:
        self.pixels(frame.render(now))

    keepalive = send

    def animate(self, frame: LedFrame, now: float) -> bool:
        pixels = frame.render(now)
        if pixels == self._last:
            return False  # only blink phase changes cost wire time
        self.pixels(pixels)
        return True

    def pixels(self, pixels: list[RGB]) -> None:
        self.t.write(adalight.encode_frame(pixels))
        self._last = pixels


class NativeDriver(Driver):
    name = "native"

    def __init__(self, transport: Transport) -> None:
        super().__init__(transport)
        self.status: native.BoardStatus | None = None
        self._reader = native.ReplyReader()
        self._sent: dict[tuple[object, ...], Blink] = {}  # blinks the board is running, by _key
        self._sent_level: int | None = None

    def query(self, timeout: float) -> native.BoardStatus:
        """Ask for the status reply, re-asking every 0.3 s (a board that resets on open misses the
        first question while it boots)."""
        deadline = time.monotonic() + timeout
        errors: list[str] = []
        while time.monotonic() < deadline:
            self.t.write(native.status_query())
            ask_again = min(deadline, time.monotonic() + 0.3)
            while time.monotonic() < ask_again:
                for cmd, payload in self._reader.feed(self.t.read(256, 0.05)):
                    if cmd == native.REPLY_STATUS:
                        try:
                            self.status = native.BoardStatus.from_payload(payload)
                        except native.ProtocolError as exc:  # another firmware, or noise: ask again
                            errors.append(str(exc))
                            continue
                        self.led_count = self.status.led_count
                        return self.status
                    if cmd == native.REPLY_ERROR and len(payload) >= 1:
                        errors.append(native.ERRORS.get(payload[0], f"error {payload[0]}"))
        extra = f" (it answered: {', '.join(dict.fromkeys(errors))})" if errors else ""
        raise LedPortError(
            f"no status reply from {self.t.path} within {timeout:.1f} s{extra}: is the Highway Referee "
            "firmware running on it? For a stock Adalight or WLED board use --protocol adalight")

    def connect(self, timeout: float) -> None:
        self.query(max(timeout, 0.5))
        self._sent = {}
        self._sent_level = None

    def send(self, frame: LedFrame, now: float, full: bool = False) -> None:
        level = round(frame.brightness * 255)
        out = bytearray()
        if full or level != self._sent_level:
            out += native.brightness(level)
            self._sent_level = level
        out += native.frame(frame.base)
        out += self._blinks(frame.active(now), now, full)
        self.t.write(bytes(out))

    @staticmethod
    def _key(b: Blink) -> tuple[object, ...]:
        # not the indices: a blink trimmed by a newer one on some of its LEDs is still the same blink
        return (b.start, b.color, b.period_s, b.cycles, b.tag)

    def _blinks(self, active: tuple[Blink, ...], now: float, full: bool) -> bytes:
        """Only new blinks go out, since the board's newest blink on an LED wins as the host's does.
        If the host stopped a blink early (a must-correct fixed, a mismatch cleared), the board
        is told to clear them all and gets the running ones again."""
        covered = {i for b in active for i in b.indices}
        stale = any(i not in covered for b in self._sent.values() if not b.expired(now) for i in b.indices)
        out = bytearray()
        if full or stale:
            out += native.clear_blinks()
            fresh = list(active)
        else:
            fresh = [b for b in active if self._key(b) not in self._sent]
        for b in fresh:
            period_ms, cycles, phase_ms = b.resume(now)
            out += native.blink(b.indices, b.color, period_ms, cycles, phase_ms)
        self._sent = {self._key(b): b for b in active}
        return bytes(out)

    def keepalive(self, frame: LedFrame, now: float) -> None:
        self.t.write(native.frame(frame.base))

    def pixels(self, pixels: list[RGB]) -> None:
        self.t.write(native.clear_blinks() + native.frame(pixels))
        self._sent = {}


def make_driver(protocol: str, transport: Transport) -> Driver:
    if protocol == "adalight":
        return AdalightDriver(transport)
    if protocol == "native":
        return NativeDriver(transport)
    raise ValueError(f"unknown LED protocol {protocol!r} (known: {', '.join(PROTOCOLS)})")
