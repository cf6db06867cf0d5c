"""The dice road decoded through the referee loop (the path `serve` takes): a scripted reader gives
each frame's beliefs; the decoder must choose among the moves that could have happened."""

from __future__ import annotations

from decoder_loop import run_loop, scripted

import engine
from referee_app import events
from referee_app.games.base import Observation
from referee_app.games.dice import TRAY, DiceAdapter, cell_key, die_value_belief, pool_key
from vision.beliefs import joint, multiset, present_belief, value_belief


def table(items: dict, conf: dict | None = None, blocked: str | None = None) -> Observation:
    """An observation with beliefs built as the board reader builds them."""
    conf = conf or {}
    beliefs = {}
    for k, v in items.items():
        c = conf.get(k, 0.95)
        if k == TRAY:
            beliefs[k] = multiset([die_value_belief(d, c) for d in v])
        elif k.startswith("pool:"):
            beliefs[k] = present_belief(0.97, die_value_belief(v, c))
        else:
            beliefs[k] = present_belief(0.97, joint(die_value_belief(v[0], c), value_belief(v[1], 0.9, range(4))))
    return Observation(dict(items), {k: conf.get(k, 0.95) for k in items}, blocked, beliefs=beliefs)


def run(tmp_path, moves: list[str], script: list[Observation]):
    return run_loop(tmp_path, "highway-dice", ["Ann", "Bo"], scripted(DiceAdapter, script), len(script), moves, 3)


def first_cell(moves: list[str], seat: int = 0) -> str:
    state = engine.get_game("highway-dice").new_state(players=2)
    for m in moves:
        state, _ = engine.step(state, engine.get_game("highway-dice").parse_action(m))
    return state.status(seat).needed_cells[0]


HAND = Observation({}, {}, blocked="a hand over the board")


def test_an_old_die_misread_for_a_few_frames_raises_no_mismatch(tmp_path):
    cell = first_cell([])
    moves = ["R 1 4", f"1>{cell} +4"]  # Ann's 1 lies on the board, her 4 in the pool
    board = {cell_key(cell): (1, 0), pool_key(0): 4}
    misread = {cell_key(cell): (2, 0), pool_key(0): 4}
    script = [table(board)] * 3 + [table(misread, {cell_key(cell): 0.75})] * 4 + [table(board)] * 4
    session, said = run(tmp_path, moves, script)
    assert [e.kind for e in said] == []
    assert len(session.played) == 2


def test_a_die_of_neither_rolled_value_is_flagged(tmp_path):
    cell = first_cell([])
    script = [table({TRAY: (3, 5)})] * 3 + [HAND] + [table({cell_key(cell): (4, 0)})] * 4
    session, said = run(tmp_path, ["R 3 5"], script)
    assert [e.kind for e in said] == [events.MISMATCH]
    assert said[0].data.get("illegal") is True and "neither" in said[0].data["message"]
    assert said[0].data["cells"] == [cell]
    assert len(session.played) == 1  # nothing was judged as a play


def test_a_die_on_an_occupied_cell_is_judged_illegal(tmp_path):
    cell = first_cell([])
    moves = ["R 1 4", f"1>{cell} +4", "R 2 3", "pass", "R 5 6"]
    board = {cell_key(cell): (1, 0), pool_key(0): 4}
    script = [table(board | {TRAY: (5, 6)})] * 3 + [HAND] + [table({cell_key(cell): (6, 0), pool_key(0): 4})] * 4
    session, said = run(tmp_path, moves, script)
    last = session.played[-1]
    assert last.action.notation() == f"6>{cell}" and not last.verdict.legal
    assert said == []


def test_an_ambiguous_value_asks_for_the_top_candidates(tmp_path):
    cell = first_cell([])
    script = [table({TRAY: (3, 5)})] * 3 + [HAND] + [table({cell_key(cell): (4, 0)}, {cell_key(cell): 0.4})] * 4
    session, said = run(tmp_path, ["R 3 5"], script)
    assert [e.kind for e in said] == [events.CONFIRM]
    options = [c["notation"] for c in said[0].data["candidates"]]
    assert {f"3>{cell}", f"5>{cell}"} <= set(options) and 2 <= len(options) <= 3
    assert "margin" in said[0].data
    assert len(session.played) == 1


def test_a_clear_play_is_committed_with_its_margin_in_the_log(tmp_path):
    from referee_app.matchlog import read_log

    cell = first_cell([])
    script = [table({TRAY: (1, 4)})] * 3 + [HAND] + [table({cell_key(cell): (1, 0), pool_key(0): 4})] * 4
    session, said = run(tmp_path, [], script)
    assert [p.action.notation() for p in session.played] == ["R 1 4", f"1>{cell} +4"]
    records = [r for r in read_log(session.writer.path).records if r["type"] == "action"]
    assert all(r["margin"] > 1.0 for r in records)


def test_the_tray_emptied_under_a_hand_then_a_die_placed_is_no_question(tmp_path):
    # a hand the reader does not see as one (it covers no zone) has taken the dice: for two frames the
    # table reads as a pass, then the die lies on its cell. The pass was the play's first half, no rival
    cell = first_cell([])
    placed = table({cell_key(cell): (1, 0)})
    script = [table({TRAY: (1, 4)})] * 3 + [table({})] * 2 + [placed] * 4
    session, said = run(tmp_path, [], script)
    assert said == []
    assert [p.action.notation() for p in session.played] == ["R 1 4", f"1>{cell}"]


def test_a_reading_flickering_between_a_pass_and_a_play_still_asks(tmp_path):
    # the same two readings alternating (the die seen, not seen): which one stands is not clear
    cell = first_cell([])
    placed, empty = table({cell_key(cell): (1, 0)}), table({})
    script = [table({TRAY: (1, 4)})] * 3 + [empty, placed, empty, placed, placed] + [placed] * 2
    session, said = run(tmp_path, [], script)
    assert [e.kind for e in said] == [events.CONFIRM]
