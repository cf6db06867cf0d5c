"""The dice road's camera adapter: settled table readings -> rolls, plays, reclaims, mismatches."""

from __future__ import annotations

import engine
from referee_app.games.base import Observation
from referee_app.games.dice import ADAPTER, TRAY, cell_key, pool_key


def seen(items):
    return Observation(dict(items), {k: 0.95 for k in items})


def start():
    return engine.get_game("highway-dice").new_state(players=2)


def play(state, *moves):
    g = engine.get_game("highway-dice")
    for m in moves:
        state, _ = engine.step(state, g.parse_action(m))
    return state


def first_cell(state, seat=0):
    return state.status(seat).needed_cells[0]


def test_two_dice_in_the_tray_are_the_roll():
    s = start()
    ex = ADAPTER.explain(s, seen({TRAY: (5, 1)}))
    assert ex.action.notation() == "R 1 5"
    assert ADAPTER.explain(s, seen({TRAY: (3,)})).action is None  # still rolling


def test_a_turn_is_judged_when_the_tray_is_cleared():
    s = play(start(), "R 1 4")
    cell = first_cell(s)
    half_done = seen({cell_key(cell): (1, 0), TRAY: (4,)})
    assert ADAPTER.explain(s, half_done).action is None
    done = ADAPTER.explain(s, seen({cell_key(cell): (1, 0), pool_key(0): 4}))
    assert done.action.notation() == f"1>{cell} +4" and done.cells == [cell]
    new_state, verdict = engine.step(s, done.action)
    assert verdict.legal
    # the adapter's expectation now matches the table: nothing more to judge
    table = ADAPTER.expected(new_state)
    assert ADAPTER.explain(new_state, seen(table)).action is None


def test_store_only_pass_and_pool_die():
    s = play(start(), "R 2 4")
    assert ADAPTER.explain(s, seen({pool_key(0): 4})).action.notation() == "+4"
    assert ADAPTER.explain(s, seen({})).action.notation() == "pass"
    s2 = play(start(), "R 2 4", "+4", "R 2 2", "pass", "R 1 6")  # white has 4 in the pool
    cell = first_cell(s2)
    ex = ADAPTER.explain(s2, seen({cell_key(cell): (4, 0)} | {k: v for k, v in ADAPTER.expected(s2).items() if k.startswith("pool:1")}))
    assert ex.action.notation() == f"P4>{cell}"


def test_wrong_die_on_the_road_is_judged_illegal_and_costs_the_turn():
    s = play(start(), "R 3 6")
    cell = first_cell(s)
    ex = ADAPTER.explain(s, seen({cell_key(cell): (3, 0)}))
    new_state, verdict = engine.step(s, ex.action)
    assert not verdict.legal and verdict.consequence == "turn_lost"
    assert new_state.turn == 1


def test_changes_that_are_no_move_are_mismatches():
    s = play(start(), "R 1 3", f"1>{first_cell(play(start(), 'R 1 3'))}")
    table = ADAPTER.expected(s)
    gone = {k: v for k, v in table.items() if not k.startswith("cell:")}
    ex = ADAPTER.explain(s, seen(gone))
    assert ex.action is None and "missing" in ex.mismatch
    assert "5 dice" not in (ADAPTER.explain(s, seen(table | {TRAY: (1, 2, 3)})).mismatch or "")
    many = ADAPTER.explain(s, seen(table | {TRAY: (1, 2, 3)}))
    assert "roll exactly two" in many.mismatch
    other = ADAPTER.explain(s, seen(table | {pool_key(0): 6}))
    assert other.action is None and "out of turn" in other.mismatch


def test_a_block_stone_leaving_an_opponents_road_before_the_roll_is_a_reclaim():
    import itertools

    from engine.dice_road import Roll

    s = start()
    # play until the player to move can block, then block
    for a, b in itertools.cycle([(1, 2), (3, 4), (5, 6), (2, 3), (4, 5), (6, 1)]):
        s, _ = engine.step(s, Roll(a, b))
        uses = s.legal_uses()
        block = next((u for u in uses if u.kind == "block"), None)
        use = block or (uses[0] if uses else None)
        s, _ = engine.step(s, use.action() if use else engine.get_game("highway-dice").parse_action("pass"))
        if block:
            blocker = 1 - s.turn
            break
    s, _ = engine.step(s, Roll(6, 6))
    s, _ = engine.step(s, engine.get_game("highway-dice").parse_action("pass"))
    assert s.turn == blocker and s.roll is None
    table = ADAPTER.expected(s)
    without = {k: v for k, v in table.items() if k != cell_key(block.cell)}
    ex = ADAPTER.explain(s, seen(without))
    assert ex.action.notation() == f"reclaim {block.cell}"
    assert engine.step(s, ex.action)[1].legal
