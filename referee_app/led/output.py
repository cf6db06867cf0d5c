"""The LED board as an EventBus subscriber. The bus callback only updates the scene and queues a
frame; one worker thread owns the serial port: it (re)connects, writes frames in order, re-sends the
current frame about every second (WLED's live mode, a lost byte) and animates blinks for Adalight.
A full queue drops its oldest frame, a failed write closes the port and the worker reopens it every
`reconnect_s` until the board is back; nothing here ever raises into the referee."""

from __future__ import annotations

import collections
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from referee_app import events as ev
from referee_app.led.drivers import PROTOCOLS, Driver, make_driver
from referee_app.led.layout import Layout
from referee_app.led.scene import LedFrame, Scene
from referee_app.led.transport import LedPortError, SerialTransport, Transport

TransportFactory = Callable[[], Transport]


@dataclass
class OutputStats:
    frames_sent: int = 0
    dropped: int = 0  # frames dropped because the queue was full
    connects: int = 0
    disconnects: int = 0
    handler_errors: int = 0
    connected: bool = False
    last_error: str = ""
    latencies: collections.deque[float] = field(default_factory=lambda: collections.deque(maxlen=2000))


class LedOutput:
    def __init__(self, layout: Layout, port: str, protocol: str = "adalight", *, baud: int = 115200,
                 greeting_timeout: float = 3.0, queue_size: int = 8, keepalive_s: float = 1.0,
                 reconnect_s: float = 1.0, animate_fps: float = 15.0,
                 transport_factory: TransportFactory | None = None, blank_on_stop: bool = True,
                 match_id: str | None = None) -> None:
        if protocol not in PROTOCOLS:  # reject it now, not later in the worker
            raise ValueError(f"unknown LED protocol {protocol!r} (known: {', '.join(PROTOCOLS)})")
        self.layout = layout
        self.port = port
        self.protocol = protocol
        self.greeting_timeout = greeting_timeout
        self.keepalive_s = keepalive_s
        self.reconnect_s = reconnect_s
        self.animate_s = 1.0 / animate_fps
        self.blank_on_stop = blank_on_stop
        self._factory = transport_factory or (lambda: SerialTransport(port, baud).open())
        self.scene = Scene(layout)
        self.stats = OutputStats()
        self._queue: collections.deque[LedFrame] = collections.deque(maxlen=queue_size)
        self._cond = threading.Condition()
        self._stop = False
        self._thread: threading.Thread | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._scene_lock = threading.Lock()
        self._busy = 0  # 1 while the worker writes a frame it took from the queue
        self.on_write: Callable[[LedFrame], None] | None = None  # called after each frame is written
        # One board shows one match: the given one, else the one most recently started on the bus.
        self.match_id = match_id
        self._follow_latest = match_id is None

    # -- referee side -----------------------------------------------------------------------------
    def attach(self, bus: ev.EventBus) -> LedOutput:
        self._unsubscribe = bus.subscribe(self.on_event)
        return self

    def on_event(self, event: ev.Event) -> None:
        """Bus callback: cheap, never blocks on the port, never raises."""
        try:
            if self._follow_latest and event.kind == ev.MATCH_START:
                self.match_id = event.match_id
            if self.match_id is not None and event.match_id != self.match_id:
                return
            with self._scene_lock:
                if not self.scene.apply(event):
                    return
                frame = self.scene.frame(event.t)
            self.submit(frame)
        except Exception as exc:  # a malformed event must not stop the referee
            self.stats.handler_errors += 1
            self.stats.last_error = f"event {event.kind}: {exc!r}"

    def submit(self, frame: LedFrame) -> None:
        with self._cond:
            if len(self._queue) == self._queue.maxlen:
                self.stats.dropped += 1  # deque(maxlen) drops the oldest on append
            self._queue.append(frame)
            self._cond.notify()

    # -- lifecycle ----------------------------------------------------------------------------------
    def start(self) -> LedOutput:
        if self._thread is None:
            self._stop = False
            self._thread = threading.Thread(target=self._run, name="led-output", daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float = 3.0) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        with self._cond:
            self._stop = True
            self._cond.notify()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def wait_idle(self, timeout: float = 3.0) -> bool:
        """True once every queued frame has been written (tests, benchmarks)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._cond:
                if not self._queue and self._busy == 0:
                    return True
            time.sleep(0.002)
        return False

    # -- worker ---------------------------------------------------------------------------------------
    def _connect(self) -> tuple[Transport, Driver] | None:
        transport: Transport | None = None
        try:
            transport = self._factory()
            driver = make_driver(self.protocol, transport)
            driver.connect(self.greeting_timeout)
        except (LedPortError, OSError, ValueError) as exc:  # ValueError: a reply it cannot read
            if transport is not None:
                transport.close()
            self.stats.last_error = str(exc)
            return None
        self.stats.connects += 1
        self.stats.connected = True
        return transport, driver

    def _wait(self, seconds: float) -> None:
        with self._cond:
            if not self._stop and not self._queue:
                self._cond.wait(max(0.0, seconds))

    def _run(self) -> None:
        link: tuple[Transport, Driver] | None = None
        current: LedFrame | None = None  # the last frame written: re-sent after a reconnect
        fresh = True  # the board has just (re)started and remembers nothing
        last_sent = 0.0
        while True:
            with self._cond:
                if self._stop:
                    break
            if link is None:
                link = self._connect()
                if link is None:
                    self._wait(self.reconnect_s)
                    continue
                fresh = True
                with self._cond:
                    if current is not None and not self._queue:
                        self._queue.append(current)
            transport, driver = link
            with self._cond:
                frame = self._queue.popleft() if self._queue else None
                self._busy = 1 if frame is not None else 0
            now = time.monotonic()
            try:
                if frame is not None:
                    driver.send(frame, now, full=fresh)
                    current, last_sent, fresh = frame, time.monotonic(), False
                    self.stats.frames_sent += 1
                    if frame.event_t:
                        self.stats.latencies.append(time.time() - frame.event_t)
                    if self.on_write is not None:
                        self.on_write(frame)
                elif current is not None:
                    if driver.host_animates and current.active(now) and driver.animate(current, now):
                        last_sent = now
                    elif now - last_sent >= self.keepalive_s:
                        driver.keepalive(current, now)
                        last_sent = now
            except (OSError, ValueError) as exc:  # SerialException is an OSError: unplugged
                self.stats.disconnects += 1
                self.stats.connected = False
                self.stats.last_error = f"lost {transport.path}: {exc}"
                transport.close()
                link = None
                continue
            finally:
                with self._cond:
                    self._busy = 0
            if frame is None:
                animating = current is not None and driver.host_animates and bool(current.active(now))
                self._wait(self.animate_s if animating else
                           max(0.0, self.keepalive_s - (time.monotonic() - last_sent)))
        if link is not None:
            transport, driver = link
            try:
                if self.blank_on_stop:
                    driver.pixels([(0, 0, 0)] * self.layout.led_count)
            except (OSError, ValueError):
                pass
            transport.close()
        self.stats.connected = False
