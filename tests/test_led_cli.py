"""`highway-referee led ...` as a user runs it: against the emulator on a pty, and with bad ports."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
import serial

from firmware.emulator import Emulator
from referee_app.cli import main


def test_list_prints_json(capsys, monkeypatch):
    from referee_app.led import ports

    class Fake:
        device, vid, pid, description, serial_number = "/dev/ttyACM7", 0x2E8A, 0x0005, "Board CDC", "E66"

    monkeypatch.setattr(ports._list_ports, "comports", lambda: [Fake()])
    assert main(["led", "list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["device"] == "/dev/ttyACM7" and rows[0]["usb_id"] == "2e8a:0005"
    assert "Pico" in rows[0]["board"]
    assert ports.resolve_port("2e8a:0005") == "/dev/ttyACM7"
    with pytest.raises(ports.PortNotFound, match="no serial port with USB id usb:2341:0043 is connected"):
        ports.resolve_port("usb:2341:0043")


@pytest.mark.parametrize("protocol", ["native", "adalight"])
def test_walks_every_led_of_an_emulated_board(capsys, protocol):
    lit: set[int] = set()
    with Emulator(6, on_frame=lambda px: lit.update(i for i, c in enumerate(px) if c != (0, 0, 0))) as emu:
        code = main(["led", "test", "--port", emu.path, "--protocol", protocol, "--count", "6",
                     "--delay", "0.03"])
        final = emu.wait_for(lambda p: p == [(0, 0, 0)] * 6)
    out = capsys.readouterr().out
    assert code == 0 and lit == set(range(6)) and final == [(0, 0, 0)] * 6
    assert "walked 6 LEDs" in out
    if protocol == "native":
        assert "6 LEDs" in out and "checksum errors 0" in out


def test_missing_port_is_a_clear_error(capsys):
    assert main(["led", "test", "--port", "/dev/no-such-led-port", "--count", "3"]) == 3
    err = capsys.readouterr().err
    assert "serial port /dev/no-such-led-port does not exist" in err and "Traceback" not in err


def test_busy_port_is_a_clear_error(capsys):
    with Emulator(3) as emu, serial.Serial(emu.path, 115200, exclusive=True):
        assert main(["led", "test", "--port", emu.path, "--count", "3"]) == 3
    assert "is busy" in capsys.readouterr().err


def test_board_that_never_greets(capsys):
    master, slave = os.openpty()  # a port with nothing behind it
    path = os.ttyname(slave)
    os.close(slave)
    try:
        start = time.monotonic()
        assert main(["led", "test", "--port", path, "--count", "3", "--greeting-timeout", "0.4"]) == 3
        assert time.monotonic() - start < 3
        assert "no Adalight greeting" in capsys.readouterr().err
        assert main(["led", "test", "--port", path, "--protocol", "native", "--greeting-timeout", "0.4"]) == 3
        assert "no status reply" in capsys.readouterr().err
    finally:
        os.close(master)


def test_adalight_needs_a_count(capsys):
    with Emulator(3) as emu:
        assert main(["led", "test", "--port", emu.path]) == 2
    assert "pass --count N" in capsys.readouterr().err


def test_emulate_command_and_demo_end_to_end(tmp_path, capsys):
    """`led emulate` in its own process on a pty; `led demo` drives it through the real serial path."""
    link = tmp_path / "ttyLED"
    cmd = [sys.executable, "-m", "referee_app", "led", "emulate", "--layout", "highway-grid",
           "--link", str(link), "--view", "text", "--duration", "30"]
    proc = subprocess.Popen(cmd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stdout.readline()
        assert "LED board emulator: 20 LEDs on /dev/" in first and str(link) in first
        assert main(["led", "demo", "--port", str(link), "--protocol", "native", "--step", "0.25"]) == 0
        assert "frames written 12, dropped 0" in capsys.readouterr().out
        time.sleep(0.3)  # let the view print the last frame, then Ctrl-C it as a user would
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=15)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    frames = [line for line in out.splitlines() if line.startswith("frame ")]
    assert any("#660000" in line for line in frames)  # the illegal flash (red at brightness 0.4)
    assert "checksum errors 0" in out and "final: #000000" in out  # blanked when the demo ended


def test_emulate_rejects_a_bad_layout(capsys):
    assert main(["led", "emulate", "--layout", "nowhere.json", "--duration", "0.1"]) == 2
    assert "cannot read layout file nowhere.json" in capsys.readouterr().err


def test_terminal_view_draws_the_board_from_the_layout():
    from referee_app.led.layout import find_layout
    from referee_app.led.view import render_ansi

    layout = find_layout("highway-grid")
    pixels = [(0, 0, 0)] * layout.led_count
    pixels[layout.cells["b2"][0]] = (255, 0, 0)
    pixels[layout.seats[1]] = (0, 96, 255)
    lines = render_ansi(pixels, layout).splitlines()
    assert lines[0].split() == ["a1", "b1", "c1", "d1"]
    row2 = lines[3].split(" ")  # LED blocks of the second board row, in board order a2..d2
    assert "\x1b[38;2;255;0;0m" in row2[1] and not any("255;0;0" in c for i, c in enumerate(row2) if i != 1)
    assert "1:\x1b[38;2;0;96;255m" in lines[8]
