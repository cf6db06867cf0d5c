"""Every rule of seed 001 (shared/rules/highway-grid.md) as the 4x4 engine implements it."""

from __future__ import annotations

import random

import pytest

import engine
from engine.core import Consequence, EngineError, NotationError
from engine.grid import PATHS, GridState, Place, best_path, cell_name, parse_action, parse_cell
from engine.grid.position import format_position, parse_position


def full_board(rng: random.Random) -> GridState:
    pieces = list(range(1, 17))
    rng.shuffle(pieces)
    return GridState(tuple(pieces))


def test_registered_and_starts_empty_with_player_one():
    game = engine.get_game("highway-grid")
    state = game.new_state()
    assert state.board == (0,) * 16
    assert state.current_player() == 0
    assert len(list(state.legal_actions())) == 16 * 16


def test_cells_are_named_from_top_left():
    assert cell_name(0) == "a1" and cell_name(3) == "d1" and cell_name(12) == "a4" and cell_name(15) == "d4"
    assert [parse_cell(cell_name(i)) for i in range(16)] == list(range(16))
    with pytest.raises(EngineError, match="e5"):
        parse_cell("e5")


@pytest.mark.parametrize("seat,start,end,steps", [(0, 0, 15, (1, 4)), (1, 3, 12, (-1, 4))])
def test_each_player_has_twenty_seven_cell_paths(seat, start, end, steps):
    paths = PATHS[seat]
    assert len(paths) == 20 and len(set(paths)) == 20
    for p in paths:
        assert len(p) == 7 and p[0] == start and p[-1] == end
        for a, b in zip(p, p[1:], strict=False):
            assert b - a in steps
            if b - a in (1, -1):  # a sideways step stays on its row
                assert a // 4 == b // 4


def test_players_take_turns_and_player_one_starts():
    s = GridState()
    s = s.apply(parse_action("7@b2"))
    assert s.current_player() == 1
    s = s.apply(parse_action("3@a1"))
    assert s.current_player() == 0 and s.board[5] == 7 and s.board[0] == 3


def test_a_piece_already_on_the_board_is_illegal():
    s = GridState().apply(parse_action("7@b2")).apply(parse_action("3@a1"))
    v = s.judge(parse_action("7@c3"))
    assert not v.legal and v.rule == "grid.piece-in-reserve" and v.consequence is Consequence.MUST_CORRECT
    assert "b2" in v.reason
    assert s.apply(parse_action("7@c3")) == s  # must be corrected: nothing changes


def test_an_occupied_cell_is_illegal():
    s = GridState().apply(parse_action("7@b2"))
    v = s.judge(parse_action("5@b2"))
    assert not v.legal and v.rule == "grid.cell-empty" and "7" in v.reason


def test_the_wrong_player_is_illegal():
    s = GridState()
    v = s.judge(Place(4, 0, player=1))
    assert not v.legal and v.rule == "grid.turn"
    assert s.judge(Place(4, 0, player=0)).legal


def test_no_placement_after_the_sixteenth():
    s = full_board(random.Random(3))
    assert s.is_terminal() and list(s.legal_actions()) == []
    v = s.judge(Place(1, 0))
    assert not v.legal and v.rule == "grid.game-over"


def test_best_path_is_the_lowest_sum_and_keeps_ties():
    board = list(range(1, 17))  # row by row 1..16
    bp = best_path(tuple(board), 0)
    # Lowest P1 path: along the top row then down the right column: 1+2+3+4+8+12+16.
    assert bp.value == 46 and bp.paths == ((0, 1, 2, 3, 7, 11, 15),) and bp.complete
    # Repeated numbers (not a legal set of pieces; best_path takes any numbers) give tied paths.
    flat = (4, 3, 2, 1, 3, 2, 1, 4, 2, 1, 4, 3, 1, 4, 3, 2)
    sums = {sum(flat[c] for c in p) for p in PATHS[0]}
    ties = best_path(flat, 0)
    assert ties.value == min(sums)
    assert len(ties.paths) == sum(1 for p in PATHS[0] if sum(flat[c] for c in p) == min(sums)) > 1


def test_best_paths_match_brute_force_on_random_full_boards():
    rng = random.Random(11)
    for _ in range(50):
        s = full_board(rng)
        for seat in (0, 1):
            sums = [sum(s.board[c] for c in p) for p in PATHS[seat]]
            pv = s.best_paths()[seat]
            assert pv.value == min(sums)
            assert set(pv.paths) == {p for p, v in zip(PATHS[seat], sums, strict=True) if v == min(sums)}


def test_lower_best_path_wins_and_equal_values_draw():
    rng = random.Random(5)
    seen = {"p1": False, "p2": False, "draw": False}
    for _ in range(3000):
        s = full_board(rng)
        p1, p2 = (pv.value for pv in s.best_paths())
        o = s.outcome()
        assert o is not None
        if p1 == p2:
            assert o.draw and o.winners == () and "grid.draw" in o.reason
            seen["draw"] = True
        elif p1 < p2:
            assert o.winners == (0,) and not o.draw and "grid.win" in o.reason
            seen["p1"] = True
        else:
            assert o.winners == (1,)
            seen["p2"] = True
        assert o.scores == (float(p1), float(p2))
        if all(seen.values()):
            break
    assert all(seen.values()), seen


def test_no_outcome_before_the_board_is_full():
    assert GridState().apply(parse_action("1@a1")).outcome() is None


@pytest.mark.parametrize("text", ["7b2", "17@a1", "0@a1", "7@e2", "7@b5", "", "seven@b2"])
def test_malformed_notation_is_rejected(text):
    with pytest.raises(EngineError):
        parse_action(text)


def test_notation_round_trip():
    for text in ("1@a1", "16@d4", "9@c2"):
        assert parse_action(text).notation() == text
    with pytest.raises(NotationError, match="PIECE@CELL"):
        parse_action("x")


def test_position_text_round_trip_and_errors():
    s = parse_position("7 . 3 . / . . . . / . 12 . . / . . . 16")
    assert s.board[0] == 7 and s.board[2] == 3 and s.board[9] == 12 and s.board[15] == 16
    assert parse_position(format_position(s)) == s
    assert parse_position("7 . 3 . . . . . . 12 . . . . . 16") == s
    with pytest.raises(EngineError, match="row 2 has 3"):
        parse_position("7 . 3 . / . . . / . 12 . . / . . . 16")
    with pytest.raises(EngineError, match="piece 7 is placed twice.*a1 and d4"):
        parse_position("7 . 3 . / . . . . / . 12 . . / . . . 7")
    with pytest.raises(EngineError, match=r"entry 2 \(cell b1\) is 'x'"):
        parse_position("7 x 3 . / . . . . / . 12 . . / . . . 16")
    with pytest.raises(EngineError, match="15 entries"):
        parse_position(". " * 15)


def test_batch_best_values_agree_with_best_path():
    import numpy as np

    from engine.grid.batch import best_values

    rng = random.Random(2)
    states = [full_board(rng) for _ in range(200)]
    p1, p2 = best_values(np.array([s.board for s in states]))
    for s, v1, v2 in zip(states, p1, p2, strict=True):
        assert (int(v1), int(v2)) == tuple(pv.value for pv in s.best_paths())
    with pytest.raises(ValueError, match="shape"):
        best_values(np.zeros((3, 15)))
