"""One scenario per rule of the seed (003, Hungarian) and per expansion, through the engine's
public path: a state, a roll, placements judged and applied, sheets scored."""

from __future__ import annotations

import pytest

from engine.core import EngineError, step
from engine.railroad_ink import Done, Meteor, Place, RailroadInkState, Roll, Sheet, Square, score_sheet
from engine.railroad_ink.meteor import meteor_walk
from engine.railroad_ink.randomgame import random_game
from engine.railroad_ink.state import Progress
from engine.railroad_ink.tiles import FACES, orientations

BASE_ROLL = ("highway_straight", "railway_curve", "highway_t", "station_straight")


def rolled(faces=BASE_ROLL, expansions=(), players=1, sheet: Sheet | None = None) -> RailroadInkState:
    state = RailroadInkState.new(players, expansions)
    if sheet is not None:
        state = RailroadInkState(tuple(sheet for _ in range(players)), state.expansions, 1, None, state.progress)
    return state.apply(Roll(tuple(faces)))


def sheet_of(*squares: tuple[int, int, str, str]) -> Sheet:
    sheet = Sheet()
    for row, col, sides, piece in squares:
        sheet = sheet.put(row * 7 + col, Square.make(sides, piece))
    return sheet


def play(state: RailroadInkState, *actions):
    verdict = None
    for a in actions:
        state, verdict = step(state, a)
    return state, verdict


# -- the base game --------------------------------------------------------------------------------
def test_roll_is_a_chance_event_with_one_face_per_die() -> None:
    state = RailroadInkState.new(2)
    assert state.is_chance_node()
    rolls = list(state.possible_rolls())
    assert len(rolls) == 56 * 3  # three identical route dice (multisets of 6 faces) x 3 junction faces
    with pytest.raises(EngineError, match="junction"):
        state.judge(Roll(("highway_t",) * 4))
    state = state.apply(Roll(BASE_ROLL))
    assert state.current_player() == 0 and state.roll is not None


def test_first_route_must_touch_an_exit_or_a_route() -> None:
    state = rolled()
    v = state.judge(Place(0, "highway_straight", 3, 3, "H-H-"))
    assert not v.legal and v.rule == "rri.connect.touch"
    assert state.judge(Place(0, "highway_straight", 0, 1, "H-H-")).legal  # touches the top highway exit
    state, _ = play(state, Place(0, "highway_straight", 0, 1, "H-H-"))
    assert state.judge(Place(0, "highway_t", 1, 1, "HHH-")).legal  # touches the drawn highway


def test_rail_never_joins_highway_without_a_station() -> None:
    state = rolled()
    v = state.judge(Place(0, "railway_curve", 0, 1, "R--R"))  # its N side faces the highway exit
    assert not v.legal and v.rule == "rri.connect.mismatch" and v.details["square"] == "A1"
    state, v = play(state, Place(0, "highway_straight", 0, 1, "H-H-"))
    bad = state.judge(Place(0, "railway_curve", 1, 1, "R--R"))
    assert bad.rule == "rri.connect.mismatch"
    assert state.judge(Place(0, "station_straight", 1, 1, "H-R-")).legal  # a station joins them


def test_rotations_and_mirrors_are_free_but_the_shape_is_fixed() -> None:
    assert len(orientations("railway_curve")) == 4 and len(orientations("special_station_3h_1r")) == 4
    assert len(orientations("overpass")) == 2
    with pytest.raises(EngineError, match="rotation or mirror"):
        Place(0, "railway_curve", 1, 0, "R-R-")


def test_each_rolled_route_once_and_only_rolled_routes() -> None:
    state, v = play(rolled(), Place(0, "highway_straight", 0, 1, "H-H-"))
    again = state.judge(Place(0, "highway_straight", 3, 0, "-H-H"))
    assert again.rule == "rri.roll.die-used"
    missing = state.judge(Place(0, "railway_t", 1, 0, "R-RR"))
    assert missing.rule == "rri.roll.not-rolled" and "A" <= missing.details["square"][0] <= "G"


