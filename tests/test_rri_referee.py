"""Railroad Ink wired into the referee: camera frames of the tray and a hand-drawn sheet -> the
adapter's observation -> the action the engine judges (roll, placements legal and illegal, done),
and views it must refuse (covered sheet, steep angle, sheet out of view)."""

from __future__ import annotations

import inspect
import shutil

import numpy as np
import pytest

import engine
from datasets.demo_railroad_ink import ROLLS, TableCamera, TableScene
from engine.railroad_ink import Done, Place, RailroadInkState, Roll, cell_name
from engine.railroad_ink.board import NEIGHBOURS
from engine.railroad_ink.tiles import orientations
from referee_app.demo import bundled_demos
from referee_app.games import get_adapter
from referee_app.games.base import Observation
from referee_app.games.railroad_ink import (
    ASK,
    TRAY,
    RailroadInkAdapter,
    infer_piece,
    reader_to_engine,
    square_confidence,
    square_value,
)
from referee_app.loop import RefereeLoop
from vision.sheets import SquareReading

FACES = ["highway_straight", "railway_curve", "railway_t", "station_straight"]
LOOP_CONFIRMS_BELOW = inspect.signature(RefereeLoop).parameters["confirm_below"].default


@pytest.fixture(scope="module")
def camera() -> TableCamera:
    return TableCamera(seed=21)


@pytest.fixture()
def adapter() -> RailroadInkAdapter:
    return RailroadInkAdapter()


def rolled(faces: list[str] = FACES) -> RailroadInkState:
    state = RailroadInkState.new(1)
    return state.apply(Roll(state.normalise_roll(sorted(faces))))


def scene_of(state: RailroadInkState, extra: Place | None = None, **kw) -> TableScene:
    squares = {c: (sq.sides, sq.overpass, sq.round) for c, sq in state.sheets[0].placed()}
    if extra is not None:
        squares[extra.cell] = (extra.sides, extra.piece == "overpass", state.round)
    tray = list(state.roll or []) if not state.progress[0].done else []
    return TableScene(squares, tray, **kw)


def clear_read(adapter: RailroadInkAdapter, camera: TableCamera, scene: TableScene, first: int) -> Observation:
    """The first of a few frames of one scene that the adapter does not refuse: a camera sends
    many frames and the referee waits for a clear one (a motion-blurred die is refused, not named)."""
    for frame in range(first, first + 4):
        obs = adapter.read(camera.shot(scene, frame))
        if obs.blocked is None:
            return obs
    raise AssertionError(f"four frames of one still scene were all refused: {obs.blocked}")


def seen(items: dict, conf: dict | None = None) -> Observation:
    return Observation(dict(items), dict(conf or {}))


# -- frames through read + explain ---------------------------------------------------------------
def test_the_adapter_is_the_games_camera_reader():
    assert get_adapter("railroad-ink").has_reader


def test_dice_settling_in_the_tray_read_as_the_roll(camera, adapter):
    state = RailroadInkState.new(1)
    obs = clear_read(adapter, camera, TableScene({}, FACES), 10)
    assert obs.items == {TRAY: tuple(sorted(FACES))}
    ex = adapter.explain(state, obs)
    assert ex.action == Roll(state.normalise_roll(sorted(FACES)))
    assert ex.confidence >= LOOP_CONFIRMS_BELOW
    assert state.judge(ex.action).legal


def test_a_legal_drawing_reads_as_that_placement(camera, adapter):
    state = rolled()
    want = next(state.legal_placements(0, ["railway_t"]))
    obs = clear_read(adapter, camera, scene_of(state, want), 20)
    ex = adapter.explain(state, obs)
    assert ex.action == want
    assert ex.cells == [cell_name(want.cell)]
    assert ex.confidence >= LOOP_CONFIRMS_BELOW
    assert state.judge(ex.action).legal


