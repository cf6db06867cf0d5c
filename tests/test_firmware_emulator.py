"""The emulator behind a real pseudo-terminal, driven with pyserial as the host would."""

from __future__ import annotations

import time

import pytest
import serial

from firmware.emulator import Emulator
from referee_app.led import adalight, native


def read_until(port: serial.Serial, marker: bytes, timeout: float = 2.0) -> bytes:
    got = b""
    deadline = time.monotonic() + timeout
    while marker not in got and time.monotonic() < deadline:
        got += port.read(max(1, port.in_waiting))
    return got


def test_greets_on_open_and_shows_adalight_frames():
    with Emulator(4, greet_every_s=5) as emu:
        with serial.Serial(emu.path, 115200, timeout=0.05) as port:
            assert b"Ada\n" in read_until(port, b"Ada\n")
            port.write(adalight.encode_frame([(9, 0, 0), (0, 9, 0), (0, 0, 9), (9, 9, 9)]))
            px = emu.wait_for(lambda p: p[3] == (9, 9, 9))
    assert px == [(9, 0, 0), (0, 9, 0), (0, 0, 9), (9, 9, 9)]
    assert emu.connects == 1


def test_answers_status_query_with_its_led_count():
    with Emulator(37) as emu, serial.Serial(emu.path, 115200, timeout=0.05) as port:
        port.write(native.status_query())
        reader = native.ReplyReader()
        deadline = time.monotonic() + 2
        replies: list[tuple[int, bytes]] = []
        while not replies and time.monotonic() < deadline:
            replies = [r for r in reader.feed(port.read(64)) if r[0] == native.REPLY_STATUS]
    assert native.BoardStatus.from_payload(replies[0][1]).led_count == 37


def test_reopening_the_port_resets_the_board_like_an_uno():
    with Emulator(2) as emu:
        with serial.Serial(emu.path, 115200, timeout=0.05) as port:
            read_until(port, b"Ada\n")
            port.write(adalight.encode_frame([(5, 5, 5), (5, 5, 5)]))
            emu.wait_for(lambda p: p[0] == (5, 5, 5))
        time.sleep(0.1)  # the emulator notices a closed port by polling (every 5 ms)
        with serial.Serial(emu.path, 115200, timeout=0.05) as port:
            assert b"Ada\n" in read_until(port, b"Ada\n")
            assert emu.wait_for(lambda p: p[0] == (0, 0, 0)) == [(0, 0, 0)] * 2
        assert emu.connects == 2


def test_unplug_makes_host_writes_fail_and_plug_restores_the_link(tmp_path):
    link = str(tmp_path / "ttyLED")
    emu = Emulator(2, link=link).start()
    port = serial.Serial(link, 115200, timeout=0.05, write_timeout=1)
    emu.unplug()
    with pytest.raises(serial.SerialException):
        for _ in range(3):
            port.write(b"x" * 64)
    port.close()
    emu.plug()
    try:
        with serial.Serial(link, 115200, timeout=0.05) as again:
            again.write(adalight.encode_frame([(1, 2, 3), (4, 5, 6)]))
            assert emu.wait_for(lambda p: p[1] == (4, 5, 6))[1] == (4, 5, 6)
    finally:
        emu.unplug()


def test_baud_pacing_holds_throughput_near_the_wire_limit():
    count, baud = 64, 115200
    frame = adalight.encode_frame([(1, 1, 1)] * count)
    with Emulator(count, baud=baud) as emu, serial.Serial(emu.path, baud, timeout=0.05) as port:
        read_until(port, b"Ada\n")
        start = time.monotonic()
        for _ in range(6):
            port.write(frame)
        emu.wait_for(lambda p: emu.board.parser.ada_frames >= 6, timeout=5)
        elapsed = time.monotonic() - start
    wire_time = 6 * len(frame) * 10 / baud
    assert emu.board.parser.ada_frames == 6
    assert elapsed >= 0.8 * wire_time  # the pty alone would take a few milliseconds
