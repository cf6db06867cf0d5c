"""Judging one build (a start road, a road, a ramp): what it would put on the table, every rule it
breaks with how to fix it, the crossings and cars it earns, and the verdict that says so."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from engine.core import Consequence, EngineError, Verdict
from engine.tokyo.actions import Build, NewSupport, Start
from engine.tokyo.checks import Crossing, Problem, car_bar, pt, stick_bar
from engine.tokyo.geometry import Bar
from engine.tokyo.model import Car, Point3, Stick, Support
from engine.tokyo.table import TokyoTable


@dataclass(frozen=True)
class Plan:
    """Everything a build would do: judge turns it into a verdict, apply into the next state."""

    seat: int
    problems: list[Problem]
    new_support: Support | None = None
    stick: Stick | None = None
    crossings: list[Crossing] = field(default_factory=list)
    earned: list[dict[str, Any]] = field(default_factory=list)  # why each car is earned
    blocked: str = ""  # why crossing cars were withheld
    cars: int = 0
    disagreements: list[dict[str, Any]] = field(default_factory=list)
    grey: int = 0
    junctions: int = 0


def plan_start(state: TokyoTable, a: Start) -> Plan:
    seat = state.rules.seat_of(a.player, state.current_player() if state.in_setup else state.to_move)
    g = state.rules.geometry
    if p := state.game_over_problem():
        return Plan(seat, [p])
    if state.started(seat):
        return Plan(
            seat,
            [Problem("tokyo.start", f"{state.color(seat)} already has a start road: take this one back")],
        )
    problems: list[Problem] = []
    sup = a.support
    _check_overlap(state, sup)
    if sup.height != 1 or sup.junction:
        problems.append(
            Problem(
                "tokyo.start",
                "a start road rests on a single grey column: "
                f"make the support 1 column high, not {sup.height}"
                + (" with a junction" if sup.junction else ""),
            )
        )
    new = Support(len(state.supports) + 1, sup.x, sup.y, sup.height, sup.junction, seat)
    a3 = (a.table[0], a.table[1], g.table_z)
    b3 = (sup.x, sup.y, g.top_z(sup.height))
    problems += _reach(state, a3, b3, "the start support", "the table point")
    stick = Stick(len(state.sticks) + 1, seat, "start", None, new.id, a3, b3)
    problems += _geometry(state, stick, new, seat)
    return Plan(
        seat,
        problems,
        new,
        stick,
        cars=1,
        earned=[{"rule": "tokyo.start", "cars": 1}],
        grey=sup.height,
        junctions=0,
    )


def _check_overlap(state: TokyoTable, sup: NewSupport) -> None:
    other = state.index.overlapping_support(sup.x, sup.y)
    if other is not None:
        raise EngineError(
            f"the new support at {pt(sup.x, sup.y)} overlaps support s{other.id} at "
            f"{pt(other.x, other.y)}: two supports cannot stand in the same place"
        )


def _reach(state: TokyoTable, a: Point3, b: Point3, what: str, frm: str) -> list[Problem]:
    g = state.rules.geometry
    span = math.dist(a, b)
    if span > g.stick_length_mm + g.clearance_mm:
        return [
            Problem(
                "tokyo.reach",
                f"{what} is {span:.0f} mm from {frm} but a road stick is "
                f"{g.stick_length_mm:.0f} mm long: move it "
                f"{span - g.stick_length_mm:.0f} mm closer",
                {"span_mm": round(span, 1), "stick_mm": g.stick_length_mm},
            )
        ]
    return []


def _geometry(
    state: TokyoTable, stick: Stick, new: Support | None, seat: int, bar: Bar | None = None
) -> list[Problem]:
    bar = bar if bar is not None else stick_bar(stick, state.rules.geometry)
    out = state.index.bar_problems(bar, state.rules.colors, "the new road")
    if new is not None:
        out += state.index.support_problems(new.x, new.y, seat, state.rules.colors)
    return out


def plan_build(state: TokyoTable, a: Build) -> Plan:
    g = state.rules.geometry
    seat = state.rules.seat_of(a.player, state.to_move)
    if p := state.game_over_problem():
        return Plan(seat, [p])
    if p := state.turn_problem(seat):
        return Plan(seat, [p])
    base = state.support(a.base)
    if base.owner != seat:
        raise EngineError(
            f"support s{base.id} is {state.color(base.owner)}'s: {state.color(seat)} can only "
            "build from their own supports"
        )
    me = state.color(seat)
    if state.roads_from.get(base.id, 0) >= base.capacity:
        bases = ", ".join(f"s{s.id}" for s in state.open_bases(seat)) or "none left"
        kind = "junction already split its two roads" if base.junction else "support already carries its road"
        return Plan(
            seat,
            [
                Problem(
                    "tokyo.base",
                    f"s{base.id} is used up (a {kind}): build from an open end of your highway ({bases})",
                    {"open_bases": bases},
                )
            ],
        )
    if a.onto is not None:
        other = state.support(a.onto)
        if other.owner == seat:
            return Plan(
                seat,
                [
                    Problem(
                        "tokyo.no-loop",
                        f"a road from s{base.id} to your own s{other.id} would "
                        "close a loop of your roads: end it on a new support",
                    )
                ],
            )
        return Plan(
            seat,
            [
                Problem(
                    "tokyo.new-support",
                    f"a road ends on the support you build this turn, not "
                    f"on {state.color(other.owner)}'s s{other.id}",
                )
            ],
        )
    problems: list[Problem] = []
    new: Support | None = None
    grey = junctions = 0
    a3 = (base.x, base.y, g.top_z(base.height))
    if a.ramp is not None:
        if base.height != 1:
            problems.append(
                Problem(
                    "tokyo.ramp",
                    f"a ramp leaves from a support 1 column high; s{base.id} is "
                    f"{base.height} high: build a road instead",
                )
            )
        b3 = (a.ramp[0], a.ramp[1], g.table_z)
        stick = Stick(len(state.sticks) + 1, seat, "ramp", base.id, None, a3, b3)
        problems += _reach(state, a3, b3, "the ramp's table end", f"s{base.id}")
    else:
        sup = a.support
        assert sup is not None
        _check_overlap(state, sup)
        grey, junctions = sup.height - (1 if sup.junction else 0), int(sup.junction)
        if sup.junction and sup.height < 2:
            problems.append(
                Problem(
                    "tokyo.junction",
                    "a junction column sits on top of at least one grey "
                    "column, never alone on the table: put a grey column "
                    "under it",
                )
            )
        elif not sup.junction and abs(sup.height - base.height) != 1:
            ok = " or ".join(str(h) for h in (base.height - 1, base.height + 1) if h >= 1)
            problems.append(
                Problem(
                    "tokyo.height",
                    f"s{base.id} is {base.height} high, so a grey support must "
                    f"be {ok} high, not {sup.height}: change its height or "
                    "put a junction on top",
                )
            )
        new = Support(len(state.supports) + 1, sup.x, sup.y, sup.height, sup.junction, seat)
        b3 = (sup.x, sup.y, g.top_z(sup.height))
        stick = Stick(len(state.sticks) + 1, seat, "road", base.id, new.id, a3, b3)
        problems += _reach(state, a3, b3, "the new support", f"s{base.id}")
    st = state.stock[seat]
    lack = [
        f"{need} {what} (you have {have})"
        for need, have, what in (
            (1, st.sticks, "road stick"),
            (grey, st.grey, "grey columns"),
            (junctions, st.junctions, "junction column"),
        )
        if need > have
    ]
    if lack:
        problems.insert(
            0, Problem("tokyo.material", f"{me} lacks material for this build: needs {', '.join(lack)}")
        )
    bar = stick_bar(stick, g)
    problems += _geometry(state, stick, new, seat, bar)
    return _cars(state, a, seat, problems, new, stick, bar, grey, junctions)


def _cars(
    state: TokyoTable,
    a: Build,
    seat: int,
    problems: list[Problem],
    new: Support | None,
    stick: Stick,
    bar: Bar,
    grey: int,
    junctions: int,
) -> Plan:
    g = state.rules.geometry
    crossings = state.index.crossings(bar)
    by_id = state.stick_by_id
    earned: list[dict[str, Any]] = []
    own = [c for c in crossings if c.owner == seat]
    for c in crossings:
        if c.owner == seat:
            continue
        old = by_id[c.road]
        if c.over and not old.crossed_over:
            earned.append({"rule": "tokyo.cars.over", "road": c.road, "owner": c.owner})
        elif not c.over and not old.crossed_under:
            earned.append({"rule": "tokyo.cars.under", "road": c.road, "owner": c.owner})
    if stick.kind == "ramp":
        earned.append({"rule": "tokyo.cars.ramp"})
    blocked = ""
    if own and earned and state.rules.own_crossing_blocks_cars:
        blocked = (
            f"the new road also crosses your own road {own[0].road}, so it earns no car "
            "(rule tokyo.cars.own-crossing)"
        )
        earned = []
    n = min(len(earned), state.stock[seat].cars)
    disagreements = _disagreements(state, a, crossings, by_id)
    if a.cars is not None and a.cars != n:
        why = "; ".join(_earned_text(e, state.rules.colors) for e in earned) or blocked or "no first crossing"
        if n == 0:
            fix = f"earns no car ({why}): take the {a.cars} car(s) back"
        else:
            fix = f"earns {n} car(s) ({why}): place {n}, not {a.cars}"
        problems.append(Problem("tokyo.cars", f"the new road {fix}", {"earned": n, "placed": a.cars}))
    for i, at in enumerate(a.car_at):
        length = math.dist(stick.a, stick.b)
        if at > length:
            raise EngineError(f"car {i + 1} stands {at:.0f} mm along a road {length:.0f} mm long")
        cb = car_bar(Car(seat, stick.id, "car", at), bar, g)
        if cb is not None:
            problems += state.index.bar_problems(
                cb, state.rules.colors, f"car {i + 1} on the new road", host=stick.id
            )
    return Plan(seat, problems, new, stick, crossings, earned[:n], blocked, n, disagreements, grey, junctions)


def _disagreements(
    state: TokyoTable, a: Build, crossings: list[Crossing], by_id: dict[int, Stick]
) -> list[dict[str, Any]]:
    out = []
    at = {c.road: c for c in crossings}
    for o in a.observed:
        if o.road not in by_id:
            raise EngineError(f"the camera reading names road r{o.road}, which is not on the table")
        c = at.get(o.road)
        seen = "over" if o.over else "under"
        if c is None:
            out.append(
                {
                    "road": o.road,
                    "seen": seen,
                    "computed": None,
                    "reason": f"the camera saw the new road cross road {o.road}, but in plan view "
                    "they do not cross: the positions or the reading are wrong",
                }
            )
        elif c.over != o.over:
            comp = "over" if c.over else "under"
            out.append(
                {
                    "road": o.road,
                    "seen": seen,
                    "computed": comp,
                    "at": [round(c.x, 1), round(c.y, 1)],
                    "reason": f"at {pt(c.x, c.y)} the heights put the new road {comp} road {o.road} "
                    f"({c.z_new:.0f} mm against {c.z_old:.0f} mm) but the camera saw it {seen}: "
                    "the heights or the reading are wrong",
                }
            )
    return out


def verdict_build(state: TokyoTable, a: Start | Build, plan: Plan) -> Verdict:
    details: dict[str, Any] = {"player": plan.seat}
    if plan.disagreements:
        details["disagreements"] = plan.disagreements
    if plan.crossings:
        details["crossings"] = [c.to_json() for c in plan.crossings]
    if plan.problems:
        first = plan.problems[0]
        more = len(plan.problems) - 1
        reason = first.reason + (f" (and {more} more problem{'s' if more > 1 else ''})" if more else "")
        details.update(first.details)
        details["problems"] = [{"rule": p.rule, "reason": p.reason} for p in plan.problems]
        return Verdict.illegal(first.rule, reason, Consequence.MUST_CORRECT, **details)
    assert plan.stick is not None
    me = state.color(plan.seat)
    details.update(
        road=plan.stick.id,
        support=plan.new_support.id if plan.new_support else None,
        cars=plan.cars,
        earned=plan.earned,
    )
    if isinstance(a, Start):
        return Verdict.ok(
            "tokyo.start",
            f"{me} lays start road {plan.stick.id} onto s{plan.new_support.id} and places its first car",
            **details,
        )
    if plan.stick.kind == "ramp":
        what = f"{me} lays ramp {plan.stick.id} from s{a.base} down to the table"
    else:
        assert plan.new_support is not None
        sup = plan.new_support
        what = (
            f"{me} lays road {plan.stick.id} from s{a.base} to new support s{sup.id} "
            f"({sup.height} high{', junction' if sup.junction else ''})"
        )
    cars = "; ".join(_earned_text(e, state.rules.colors) for e in plan.earned)
    text = f"{what}: {plan.cars} car{'s' if plan.cars != 1 else ''}" + (f" ({cars})" if cars else "")
    if plan.blocked:
        text += f"; {plan.blocked}"
        details["blocked"] = plan.blocked
    if plan.disagreements:
        text += f"; camera disagreement: {plan.disagreements[0]['reason']}"
    if isinstance(a, Build) and state.rules.same_model_bonus:
        donor = state.same_model_donor(plan.seat, (a.models or ("car",) * plan.cars)[: plan.cars])
        if donor is not None:
            text += (
                f"; {me} takes a grey column from {state.color(donor)} "
                "(same car model, rule tokyo.same-model)"
            )
            details["same_model_from"] = donor
    if state.stock[plan.seat].cars - plan.cars == 0:
        text += f"; {me} has placed every car and wins (rule tokyo.win)"
    return Verdict.ok("tokyo.build", text, **details)


def _earned_text(e: dict[str, Any], colors: tuple[str, ...]) -> str:
    if e["rule"] == "tokyo.cars.over":
        return f"first over {colors[e['owner']]} road {e['road']}"
    if e["rule"] == "tokyo.cars.under":
        return f"first under {colors[e['owner']]} road {e['road']}"
    if e["rule"] == "tokyo.cars.ramp":
        return "ramp"
    return "start car"