def test_all_four_routes_must_be_drawn_if_possible() -> None:
    state, _ = play(rolled(), Place(0, "highway_straight", 0, 1, "H-H-"))
    v = state.judge(Done(0))
    assert not v.legal and v.rule == "rri.dice.if-possible"
    # a station that fits nowhere may be left: fill the sheet's exits so nothing else can be drawn
    state = rolled(("highway_straight",) * 3 + ("station_straight",))
    state, _ = play(state, Place(0, "highway_straight", 0, 1, "H-H-"), Place(0, "highway_straight", 1, 1, "H-H-"),
                    Place(0, "highway_straight", 2, 1, "H-H-"), Place(0, "station_straight", 3, 1, "H-R-"))
    assert state.judge(Done(0)).legal
    assert state.unplaceable_dice(0) == []  # everything was drawn
    border = [(r, c, "LLLL", "lake_full") for r in range(7) for c in range(7) if r in (0, 6) or c in (0, 6)]
    blocked = rolled(sheet=sheet_of(*border))  # water on every border square: no route can touch
    assert blocked.unplaceable_dice(0) == list(BASE_ROLL)
    assert blocked.judge(Done(0)).legal


def test_specials_once_each_one_per_round_three_per_game() -> None:
    state = rolled()
    state, v = play(state, Place(0, "special_highway_cross", 0, 1, "HHHH"))
    assert v.legal
    v = state.judge(Place(0, "special_station_3h_1r", 1, 1, "HHRH"))
    assert v.rule == "rri.special.per-round"
    sheet = state.sheets[0]
    state = RailroadInkState((sheet,), (), 5, BASE_ROLL, (Progress(),))  # a later round
    assert state.judge(Place(0, "special_highway_cross", 3, 0, "HHHH")).rule == "rri.special.once"
    full = Sheet(specials=("special_highway_cross", "special_railway_cross", "special_station_1h_3r"))
    state = rolled(sheet=full)
    v = state.judge(Place(0, "special_station_3h_1r", 0, 1, "HHRH"))
    assert v.rule == "rri.special.per-game"


def test_round_number_is_written_and_nothing_is_erased() -> None:
    state = rolled(("highway_straight",) * 3 + ("overpass",))
    state, _ = play(state, Place(0, "highway_straight", 0, 1, "H-H-"))
    assert state.sheets[0].cells[1].round == 1
    v = state.judge(Place(0, "highway_straight", 0, 1, "H-H-"))
    assert v.rule == "rri.square.occupied"


def test_game_ends_after_round_seven_or_six_with_an_expansion() -> None:
    assert RailroadInkState.new(1).rounds == 7
    assert RailroadInkState.new(1, ["river"]).rounds == 6
    end, actions = random_game(3, players=2)
    assert end.is_terminal() and end.round == 7
    assert sum(isinstance(a, Roll) for a in actions) == 7
    assert end.outcome() is not None


def test_scoring_networks_longest_centre_errors_and_total() -> None:
    # top highway exit (A1) down to the left highway exit (D0): one network of 2 exits = 4 points
    sheet = sheet_of((0, 1, "H-H-", "highway_straight"), (1, 1, "H-H-", "highway_straight"),
                     (2, 1, "H-H-", "highway_straight"), (3, 1, "H--H", "highway_curve"),
                     (3, 0, "-H-H", "highway_straight"), (2, 2, "-H-H", "highway_straight"))
    s = score_sheet(sheet)
    assert s.network_exit_counts == (2,) and s.exit_points == 4
    assert s.longest_highway == 5 and s.longest_railway == 0
    assert s.center_squares == 1
    assert s.errors == 2  # C2's two highway ends face empty squares (C1's side is blank)
    assert s.total == 4 + 5 + 0 + 1 - 2


def test_station_does_not_break_a_route_and_overpass_keeps_networks_apart() -> None:
    sheet = sheet_of((0, 1, "H-H-", "highway_straight"), (1, 1, "H-R-", "station_straight"),
                     (2, 1, "R-R-", "railway_straight"))
    assert score_sheet(sheet).longest_highway == 2 and score_sheet(sheet).longest_railway == 2
    over = sheet_of((0, 3, "R-R-", "railway_straight"), (1, 3, "RHRH", "overpass"),
                    (1, 2, "-H-H", "highway_straight"), (1, 4, "-H-H", "highway_straight"))
    assert score_sheet(over).network_exit_counts == (1,)


def test_a_square_may_count_twice_in_the_default_reading() -> None:
    # a 2x2 highway loop with a tail: the trail walks the loop and re-enters its first square
    sheet = sheet_of((3, 2, "-HH-", "highway_curve"), (3, 3, "-HHH", "highway_t"), (3, 4, "--HH", "highway_curve"),
                     (4, 2, "HH--", "highway_curve"), (4, 3, "H--H", "highway_curve"))
    assert score_sheet(sheet, "trail").longest_highway == 6
    assert score_sheet(sheet, "path").longest_highway == 5


