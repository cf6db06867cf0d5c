"""End to end: referee events on the bus -> LedOutput -> bytes on a real pty -> the firmware's logic in
the emulator -> LED colours. Also the worker's promises: keep-alive, reconnect, drop-oldest, never
raising into the referee."""

from __future__ import annotations

import dataclasses
import threading
import time

import pytest

from engine.grid import new_state, parse_action
from firmware.emulator import Emulator
from referee_app import events as ev
from referee_app.led.layout import find_layout
from referee_app.led.output import LedOutput
from referee_app.led.scene import LedFrame

RED, OFF = (255, 0, 0), (0, 0, 0)
LAYOUT = dataclasses.replace(find_layout("highway-grid"), brightness=1.0)


def wait_until(condition, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def publish_move(bus: ev.EventBus, state, text: str):
    """What the referee does for one action: judge it with the engine, publish the verdict."""
    action = parse_action(text)
    verdict = state.judge(action)
    bus.publish(ev.VERDICT, "m1", "highway-grid", action=action.to_json(), notation=text,
                verdict=verdict.to_json(), player=state.current_player(), cells=[text.split("@")[1]])
    return state.apply(action, verdict), verdict


@pytest.mark.parametrize("protocol", ["adalight", "native"])
def test_engine_verdicts_reach_the_leds(protocol):
    b2 = LAYOUT.cells["b2"][0]
    with Emulator(LAYOUT.led_count) as emu:
        bus = ev.EventBus()
        out = LedOutput(LAYOUT, emu.path, protocol, greeting_timeout=2).attach(bus).start()
        try:
            state = new_state()
            bus.publish(ev.TURN, "m1", "highway-grid", player=0, players=["A", "B"])
            state, first = publish_move(bus, state, "5@b2")
            assert first.legal
            placed = LAYOUT.color("placed")
            px = emu.wait_for(lambda p: p[b2] == placed and p[16] == LAYOUT.seat_color(0), timeout=4)
            assert px[b2] == placed
            state, second = publish_move(bus, state, "6@b2")  # b2 is taken: illegal
            assert not second.legal
            px = emu.wait_for(lambda p: p[b2] == RED, timeout=3)
            assert px[b2] == RED
            assert all(c == OFF for i, c in enumerate(px) if i not in (b2, 16, 17))
        finally:
            out.stop()
            bus.close()
    assert out.stats.frames_sent >= 3 and out.stats.connects == 1 and not bus.errors
    assert emu.board.parser.crc_errors == 0 and emu.board.parser.dropped == 0
    assert all(0 <= lat < 5 for lat in out.stats.latencies)


def test_adalight_frame_is_resent_for_wled_live_mode():
    with Emulator(LAYOUT.led_count) as emu:
        out = LedOutput(LAYOUT, emu.path, "adalight", greeting_timeout=2, keepalive_s=0.2).start()
        out.on_event(ev.Event(ev.TURN, "m1", "highway-grid", {"player": 0}))
        assert emu.wait_for(lambda p: p[16] != OFF)[16] != OFF
        before, start = emu.board.parser.ada_frames, time.monotonic()
        got = wait_until(lambda: emu.board.parser.ada_frames - before >= 4, 10)
        elapsed = time.monotonic() - start
        out.stop()
    # the frame is resent while nothing changes, but one every 0.2 s and no faster: four resends take
    # at least three periods (a loaded machine only stretches them, so no upper bound on time)
    assert got and elapsed >= 3 * 0.2 * 0.9


def test_unplugged_board_is_reopened_and_shown_the_current_frame(tmp_path):
    link = str(tmp_path / "ttyLED")
    emu = Emulator(LAYOUT.led_count, link=link).start()
    bus = ev.EventBus()
    out = LedOutput(LAYOUT, link, "native", greeting_timeout=1, reconnect_s=0.1, keepalive_s=0.1)
    out.attach(bus).start()
    try:
        bus.publish(ev.TURN, "m1", "highway-grid", player=1, players=["A", "B"])
        assert emu.wait_for(lambda p: p[17] != OFF)[17] == LAYOUT.seat_color(1)
        emu.unplug()
        deadline = time.monotonic() + 3
        while out.stats.disconnects == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert out.stats.disconnects >= 1 and not out.stats.connected
        bus.publish(ev.TURN, "m1", "highway-grid", player=0, players=["A", "B"])  # while unplugged
        emu.plug()  # a fresh, blank board on a new pty behind the same name
        px = emu.wait_for(lambda p: p[16] != OFF, timeout=4)
        assert px[16] == LAYOUT.seat_color(0) and px[17] == OFF
        assert out.stats.connects >= 2
    finally:
        out.stop()
        bus.close()
        emu.unplug()
    assert not bus.errors


def test_missing_port_never_troubles_the_referee():
    bus = ev.EventBus()
    out = LedOutput(LAYOUT, "/dev/does-not-exist-led", "adalight", reconnect_s=0.05).attach(bus).start()
    for seat in (0, 1, 0):
        bus.publish(ev.TURN, "m1", "highway-grid", player=seat, players=["A", "B"])
    bus.publish(ev.VERDICT, "m1", "highway-grid", verdict="not a dict", cells=None, player="x")
    bus.drain()
    time.sleep(0.2)
    out.stop()
    bus.close()
    assert not bus.errors
    assert "does not exist" in out.stats.last_error and out.stats.frames_sent == 0
    assert out.stats.handler_errors == 1  # the malformed verdict was counted, not raised


class BlockingTransport:
    """Writes wait until released, like a port whose board stopped reading."""
    path = "fake"

    def __init__(self) -> None:
        self.release = threading.Event()
        self.writing = threading.Event()
        self.written: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.writing.set()
        self.release.wait(5)
        self.written.append(data)

    def read(self, max_bytes: int, timeout: float) -> bytes:
        return b""

    def close(self) -> None:
        pass


def test_full_queue_drops_the_oldest_frames_and_publishing_never_blocks():
    fake = BlockingTransport()
    out = LedOutput(LAYOUT, "fake", "adalight", greeting_timeout=0, queue_size=4,
                    transport_factory=lambda: fake, blank_on_stop=False).start()
    frames = [LedFrame(((i, 0, 0),) * LAYOUT.led_count, seq=i) for i in range(1, 21)]
    out.submit(frames[0])
    assert fake.writing.wait(5)  # the worker took frame 1 and blocks writing it
    for f in frames[1:]:
        out.submit(f)
    # every submit returned while the worker was still stuck in its first write: none waited for it
    assert fake.written == []
    fake.release.set()
    assert out.wait_idle(3)
    out.stop()
    shown = [w[6] for w in fake.written]  # red of LED 0 = the frame's seq
    assert out.stats.dropped == 15
    assert shown[:5] == [1, 17, 18, 19, 20]


def test_attach_led_board_helper_drives_the_emulator():
    from referee_app.led import attach_led_board

    with Emulator(LAYOUT.led_count) as emu:
        bus = ev.EventBus()
        out = attach_led_board(bus, emu.path, "highway-grid", "native", greeting_timeout=2)
        try:
            bus.publish(ev.CAMERA, "m1", "highway-grid", status="ok")
            camera = LAYOUT.status["camera"]
            px = emu.wait_for(lambda p: p[camera] != OFF)
        finally:
            out.stop()
            bus.close()
    r, g, b = LAYOUT.color("camera_ok")
    level = round(find_layout("highway-grid").brightness * 255)  # the board dims: c * level // 255
    assert px[camera] == (r * level // 255, g * level // 255, b * level // 255)


def test_adalight_blinks_are_drawn_by_the_host_only_on_phase_changes():
    a1 = LAYOUT.cells["a1"][0]
    seen: list[tuple[int, int, int]] = []
    with Emulator(LAYOUT.led_count, on_frame=lambda px: seen.append(px[a1])) as emu:
        out = LedOutput(LAYOUT, emu.path, "adalight", greeting_timeout=2, keepalive_s=5).start()
        out.on_event(ev.Event(ev.VERDICT, "m1", "highway-grid", {
            "verdict": {"legal": False, "rule": "r", "reason": "", "consequence": "must_correct"},
            "cells": ["a1"], "player": 0}))
        emu.wait_for(lambda p: p[a1] == RED)
        before, mark = emu.board.parser.ada_frames, len(seen)

        def flips() -> int:
            now = seen[mark - 1:]
            return sum(1 for x, y in zip(now, now[1:], strict=False) if x != y)

        assert wait_until(lambda: flips() >= 4, 10)  # red, off, red, off... every 0.2 s
        sent, flipped = emu.board.parser.ada_frames - before, flips()
        out.stop()
    # one frame per phase change, not a frame per animation tick (keepalive_s=5: no resends here)
    assert flipped - 1 <= sent <= flipped + 1


def test_board_found_again_by_usb_id_after_it_comes_back_on_another_port(monkeypatch):
    """`--port 2e8a:0005`: the id is looked up at every reconnect, so a board re-enumerated under a
    new device name is found (the pty path stands in for /dev/ttyACM0 -> /dev/ttyACM1)."""
    from referee_app.led import ports

    first = Emulator(LAYOUT.led_count).start()
    current = {"emu": first}

    class UsbPort:
        vid, pid, description, serial_number = 0x2E8A, 0x0005, "Pico", None

        @property
        def device(self) -> str:
            return current["emu"].path

    monkeypatch.setattr(ports._list_ports, "comports", lambda: [UsbPort()])
    out = LedOutput(LAYOUT, "2e8a:0005", "native", greeting_timeout=1, reconnect_s=0.1, keepalive_s=0.1)
    out.start()
    second = Emulator(LAYOUT.led_count)
    try:
        out.on_event(ev.Event(ev.TURN, "m1", "highway-grid", {"player": 0}))
        assert first.wait_for(lambda p: p[16] != OFF)[16] == LAYOUT.seat_color(0)
        second.start()  # plugged in again: a new pty, while the old one still exists for a moment
        current["emu"] = second
        first.unplug()
        assert second.wait_for(lambda p: p[16] != OFF, timeout=4)[16] == LAYOUT.seat_color(0)
        assert second.path != first.path and out.stats.connects >= 2
    finally:
        out.stop()
        first.unplug()
        second.unplug()


def test_board_follows_one_match_when_the_bus_carries_several():
    fake = BlockingTransport()
    fake.release.set()
    out = LedOutput(LAYOUT, "fake", "adalight", greeting_timeout=0, transport_factory=lambda: fake,
                    blank_on_stop=False)
    turn = {"player": 1, "players": ["A", "B"]}
    out.on_event(ev.Event(ev.MATCH_START, "old", "highway-grid", {}))
    out.on_event(ev.Event(ev.MATCH_START, "new", "highway-grid", {}))
    out.on_event(ev.Event(ev.TURN, "old", "highway-grid", turn))  # another table's match: ignored
    assert out.scene.frame().base[17] == OFF
    out.on_event(ev.Event(ev.TURN, "new", "highway-grid", turn))
    assert out.scene.frame().base[17] == LAYOUT.seat_color(1)
    pinned = LedOutput(LAYOUT, "fake", "adalight", transport_factory=lambda: fake, match_id="old")
    pinned.on_event(ev.Event(ev.MATCH_START, "new", "highway-grid", {}))
    pinned.on_event(ev.Event(ev.TURN, "old", "highway-grid", turn))
    assert pinned.scene.frame().base[17] == LAYOUT.seat_color(1) and pinned.match_id == "old"
