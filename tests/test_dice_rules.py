"""One scenario per rule paragraph of seed 000 (Highway dice road), with its worked examples."""

from __future__ import annotations

import pytest
from test_dice_helpers import paved, play, position, turn

from engine.core import CHANCE, TERMINAL, Consequence, EngineError
from engine.dice_road import DiceState, Play, load_board, new_state, parse_action

B = load_board()


# -- Het Spel: players, colours, parities ---------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4])
def test_game_for_two_to_four_players_white_starts(players: int) -> None:
    s = new_state(players)
    assert s.current_player() == CHANCE and s.turn == 0
    assert [s.status(p).needed for p in range(players)] == [1, 2, 1, 2][:players]


@pytest.mark.parametrize("players", [1, 5, "2"])
def test_bad_player_counts_are_clear_errors(players: object) -> None:
    with pytest.raises(EngineError, match="2, 3 or 4 players"):
        new_state(players)  # type: ignore[arg-type]


# -- Plaveien: the cycles -----------------------------------------------------------------
def test_white_paves_odd_cycle_and_blue_even_cycle() -> None:
    s = new_state(2)
    for w, b in [(1, 2), (3, 4), (5, 6), (1, 2)]:
        s, v = turn(s, f"{w} {w}", f"{w}>{s.status(0).needed_cells[0]}")
        assert v.legal and v.rule == "dice.pave", v
        s, v = turn(s, f"{b} {b}", f"{b}>{s.status(1).needed_cells[0]}")
        assert v.legal, v
    assert [x.value for x in s.trails[0]] == [1, 3, 5, 1]
    assert [x.value for x in s.trails[1]] == [2, 4, 6, 2]
    assert s.status(0).needed == 3 and s.status(1).needed == 4


def test_wrong_value_on_own_road_costs_the_turn_and_says_what_was_needed() -> None:
    s = new_state(2)
    s2, v = turn(s, "3 4", "3>W01")
    assert not v.legal and v.consequence is Consequence.TURN_LOST and v.rule == "dice.cycle"
    assert "a 1 was needed on your own road" in v.reason
    assert s2.trails[0] == () and s2.turn == 1 and s2.roll is None


# -- Eigen weg voorrang (own-road priority), rolled and pool dice ----------------------------
def test_own_road_priority_forbids_blocking_with_the_other_die() -> None:
    s = position(turn=1, trails={0: paved(0, 2), 1: paved(1, 1)})  # Blue needs 4; White's last is 3
    s2, v = turn(s, "4 4", "4>W03")  # the 4 would block White, but Blue's road needs it
    assert not v.legal and v.rule == "dice.own-road-priority" and v.consequence is Consequence.TURN_LOST
    assert "a 4 was needed on your own road" in v.reason
    s2, v = turn(s, "4 6", "6>W03")  # using the *other* die elsewhere is just as illegal
    assert v.rule == "dice.own-road-priority"


def test_own_road_priority_applies_to_the_pool_die() -> None:
    s = position(turn=1, trails={0: paved(0, 2), 1: paved(1, 1)}, pools={1: 4})
    _, v = turn(s, "5 1", "P4>W03")
    assert v.rule == "dice.own-road-priority"
    _, v = turn(s, "5 1", "+5")  # storing instead of paving is not allowed either
    assert v.rule == "dice.own-road-priority" and not v.legal
    s2, v = turn(s, "5 1", "P4>B02 +5")
    assert v.legal and s2.pools[1] == 5 and s2.trails[1][-1].value == 4


# -- Dobbelsteenpool ----------------------------------------------------------------------
def test_pool_holds_one_die_store_replaces_and_store_only_ends_turn() -> None:
    s = new_state(2)
    s, v = turn(s, "3 5", "+5")
    assert v.legal and v.rule == "dice.store" and s.pools[0] == 5 and s.turn == 1
    s, _ = turn(s, "1 3", "pass")
    s, v = turn(s, "4 6", "+6")
    assert s.pools[0] == 6 and s.table_view()["pools"][0] == 6
    s, _ = turn(s, "1 3", "pass")
    with pytest.raises(EngineError, match="cannot store a 1"):
        s.apply(parse_action("R 1 3")).judge(parse_action("1>W01 +1"))  # the used die cannot be stored
    s2, v = turn(s, "1 1", "1>W01 +1")
    assert v.legal and s2.pools[0] == 1