def test_railway_drawn_onto_a_highway_without_station_is_judged_illegal(camera, adapter):
    state = rolled()
    highway = next(p for p in state.legal_placements(0, ["highway_straight"]) if p.sides == "H-H-")
    state = state.apply(highway)
    # a railway_curve with one end against the highway's open end
    bad = None
    for cell in NEIGHBOURS[highway.cell]:
        if cell < 0 or state.sheets[0].cells[cell] is not None:
            continue
        for sides in orientations("railway_curve"):
            candidate = Place(0, "railway_curve", cell // 7, cell % 7, sides)
            if state.judge(candidate).rule == "rri.connect.mismatch":
                bad = candidate
                break
        if bad:
            break
    assert bad is not None
    obs = clear_read(adapter, camera, scene_of(state, bad), 30)
    ex = adapter.explain(state, obs)
    assert ex.action == bad
    verdict = state.judge(ex.action)
    assert not verdict.legal and verdict.rule == "rri.connect.mismatch"


def test_a_route_that_is_not_in_the_roll_is_named_and_judged_illegal(camera, adapter):
    state = rolled()
    not_rolled = next(p for p in RailroadInkState.new(1, free_dice=True).legal_placements(0, ["highway_curve"]))
    obs = clear_read(adapter, camera, scene_of(state, not_rolled), 40)
    ex = adapter.explain(state, obs)
    assert ex.action == not_rolled
    assert state.judge(ex.action).rule == "rri.roll.not-rolled"


def test_a_covered_sheet_blocks_the_view_naming_the_squares(camera, adapter):
    state = rolled()
    obs = adapter.read(camera.shot(scene_of(state, cover_mm=(70.0, 90.0, 130.0, 140.0)), 5))
    assert obs.blocked and "cannot read squares" in obs.blocked
    assert "D3" in obs.blocked  # the note lies over column c-e, rows 4-5 of the print (D2-E4)


def test_a_steep_view_is_refused_not_misread(adapter):
    steep = TableCamera(seed=21, tilt_deg=(70.0, 72.0))
    obs = adapter.read(steep.shot(TableScene({1: ("H--H", False, 1)}, FACES), 6))
    assert obs.blocked and "steep" in obs.blocked


def test_a_frame_without_the_sheet_is_blocked(camera, adapter):
    image = camera.shot(TableScene({}, FACES), 7)
    tray_only = np.ascontiguousarray(image[:, image.shape[1] // 2:])
    obs = adapter.read(tray_only)
    assert obs.items == {} and "sheet is not in view" in obs.blocked


# -- explain on observations (the rules of reading a round) --------------------------------------
def test_clearing_the_tray_ends_the_watched_players_round(adapter):
    state = rolled()
    for face in FACES:
        state = state.apply(next(state.legal_placements(0, [face])))
    items = {k: v for k, v in adapter.expected(state).items() if k != TRAY}
    ex = adapter.explain(state, seen(items))
    assert ex.action == Done(0) and state.judge(ex.action).legal


def test_two_new_squares_at_once_are_a_mismatch_not_a_guess(adapter):
    state = rolled()
    options = list(state.legal_placements(0, ["railway_t"]))
    a = options[0]
    b = next(p for p in options if p.cell != a.cell)
    items = {TRAY: tuple(sorted(FACES)), cell_name(a.cell): square_value(a.sides, False),
             cell_name(b.cell): square_value(b.sides, False)}
    ex = adapter.explain(state, seen(items))
    assert ex.action is None and "2 new squares" in ex.mismatch


def test_a_die_turned_in_the_tray_is_a_mismatch(adapter):
    state = rolled()
    turned = tuple(sorted(["highway_curve" if f == "railway_t" else f for f in FACES]))
    ex = adapter.explain(state, seen({TRAY: turned}))
    assert ex.action is None and "highway_curve" in ex.mismatch and ex.cells == [TRAY]


def test_a_drawing_that_vanished_or_changed_is_reported(adapter):
    state = rolled()
    placed = next(state.legal_placements(0, ["railway_t"]))
    state = state.apply(placed)
    name = cell_name(placed.cell)
    gone = adapter.explain(state, seen({TRAY: tuple(sorted(FACES))}))
    assert name in gone.mismatch and "blank" in gone.mismatch
    changed = adapter.explain(state, seen({TRAY: tuple(sorted(FACES)), name: "HHH-"}))
    assert name in changed.mismatch and "HHH-" in changed.mismatch


def test_a_half_drawn_shape_is_no_route(adapter):
    state = rolled()
    ex = adapter.explain(state, seen({TRAY: tuple(sorted(FACES)), "A1": "H---"}))
    assert ex.action is None and "A1" in ex.mismatch and "no Railroad Ink route" in ex.mismatch


def test_the_roll_needs_one_face_per_die(adapter):
    state = RailroadInkState.new(1)
    three = adapter.explain(state, seen({TRAY: tuple(sorted(FACES[:3]))}))
    assert three.action is None and "3 dice" in three.mismatch
    two_junctions = adapter.explain(state, seen({TRAY: ("overpass", "railway_t", "railway_t",
                                                        "station_curve")}))
    assert two_junctions.action is None and "one face per die" in two_junctions.mismatch


def test_unsure_squares_and_missing_station_boxes_ask_for_confirmation(adapter):
    state = rolled()
    station = next(state.legal_placements(0, ["station_straight"]))
    items = {TRAY: tuple(sorted(FACES)), cell_name(station.cell): square_value(station.sides, False)}
    unsure = adapter.explain(state, seen(items, {cell_name(station.cell): 0.3}))
    assert unsure.action == station and unsure.confidence < LOOP_CONFIRMS_BELOW
    sure = adapter.explain(state, seen(items, {cell_name(station.cell): 1.0}))
    assert sure.action == station and sure.confidence >= LOOP_CONFIRMS_BELOW


def test_piece_inference_prefers_the_rolled_die_still_to_draw():
    state = rolled(["highway_t", "railway_t", "railway_t", "overpass"])
    assert infer_piece(state, 0, "RRR-", False) == "railway_t"
    assert infer_piece(state, 0, "RHRH", True) == "overpass"
    assert infer_piece(state, 0, "HRHR", False) == "special_station_2h_2r_opposite"
    assert infer_piece(state, 0, "H--H", False) == "highway_curve"  # not rolled: the engine says so
    assert infer_piece(state, 0, "HR-H", True) is None


def test_expansion_games_are_left_to_manual_entry(adapter):
    state = RailroadInkState.new(1, ("river",))
    ex = adapter.explain(state, seen({}))
    assert ex.action is None and "river" in ex.mismatch


def test_reader_square_names_map_to_engine_squares():
    assert reader_to_engine("a1") == "A0"
    assert reader_to_engine("c2") == "B2"  # column c, row 2 -> row B, column 2
    assert reader_to_engine("g7") == "G6"


# -- the user's path: `highway-referee serve --frames DIR --game railroad-ink` --------------------
def test_serve_referees_a_folder_of_table_photos(tmp_path):
    from referee_app.cli import load_commands
    from referee_app.commands.serve import build_referee

    demo = next(d for d in bundled_demos() if d.name == "railroad-ink")
    frames = tmp_path / "frames"
    frames.mkdir()
    scenes = []  # the still scenes of round 1 up to the first illegal drawing being erased
    for f in demo.manifest["frames"]:
        if f["hold"] > 1:
            scenes.append(f["file"])
        if f.get("note", "").startswith("erased"):
            break
    k = 0
    for name in scenes:
        for _ in range(3):  # a camera loop settles after 3 equal frames
            shutil.copy(demo.folder / name, frames / f"{k:03d}.jpg")
            k += 1
    args = load_commands().build().parse_args(
        ["serve", "--frames", str(frames), "--game", "railroad-ink", "--players", "Ann",
         "--data", str(tmp_path / "data")])
    hub, loops = build_referee(args)
    loops[0].run()
    hub.bus.drain()
    got = [(p.action.notation(), p.verdict.legal, p.verdict.rule) for p in loops[0].session.played]
    first_roll = RailroadInkState.new(1).normalise_roll(sorted(ROLLS[0]))
    assert got[0] == (Roll(first_roll).notation(), True, "rri.roll")
    assert [g[1:] for g in got[1:]] == [(True, "rri.place"), (False, "rri.roll.not-rolled")]
    assert got == [(e["notation"], e["legal"], e["rule"]) for e in demo.manifest["expected"][:3]]
    assert all(p.source == "vision" for p in loops[0].session.played)
    # what the referee now holds equals the engine replaying the same moves
    game = engine.get_game("railroad-ink")
    state = game.new_state(players=1)
    for notation, _legal, _rule in got:
        state, _ = engine.step(state, game.parse_action(notation))
    assert loops[0].session.state.to_json() == state.to_json()


def test_the_hint_lists_the_dice_still_to_draw(adapter):
    state = rolled()
    assert adapter.hint(RailroadInkState.new(1)) is None  # nothing rolled yet
    state = state.apply(next(state.legal_placements(0, ["railway_t"])))
    hint = adapter.hint(state)
    assert set(hint["squares"]) == set(FACES) - {"railway_t"}
    first = next(state.legal_placements(0, ["railway_curve"]))
    assert cell_name(first.cell) in hint["squares"]["railway_curve"]
    assert "railway_t" not in hint["text"] and "railway_curve" in hint["text"]


def test_a_drawing_and_the_cleared_tray_seen_together_are_taken_one_at_a_time(adapter):
    state = rolled()
    for face in FACES[:3]:
        state = state.apply(next(state.legal_placements(0, [face])))
    last = next(state.legal_placements(0, [FACES[3]]))
    drawn = {k: v for k, v in adapter.expected(state).items() if k != TRAY}
    drawn[cell_name(last.cell)] = square_value(last.sides, False)
    together = adapter.explain(state, seen(drawn))
    assert together.action is None and "put the dice back" in together.mismatch
    dice_back = adapter.explain(state, seen(drawn | {TRAY: tuple(sorted(FACES))}))
    assert dice_back.action == last
    state = state.apply(last)
    assert adapter.explain(state, seen(drawn)).action == Done(0)


@pytest.mark.parametrize(("sides", "overpass", "station", "reader", "judged"), [
    ("R-R-", False, False, 1.0, True),  # clear
    ("R-R-", False, False, 0.5, True),  # sides sure, station test half-sure
    ("R-R-", False, False, 0.7, False),  # a side unclear
    ("H-R-", False, False, 1.0, False),  # highway meets railway with no station box drawn
    ("HHH-", False, True, 1.0, False),  # a station box on highways only
    ("H-R-", False, True, 1.0, True),
    ("RHRH", True, False, 1.0, True),
    ("RHRH", True, False, 0.5, False),  # the half-sure station decides overpass or special here
])
def test_only_squares_of_well_read_kinds_are_judged_without_asking(sides, overpass, station, reader, judged):
    sq = SquareReading("b2", "read", sides, overpass, station, None, reader)
    assert ASK < LOOP_CONFIRMS_BELOW
    assert (square_confidence(sq) >= LOOP_CONFIRMS_BELOW) is judged
