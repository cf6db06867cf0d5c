"""Tokyo Highway rules: the table state, verdicts and their consequences.

Rules-as-implemented, with the rule ids verdicts cite, are in docs/rules/tokyo-highway.md.
An illegal build must be corrected before the turn ends (Consequence.MUST_CORRECT): the verdict
says what is wrong and how to fix it, and the state does not change until a legal build is seen.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from engine.core import TERMINAL, Action, Consequence, EngineError, GameState, Outcome, Verdict
from engine.tokyo import candidates, views
from engine.tokyo.actions import Build, Knock, Skip, Start
from engine.tokyo.building import Plan, plan_build, plan_start, verdict_build
from engine.tokyo.checks import Problem, TableIndex
from engine.tokyo.config import TokyoRules
from engine.tokyo.model import Car, Stick, Stock, Support


@dataclass(frozen=True)
class Pending:
    """A player who skipped for lack of material: they lose when `decider` ends a turn without
    having given them a column (a knock-over penalty)."""

    seat: int
    decider: int
    rescued: bool = False


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
    def stick_by_id(self) -> dict[int, Stick]:
        return {s.id: s for s in self.sticks}

    @cached_property
    def roads_from(self) -> dict[int, int]:
        """How many roads leave each support (a grey support gives one, a junction two)."""
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
        return [s for s in self.supports if s.owner == seat and self.roads_from.get(s.id, 0) < s.capacity]

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
            return verdict_build(self, action, plan_build(self, action))
        if isinstance(action, Start):
            return verdict_build(self, action, plan_start(self, action))
        if isinstance(action, Skip):
            return self._judge_skip(action)
        if isinstance(action, Knock):
            return self._judge_knock(action)
        raise EngineError(f"tokyo-highway cannot judge {action!r}")

    def game_over_problem(self) -> Problem | None:
        if self.winner is not None:
            return Problem("tokyo.game-over", f"the game is over ({self.end_reason}): take the piece back")
        return None

    def turn_problem(self, seat: int) -> Problem | None:
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
        p = self.game_over_problem() or self.turn_problem(seat)
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
        if p := self.game_over_problem():
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
            return self._apply_build(action, plan_start(self, action), start=True)
        if isinstance(action, Build):
            return self._apply_build(action, plan_build(self, action), start=False)
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

    def _apply_build(self, a: Start | Build, plan: Plan, start: bool) -> TokyoState:
        assert plan.stick is not None and not plan.problems
        seat = plan.seat
        stock = list(self.stock)
        stock[seat] = stock[seat].take(grey=plan.grey, junctions=plan.junctions, sticks=1, cars=plan.cars)
        crossed = {c.road: c.over for c in plan.crossings}  # old road id -> the new road passes over it
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
        # crossing is mutual: the new road now has a road under it (where it passes over) or over it
        stick = replace(
            plan.stick,
            cars_earned=plan.cars,
            crossed_under=any(c.over for c in plan.crossings),
            crossed_over=any(not c.over for c in plan.crossings),
        )
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

    def same_model_donor(self, seat: int, models: tuple[str, ...]) -> int | None:
        """The opponent who gives a grey column for a car model already on their roads (advanced
        rule): the first in table order who still has one; at most one column a turn."""
        for model in models:
            for other in self.cars:
                if other.owner != seat and other.model == model and self.stock[other.owner].grey > 0:
                    return other.owner
        return None

    def _same_model_bonus(self, seat: int, new_cars: tuple[Car, ...], stock: list[Stock]) -> list[Stock]:
        donor = self.same_model_donor(seat, tuple(c.model for c in new_cars))
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

    # -- candidate moves and views (engine/tokyo/candidates.py, engine/tokyo/views.py) ---------
    def candidate_actions(self, directions: int = 12) -> Iterator[Action]:
        """Builds sampled around each open end, judged or not (positions are continuous)."""
        return candidates.candidate_actions(self, directions)

    def legal_actions(self) -> Iterator[Action]:
        for a in self.candidate_actions():
            try:
                if self.judge(a).legal:
                    yield a
            except EngineError:
                continue  # a sampled support would overlap an existing one

    def all_crossings(self) -> list[dict[str, Any]]:
        return views.all_crossings(self)

    def table_view(self) -> dict[str, Any]:
        """The table in plain JSON for the referee app and the drawing (see engine/tokyo/views.py)."""
        return views.table_view(self)

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


__all__ = ["Pending", "TokyoState"]