def test_pool_die_is_placed_like_a_rolled_die() -> None:
    s = position(pools={0: 1})
    s2, v = turn(s, "2 4", "P1>W01")
    assert v.legal and s2.pools[0] is None and s2.trails[0][0].value == 1


def test_dice_that_were_not_rolled_or_not_in_the_pool_are_engine_errors() -> None:
    s = new_state(2).apply(parse_action("R 2 4"))
    with pytest.raises(EngineError, match="a 1 was not rolled"):
        s.judge(parse_action("1>W01"))
    with pytest.raises(EngineError, match="pool holds no die"):
        s.judge(parse_action("P1>W01"))
    with pytest.raises(EngineError, match="not on board"):
        s.judge(parse_action("2>Q99"))
    with pytest.raises(EngineError, match="1-6"):
        Play(7, "W01")


# -- Blokkeren & deblokkeren -------------------------------------------------------------
def test_worked_example_white_3_blocked_by_blue_4_white_needs_1() -> None:
    s = position(turn=1, trails={0: paved(0, 2), 1: paved(1, 1)})  # White 1 3; Blue 2 needs a 4
    s, v = turn(s, "4 5", "4>W03")
    assert v.rule == "dice.own-road-priority"  # "niet nodig op de eigen blauwe weg" matters
    s = position(turn=1, trails={0: paved(0, 2), 1: paved(1, 2)})  # Blue 2 4: needs 6
    s, v = turn(s, "4 5", "4>W03")
    assert v.legal and v.rule == "dice.block", v
    st = s.status(0)
    assert st.needed == 1 and st.needed_kind == "unblock" and st.needed_cells == ("W04",)  # 4 + 1 = 5
    s, v = turn(s, "1 2", "1>W04")
    assert v.legal and v.rule == "dice.unblock"
    assert s.status(0).needed == 1  # block + unblock were the step "5": the cycle goes on with 1


def test_blue_example_white_3_blocks_blue_2_blue_needs_1() -> None:
    s = position(turn=0, trails={0: paved(0, 1), 1: paved(1, 1)})  # White 1 (needs 3), Blue 2
    s, v = turn(s, "3 3", "3>B02")
    assert v.rule == "dice.own-road-priority"  # White's own road needs the 3 first
    s = position(turn=0, trails={0: paved(0, 2), 1: paved(1, 1)})  # White 1 3 needs 5
    s, v = turn(s, "3 4", "3>B02")
    assert v.legal and v.rule == "dice.block"
    assert s.status(1).needed == 1  # 3 + 1 = 4, the next blue value
    s, v = turn(s, "1 6", "1>B03")
    assert v.legal and s.status(1).needed == 6


def test_seed_examples_which_values_block() -> None:
    s = position(turn=1, trails={0: paved(0, 1), 1: paved(1, 2)})  # White 1; Blue needs 6
    assert s.status(0).block_value == 2  # "bij wit kan de 1 geblokkeerd worden door een blauwe 2"
    s = position(turn=0, trails={0: paved(0, 1), 1: paved(1, 2)})  # Blue 2 4
    assert s.status(1).block_value == 5  # "bij blauw kan een 4 geblokkeerd worden door een witte 5"


def test_wrong_block_value_and_unblockable_roads() -> None:
    s = position(turn=1, trails={0: paved(0, 2), 1: paved(1, 2)})
    _, v = turn(s, "2 5", "2>W03")
    assert v.rule == "dice.block-value" and "must be a 4" in v.reason and not v.legal
    s = position(turn=1, trails={1: paved(1, 2)})
    _, v = turn(s, "1 5", "5>W01")
    assert v.rule == "dice.block-empty"
    s = position(turn=1, trails={0: [*paved(0, 2), {"cell": "W03", "value": 4, "seat": 1, "kind": "block",
                                                    "t": 5}], 1: paved(1, 2)})
    _, v = turn(s, "5 5", "5>W04")
    assert v.rule == "dice.block-on-block"


# -- Reclaim -------------------------------------------------------------------------------
def _blocked_white(unblocked: bool) -> DiceState:
    """White 1 3, Blue blocked W03 with a 4 (and White unblocked with a 1 when asked)."""
    trail = [*paved(0, 2), {"cell": "W03", "value": 4, "seat": 1, "kind": "block", "t": 10}]
    if unblocked:
        trail.append({"cell": "W04", "value": 1, "seat": 0, "kind": "unblock", "t": 11})
    return position(turn=1, trails={0: trail, 1: paved(1, 2)})  # Blue 2 4: needs 6


