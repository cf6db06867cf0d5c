"""What the host does with a board that answers badly: a noise header that claims a long reply, and
a status reply too short to read (another firmware, or a fuzzed line). The real reply behind the
noise is found; a reply that cannot be read is an error the LED thread outlives (audit23)."""

from __future__ import annotations

import dataclasses
import time

import pytest

from firmware import ledproto
from referee_app import events as ev
from referee_app.led import native
from referee_app.led.drivers import NativeDriver
from referee_app.led.layout import find_layout
from referee_app.led.output import LedOutput
from referee_app.led.transport import LedPortError

LAYOUT = dataclasses.replace(find_layout("highway-grid"), brightness=1.0)


def noise_header(n: int = 4096, cmd: int = native.REPLY_STATUS) -> bytes:
    """A header whose check byte is right, claiming an n-byte payload that never comes."""
    return b"HR" + bytes((1, cmd, n >> 8, n & 0xFF, 1 ^ cmd ^ (n >> 8) ^ (n & 0xFF) ^ 0x55))


def test_a_noise_header_claiming_a_long_reply_does_not_hide_the_real_one():
    real = ledproto.Board(10).receive(native.status_query(), 0)
    found = native.ReplyReader().feed(noise_header() + real)
    assert [cmd for cmd, _ in found] == [native.REPLY_STATUS]  # main: [] until 4 KiB more arrived
    assert native.BoardStatus.from_payload(found[0][1]).led_count == 10


class ScriptedBoard:
    """A transport whose board answers every status query with `reply`."""

    path = "scripted"

    def __init__(self, reply: bytes) -> None:
        self.reply = reply
        self.pending = b""
        self.closed = False

    def write(self, data: bytes) -> None:
        if native.status_query() in data:
            self.pending += self.reply

    def read(self, max_bytes: int, timeout: float) -> bytes:
        out, self.pending = self.pending[:max_bytes], self.pending[max_bytes:]
        if not out:
            time.sleep(min(timeout, 0.01))
        return out

    def close(self) -> None:
        self.closed = True


@pytest.mark.parametrize("reply", [
    native.encode(native.REPLY_STATUS, b"\x01\x00"),  # a short status reply
    noise_header(64) + bytes(range(7)),
])
def test_a_status_reply_that_cannot_be_read_is_a_port_error(reply):
    with pytest.raises(LedPortError, match="no status reply"):
        NativeDriver(ScriptedBoard(reply)).query(0.4)  # main: ProtocolError escaped


def test_the_led_thread_outlives_a_board_whose_replies_cannot_be_read():
    boards: list[ScriptedBoard] = []

    def factory() -> ScriptedBoard:
        boards.append(ScriptedBoard(native.encode(native.REPLY_STATUS, b"\x01")))
        return boards[-1]

    bus = ev.EventBus()
    out = LedOutput(LAYOUT, "scripted", "native", greeting_timeout=0.3, reconnect_s=0.05,
                    transport_factory=factory).attach(bus).start()
    try:
        deadline = time.monotonic() + 10
        while len(boards) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(boards) >= 3  # it kept trying (main: the thread died at the first reply)
        assert out._thread is not None and out._thread.is_alive()
        assert "status reply of 1 bytes" in out.stats.last_error and not out.stats.connected
        assert all(b.closed for b in boards[:-1])
    finally:
        out.stop()
        bus.close()
