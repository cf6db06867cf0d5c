"""The server `serve` runs refuses a body larger than any route takes as soon as the headers
announce it, instead of reading up to waitress's default 1 GiB to disk first -- for any request,
even one whose Host or token the app would refuse (audit23)."""

from __future__ import annotations

import socket
import threading

from referee_app.commands.serve import MAX_REQUEST_BODY, web_server
from referee_app.dice_teaching import MAX_UPLOAD
from referee_app.hub import Hub
from referee_app.store import MatchStore
from referee_app.web.app import MAX_BODY, create_app


def _reply(port: int, head: bytes, body: bytes = b"") -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(head + body)
        out = b""
        while b"\r\n\r\n" not in out:
            chunk = s.recv(4096)
            if not chunk:
                break
            out += chunk
        return out


def test_a_body_larger_than_any_route_takes_is_refused_before_it_is_read(tmp_path):
    assert MAX_REQUEST_BODY >= MAX_UPLOAD + MAX_BODY  # a teaching photo still gets through
    hub = Hub(MatchStore(tmp_path / "data"))
    server = web_server(create_app(hub), "127.0.0.1", 0, 4)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        port = server.effective_port
        # headers only: main's server waited for the 500 MB (a timeout here), reading it to disk
        out = _reply(port, b"POST /api/matches HTTP/1.1\r\nHost: evil.example\r\nContent-Type: text/plain\r\n"
                           b"Content-Length: 500000000\r\n\r\n")
        assert out.startswith(b"HTTP/1.1 413"), out[:80]
        photo = b"\x00" * MAX_UPLOAD  # the largest photo a route takes reaches the app (its own 400)
        out = _reply(port, b"POST /api/teach/photos HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: image/png\r\n"
                           b"X-Referee-Token: " + hub.admin_token.encode() + b"\r\nConnection: close\r\n"
                           b"Content-Length: " + str(len(photo)).encode() + b"\r\n\r\n", photo)
        assert out.startswith(b"HTTP/1.1 400"), out[:80]
    finally:
        server.task_dispatcher.shutdown(cancel_pending=True, timeout=1)
        try:
            server.trigger.pull_trigger(server.close)
        except OSError:
            pass
        thread.join(timeout=5)
        hub.bus.close()
