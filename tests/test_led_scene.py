"""Referee events -> what the LEDs show (no serial port): the rules in referee_app/led/scene.py."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core import Consequence, Verdict
from referee_app import events as ev
from referee_app.led.drivers import NativeDriver
from referee_app.led.layout import find_layout
from referee_app.led.scene import Scene

OFF, RED, GREEN = (0, 0, 0), (255, 0, 0), (0, 255, 0)


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def make() -> tuple[Scene, Clock]:
    clock = Clock()
    layout = dataclasses.replace(find_layout("highway-grid"), brightness=1.0)
    return Scene(layout, clock), clock


def event(kind: str, game: str = "highway-grid", **data: object) -> ev.Event:
    return ev.Event(kind, "m1", game, dict(data))


def verdict(v: Verdict, cells: list[str], player: int = 0) -> ev.Event:
    return event(ev.VERDICT, verdict=v.to_json(), cells=cells, player=player)


def test_turn_lights_the_seat_to_move():
    scene, clock = make()
    scene.apply(event(ev.TURN, player=1, players=["A", "B"]))
    px = scene.frame().render(clock.t)
    assert px[17] == scene.layout.seat_color(1) and px[16] == OFF


def test_illegal_placement_flashes_red_on_its_cell_and_seat_then_stops():
    scene, clock = make()
    v = Verdict.illegal("grid.cell-empty", "occupied", Consequence.TURN_LOST)
    scene.apply(verdict(v, ["c3"], player=1))
    frame = scene.frame()
    led = scene.layout.cells["c3"][0]
    assert frame.render(clock.t)[led] == RED and frame.render(clock.t)[17] == RED
    assert frame.render(clock.t + 0.3)[led] == OFF  # second half of the 0.4 s period
    assert frame.render(clock.t + 5 * 0.4 + 0.01)[led] == OFF and not frame.active(clock.t + 2.01)


def test_must_correct_keeps_flashing_until_the_next_verdict():
    scene, clock = make()
    bad = Verdict.illegal("grid.cell-empty", "occupied", Consequence.MUST_CORRECT)
    scene.apply(verdict(bad, ["a1"]))
    assert scene.frame().render(clock.t + 60.05)[0] == RED  # a minute later, still flashing
    scene.apply(verdict(Verdict.ok("grid.place", "fine"), ["b1"]))
    clock.t += 10
    px = scene.frame().render(clock.t)
    assert px[0] == OFF and px[1] == scene.layout.color("placed")


def test_legal_placement_flashes_green_then_stays_placed():
    scene, clock = make()
    scene.apply(verdict(Verdict.ok("grid.place", "fine"), ["d4"]))
    frame = scene.frame()
    led = scene.layout.cells["d4"][0]
    assert frame.render(clock.t)[led] == GREEN
    assert frame.render(clock.t + 1.0)[led] == scene.layout.color("placed")


def test_mismatch_and_camera_status_lights():
    scene, clock = make()
    scene.apply(event(ev.MISMATCH, message="moved", cells=["b2"]))
    scene.apply(event(ev.CAMERA, status="lost"))
    px = scene.frame().render(clock.t)
    amber = scene.layout.color("mismatch")
    assert px[scene.layout.cells["b2"][0]] == amber and px[19] == amber and px[18] == RED
    scene.apply(event(ev.MISMATCH, message="", cells=[]))
    scene.apply(event(ev.CAMERA, status="ok"))
    px = scene.frame().render(clock.t)
    assert px[19] == OFF and px[18] == scene.layout.color("camera_ok") and px[6] == OFF


def test_unknown_cells_and_other_games_are_counted_not_fatal():
    scene, clock = make()
    scene.apply(verdict(Verdict.ok("x", "y"), ["z9", "a1"]))
    scene.apply(event(ev.VERDICT, game="railroad-ink", verdict={"legal": True}, cells=["A1"], player=0))
    assert scene.stats.unknown_cells == ["z9"] and scene.stats.other_game == 1
    assert scene.frame().render(clock.t)[0] == GREEN


def test_brightness_dims_rendered_colours():
    scene, clock = make()
    scene = Scene(dataclasses.replace(scene.layout, brightness=0.5), clock)
    scene.apply(event(ev.TURN, player=0, players=["A", "B"]))
    r, g, b = scene.layout.seat_color(0)
    assert scene.frame().render(clock.t)[16] == (round(r / 2), round(g / 2), round(b / 2))


class BoardWire:
    """A transport whose bytes go straight into the firmware's logic at the shared fake time."""
    path = "wire"

    def __init__(self, clock: Clock, count: int) -> None:
        from firmware.ledproto import Board

        self.clock = clock
        self.board = Board(count, now_ms=round(clock.t * 1000))

    def write(self, data: bytes) -> None:
        self.board.receive(data, round(self.clock.t * 1000))

    def read(self, max_bytes: int, timeout: float) -> bytes:
        return b""

    def close(self) -> None:
        pass


