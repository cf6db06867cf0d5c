"""The 4x4 solver against plain minimax on small positions, and the heuristic player."""

from __future__ import annotations

import random

import pytest

from engine.core import EngineError
from engine.grid import GridState, Place
from engine.grid.solver import brute_force_value, computer_move, describe, final_margin, hint, solve


def random_position(rng: random.Random, empties: int) -> GridState:
    pieces = list(range(1, 17))
    cells = list(range(16))
    rng.shuffle(pieces)
    rng.shuffle(cells)
    board = [0] * 16
    for p, c in zip(pieces[: 16 - empties], cells[: 16 - empties], strict=True):
        board[c] = p
    return GridState(tuple(board))


def _minimax(state: GridState) -> int:
    """Minimax with nothing kept between move orders: what brute_force_value must equal."""
    if state.is_terminal():
        return final_margin(state.board)
    values = [_minimax(state.apply(a)) for a in state.legal_actions()]
    return max(values) if state.current_player() == 0 else min(values)


def test_brute_force_value_is_plain_minimax():
    """brute_force_value (the tests' reference) values each board once: the same values as minimax
    over every move sequence, a memo shared between positions included."""
    rng = random.Random(17)
    shared: dict[tuple[int, ...], int] = {}
    for empties in (1, 2, 3, 3, 4, 4, 4, 5):
        state = random_position(rng, empties)
        want = _minimax(state)
        assert brute_force_value(state) == want, state.board
        assert all(brute_force_value(state.apply(a), shared) == _minimax(state.apply(a))
                   for a in state.legal_actions()), state.board


@pytest.mark.parametrize("empties,count", [(1, 10), (2, 15), (3, 15), (4, 12), (5, 1)])
def test_solver_matches_brute_force(empties, count):
    rng = random.Random(100 + empties)
    for _ in range(count):
        state = random_position(rng, empties)
        result = solve(state)
        assert result.exact and result.depth == empties
        assert result.value == brute_force_value(state), state.board
        # The move it names really achieves the value: after it, the opponent cannot do better.
        assert state.judge(result.best).legal
        after = state.apply(result.best)
        assert brute_force_value(after) == result.value


def test_principal_variation_ends_in_the_announced_value():
    state = random_position(random.Random(7), 6)
    result = solve(state)
    for move in result.principal:
        assert state.judge(move).legal
        state = state.apply(move)
    assert state.is_terminal() and final_margin(state.board) == result.value


def test_hint_names_a_best_move_for_player_two():
    state = random_position(random.Random(9), 3)
    assert state.current_player() == 1
    move, value = hint(state)
    assert move.player == 1 and value == brute_force_value(state)


def test_full_board_has_no_move_and_its_margin():
    state = GridState(tuple(range(1, 17)))
    result = solve(state)
    p1, p2 = state.best_paths()
    assert result.best is None and result.value == p2.value - p1.value
    with pytest.raises(EngineError, match="full"):
        computer_move(state)


def test_time_budget_gives_a_legal_heuristic_move_on_a_deep_position():
    state = GridState().apply(Place(5, 5))  # one move in, off the opening book (15 empty cells)
    result = solve(state, time_limit=0.3)
    assert not result.exact and result.depth < 16
    assert state.judge(result.best).legal


def test_computer_player_completes_a_game_legally():
    state = GridState()
    rng = random.Random(1)
    while not state.is_terminal():
        if state.placed < 8:  # random opening keeps the test fast; then the computer plays
            move = rng.choice(list(state.legal_actions()))
        else:
            move = computer_move(state, time_budget=0.5)
        assert state.judge(move).legal
        state = state.apply(move)
    assert state.outcome() is not None


def test_describe_value():
    assert describe(0) == "draw"
    assert describe(3) == "Player 1 wins by 3" and describe(-2) == "Player 2 wins by 2"
