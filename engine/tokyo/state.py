"""Tokyo Highway rules: the table state, verdicts and their consequences.

Rules-as-implemented, with the rule ids verdicts cite, are in docs/rules/tokyo-highway.md.
An illegal build must be corrected before the turn ends (Consequence.MUST_CORRECT): the verdict
says what is wrong and how to fix it, and the state does not change until a legal build is seen.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from engine.core import TERMINAL, Action, Consequence, EngineError, GameState, Outcome, Verdict
from engine.tokyo.actions import Build, Knock, NewSupport, Skip, Start, action_from_json
from engine.tokyo.checks import Crossing, Problem, TableIndex, car_bar, pt, stick_bar
from engine.tokyo.config import TokyoRules
from engine.tokyo.geometry import Bar, segment_intersection
from engine.tokyo.model import Car, Point3, Stick, Stock, Support


@dataclass(frozen=True)
class Pending:
    """A player who skipped for lack of material: they lose when `decider` ends a turn without
    having given them a column (a knock-over penalty)."""

    seat: int
    decider: int
    rescued: bool = False


@dataclass(frozen=True)
class _Plan:
    """Everything a build would do, computed once for judge and apply."""

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


@dataclass(frozen=True)
class TokyoState(GameState):
    game_name = "tokyo-highway"

    rules: TokyoRules = TokyoRules()
    supports: tuple[Support, ...] = ()
    sticks: tuple[Stick, ...] = ()
    cars: tuple[Car, ...] = ()
    stock: tuple[Stock, ...] = ()
    to_move: int = 0
    turns: int = 0  # turns played after the start roads (builds and skips)
    pending: tuple[Pending, ...] = ()
    out: tuple[int, ...] = ()  # seats that lost for lack of material
    winner: int | None = None
    end_reason: str = ""

    @classmethod
    def new(cls, rules: TokyoRules) -> TokyoState:
        stock = tuple(
            Stock(rules.grey, rules.junctions, rules.sticks, rules.cars) for _ in range(rules.players)
        )
        return cls(rules, stock=stock, to_move=rules.first_player)

    # -- lookups ------------------------------------------------------------------------
    @cached_property
    def index(self) -> TableIndex:
        return TableIndex(self.supports, self.sticks, self.cars, self.rules.geometry, self.rules.blocks)

    @cached_property
    def _support_by_id(self) -> dict[int, Support]:
        return {s.id: s for s in self.supports}

    @cached_property
    def _stick_by_id(self) -> dict[int, Stick]:
        return {s.id: s for s in self.sticks}

    @cached_property
    def _roads_from(self) -> dict[int, int]:
        out: dict[int, int] = {}
        for st in self.sticks:
            if st.base is not None:
                out[st.base] = out.get(st.base, 0) + 1
        return out

    def support(self, sid: int) -> Support:
        try:
            return self._support_by_id[sid]
        except KeyError:
            raise EngineError(
                f"there is no support s{sid} on the table (supports: "
                f"{', '.join(f's{s.id}' for s in self.supports) or 'none'})"
            ) from None

    def color(self, seat: int) -> str:
        return self.rules.colors[seat]

    def started(self, seat: int) -> bool:
        return any(st.kind == "start" and st.owner == seat for st in self.sticks)

    @cached_property
    def in_setup(self) -> bool:
        return not all(self.started(s) for s in range(self.rules.players))

    def open_bases(self, seat: int) -> list[Support]:
        """Supports a road may leave from: the player's own, with a road left to give."""
        return [s for s in self.supports if s.owner == seat and self._roads_from.get(s.id, 0) < s.capacity]

    def _next_seat(self, seat: int, out: tuple[int, ...]) -> int:
        n = self.rules.players
        for k in range(1, n + 1):
            nxt = (seat + k) % n
            if nxt not in out:
                return nxt
        return seat

    # -- turn ---------------------------------------------------------------------------
    def current_player(self) -> int:
        if self.winner is not None:
            return TERMINAL
        if self.in_setup:
            n = self.rules.players
            return next(
                s for s in ((self.rules.first_player + k) % n for k in range(n)) if not self.started(s)
            )
        return self.to_move

    # -- judging ------------------------------------------------------------------------
    def judge(self, action: Action) -> Verdict:
        if isinstance(action, Build):
            return self._verdict_build(action, self._plan_build(action))
        if isinstance(action, Start):
            return self._verdict_build(action, self._plan_start(action))
        if isinstance(action, Skip):
            return self._judge_skip(action)
        if isinstance(action, Knock):
            return self._judge_knock(action)
        raise EngineError(f"tokyo-highway cannot judge {action!r}")

    def _game_over(self) -> Problem | None:
        if self.winner is not None:
            return Problem("tokyo.game-over", f"the game is over ({self.end_reason}): take the piece back")
        return None

    def _turn_problem(self, seat: int) -> Problem | None:
        if self.in_setup:
            missing = [self.color(s) for s in range(self.rules.players) if not self.started(s)]
            return Problem(
                "tokyo.setup",
                f"lay the start roads first ({', '.join(missing)} still to place): "
                "one grey column and a stick from the table",
            )
        if seat != self.to_move:
            return Problem(
                "tokyo.turn",
                f"it is {self.color(self.to_move)}'s turn, not {self.color(seat)}'s: take the pieces back",
            )
        return None

    def _plan_start(self, a: Start) -> _Plan:
        seat = self.rules.seat_of(a.player, self.current_player() if self.in_setup else self.to_move)
        g = self.rules.geometry
        if p := self._game_over():
            return _Plan(seat, [p])
        if self.started(seat):
            return _Plan(
                seat,
                [Problem("tokyo.start", f"{self.color(seat)} already has a start road: take this one back")],
            )
        problems: list[Problem] = []
        sup = a.support
        self._check_overlap(sup)
        if sup.height != 1 or sup.junction:
            problems.append(
                Problem(
                    "tokyo.start",
                    "a start road rests on a single grey column: "
                    f"make the support 1 column high, not {sup.height}"
                    + (" with a junction" if sup.junction else ""),
                )
            )
        new = Support(len(self.supports) + 1, sup.x, sup.y, sup.height, sup.junction, seat)
        a3 = (a.table[0], a.table[1], g.table_z)
        b3 = (sup.x, sup.y, g.top_z(sup.height))
        problems += self._reach(a3, b3, "the start support", "the table point")
        stick = Stick(len(self.sticks) + 1, seat, "start", None, new.id, a3, b3)
        problems += self._geometry(stick, new, seat)
        return _Plan(
            seat,
            problems,
            new,
            stick,
            cars=1,
            earned=[{"rule": "tokyo.start", "cars": 1}],
            grey=sup.height,
            junctions=0,
        )

    def _check_overlap(self, sup: NewSupport) -> None:
        other = self.index.overlapping_support(sup.x, sup.y)
        if other is not None:
            raise EngineError(
                f"the new support at {pt(sup.x, sup.y)} overlaps support s{other.id} at "
                f"{pt(other.x, other.y)}: two supports cannot stand in the same place"
            )

    def _reach(self, a: Point3, b: Point3, what: str, frm: str) -> list[Problem]:
        g = self.rules.geometry
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
        self, stick: Stick, new: Support | None, seat: int, bar: Bar | None = None
    ) -> list[Problem]:
        bar = bar if bar is not None else stick_bar(stick, self.rules.geometry)
        out = self.index.bar_problems(bar, self.rules.colors, "the new road")
        if new is not None:
            out += self.index.support_problems(new.x, new.y, seat, self.rules.colors)
        return out

    def _plan_build(self, a: Build) -> _Plan:
        g = self.rules.geometry
        seat = self.rules.seat_of(a.player, self.to_move)
        if p := self._game_over():
            return _Plan(seat, [p])
        if p := self._turn_problem(seat):
            return _Plan(seat, [p])
        base = self.support(a.base)
        if base.owner != seat:
            raise EngineError(
                f"support s{base.id} is {self.color(base.owner)}'s: {self.color(seat)} can only "
                "build from their own supports"
            )
        me = self.color(seat)
        if self._roads_from.get(base.id, 0) >= base.capacity:
            bases = ", ".join(f"s{s.id}" for s in self.open_bases(seat)) or "none left"
            kind = (
                "junction already split its two roads"
                if base.junction
                else "support already carries its road"
            )
            return _Plan(
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
            other = self.support(a.onto)
            if other.owner == seat:
                return _Plan(
                    seat,
                    [
                        Problem(
                            "tokyo.no-loop",
                            f"a road from s{base.id} to your own s{other.id} would "
                            "close a loop of your roads: end it on a new support",
                        )
                    ],
                )
            return _Plan(
                seat,
                [
                    Problem(
                        "tokyo.new-support",
                        f"a road ends on the support you build this turn, not "
                        f"on {self.color(other.owner)}'s s{other.id}",
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
            stick = Stick(len(self.sticks) + 1, seat, "ramp", base.id, None, a3, b3)
            problems += self._reach(a3, b3, "the ramp's table end", f"s{base.id}")
        else:
            sup = a.support
            assert sup is not None
            self._check_overlap(sup)
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
            new = Support(len(self.supports) + 1, sup.x, sup.y, sup.height, sup.junction, seat)
            b3 = (sup.x, sup.y, g.top_z(sup.height))
            stick = Stick(len(self.sticks) + 1, seat, "road", base.id, new.id, a3, b3)
            problems += self._reach(a3, b3, "the new support", f"s{base.id}")
        st = self.stock[seat]
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
        problems += self._geometry(stick, new, seat, bar)
        return self._cars(a, seat, problems, new, stick, bar, grey, junctions)

    def _cars(
        self,
        a: Build,
        seat: int,
        problems: list[Problem],
        new: Support | None,
        stick: Stick,
        bar: Bar,
        grey: int,
        junctions: int,
    ) -> _Plan:
        g = self.rules.geometry
        crossings = self.index.crossings(bar)
        by_id = self._stick_by_id
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
        if own and earned and self.rules.own_crossing_blocks_cars:
            blocked = (
                f"the new road also crosses your own road {own[0].road}, so it earns no car "
                "(rule tokyo.cars.own-crossing)"
            )
            earned = []
        n = min(len(earned), self.stock[seat].cars)
        disagreements = self._disagreements(a, crossings, by_id)
        if a.cars is not None and a.cars != n:
            why = (
                "; ".join(_earned_text(e, self.rules.colors) for e in earned)
                or blocked
                or "no first crossing"
            )
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
                problems += self.index.bar_problems(
                    cb, self.rules.colors, f"car {i + 1} on the new road", host=stick.id
                )
        return _Plan(
            seat, problems, new, stick, crossings, earned[:n], blocked, n, disagreements, grey, junctions
        )

    def _disagreements(
        self, a: Build, crossings: list[Crossing], by_id: dict[int, Stick]
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

    def _verdict_build(self, a: Start | Build, plan: _Plan) -> Verdict:
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
        me = self.color(plan.seat)
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
        cars = "; ".join(_earned_text(e, self.rules.colors) for e in plan.earned)
        text = f"{what}: {plan.cars} car{'s' if plan.cars != 1 else ''}" + (f" ({cars})" if cars else "")
        if plan.blocked:
            text += f"; {plan.blocked}"
            details["blocked"] = plan.blocked
        if plan.disagreements:
            text += f"; camera disagreement: {plan.disagreements[0]['reason']}"
        if isinstance(a, Build) and self.rules.same_model_bonus:
            donor = self._same_model_donor(plan.seat, (a.models or ("car",) * plan.cars)[: plan.cars])
            if donor is not None:
                text += (
                    f"; {me} takes a grey column from {self.color(donor)} "
                    "(same car model, rule tokyo.same-model)"
                )
                details["same_model_from"] = donor
        if self.stock[plan.seat].cars - plan.cars == 0:
            text += f"; {me} has placed every car and wins (rule tokyo.win)"
        return Verdict.ok("tokyo.build", text, **details)

    def has_material(self, seat: int) -> tuple[bool, str]:
        """Whether the player can still pay for some build (the material rule; geometry aside)."""
        st = self.stock[seat]
        if st.sticks < 1:
            return False, "no road stick left"
        bases = self.open_bases(seat)
        if not bases:
            return False, "no open end to build from"
        for b in bases:
            if b.height == 1:
                return True, f"a ramp from s{b.id} needs no column"
            if st.grey >= b.height - 1:
                return True, f"a {b.height - 1}-high support from s{b.id} needs {b.height - 1} grey columns"
            if st.junctions >= 1 and st.grey >= 1:
                return True, f"a junction support from s{b.id} needs 1 grey column and a junction"
        return False, f"{st.grey} grey columns are not enough to build from " + ", ".join(
            f"s{b.id}" for b in bases
        )

    def _judge_skip(self, a: Skip) -> Verdict:
        seat = self.rules.seat_of(a.player, self.to_move)
        p = self._game_over() or self._turn_problem(seat)
        if p:
            return Verdict.illegal(p.rule, p.reason, Consequence.MUST_CORRECT, player=seat)
        can, why = self.has_material(seat)
        me = self.color(seat)
        if can:
            return Verdict.illegal(
                "tokyo.skip",
                f"{me} still has material to build ({why}): build instead of skipping",
                Consequence.MUST_CORRECT,
                player=seat,
            )
        nxt = self.color(self._next_seat(seat, self.out))
        return Verdict.ok(
            "tokyo.skip",
            f"{me} cannot build ({why}) and skips; {me} loses unless {nxt}'s next "
            f"turn ends with a penalty column given to {me} (rule tokyo.shortage)",
            player=seat,
        )

    def _judge_knock(self, a: Knock) -> Verdict:
        if p := self._game_over():
            return Verdict.illegal(p.rule, p.reason, Consequence.MUST_CORRECT)
        by = self.rules.seat_of(a.player, self.to_move)
        owed: dict[int, int] = {}
        for who, pieces in a.victims:
            v = self.rules.seat_of(who, self.to_move)
            if v != by:
                owed[v] = owed.get(v, 0) + (pieces if self.rules.knock_per_piece else 1)
        me = self.color(by)
        if not owed:
            return Verdict.ok(
                "tokyo.knock.own",
                f"{me} knocked over only their own pieces: no penalty; put them back",
                player=by,
            )
        st = self.stock[by]
        grey, junc = st.grey, st.junctions
        transfers = []
        for v, n in sorted(owed.items()):
            first, second = ("grey", "junction") if a.give == "grey" else ("junction", "grey")
            paid = {"grey": 0, "junction": 0}
            for _ in range(n):
                for kind in (first, second):
                    if (grey if kind == "grey" else junc) > 0:
                        paid[kind] += 1
                        if kind == "grey":
                            grey -= 1
                        else:
                            junc -= 1
                        break
            transfers.append({"to": v, "owed": n, "grey": paid["grey"], "junction": paid["junction"]})
        text = "; ".join(
            f"{me} gives {self.color(t['to'])} {t['grey'] + t['junction']} column(s)"
            + ("" if t["grey"] + t["junction"] == t["owed"] else f" of {t['owed']} owed (none left)")
            for t in transfers
        )
        return Verdict.illegal(
            "tokyo.knock",
            f"{me} knocked over other players' pieces: {text}; everyone puts the pieces back",
            Consequence.PENALTY,
            player=by,
            transfers=transfers,
        )

    # -- applying -----------------------------------------------------------------------
    def _apply_legal(self, action: Action, verdict: Verdict) -> TokyoState:
        if isinstance(action, Start):
            return self._apply_build(action, self._plan_start(action), start=True)
        if isinstance(action, Build):
            return self._apply_build(action, self._plan_build(action), start=False)
        if isinstance(action, Skip):
            seat = self.rules.seat_of(action.player, self.to_move)
            after = self._end_turn(seat)
            if after.winner is not None:
                return after
            return replace(after, pending=(*after.pending, Pending(seat, after.to_move)))
        if isinstance(action, Knock):
            return self  # own pieces only: they are put back
        raise EngineError(f"tokyo-highway cannot apply {action!r}")

    def _apply_illegal(self, action: Action, verdict: Verdict) -> TokyoState:
        if verdict.consequence is Consequence.PENALTY and isinstance(action, Knock):
            by = verdict.details["player"]
            stock = list(self.stock)
            pending = list(self.pending)
            for t in verdict.details["transfers"]:
                stock[by] = stock[by].take(grey=t["grey"], junctions=t["junction"])
                stock[t["to"]] = stock[t["to"]].take(grey=-t["grey"], junctions=-t["junction"])
                if t["grey"] + t["junction"]:
                    pending = [replace(p, rescued=True) if p.seat == t["to"] else p for p in pending]
            return replace(self, stock=tuple(stock), pending=tuple(pending))
        return super()._apply_illegal(action, verdict)

    def _apply_build(self, a: Start | Build, plan: _Plan, start: bool) -> TokyoState:
        assert plan.stick is not None and not plan.problems
        seat = plan.seat
        stock = list(self.stock)
        stock[seat] = stock[seat].take(grey=plan.grey, junctions=plan.junctions, sticks=1, cars=plan.cars)
        crossed = {c.road: c.over for c in plan.crossings}
        sticks = tuple(
            replace(
                s,
                crossed_over=s.crossed_over or crossed[s.id],
                crossed_under=s.crossed_under or not crossed[s.id],
            )
            if s.id in crossed
            else s
            for s in self.sticks
        )
        stick = replace(plan.stick, cars_earned=plan.cars)
        if isinstance(a, Start):
            models: tuple[str, ...] = (a.model,)
            ats: tuple[float | None, ...] = (None,)
        else:
            models = a.models or ("car",) * plan.cars
            ats = a.car_at or (None,) * plan.cars
        new_cars = tuple(
            Car(seat, stick.id, m, at) for m, at in zip(models[: plan.cars], ats[: plan.cars], strict=True)
        )
        if self.rules.same_model_bonus and not start:
            stock = self._same_model_bonus(seat, new_cars, stock)
        supports = self.supports + ((plan.new_support,) if plan.new_support else ())
        state = replace(
            self, supports=supports, sticks=(*sticks, stick), cars=self.cars + new_cars, stock=tuple(stock)
        )
        if start:
            return state
        if stock[seat].cars == 0:
            return replace(
                state,
                winner=seat,
                turns=self.turns + 1,
                end_reason=f"{self.color(seat)} placed every car (rule tokyo.win)",
            )
        return state._end_turn(seat)

    def _same_model_donor(self, seat: int, models: tuple[str, ...]) -> int | None:
        """The opponent who gives a grey column for a car model already on their roads (advanced
        rule): the first in table order who still has one; at most one column a turn."""
        for model in models:
            for other in self.cars:
                if other.owner != seat and other.model == model and self.stock[other.owner].grey > 0:
                    return other.owner
        return None

    def _same_model_bonus(self, seat: int, new_cars: tuple[Car, ...], stock: list[Stock]) -> list[Stock]:
        donor = self._same_model_donor(seat, tuple(c.model for c in new_cars))
        if donor is not None:
            stock[donor] = stock[donor].take(grey=1)
            stock[seat] = stock[seat].take(grey=-1)
        return stock

    def _end_turn(self, seat: int) -> TokyoState:
        """The player `seat` has finished a turn: settle shortages it decides, pass the turn."""
        out = list(self.out)
        keep = []
        for p in self.pending:
            if p.decider != seat:
                keep.append(p)
            elif not p.rescued and p.seat not in out:
                out.append(p.seat)
        alive = [s for s in range(self.rules.players) if s not in out]
        state = replace(self, pending=tuple(keep), out=tuple(out), turns=self.turns + 1)
        if len(alive) == 1:
            lost = ", ".join(self.color(s) for s in out)
            return replace(
                state,
                winner=alive[0],
                to_move=alive[0],
                end_reason=f"{lost} ran out of material (rule tokyo.shortage): {self.color(alive[0])} wins",
            )
        return replace(state, to_move=self._next_seat(seat, tuple(out)))

    def outcome(self) -> Outcome | None:
        if self.winner is None:
            return None
        placed = tuple(float(self.rules.cars - st.cars) for st in self.stock)
        return Outcome((self.winner,), False, self.end_reason, placed)

    # -- candidate moves ----------------------------------------------------------------
    def candidate_actions(self, directions: int = 12) -> Iterator[Action]:
        """Builds sampled around each open end (positions are continuous, so this is a sample),
        judged or not: the property tests and benchmarks draw from them."""
        g = self.rules.geometry
        if self.winner is not None:
            return
        if self.in_setup:
            seat = self.current_player()
            n = self.rules.players
            ang = -math.pi / 2 + 2 * math.pi * seat / n
            r = 0.5 * g.stick_length_mm
            sx, sy = r * math.cos(ang), r * math.sin(ang)
            run = math.sqrt((0.9 * g.stick_length_mm) ** 2 - g.unit_height_mm**2)
            tx, ty = sx - run * math.sin(ang), sy + run * math.cos(ang)
            yield Start(NewSupport(round(sx, 1), round(sy, 1), 1), (round(tx, 1), round(ty, 1)), seat)
            return
        seat = self.to_move
        st = self.stock[seat]
        for base in self.open_bases(seat):
            heights = [(h, False) for h in (base.height - 1, base.height + 1) if h >= 1]
            if st.junctions:
                heights += [(h, True) for h in (base.height, base.height + 2) if h >= 2]
            for k in range(directions):
                ang = 2 * math.pi * k / directions
                c, s = math.cos(ang), math.sin(ang)
                for h, j in heights:
                    dz = (h - base.height) * g.unit_height_mm
                    for frac in (0.95, 0.6):
                        run = math.sqrt(max((frac * g.stick_length_mm) ** 2 - dz * dz, 0.0))
                        if run < g.column_diameter_mm * 1.5:
                            continue
                        yield Build(
                            base.id,
                            NewSupport(round(base.x + run * c, 1), round(base.y + run * s, 1), h, j),
                            player=seat,
                        )
                if base.height == 1:
                    run = math.sqrt((0.9 * g.stick_length_mm) ** 2 - g.unit_height_mm**2)
                    yield Build(
                        base.id, ramp=(round(base.x + run * c, 1), round(base.y + run * s, 1)), player=seat
                    )
        yield Skip(seat)

    def legal_actions(self) -> Iterator[Action]:
        for a in self.candidate_actions():
            try:
                if self.judge(a).legal:
                    yield a
            except EngineError:
                continue  # a sampled support would overlap an existing one

    # -- views --------------------------------------------------------------------------
    def all_crossings(self) -> list[dict[str, Any]]:
        """Every place where two roads cross in plan view, which is on top, and the heights."""
        g = self.rules.geometry
        bars = [stick_bar(s, g) for s in self.sticks]
        out = []
        for i, a in enumerate(bars):
            for b in bars[i + 1 :]:
                if set(a.rests) & set(b.rests):
                    continue
                hit = segment_intersection(a, b)
                if hit is None:
                    continue
                za, zb = a.z_at(hit[0]), b.z_at(hit[1])
                top, low, zt, zl = (a, b, za, zb) if za >= zb else (b, a, zb, za)
                x, y = a.xy_at(hit[0])
                out.append(
                    {
                        "over": top.ref,
                        "under": low.ref,
                        "at": [round(x, 1), round(y, 1)],
                        "z_over": round(zt, 1),
                        "z_under": round(zl, 1),
                    }
                )
        return out

    def table_view(self) -> dict[str, Any]:
        """The table in plain JSON for the referee app and the drawing (units: mm, heights in columns)."""
        colors = self.rules.colors
        sticks = []
        for s in self.sticks:
            sticks.append(
                {
                    "id": s.id,
                    "owner": s.owner,
                    "color": colors[s.owner],
                    "kind": s.kind,
                    "from": s.base if s.base is not None else [s.a[0], s.a[1]],
                    "to": s.end if s.end is not None else [s.b[0], s.b[1]],
                    "ends": [[round(v, 2) for v in s.a], [round(v, 2) for v in s.b]],
                    "cars_earned": s.cars_earned,
                    "crossed_over": s.crossed_over,
                    "crossed_under": s.crossed_under,
                }
            )
        return {
            "game": self.game_name,
            "units": "mm",
            "unit_height_mm": self.rules.geometry.unit_height_mm,
            "supports": [{**s.to_json(), "color": colors[s.owner]} for s in self.supports],
            "sticks": sticks,
            "cars": [{**c.to_json(), "color": colors[c.owner]} for c in self.cars],
            "crossings": self.all_crossings(),
            "blocks": [b.to_json() for b in self.rules.blocks],
            "players": [
                {
                    "seat": i,
                    "color": colors[i],
                    **self.stock[i].to_json(),
                    "open_bases": [b.id for b in self.open_bases(i)],
                    "out": i in self.out,
                }
                for i in range(self.rules.players)
            ],
            "to_move": None if self.winner is not None else self.current_player(),
            "phase": "over" if self.winner is not None else ("setup" if self.in_setup else "play"),
            "winner": self.winner,
        }

    # -- serialisation ------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game_name,
            "rules": self.rules.to_json(),
            "supports": [s.to_json() for s in self.supports],
            "sticks": [s.to_json() for s in self.sticks],
            "cars": [c.to_json() for c in self.cars],
            "stock": [s.to_json() for s in self.stock],
            "to_move": self.to_move,
            "turns": self.turns,
            "pending": [[p.seat, p.decider, p.rescued] for p in self.pending],
            "out": list(self.out),
            "winner": self.winner,
            "end_reason": self.end_reason,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TokyoState:
        if not isinstance(data, dict) or data.get("game") != cls.game_name:
            raise EngineError(f"not a tokyo-highway state: {str(data)[:80]!r}")
        try:
            return cls(
                TokyoRules.from_json(data["rules"]),
                tuple(Support.from_json(s) for s in data["supports"]),
                tuple(Stick.from_json(s) for s in data["sticks"]),
                tuple(Car.from_json(c) for c in data["cars"]),
                tuple(Stock.from_json(s) for s in data["stock"]),
                int(data["to_move"]),
                int(data["turns"]),
                tuple(Pending(int(p[0]), int(p[1]), bool(p[2])) for p in data.get("pending", [])),
                tuple(int(s) for s in data.get("out", [])),
                data.get("winner"),
                str(data.get("end_reason", "")),
            )
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise EngineError(f"malformed tokyo-highway state: {exc}") from exc


def _earned_text(e: dict[str, Any], colors: tuple[str, ...]) -> str:
    if e["rule"] == "tokyo.cars.over":
        return f"first over {colors[e['owner']]} road {e['road']}"
    if e["rule"] == "tokyo.cars.under":
        return f"first under {colors[e['owner']]} road {e['road']}"
    if e["rule"] == "tokyo.cars.ramp":
        return "ramp"
    return "start car"


__all__ = ["Bar", "Pending", "TokyoState", "action_from_json"]
