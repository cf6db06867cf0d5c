"""Solver calls from the web, under a time budget and a cap on how many run at once.

A hint changes nothing, so it needs no token; what makes it safe for any page to ask is that it
cannot take the machine: each search stops at its budget (the deadline is checked inside the
search, so the CPU is freed then even if the client has gone), and at most `concurrent` run at
a time -- the next one gets a 429 at once instead of a waiting thread.
"""

from __future__ import annotations

import threading
from typing import Any

HINT_SECONDS = 2.0  # the same default as `highway-referee grid hint`
HINT_CONCURRENT = 2


class Busy(Exception):
    """Every slot is taken; answer 429 (never a 5xx) and let the client try again shortly."""


class HintBudget:
    def __init__(self, seconds: float = HINT_SECONDS, concurrent: int = HINT_CONCURRENT) -> None:
        self.seconds = seconds
        self.concurrent = concurrent
        self._slots = threading.BoundedSemaphore(concurrent)
        self._lock = threading.Lock()
        self.running = 0  # hints being worked out now

    def run(self, adapter: Any, state: Any) -> dict[str, Any] | None:
        if not self._slots.acquire(blocking=False):
            raise Busy(f"{self.concurrent} hints are being worked out already; ask again in "
                       f"{self.seconds:g} s")
        with self._lock:
            self.running += 1
        try:
            return adapter.hint(state, time_limit=self.seconds)
        finally:
            with self._lock:
                self.running -= 1
            self._slots.release()