def test_reclaim_before_rolling_costs_the_turn_and_opens_a_hole() -> None:
    s = _blocked_white(unblocked=False)
    s2, (v,) = play(s, "reclaim W03")
    assert v.legal and v.rule == "dice.reclaim" and v.details["placed"] is None  # a 4 is not needed
    assert s2.turn == 0 and s2.roll is None and "W03" not in s2.table_view()["stones"]
    st = s2.status(0)
    assert st.needed == 4 and st.needed_kind == "repair" and st.needed_cells == ("W03",)
    s3, (_, v) = play(s, "R 5 5", "reclaim W03")  # after the roll: too late
    assert v.rule == "dice.reclaim-before-roll" and v.consequence is Consequence.TURN_LOST
    assert s3.trails[0] == s.trails[0]


def test_reclaimed_stone_is_placed_only_when_exactly_needed() -> None:
    trail = [*paved(0, 3), {"cell": "W04", "value": 6, "seat": 1, "kind": "block", "t": 10}]
    s = position(turn=1, trails={0: trail, 1: paved(1, 2)})  # Blue 2 4 needs 6; its block is a 6
    s2, (v,) = play(s, "reclaim W04>B03")
    assert v.legal and v.details["placed"] == "B03"
    assert s2.trails[1][-1].value == 6 and s2.status(1).needed == 2
    s = _blocked_white(unblocked=False)  # a 4, Blue needs 6: it cannot go on Blue's road
    s2, (v,) = play(s, "reclaim W03>B03")
    assert not v.legal and v.rule == "dice.reclaim-placement"


def test_reclaim_still_allowed_after_unblock_and_takes_the_oldest() -> None:
    s = _blocked_white(unblocked=True)
    assert s.status(0).needed == 1
    s2, (v,) = play(s, "reclaim W03")
    assert v.legal and s2.status(0).needed == 4  # the hole must be repaired first
    # two blocks of Blue's: the older one must go first
    w = [*paved(0, 2), {"cell": "W03", "value": 4, "seat": 1, "kind": "block", "t": 10},
         {"cell": "W04", "value": 1, "seat": 0, "kind": "unblock", "t": 11}]
    g = [*paved(2, 1, 3), {"cell": "G02", "value": 2, "seat": 1, "kind": "block", "t": 8}]
    s = position(players=3, turn=1, trails={0: w, 1: paved(1, 2), 2: g})
    _, (v,) = play(s, "reclaim W03")
    assert not v.legal and v.rule == "dice.reclaim-oldest" and "G02" in v.reason
    _, (v,) = play(s, "reclaim G02")
    assert v.legal
    _, (v,) = play(s, "reclaim W01")
    assert v.rule == "dice.reclaim-own-block"


# -- Gaten repareren -----------------------------------------------------------------------
def test_worked_example_repaired_2_before_white_3_step_next_is_5() -> None:
    # a blue 2 blocked White's 3-step (after White's 1); Blue reclaims it; White repairs with a 2
    trail = [*paved(0, 1), {"cell": "W02", "value": 2, "seat": 1, "kind": "block", "t": 5}]
    s = position(turn=1, trails={0: trail, 1: paved(1, 3)})  # Blue 2 4 6 needs 2: the 2 is placed
    s, (v,) = play(s, "reclaim W02")
    assert v.legal and v.details["placed"] == "B04"
    assert s.status(0).needed == 2 and s.status(0).needed_cells == ("W02",)
    s, v = turn(s, "2 3", "3>W03")
    assert v.rule == "dice.repair-first" and not v.legal  # the 2 repairs; paving on is not allowed
    s, v = turn(s, "3 4", "pass")  # Blue
    s, v = turn(s, "2 5", "2>W02")
    assert v.legal and v.rule == "dice.repair"
    assert s.status(0).needed == 5  # no extra 1: the repair completed the 3-step


def test_worked_example_white_repairs_the_blue_4_then_goes_on_with_1() -> None:
    s, _ = play(_blocked_white(unblocked=False), "reclaim W03")
    s, v = turn(s, "4 6", "4>W03")
    assert v.legal and v.rule == "dice.repair" and s.status(0).needed == 1


def test_paving_past_a_hole_is_refused_until_it_is_repaired() -> None:
    s, _ = play(_blocked_white(unblocked=True), "reclaim W03")  # White: 1 3 _ 1 ; needs a 4 on W03
    s, v = turn(s, "1 3", "1>W05")
    assert not v.legal and v.rule == "dice.repair-first"


