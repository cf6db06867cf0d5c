"""Host emulator of the LED board: the firmware's own logic (ledproto.Board) behind a pseudo-terminal.

The referee opens the pty's path with pyserial exactly as it would open /dev/ttyACM0, so tests and
`highway-referee led emulate` exercise the real serial path: bytes written by the host are parsed by
the same code the board runs, and `pixels()` says what the strip shows.

Optional realism: `resets_on_open` clears the LEDs and greets after `boot_s` whenever the host opens
the port (an Uno or a CH340/CP2102 ESP32 resets on DTR); `baud` paces reading to the wire speed of a
real UART (a pty is otherwise as fast as memory); `link` keeps a stable symlink to the pty, as udev's
/dev/serial/by-id names do, so `unplug()` and `plug()` look like a cable pulled and put back.
"""

from __future__ import annotations

import os
import select
import threading
import time
from collections.abc import Callable

from firmware.ledproto import Board

Pixel = tuple[int, int, int]
UART_BUFFER_S = 0.02  # a receive buffer of ~230 bytes at 115200 baud


def _now_ms() -> int:
    return int(time.monotonic() * 1000)


class Emulator:
    def __init__(self, count: int = 24, *, greet_every_s: float = 1.0, boot_s: float = 0.05,
                 resets_on_open: bool = True, baud: int | None = None, link: str | None = None,
                 on_frame: Callable[[list[Pixel]], None] | None = None) -> None:
        if not 1 <= count <= 1024:
            raise ValueError(f"LED count must be 1..1024, got {count}")
        self.count = count
        self.greet_every_ms = int(greet_every_s * 1000)
        self.boot_s = boot_s
        self.resets_on_open = resets_on_open
        self.baud = baud
        self.link = link
        self.on_frame = on_frame
        self.board = Board(count, _now_ms(), self.greet_every_ms)
        self.path = ""
        self.connects = 0  # how many times a host opened the port
        self.bytes_in = 0
        self.frames_shown = 0
        self._pixels: list[Pixel] = [(0, 0, 0)] * count
        self._lock = threading.Lock()
        self._master = -1
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------------
    def start(self) -> Emulator:
        return self.plug()

    def plug(self) -> Emulator:
        """Create the pty (a board plugged in) and start serving it."""
        if self._thread is not None:
            return self
        master, slave = os.openpty()
        self.path = os.ttyname(slave)
        os.close(slave)  # with no slave open the master sees POLLHUP: that is how we notice the host
        os.set_blocking(master, False)
        self._master = master
        if self.link:
            if os.path.lexists(self.link):
                os.unlink(self.link)
            os.symlink(self.path, self.link)
        self._stop.clear()
        self._thread = threading.Thread(target=self._serve, name="led-emulator", daemon=True)
        self._thread.start()
        return self

    def unplug(self) -> None:
        """Close the pty (the cable pulled): the host's next write fails."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
            self._thread = None
        if self._master >= 0:
            os.close(self._master)
            self._master = -1
        if self.link and os.path.lexists(self.link):
            os.unlink(self.link)

    close = unplug

    def __enter__(self) -> Emulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.unplug()

    # -- what the strip shows --------------------------------------------------------------------
    def pixels(self) -> list[Pixel]:
        with self._lock:
            return list(self._pixels)

    def wait_for(self, predicate: Callable[[list[Pixel]], bool], timeout: float = 3.0) -> list[Pixel]:
        """Poll until `predicate(pixels)` holds; returns the last pixels either way (tests)."""
        deadline = time.monotonic() + timeout
        while True:
            px = self.pixels()
            if predicate(px) or time.monotonic() > deadline:
                return px
            time.sleep(0.005)

    # -- the board's loop --------------------------------------------------------------------------
    def _serve(self) -> None:
        poller = select.poll()
        poller.register(self._master, select.POLLIN | select.POLLHUP)
        connected = False
        wire_free = 0.0
        chunk = 64 if self.baud else 4096
        while not self._stop.is_set():
            events = poller.poll(5)
            flags = events[0][1] if events else 0
            now = _now_ms()
            if flags & select.POLLHUP and not flags & select.POLLIN:
                connected = False  # nobody has the port open
                self._show(now)
                time.sleep(0.005)
                continue
            if not connected:
                connected = True
                self.connects += 1
                self._on_open()
            data = b""
            if flags & select.POLLIN:
                try:
                    data = os.read(self._master, chunk)
                except OSError:
                    data = b""
            if data:
                self.bytes_in += len(data)
                if self.baud:  # a UART moves 10 bits per byte (8N1): wait for the wire
                    # The line keeps running while the board parses (the UART buffers), so time spent
                    # parsing is not added to wire time unless the line was idle for a while.
                    wire_free = max(wire_free, time.monotonic() - UART_BUFFER_S) + len(data) * 10 / self.baud
                    delay = wire_free - time.monotonic()
                    if delay > 0:
                        time.sleep(delay)
                self._send(self.board.receive(data, _now_ms()))
            else:
                self._send(self.board.tick(now))
            self._show(_now_ms())

    def _on_open(self) -> None:
        if self.resets_on_open:
            self.board = Board(self.count, _now_ms(), self.greet_every_ms)
            time.sleep(self.boot_s)
            self._send(self.board.boot(_now_ms()))

    def _send(self, data: bytes) -> None:
        if data:
            try:
                os.write(self._master, data)
            except OSError:
                pass  # the host closed the port meanwhile: a board's writes go nowhere too

    def _show(self, now: int) -> None:
        pixels = self.board.frame(now)
        if pixels is None:
            return
        with self._lock:
            self._pixels = pixels
            self.frames_shown += 1
        if self.on_frame is not None:
            self.on_frame(pixels)