def test_tie_goes_to_fewer_errors() -> None:
    from engine.railroad_ink import ranking

    a = score_sheet(sheet_of((0, 1, "H-H-", "highway_straight")))  # 1 point of highway, 1 error
    b = score_sheet(Sheet())
    assert a.total == b.total == 0 and a.errors == 1 and b.errors == 0
    assert ranking([a, b]) == [1, 0]
    state = RailroadInkState((sheet_of((0, 1, "H-H-", "highway_straight")), Sheet()), (), 7, None,
                             (Progress(done=True),) * 2, finished=True)
    out = state.outcome()
    assert out is not None and out.winners == (1,) and not out.draw


# -- Deep Blue: rivers ------------------------------------------------------------------------------
def test_river_need_not_connect_but_never_meets_an_exit() -> None:
    roll = BASE_ROLL + ("river_straight", "river_curve")
    state = rolled(roll, ["river"])
    assert state.judge(Place(0, "river_straight", 3, 3, "W-W-")).legal  # floats free
    v = state.judge(Place(0, "river_straight", 0, 1, "W-W-"))
    assert v.rule == "rri.river.exit"
    assert state.judge(Place(0, "river_straight", 0, 2, "W-W-")).legal  # plain edge is fine
    assert state.judge(Done(0)).rule == "rri.dice.if-possible"  # rivers are optional, routes are not


def test_river_scoring_ends_and_edge_bonus() -> None:
    full = sheet_of(*[(r, 2, "W-W-", "river_straight") for r in range(7)])
    s = score_sheet(full, expansions=("river",))
    assert s.expansion["river"] == 7 + 3 and s.errors == 0
    short = sheet_of((0, 2, "W-W-", "river_straight"), (1, 2, "W-W-", "river_straight"))
    s = score_sheet(short, expansions=("river",))
    assert s.expansion["river"] == 2 and s.errors == 1


# -- Deep Blue: lakes -------------------------------------------------------------------------------
def test_lake_forced_fill_and_optional_lake_dice() -> None:
    roll = BASE_ROLL + ("lake_three_quarter", "lake_half")
    state = rolled(roll, ["lake"])
    state, v = play(state, Place(0, "lake_three_quarter", 2, 3, "-LLL"))
    assert v.legal
    state, v = play(state, Place(0, "lake_half", 3, 2, "LL--"))
    assert v.legal
    # D3 is now bordered by water on 3 sides? only 2: C3's S and D2's E; nothing filled yet
    assert state.sheets[0].cells[3 * 7 + 3] is None
    sheet = sheet_of((2, 3, "--L-", "lake_quarter"), (3, 2, "-L--", "lake_quarter"))
    state = rolled(roll, ["lake"], sheet=sheet)
    assert state.sheets[0].cells[3 * 7 + 3] is None  # two wet sides: not yet
    state, v = play(state, Place(0, "lake_half", 3, 4, "L--L"))  # a third wet side on D3
    assert v.legal
    filled = state.sheets[0].cells[3 * 7 + 3]
    assert filled is not None and filled.piece == "lake_full" and filled.round == 1


def test_networks_join_through_a_lake_and_smallest_lake_scores() -> None:
    # highway exit A1 -> pier into a lake; rail exit B0 -> pier into the same lake
    lake = ((0, 1, "H-L-", "lake_quarter_pier_highway"), (1, 1, "L--L", "lake_half"),
            (1, 0, "-L-R", "lake_quarter_pier_railway"))
    s = score_sheet(sheet_of(*lake), expansions=("lake",))
    assert s.network_exit_counts == (2,) and s.exit_points == 4
    assert s.expansion["lake"] == 3 and s.errors == 0  # open water is never an error
    two = sheet_of(*lake, (5, 5, "L---", "lake_quarter"))
    assert score_sheet(two, expansions=("lake",)).expansion["lake"] == 1


# -- Blazing Red: meteors ---------------------------------------------------------------------------
def test_meteor_walk_bounces_and_skips_craters() -> None:
    assert meteor_walk(24, "right", 2, frozenset())[-1] == 26
    assert meteor_walk(26, "right", 3, frozenset())[-1] == 3 * 7 + 4  # D6, then bounce back: D5, D4
    assert meteor_walk(24, "up", 1, frozenset({17}))[-1] == 10  # skips the crater on C3
    assert meteor_walk(3, "up", 1, frozenset())[-1] == 10  # from the top row it bounces down