_EVENTS = st.one_of(
    st.builds(lambda p: event(ev.TURN, player=p, players=["A", "B"]), st.integers(0, 1)),
    st.builds(lambda legal, must, cell, p: verdict(
        Verdict.ok("r", "") if legal else Verdict.illegal(
            "r", "", Consequence.MUST_CORRECT if must else Consequence.TURN_LOST), [cell], p),
        st.booleans(), st.booleans(), st.sampled_from(["a1", "b2", "c3", "d4"]), st.integers(0, 1)),
    st.builds(lambda cells: event(ev.MISMATCH, message="m", cells=cells),
              st.lists(st.sampled_from(["a1", "b2"]), max_size=2)),
    st.builds(lambda s: event(ev.CAMERA, status=s), st.sampled_from(["ok", "lost"])),
)


@settings(max_examples=60, deadline=None)
@given(steps=st.lists(st.tuples(_EVENTS, st.sampled_from([0.1, 0.2, 0.3, 0.7, 2.1])), min_size=1, max_size=12))
def test_native_board_shows_what_the_host_scene_renders(steps):
    """Host scene -> NativeDriver (only new blinks, clear-and-resend with phase when one stops early)
    -> the firmware's logic: at every sampled moment the board shows the host's picture."""
    scene, clock = make()
    wire = BoardWire(clock, scene.layout.led_count)
    driver = NativeDriver(wire)
    first = True
    for e, gap in steps:
        clock.t = round(clock.t + gap, 1)
        scene.apply(e)
        frame = scene.frame()
        driver.send(frame, clock.t, full=first)
        first = False
        for probe in (0.05, 0.15, 0.25, 0.35):  # mid-way between blink phase edges (multiples of 0.1 s)
            t = clock.t + probe
            assert wire.board.state.pixels(round(t * 1000)) == frame.render(t, dim=False), (t, e.kind)


def test_correction_darkens_the_withdrawn_cell_and_confirm_blinks_cyan():
    scene, clock = make()
    placed = event(ev.VERDICT, verdict=Verdict.ok("grid.place", "").to_json(), cells=["c2"], player=0, seq=7)
    scene.apply(placed)
    c2 = scene.layout.cells["c2"][0]
    assert scene.frame().render(clock.t + 5)[c2] == scene.layout.color("placed")
    scene.apply(event(ev.CONFIRM, message="sure?", candidates=[], cells=["a4"]))
    a4 = scene.layout.cells["a4"][0]
    assert scene.frame().render(clock.t + 0.05)[a4] == scene.layout.color("confirm")
    scene.apply(event(ev.VERDICT, correction=True, target=7, cells=[],
                      verdict={"legal": True, "rule": "referee.correction", "reason": "", "consequence": "none"}))
    px = scene.frame().render(clock.t + 0.05)
    assert px[c2] == OFF and px[a4] == OFF  # withdrawn, and the question is answered
