"""JSON round trips of 4x4 states and actions (property-based), and rejection of bad JSON."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.core import EngineError
from engine.grid import GridState, Place

GAME = engine.get_game("highway-grid")


@st.composite
def states(draw: st.DrawFn) -> GridState:
    pieces = draw(st.permutations(range(1, 17)))
    cells = draw(st.permutations(range(16)))
    n = draw(st.integers(0, 16))
    board = [0] * 16
    for p, c in zip(pieces[:n], cells[:n], strict=True):
        board[c] = p
    return GridState(tuple(board))


actions = st.builds(Place, st.integers(1, 16), st.integers(0, 15), st.sampled_from([None, 0, 1]))


@settings(max_examples=150, deadline=None)
@given(states())
def test_state_json_round_trip(state):
    text = json.dumps(state.to_json())
    back = GAME.state_from_json(json.loads(text))
    assert back == state
    assert back.current_player() == state.current_player()
    assert back.best_paths() == state.best_paths()


@settings(max_examples=150, deadline=None)
@given(actions)
def test_action_json_and_notation_round_trip(action):
    back = GAME.action_from_json(json.loads(json.dumps(action.to_json())))
    assert back == action
    parsed = GAME.parse_action(action.notation())
    assert (parsed.piece, parsed.cell) == (action.piece, action.cell)


@settings(max_examples=60, deadline=None)
@given(states(), actions)
def test_verdict_json_round_trip(state, action):
    verdict = state.judge(action)
    again = type(verdict).from_json(json.loads(json.dumps(verdict.to_json())))
    assert again == verdict and again.same_ruling(verdict)


@pytest.mark.parametrize("bad", [
    {"game": "highway-grid", "board": [1] * 16},
    {"game": "highway-grid", "board": [0] * 15},
    {"game": "other", "board": [0] * 16},
    {"game": "highway-grid", "board": "x"},
    {"type": "place", "piece": 3},
    {"type": "place", "piece": 30, "cell": "a1"},
    {"type": "roll", "piece": 3, "cell": "a1"},
])
def test_bad_json_is_rejected_with_engine_error(bad):
    with pytest.raises(EngineError):
        if "board" in bad or "game" in bad:
            GAME.state_from_json(bad)
        else:
            GAME.action_from_json(bad)