def test_meteor_round_crater_erases_and_ignore_costs_a_special() -> None:
    roll = BASE_ROLL + ("meteor_distance_1", "meteor_any")
    sheet = sheet_of((2, 3, "R-R-", "railway_straight"))
    state = rolled(roll, ["meteor"], sheet=sheet)
    assert state.judge(Place(0, "highway_straight", 0, 1, "H-H-")).rule == "rri.meteor.first"
    assert state.judge(Meteor(0)).rule == "rri.meteor.direction"
    after, v = play(state, Meteor(0, "up"))
    assert v.legal and v.details["impact"] == "C3"
    assert after.sheets[0].cells[17] is None and 17 in after.sheets[0].craters
    ignored, v = play(state, Meteor(0, None, "special_highway_cross"))
    assert v.legal and ignored.sheets[0].cells[17] is not None
    assert ignored.judge(Place(0, "special_railway_cross", 0, 3, "RRRR")).rule == "rri.special.per-round"
    # a crater may be erased by drawing a route on it
    assert after.judge(Place(0, "railway_straight", 2, 3, "R-R-")).rule in ("rri.roll.not-rolled",)
    assert after.judge(Place(0, "highway_straight", 2, 3, "H-H-")).rule == "rri.connect.touch"


def test_route_end_at_a_crater_scores_two_not_an_error() -> None:
    sheet = sheet_of((0, 1, "H-H-", "highway_straight"))
    from dataclasses import replace

    sheet = replace(sheet, craters=frozenset({8}))
    s = score_sheet(sheet, expansions=("meteor",))
    assert s.errors == 0 and s.expansion["meteor"] == 2


# -- Blazing Red: lava ------------------------------------------------------------------------------
def test_lava_starts_with_a_volcano_and_must_grow_from_lava() -> None:
    roll = BASE_ROLL + ("lava_half_opposite", "lava_three_quarter")
    state = rolled(roll, ["lava"])
    assert state.sheets[0].cells[24].piece == "volcano"
    assert state.judge(Place(0, "lava_half_opposite", 0, 0, "V-V-")).rule == "rri.lava.connect"
    assert state.judge(Place(0, "lava_half_opposite", 2, 3, "V-V-")).legal
    assert state.judge(Place(0, "volcano", 2, 3, "VVVV")).rule == "rri.lava.volcano"
    assert state.judge(Place(0, "volcano", 0, 0, "VVVV")).legal
    # routes done, but no lava drawn: at least one lava die is required
    state, _ = play(state, Place(0, "highway_straight", 0, 1, "H-H-"), Place(0, "highway_t", 1, 1, "HHH-"),
                    Place(0, "station_straight", 2, 1, "H-R-"), Place(0, "railway_curve", 3, 1, "R--R"))
    v = state.judge(Done(0))
    assert v.rule in ("rri.dice.if-possible", "rri.lava.at-least-one")


def test_lava_scoring_open_sides_closed_lakes_and_largest() -> None:
    sheet = sheet_of((3, 3, "VVVV", "volcano"))
    s = score_sheet(sheet, expansions=("lava",))
    assert s.errors == 4 and s.expansion["lava"] == 1
    closed = sheet_of((0, 0, "VV--", "lava_half_diagonal"), (0, 1, "V--V", "lava_half_diagonal"))
    s = score_sheet(closed, expansions=("lava",))
    # A0's E side meets A1's W side; the other lava sides face the board edge: closed
    assert s.errors == 0 and s.expansion["lava"] == 5 + 2


def test_expansion_dice_are_named_in_faces() -> None:
    for die in ("river", "lake", "lava", "meteor_distance", "meteor_direction"):
        assert len(FACES[die]) == 6
    assert FACES["junction"].count("overpass") == 2


def test_table_view_shows_the_roll_and_every_players_squares() -> None:
    state = rolled(players=2)
    state, _ = play(state, Place(1, "highway_straight", 0, 1, "H-H-"))
    view = state.table_view()
    assert view["roll"] == list(BASE_ROLL) and view["phase"] == "draw" and view["round"] == 1
    assert view["players"][0]["squares"] == []
    assert view["players"][1]["squares"] == [{"square": "A1", "row": 0, "col": 1, "sides": "H-H-",
                                              "piece": "highway_straight", "overpass": False, "round": 1}]
    assert view["players"][1]["dice_used"] == [0]