def test_several_holes_are_repaired_oldest_first_and_blocking_stays_allowed() -> None:
    w = [*paved(0, 2), {"cell": "W03", "value": 4, "seat": 1, "kind": "hole", "t": 20},
         {"cell": "W04", "value": 1, "seat": 0, "kind": "unblock", "t": 11},
         {"cell": "W05", "value": 1, "seat": 0, "kind": "pave", "t": 12},
         {"cell": "W06", "value": 2, "seat": 3, "kind": "hole", "t": 15},
         {"cell": "W07", "value": 1, "seat": 0, "kind": "unblock", "t": 16}]
    s = position(players=4, turn=0, trails={0: w, 1: paved(1, 2)})
    st = s.status(0)
    assert st.needed == 2 and st.needed_cells == ("W06",)  # opened at t=15: older than W03's hole
    s2, v = turn(s, "4 5", "5>B03")  # no 2 rolled: White may still block Blue (2 4 -> 5)
    assert v.legal and v.rule == "dice.block"
    s2, v = turn(s, "2 5", "2>W06")
    assert v.legal and s2.status(0).needed_cells == ("W03",)
    assert s2.status(0).needed == 4



# -- De 7-uitzondering --------------------------------------------------------------------
def test_seven_exception_even_road() -> None:
    s = position(turn=0, trails={0: paved(0, 1), 1: paved(1, 3)})  # Blue 2 4 6; White 1 needs 3
    assert s.status(1).block_value == 1  # 6 + 1 = 7 counts as 1
    s, v = turn(s, "1 6", "1>B04")
    assert v.legal and s.status(1).needed == 1  # 1 + 1 = 2
    s, v = turn(s, "1 5", "1>B05")
    assert v.legal and s.status(1).needed == 4
    s, (v,) = play(s, "reclaim B04")  # White reclaims: Blue must repair with a 1, then goes on with 4
    assert v.legal and s.status(1).needed == 1 and s.status(1).needed_kind == "repair"
    s, v = turn(s, "1 2", "1>B04")
    assert v.legal and s.status(1).needed == 4


def test_seven_exception_odd_road() -> None:
    s = position(turn=1, trails={0: paved(0, 3), 1: paved(1, 2)})  # White 1 3 5; Blue needs 6
    assert s.status(0).block_value == 6
    s, v = turn(s, "6 2", "6>W04")
    assert v.rule == "dice.own-road-priority"  # Blue itself needs the 6
    s = position(turn=1, trails={0: paved(0, 3), 1: paved(1, 1)})  # Blue 2 needs 4
    s, v = turn(s, "6 2", "6>W04")
    assert v.legal and s.status(0).needed == 1  # 6 + 1 = 7 counts as 1
    s, v = turn(s, "1 2", "1>W05")
    assert v.legal and s.status(0).needed == 3
    s, (v,) = play(s, "reclaim W04")
    assert v.legal and s.status(0).needed == 6
    s, v = turn(s, "6 6", "6>W04")
    assert v.legal and s.status(0).needed == 3  # the cycle restarts: next is 3


# -- De brug -----------------------------------------------------------------------------
ROAD0 = B.roads[0]


def test_bridge_closure_needs_the_warning_mark_then_flanks_then_bridge() -> None:
    early = position(turn=1, trails={0: paved(0, ROAD0.warning_index), 1: paved(1, 1)})
    _, v = turn(early, "6 6", f"6>{ROAD0.flanks[0]}")
    assert v.rule == "dice.bridge-warning" and ROAD0.warning in v.reason
    s = position(turn=1, trails={0: paved(0, ROAD0.warning_index + 1), 1: paved(1, 1)})
    _, v = turn(s, "6 6", f"6>{ROAD0.bridge}")
    assert v.rule in ("dice.bridge-order", "dice.wrong-cell") and not v.legal
    s, v = turn(s, "6 6", f"6>{ROAD0.flanks[1]}")  # either flank first
    assert v.legal and v.rule == "dice.bridge-flank"
    s, _ = turn(s, "1 1", "pass")
    s, v = turn(s, "5 5", f"5>{ROAD0.flanks[0]}")
    assert v.legal
    s, _ = turn(s, "2 2", "pass")
    s, v = turn(s, "3 6", f"3>{ROAD0.bridge}")
    assert v.legal and v.rule == "dice.bridge-close"
    st = s.status(0)
    assert st.detour and ROAD0.detour[0] not in st.needed_cells  # White is still before the detour
    assert s.status(0).next_cells[0] == ROAD0.cells[ROAD0.warning_index + 1]


