"""Named referee events on a bus (as OctoPrint does): the referee loop publishes, the page's
event stream, the LED board and the match log subscribe. One worker thread dispatches, so a
slow subscriber (a serial port) never blocks the referee."""

from __future__ import annotations

import itertools
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# Event kinds. `data` contents per kind are documented in docs/protocols/events.md.
VERDICT = "verdict"  # data: action (json), notation, verdict (json), player, cells (list of cell ids)
TURN = "turn"  # data: player (seat index), players (names)
ROLL = "roll"  # data: values
MISMATCH = "table-mismatch"  # data: message, cells
CONFIRM = "confirm-needed"  # data: candidates, message
CAMERA = "camera"  # data: status ("lost" | "ok"), message
MATCH_START = "match-start"
MATCH_END = "match-end"  # data: outcome


@dataclass(frozen=True)
class Event:
    kind: str
    match_id: str
    game: str
    data: dict[str, Any] = field(default_factory=dict)
    id: int = 0  # assigned by the bus: increasing, used as the SSE id
    t: float = field(default_factory=time.time)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "match_id": self.match_id, "game": self.game,
                "t": self.t, "data": self.data}


Subscriber = Callable[[Event], None]


class EventBus:
    """Publish is cheap and thread-safe; each subscriber is called on the dispatch thread, and an
    exception in one subscriber is counted, never propagated to the referee."""

    def __init__(self, synchronous: bool = False) -> None:
        self._subs: list[Subscriber] = []
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._queue: queue.Queue[Event | None] = queue.Queue()
        self.errors: list[tuple[Subscriber, BaseException]] = []
        self._synchronous = synchronous
        self._thread: threading.Thread | None = None
        if not synchronous:
            self._thread = threading.Thread(target=self._run, name="event-bus", daemon=True)
            self._thread.start()

    def subscribe(self, fn: Subscriber) -> Callable[[], None]:
        with self._lock:
            self._subs.append(fn)

        def unsubscribe() -> None:
            with self._lock:
                if fn in self._subs:
                    self._subs.remove(fn)

        return unsubscribe

    def publish(self, kind: str, match_id: str, game: str, **data: Any) -> Event:
        with self._lock:
            event = Event(kind, match_id, game, data, next(self._ids))
        if self._synchronous:
            self._dispatch(event)
        else:
            self._queue.put(event)
        return event

    def _dispatch(self, event: Event) -> None:
        with self._lock:
            subs = list(self._subs)
        for fn in subs:
            try:
                fn(event)
            except Exception as exc:  # a broken subscriber must not stop the referee
                self.errors.append((fn, exc))

    def _run(self) -> None:
        while True:
            event = self._queue.get()
            if event is None:
                return
            self._dispatch(event)
            self._queue.task_done()

    def drain(self, timeout: float = 5.0) -> None:
        """Wait until every published event has been dispatched (tests, shutdown)."""
        if self._synchronous:
            return
        deadline = time.time() + timeout
        while self._queue.unfinished_tasks and time.time() < deadline:
            time.sleep(0.005)

    def close(self) -> None:
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout=2)
