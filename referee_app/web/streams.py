"""Long-lived responses (Server-Sent Events, MJPEG) that can never hold every server thread.

Under waitress each open stream holds one worker thread for as long as it lasts. So: a stream for
a match that does not exist is refused (404) before it starts; an open stream ends when nothing
has been sent for `idle_seconds` (the page's EventSource reconnects with Last-Event-ID, an <img>
keeps its last frame) and after `max_seconds` in any case; and at most `max_open` streams run at
once -- one more gets a 429 at once, so the threads left over always answer the API.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator

from flask import Response

MAX_SECONDS = 300.0  # longest life of one stream
IDLE_SECONDS = 60.0  # a stream with nothing new for this long ends
THREADS = 32  # `serve --threads` default


def default_cap(threads: int) -> int:
    """Streams allowed with `threads` server threads: a quarter of them (at least 4) stay for
    the API and the page's other requests."""
    return max(1, threads - max(4, threads // 4))


class StreamFull(Exception):
    """Every stream slot is taken: answer 429 (Too Many Requests) with Retry-After."""


class StreamSlots:
    def __init__(self, max_open: int = default_cap(THREADS), max_seconds: float = MAX_SECONDS,
                 idle_seconds: float = IDLE_SECONDS) -> None:
        self.max_open = max_open
        self.max_seconds = max_seconds
        self.idle_seconds = idle_seconds
        self._lock = threading.Lock()
        self.open = 0

    def _take(self) -> Callable[[], None]:
        with self._lock:
            if self.open >= self.max_open:
                raise StreamFull(f"{self.max_open} live streams are open already (close a tab of the "
                                 "page, or ask again in a minute)")
            self.open += 1
        released = threading.Event()

        def release() -> None:
            if not released.is_set():
                released.set()
                with self._lock:
                    self.open -= 1

        return release

    def respond(self, body: Iterable[bytes | str], **kw: object) -> Response:
        """A streaming response holding one slot until the server closes it (the client left, the
        stream ended, or an error): the slot is released when the WSGI iterable is closed."""
        release = self._take()

        def guarded() -> Iterator[bytes | str]:
            try:
                yield from body
            finally:
                release()

        try:
            response = Response(guarded(), **kw)  # type: ignore[arg-type]
        except Exception:
            release()
            raise
        response.call_on_close(release)
        return response