def test_partly_closed_bridge_is_still_passable_and_closed_bridge_forces_the_detour() -> None:
    b = ROAD0.bridge_index
    flanks = [{"cell": f, "value": 6, "seat": 1, "kind": "bridge", "t": 40 + k} for k, f in enumerate(ROAD0.flanks)]
    s = position(turn=0, trails={0: paved(0, b), 1: paved(1, 1)}, bridges={0: flanks})
    need = s.status(0).needed
    s2, v = turn(s, f"{need} {need}", f"{need}>{ROAD0.bridge}")
    assert v.legal and v.rule == "dice.pave"  # two flanks only: the bridge is passable
    closed = [*flanks, {"cell": ROAD0.bridge, "value": 2, "seat": 1, "kind": "bridge", "t": 45}]
    s = position(turn=0, trails={0: paved(0, b), 1: paved(1, 1)}, bridges={0: closed})
    assert s.status(0).needed_cells == (ROAD0.detour[0],)
    _, v = turn(s, f"{need} {need}", f"{need}>{ROAD0.cells[b + 1]}")
    assert not v.legal
    s2, v = turn(s, f"{need} {need}", f"{need}>{ROAD0.detour[0]}")
    assert v.legal and v.rule == "dice.pave"
    # opponents may not block on the detour
    s3, _ = turn(s2, "1 1", "pass")
    s3, _ = turn(s3, "2 2", "pass") if False else (s3, None)
    blue = position(turn=1, trails={0: [*paved(0, b), {"cell": ROAD0.detour[0], "value": need, "seat": 0,
                                                        "kind": "pave", "t": 50}], 1: paved(1, 1)},
                    bridges={0: closed})
    assert blue.status(0).block_value is None
    _, v = turn(blue, "5 5", f"5>{ROAD0.detour[1]}")
    assert v.rule == "dice.detour-no-block"


def test_unblock_on_the_detour_is_allowed() -> None:
    b = ROAD0.bridge_index
    trail = paved(0, b - 1)
    step = trail[-1]["value"]
    block = {"cell": ROAD0.cells[b - 1], "value": step % 6 + 1, "seat": 1, "kind": "block", "t": 60}
    closed = [{"cell": f, "value": 6, "seat": 1, "kind": "bridge", "t": 40 + k} for k, f in enumerate(ROAD0.flanks)]
    closed.append({"cell": ROAD0.bridge, "value": 2, "seat": 1, "kind": "bridge", "t": 45})
    s = position(turn=0, trails={0: [*trail, block], 1: paved(1, 1)}, bridges={0: closed})
    assert s.status(0).needed_cells == (ROAD0.detour[0],) and s.status(0).needed == 1
    s2, v = turn(s, "1 4", f"1>{ROAD0.detour[0]}")
    assert v.legal and v.rule == "dice.unblock"


def test_own_bridge_and_passed_bridge_cannot_be_closed() -> None:
    s = position(turn=0, trails={0: paved(0, 12), 1: paved(1, 12)})
    _, v = turn(s, "3 4", f"4>{ROAD0.flanks[0]}")
    assert v.rule == "dice.own-bridge"
    s = position(turn=1, trails={0: paved(0, ROAD0.bridge_index + 1), 1: paved(1, 1)})
    _, v = turn(s, "5 5", f"5>{ROAD0.flanks[0]}")
    assert v.rule == "dice.bridge-passed"


# -- Winnen & rijstroken ---------------------------------------------------------------------
def _to_lane(seat: int) -> list[dict]:
    return paved(seat, len(B.roads[seat].cells))


def test_two_player_lane_choice_and_middle_lane_for_one_player_only() -> None:
    s = position(turn=0, trails={0: _to_lane(0), 1: _to_lane(1)})
    st = s.status(0)
    assert set(st.needed_cells) == {B.roads[0].lanes["outer"][0], B.roads[0].lanes["middle"][0]}
    n = st.needed
    s, v = turn(s, f"{n} {n}", f"{n}>{B.roads[0].lanes['middle'][0]}")
    assert v.legal
    assert s.status(1).needed_cells == (B.roads[1].lanes["outer"][0],)  # the middle lane is taken
    n = s.status(1).needed
    _, v = turn(s, f"{n} {n}", f"{n}>{B.roads[1].lanes['middle'][0]}")
    assert v.rule == "dice.middle-lane" and not v.legal


