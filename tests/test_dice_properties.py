"""Property tests: random legal and illegal action sequences never crash, serialise and replay to
the same state and verdicts, and keep the table's invariants."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core import Consequence, EngineError, step
from engine.dice_road import DiceState, Play, Reclaim, Roll, action_from_json, new_state, parse_action

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _random_action(state: DiceState, rng: random.Random, cells: list[str]):
    """Mostly legal actions, often illegal-but-well-formed ones (wrong cells, values, sequence)."""
    if state.roll is None:
        r = rng.random()
        if r < 0.08:
            return Reclaim(rng.choice(cells))
        if r < 0.12:
            return Play(1, rng.choice(cells))  # before the roll: must be corrected
        return Roll(rng.randint(1, 6), rng.randint(1, 6))
    if rng.random() < 0.6:
        return rng.choice(list(state.legal_actions()))
    pool = state.pools[state.turn]
    sources = [(v, False) for v in state.roll] + ([(pool, True)] if pool else [])
    die, from_pool = rng.choice(sources)
    rest = list(state.roll)
    if not from_pool:
        rest.remove(die)
    store = rng.choice([None, *rest])
    r = rng.random()
    if r < 0.1:
        return Play(store=store)
    if r < 0.15:
        return Roll(1, 1)  # a second roll: must be corrected
    if r < 0.2:
        return Reclaim(rng.choice(cells))  # after the roll: costs the turn
    return Play(die, rng.choice(cells), store, from_pool)


def _check_invariants(before: DiceState, after: DiceState, action, verdict) -> None:
    cells = after.board.cells
    seen = set()
    for trail in after.trails:
        for s in trail:
            assert s.cell in cells and 1 <= s.value <= 6
            if s.kind != "hole":
                assert s.cell not in seen
                seen.add(s.cell)
    for stones in after.bridges:
        assert len(stones) <= 3
        for s in stones:
            assert s.cell in cells and s.cell not in seen
            seen.add(s.cell)
    assert len(after.pools) == after.players
    assert all(p is None or 1 <= p <= 6 for p in after.pools)  # one die at most per seat
    assert set(after.table_view()["stones"]) == seen
    if verdict.consequence is Consequence.MUST_CORRECT:
        assert after is before
    elif isinstance(action, Roll):
        assert after.turn == before.turn and after.roll == action.dice
    elif after.winner is None:
        assert after.turn == before.next_seat() and after.roll is None  # the turn passed on, in order
    if verdict.legal and isinstance(action, Play) and action.die is not None:
        assert len(seen) == len(set(before.occupancy())) + 1


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), players=st.sampled_from([2, 3, 4]), length=st.integers(1, 400))
def test_random_sequences_never_crash_keep_invariants_and_replay(seed: int, players: int, length: int) -> None:
    rng = random.Random(seed)
    state = new_state(players)
    cells = sorted(state.board.cells)
    log = []
    for _ in range(length):
        if state.is_terminal():
            break
        action = _random_action(state, rng, cells)
        new, verdict = step(state, action)
        _check_invariants(state, new, action, verdict)
        log.append((action.to_json(), verdict))
        state = new
    # the match log replays to the same state and the same rulings, through JSON and notation
    replay = new_state(players)
    for data, verdict in log:
        action = action_from_json(json.loads(json.dumps(data)))
        assert parse_action(action.notation()) == action
        replay, again = step(replay, action)
        assert again.same_ruling(verdict)
    assert replay == state
    assert DiceState.from_json(json.loads(json.dumps(state.to_json()))) == state


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), players=st.sampled_from([2, 3, 4]))
def test_judge_agrees_with_legal_uses_on_every_cell(seed: int, players: int) -> None:
    rng = random.Random(seed)
    state = new_state(players)
    cells = sorted(state.board.cells)
    for _ in range(rng.randint(20, 300)):
        if state.is_terminal():
            return
        state = step(state, _random_action(state, rng, cells))[0]
    if state.roll is None:
        state = state.apply(Roll(rng.randint(1, 6), rng.randint(1, 6)))
    uses = {(u.die, u.source, u.cell) for u in state.legal_uses()}
    pool = state.pools[state.turn]
    for die, source in {(v, "roll") for v in state.roll} | ({(pool, "pool")} if pool else set()):
        for cell in cells:
            verdict = state.judge(Play(die, cell, None, source == "pool"))
            assert verdict.legal == ((die, source, cell) in uses), (cell, die, source, verdict)
            if not verdict.legal:
                assert verdict.consequence is Consequence.TURN_LOST


@SETTINGS
@given(text=st.text(max_size=20))
def test_notation_parser_never_crashes(text: str) -> None:
    try:
        action = parse_action(text)
    except EngineError:
        return
    assert parse_action(action.notation()) == action
