"""Hypothesis properties of the Tokyo Highway engine: the rules do not depend on where the table is
or which way it faces, and a match replays exactly from its actions."""

from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core import EngineError, step
from engine.tokyo import Build, NewSupport, Start, action_from_json, new_state, parse_action

Transform = tuple[float, float, float, bool]  # angle, shift x, shift y, mirror


def move(p: tuple[float, float], t: Transform) -> tuple[float, float]:
    ang, dx, dy, mirror = t
    x, y = (-p[0], p[1]) if mirror else p
    c, s = math.cos(ang), math.sin(ang)
    return x * c - y * s + dx, x * s + y * c + dy


def moved(a, t: Transform):
    if isinstance(a, Start):
        x, y = move((a.support.x, a.support.y), t)
        return Start(NewSupport(x, y, a.support.height, a.support.junction), move(a.table, t), a.player, a.model)
    if isinstance(a, Build):
        sup = None
        if a.support is not None:
            x, y = move((a.support.x, a.support.y), t)
            sup = NewSupport(x, y, a.support.height, a.support.junction)
        ramp = None if a.ramp is None else move(a.ramp, t)
        return Build(a.base, sup, ramp, a.onto, a.player, a.cars, a.models, a.observed, a.car_at)
    return a


def random_plan(choices: list[int], options: dict) -> list:
    """A plan drawn from the engine's sampled candidates, legal or not (as a shaky player builds)."""
    s = new_state(**options)
    plan = []
    for pick in choices:
        cands = list(s.candidate_actions(directions=8))
        if not cands:
            break
        a = cands[pick % len(cands)]
        try:
            s, _ = step(s, a)
        except EngineError:
            continue  # a sampled support on top of another: not a placement at all
        plan.append(a)
    return plan


def rulings(plan: list, options: dict) -> list:
    s = new_state(**options)
    out = []
    for a in plan:
        try:
            s, v = step(s, a)
            out.append((v.rule, v.legal, v.details.get("cars")))
        except EngineError:
            out.append(("error", False, None))
    return out


SETTINGS = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
choices = st.lists(st.integers(0, 10_000), min_size=4, max_size=14)


@SETTINGS
@given(choices, st.floats(0, 2 * math.pi), st.floats(-500, 500), st.floats(-500, 500), st.booleans())
def test_rotated_shifted_or_mirrored_plan_gets_the_same_verdicts(picks, ang, dx, dy, mirror) -> None:
    plan = random_plan(picks, {})
    moved_plan = [moved(a, (ang, dx, dy, mirror)) for a in plan]
    assert rulings(moved_plan, {}) == rulings(plan, {})


@SETTINGS
@given(choices, st.booleans())
def test_replay_from_json_and_notation_reproduces_the_state(picks, published) -> None:
    options = {"own_crossing_blocks_cars": not published}
    plan = random_plan(picks, options)
    s = new_state(**options)
    for a in plan:
        s = s.apply(a)
    again = new_state(**options)
    for a in plan:
        again = again.apply(action_from_json(a.to_json()))
    assert again.to_json() == s.to_json()
    by_notation = new_state(**options)
    for a in plan:
        by_notation = by_notation.apply(parse_action(a.notation()))
    assert by_notation.to_json() == s.to_json()
    assert type(s).from_json(s.to_json()).to_json() == s.to_json()


@SETTINGS
@given(choices)
def test_legal_actions_are_judged_legal_and_stock_is_conserved(picks) -> None:
    s = new_state()
    for a in random_plan(picks, {}):
        s = s.apply(a)
    legal = list(s.legal_actions())
    assert all(s.judge(a).legal for a in legal[:10])
    placed = len(s.supports) and sum(sup.height for sup in s.supports)
    used = sum((30 - st_.grey) + (3 - st_.junctions) for st_ in s.stock)
    assert used == placed  # every column on the table came from a player's stock
    assert sum(15 - st_.sticks for st_ in s.stock) == len(s.sticks)
    assert sum(10 - st_.cars for st_ in s.stock) == len(s.cars)


@SETTINGS
@given(choices)
def test_spatial_prefilter_never_changes_a_verdict(picks) -> None:
    from engine.tokyo import checks

    s = new_state()
    for a in random_plan(picks, {}):
        s = s.apply(a)
    cands = list(s.candidate_actions(directions=6))

    def judged():
        out = []
        for a in cands:
            try:
                out.append(s.judge(a).to_json())
            except EngineError as exc:
                out.append(str(exc))
        return out

    fast = judged()
    checks.PREFILTER = False
    try:
        naive = judged()
    finally:
        checks.PREFILTER = True
    assert fast == naive