def test_fixed_lanes_with_four_players_and_reaching_the_centre_wins() -> None:
    trails = {p: _to_lane(p) for p in range(4)}
    s = position(players=4, turn=0, trails=trails)
    for p in range(4):
        assert s.status(p).needed_cells == (B.roads[p].fixed_lane[0],)
    trail0 = [*_to_lane(0)]
    for k, c in enumerate(B.roads[0].fixed_lane):
        trail0.append({"cell": c, "value": (1, 3, 5)[(len(trail0)) % 3], "seat": 0, "kind": "pave", "t": 30 + k})
    s = position(players=4, turn=0, trails={0: trail0})
    n = s.status(0).needed
    assert s.status(0).needed_cells == (B.centre,)
    s, v = turn(s, f"{n} {n}", f"{n}>{B.centre}")
    assert v.legal and v.rule == "dice.win"
    assert s.current_player() == TERMINAL and s.outcome().winners == (0,)
    v = s.judge(parse_action("R 1 2"))
    assert v.rule == "dice.game-over" and v.consequence is Consequence.MUST_CORRECT


def test_no_block_on_the_centre() -> None:
    trail1 = [*_to_lane(1)]
    for k, c in enumerate(B.roads[1].fixed_lane):
        trail1.append({"cell": c, "value": (2, 4, 6)[len(trail1) % 3], "seat": 1, "kind": "pave", "t": 30 + k})
    s = position(players=3, turn=0, trails={1: trail1, 0: paved(0, 1)})
    assert s.status(1).block_value is None
    _, v = turn(s, "5 5", f"5>{B.centre}")
    assert v.rule == "dice.centre-no-block" and not v.legal


# -- Drie of vier spelers ----------------------------------------------------------------
def test_turn_order_white_blue_green_yellow() -> None:
    s = new_state(4)
    order = []
    for _ in range(8):
        order.append(s.turn)
        s, _ = turn(s, "6 6" if s.turn % 2 == 0 else "5 5", "pass")
    assert order == [0, 1, 2, 3, 0, 1, 2, 3]


def test_same_parity_players_cannot_block_each_other() -> None:
    s = position(players=4, turn=0, trails={0: paved(0, 2), 1: paved(1, 1), 2: paved(2, 1)})
    _, v = turn(s, "2 4", "2>G02")  # Green's last is 1: 1 + 1 = 2, but White and Green are both odd
    assert v.rule == "dice.block-parity" and not v.legal
    s = position(players=4, turn=2, trails={0: paved(0, 2), 1: paved(1, 1), 2: paved(2, 1)})
    _, v = turn(s, "2 3", "3>B02")
    assert v.rule == "dice.own-road-priority"  # Green needs the 3 itself
    s = position(players=4, turn=2, trails={0: paved(0, 2), 1: paved(1, 1), 2: paved(2, 2)})
    _, v = turn(s, "2 3", "3>B02")
    assert v.legal and v.rule == "dice.block"  # Green (odd) blocks Blue (even)


# -- Sequencing ---------------------------------------------------------------------------
def test_out_of_sequence_actions_must_be_corrected() -> None:
    s = new_state(2)
    v = s.judge(parse_action("1>W01"))
    assert v.rule == "dice.roll-first" and v.consequence is Consequence.MUST_CORRECT
    assert s.apply(parse_action("1>W01")) is s
    s = s.apply(parse_action("R 1 2"))
    assert s.judge(parse_action("R 3 4")).rule == "dice.roll-once"
    v = s.judge(Play(1, "W01", seat=1))
    assert v.rule == "dice.turn" and v.consequence is Consequence.MUST_CORRECT


def test_registered_game_round_trip_through_the_registry() -> None:
    import engine

    game = engine.get_game("highway-dice")
    assert (game.min_players, game.max_players) == (2, 4)
    s = game.new_state(players=3)
    for text in ("R 1 4", "1>W01 +4", "R 2 2", "2>B01 +2", "R 6 6", "6>G01"):
        s = s.apply(game.parse_action(text))
    assert game.state_from_json(s.to_json()) == s
    assert game.action_from_json(game.parse_action("reclaim B12>W07").to_json()) == parse_action("reclaim b12 > w07")
    assert s.table_view()["pools"] == {0: 4, 1: 2, 2: None}
    assert s.table_view()["stones"]["W01"] == {"value": 1, "seat": 0}
    assert "G01" not in s.table_view()["stones"]  # Green's 6 was not its needed 1: the turn was lost
    with pytest.raises(EngineError, match="no variant"):
        game.new_state(players=2, colour="red")
