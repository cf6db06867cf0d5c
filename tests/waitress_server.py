"""A real waitress server for an app on a free 127.0.0.1 port, in a thread (tests, bench/hostile.py)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from waitress.server import create_server


@contextmanager
def serving(app: Any, threads: int = 8, drain: float = 1.0, **options: Any) -> Iterator[int]:
    """Yield the port; on exit let open streams finish for up to `drain` s, then stop the server
    and check that its thread ended."""
    server = create_server(app, host="127.0.0.1", port=0, threads=threads, **options)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        yield server.effective_port
    finally:
        server.task_dispatcher.shutdown(cancel_pending=True, timeout=drain)
        # closed from inside the server's own loop: closing its sockets under a running select()
        # from another thread made that thread fail with EBADF
        try:
            server.trigger.pull_trigger(server.close)
        except OSError:  # EBADF: the trigger is already closed, so the server has closed itself
            pass
        thread.join(timeout=5)
        assert not thread.is_alive(), "the server thread did not stop"
