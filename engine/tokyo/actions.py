"""What a player does in one settled change of the table, with a JSON form and a notation.

Notation (one action a line; WHO is a colour such as `purple` or a seat `p1`..`p4`, optional):

    purple start (100,-200) table (40,-200)          start road: a 1-high support, a stick from the table
    purple s1 -> (150,-120) h2                       from support s1 to a new support 2 columns high
    purple s4 -> (90,30) h3 junction cars 1 over r2   junction on top; 1 car placed; camera saw it over r2
    green s5 -> ramp (60,80)                         a ramp from s5 down to the table
    purple s6 -> s2                                  a road onto an existing support (judged: loop)
    green skip                                       not enough material to build
    purple knocks green:2 give junction              purple knocked over 2 green pieces
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from engine.core import Action, EngineError, NotationError
from engine.tokyo.config import KNOWN_COLORS, finite

Who = int | str | None  # a seat index, a colour name, or None for the player to move


def check_who(who: Any) -> Who:
    if who is None:
        return None
    if isinstance(who, bool) or not isinstance(who, int | str):
        raise EngineError(f"player must be a seat number or a colour, got {who!r}")
    if isinstance(who, str):
        if who not in KNOWN_COLORS:
            raise EngineError(f"unknown car colour {who!r}; known colours: {', '.join(KNOWN_COLORS)}")
    elif not 0 <= who < 4:
        raise EngineError(f"seat must be 0..3, got {who}")
    return who


def who_text(who: Who) -> str:
    return "" if who is None else (who if isinstance(who, str) else f"p{who + 1}")


def check_point(p: Any, what: str) -> tuple[float, float]:
    try:
        x, y = p
        x, y = float(x), float(y)
    except (TypeError, ValueError, OverflowError):
        raise EngineError(f"{what} must be a point [x, y] in mm, got {p!r}") from None
    if not (math.isfinite(x) and math.isfinite(y)):
        raise EngineError(f"{what} must be finite, got {p!r}")
    return x, y


def check_height(h: Any, what: str = "support height") -> int:
    if isinstance(h, bool) or not isinstance(h, int | float) or not finite(h):
        raise EngineError(f"{what} must be a whole number of columns, got {h!r}")
    if h != int(h):
        raise EngineError(f"{what} must be a whole number of columns, got {h} (no half columns)")
    if h < 1:
        raise EngineError(f"{what} must be at least 1 column, got {h}")
    return int(h)


def _fmt(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


@dataclass(frozen=True)
class NewSupport:
    x: float
    y: float
    height: int
    junction: bool = False

    def __post_init__(self) -> None:
        x, y = check_point((self.x, self.y), "support position")
        object.__setattr__(self, "x", x)
        object.__setattr__(self, "y", y)
        object.__setattr__(self, "height", check_height(self.height))
        if not isinstance(self.junction, bool):
            raise EngineError(f"junction must be true or false, got {self.junction!r}")

    def to_json(self) -> dict[str, Any]:
        return {"x": self.x, "y": self.y, "height": self.height, "junction": self.junction}

    @classmethod
    def from_json(cls, d: Any) -> NewSupport:
        if not isinstance(d, dict) or "x" not in d or "y" not in d or "height" not in d:
            raise EngineError(f"a new support is {{x, y, height[, junction]}}, got {d!r}")
        return cls(d["x"], d["y"], d["height"], d.get("junction", False))

    def notation(self) -> str:
        return f"({_fmt(self.x)},{_fmt(self.y)}) h{self.height}" + (" junction" if self.junction else "")


@dataclass(frozen=True)
class Observed:
    """What the camera saw at a crossing of the new road with road `road`: is the new road on top?"""

    road: int
    over: bool

    def to_json(self) -> dict[str, Any]:
        return {"road": self.road, "new_on_top": self.over}


@dataclass(frozen=True)
class Start(Action):
    """The start road: a 1-high grey support and a stick from a table point up to it, with a car."""

    support: NewSupport
    table: tuple[float, float]
    player: Who = None
    model: str = "sedan"

    def __post_init__(self) -> None:
        object.__setattr__(self, "table", check_point(self.table, "start road table point"))
        check_who(self.player)

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "start",
            "player": self.player,
            "support": self.support.to_json(),
            "table": list(self.table),
            "model": self.model,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Start:
        return _typed(data, "start", cls)

    def notation(self) -> str:
        who = who_text(self.player)
        sup = self.support
        return (
            (f"{who} " if who else "") + f"start ({_fmt(sup.x)},{_fmt(sup.y)}) "
            f"table ({_fmt(self.table[0])},{_fmt(self.table[1])})"
            + (f" h{sup.height}" if sup.height != 1 else "")
            + (" junction" if sup.junction else "")
            + (f" model {self.model}" if self.model != "sedan" else "")
        )


@dataclass(frozen=True)
class Build(Action):
    """One turn's build: a road from support `base` to a new support, a ramp to a table point, or
    (always judged illegal) onto an existing support; then the cars placed on it."""

    base: int
    support: NewSupport | None = None
    ramp: tuple[float, float] | None = None
    onto: int | None = None
    player: Who = None
    cars: int | None = None  # cars placed on the new road (None: not seen; the earned number is assumed)
    models: tuple[str, ...] = ()  # models of the cars placed, when known (advanced rule)
    observed: tuple[Observed, ...] = ()  # over/under seen by the camera at crossings
    car_at: tuple[float, ...] = ()  # where the cars stand: mm along the new road from its base, when known

    def __post_init__(self) -> None:
        check_who(self.player)
        if not isinstance(self.base, int) or isinstance(self.base, bool) or self.base < 1:
            raise EngineError(f"base must be a support id (s1, s2...), got {self.base!r}")
        targets = sum(t is not None for t in (self.support, self.ramp, self.onto))
        if targets != 1:
            raise EngineError(
                "a build goes to exactly one of: a new support, a ramp table point, a support id"
            )
        if self.ramp is not None:
            object.__setattr__(self, "ramp", check_point(self.ramp, "ramp table point"))
        if self.cars is not None and (
            isinstance(self.cars, bool) or not isinstance(self.cars, int) or self.cars < 0
        ):
            raise EngineError(f"cars placed must be a whole number >= 0, got {self.cars!r}")
        if self.models:
            if self.cars is None:
                object.__setattr__(self, "cars", len(self.models))
            elif len(self.models) != self.cars:
                raise EngineError(f"{self.cars} cars placed but {len(self.models)} models given")
        if self.car_at:
            try:
                at = tuple(float(a) for a in self.car_at)
            except (TypeError, ValueError, OverflowError):
                raise EngineError(
                    f"car positions must be numbers (mm along the road), got {self.car_at!r}"
                ) from None
            if not all(math.isfinite(a) and a >= 0 for a in at):
                raise EngineError(f"car positions must be finite mm >= 0 along the road, got {self.car_at!r}")
            object.__setattr__(self, "car_at", at)
            if self.cars is None:
                object.__setattr__(self, "cars", len(at))
            elif len(at) != self.cars:
                raise EngineError(f"{self.cars} cars placed but {len(at)} car positions given")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "build", "player": self.player, "base": self.base}
        if self.support is not None:
            out["support"] = self.support.to_json()
        if self.ramp is not None:
            out["ramp"] = list(self.ramp)
        if self.onto is not None:
            out["onto"] = self.onto
        if self.cars is not None:
            out["cars"] = self.cars
        if self.models:
            out["models"] = list(self.models)
        if self.observed:
            out["observed"] = [o.to_json() for o in self.observed]
        if self.car_at:
            out["car_at"] = list(self.car_at)
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Build:
        return _typed(data, "build", cls)

    def notation(self) -> str:
        who = who_text(self.player)
        parts = [who] if who else []
        parts.append(f"s{self.base} ->")
        if self.support is not None:
            parts.append(self.support.notation())
        elif self.ramp is not None:
            parts.append(f"ramp ({_fmt(self.ramp[0])},{_fmt(self.ramp[1])})")
        else:
            parts.append(f"s{self.onto}")
        if self.cars is not None and not self.models and not self.car_at:
            parts.append(f"cars {self.cars}")
        if self.models:
            parts.append("models " + ",".join(self.models))
        if self.car_at:
            parts.append("at " + ",".join(_fmt(a) for a in self.car_at))
        parts += [f"{'over' if o.over else 'under'} r{o.road}" for o in self.observed]
        return " ".join(parts)


@dataclass(frozen=True)
class Skip(Action):
    """The player cannot build for lack of material and passes."""

    player: Who = None

    def __post_init__(self) -> None:
        check_who(self.player)

    def to_json(self) -> dict[str, Any]:
        return {"type": "skip", "player": self.player}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Skip:
        return _typed(data, "skip", cls)

    def notation(self) -> str:
        who = who_text(self.player)
        return f"{who} skip" if who else "skip"


@dataclass(frozen=True)
class Knock(Action):
    """`player` knocked over pieces: `victims` holds (owner, pieces) pairs. Everything is put back."""

    victims: tuple[tuple[int | str, int], ...]
    player: Who = None
    give: str = "grey"  # which column the penalty is paid in, when the player has both

    def __post_init__(self) -> None:
        check_who(self.player)
        if not self.victims:
            raise EngineError("a knock-over report names whose pieces fell, e.g. green:2")
        for owner, pieces in self.victims:
            check_who(owner)
            if isinstance(pieces, bool) or not isinstance(pieces, int) or pieces < 1:
                raise EngineError(f"pieces knocked over must be a whole number >= 1, got {pieces!r}")
        if self.give not in ("grey", "junction"):
            raise EngineError(f"a penalty is paid in a grey or a junction column, not {self.give!r}")

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "knock",
            "player": self.player,
            "victims": [[o, n] for o, n in self.victims],
            "give": self.give,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Knock:
        return _typed(data, "knock", cls)

    def notation(self) -> str:
        who = who_text(self.player)
        victims = " ".join(f"{who_text(o)}:{n}" for o, n in self.victims)
        return (
            (f"{who} " if who else "")
            + f"knocks {victims}"
            + (" give junction" if self.give != "grey" else "")
        )


TokyoAction = Start | Build | Skip | Knock


def action_from_json(data: Any) -> TokyoAction:
    if not isinstance(data, dict):
        raise EngineError(f"a tokyo-highway action is a JSON object, got {data!r}")
    kind = data.get("type")
    try:
        if kind == "start":
            return Start(
                NewSupport.from_json(data["support"]),
                data["table"],
                data.get("player"),
                str(data.get("model", "sedan")),
            )
        if kind == "build":
            observed = tuple(
                Observed(_int(o["road"], "observed road"), bool(o["new_on_top"]))
                for o in data.get("observed") or ()
            )
            support = data.get("support")
            onto = data.get("onto")
            return Build(
                _int(data["base"], "base"),
                None if support is None else NewSupport.from_json(support),
                data.get("ramp"),
                None if onto is None else _int(onto, "onto"),
                data.get("player"),
                data.get("cars"),
                tuple(str(m) for m in data.get("models") or ()),
                observed,
                tuple(data.get("car_at") or ()),
            )
        if kind == "skip":
            return Skip(data.get("player"))
        if kind == "knock":
            victims = tuple((v[0], v[1]) for v in data["victims"])
            return Knock(victims, data.get("player"), str(data.get("give", "grey")))
    except (KeyError, TypeError, IndexError) as exc:
        raise EngineError(f"malformed tokyo-highway {kind} action {data!r}: missing or bad {exc}") from exc
    raise EngineError(f"unknown tokyo-highway action type {kind!r} (start, build, skip, knock)")


def _typed(data: Any, kind: str, cls: type) -> Any:
    action = action_from_json(data)
    if not isinstance(action, cls):
        raise EngineError(f"expected a tokyo-highway {kind} action, got {data!r}")
    return action


def _int(v: Any, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise EngineError(f"{what} must be an id number, got {v!r}")
    return v


_NUM = r"-?\d+(?:\.\d+)?"
_PT = rf"\(\s*({_NUM})\s*,\s*({_NUM})\s*\)"
_WHO = r"(?:(?P<who>[a-z]+|p[1-4])\s+)?"
_START = re.compile(
    rf"^{_WHO}start\s+{_PT}\s+table\s+{_PT}(?:\s+h(?P<h>\d+))?(?P<j>\s+junction)?"
    r"(?:\s+model\s+(?P<model>[\w-]+))?$"
)
_BUILD = re.compile(
    rf"^{_WHO}s(?P<base>\d+)\s*->\s*(?:(?:{_PT}\s+h(?P<h>{_NUM})(?P<j>\s+junction)?)|(?:ramp\s+{_PT})"
    rf"|(?:s(?P<onto>\d+)))(?P<rest>(?:\s+.*)?)$"
)
_SKIP = re.compile(rf"^{_WHO}skip$")
_KNOCK = re.compile(
    rf"^{_WHO}knocks\s+(?P<victims>(?:[a-z0-9]+:\d+\s*)+?)(?:\s*give\s+(?P<give>grey|junction))?$"
)


def _parse_who(text: str | None) -> Who:
    if text is None:
        return None
    if re.fullmatch(r"p[1-4]", text):
        return int(text[1]) - 1
    if text not in KNOWN_COLORS:
        raise NotationError(f"unknown player {text!r}: write a colour ({', '.join(KNOWN_COLORS)}) or p1..p4")
    return text


def parse_action(text: str) -> TokyoAction:
    """Read one action written in the notation above (case and extra spaces do not matter)."""
    line = " ".join(str(text).strip().lower().split())
    try:
        return _parse(line)
    except NotationError:
        raise
    except EngineError as exc:
        raise NotationError(f"cannot read {text!r}: {exc}") from exc


def _parse(line: str) -> TokyoAction:
    if m := _START.match(line):
        g = m.groups()
        sup = NewSupport(float(g[1]), float(g[2]), int(m.group("h") or 1), m.group("j") is not None)
        return Start(sup, (float(g[3]), float(g[4])), _parse_who(m.group("who")), m.group("model") or "sedan")
    if m := _BUILD.match(line):
        g = m.groups()
        support = ramp = onto = None
        if m.group("h") is not None:
            support = NewSupport(float(g[2]), float(g[3]), float(m.group("h")), m.group("j") is not None)
        elif m.group("onto") is not None:
            onto = int(m.group("onto"))
        else:
            ramp = (float(g[6]), float(g[7]))
        cars, models, observed, car_at = _parse_extras(m.group("rest") or "", line)
        return Build(
            int(m.group("base")),
            support,
            ramp,
            onto,
            _parse_who(m.group("who")),
            cars,
            models,
            observed,
            car_at,
        )
    if m := _SKIP.match(line):
        return Skip(_parse_who(m.group("who")))
    if m := _KNOCK.match(line):
        victims = []
        for tok in m.group("victims").split():
            name, n = tok.split(":")
            who = _parse_who(name)
            if who is None:
                raise NotationError(f"cannot read {line!r}: name whose pieces fell, e.g. green:2")
            victims.append((who, int(n)))
        return Knock(tuple(victims), _parse_who(m.group("who")), m.group("give") or "grey")
    raise NotationError(
        f"cannot read {line!r}: write e.g. 'purple s1 -> (150,-120) h2', 'green s5 -> ramp (60,80)', "
        "'purple start (100,-200) table (40,-200)', 'green skip' or 'purple knocks green:1'"
    )


def _parse_extras(
    rest: str, line: str
) -> tuple[int | None, tuple[str, ...], tuple[Observed, ...], tuple[float, ...]]:
    toks = rest.split()
    cars: int | None = None
    models: tuple[str, ...] = ()
    observed: list[Observed] = []
    car_at: tuple[float, ...] = ()
    i = 0
    while i < len(toks):
        key = toks[i]
        val = toks[i + 1] if i + 1 < len(toks) else None
        if val is None:
            raise NotationError(f"cannot read {line!r}: {key!r} needs a value")
        if key == "cars" and val.isdigit():
            cars = int(val)
        elif key == "models":
            models = tuple(m for m in val.split(",") if m)
        elif key == "at" and re.fullmatch(rf"{_NUM}(?:,{_NUM})*", val):
            car_at = tuple(float(v) for v in val.split(","))
        elif key in ("over", "under") and re.fullmatch(r"r\d+", val):
            observed.append(Observed(int(val[1:]), key == "over"))
        else:
            raise NotationError(
                f"cannot read {line!r} at {key!r}: expected cars N, models a,b, at MM,MM, over rN or under rN"
            )
        i += 2
    return cars, models, tuple(observed), car_at
