"""From a camera reading of the whole table to the action it shows.

The Tokyo reader reports supports as (x_mm, y_mm, height_units, junction), sticks as two visible
end points with a colour, crossings as (stick a, stick b, point, which is on top), and optionally
cars (colour, stick). `match_build` finds what changed against the engine's table: the one new
stick, the support it leaves from, where it ends (new support, table point, existing support),
how many cars were added, and what the camera saw at the new road's crossings.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from engine.core import EngineError
from engine.tokyo.actions import (
    Build,
    NewSupport,
    Observed,
    Start,
    TokyoAction,
    check_height,
    check_point,
    check_who,
)
from engine.tokyo.config import KNOWN_COLORS
from engine.tokyo.state import TokyoState


@dataclass(frozen=True)
class ReadSupport:
    x: float
    y: float
    height: int
    junction: bool = False


@dataclass(frozen=True)
class ReadStick:
    a: tuple[float, float]
    b: tuple[float, float]
    color: str | None  # a player colour, or None for plain (unpainted) sticks: the owner is inferred


@dataclass(frozen=True)
class ReadCrossing:
    a: int  # index into sticks
    b: int
    point: tuple[float, float]
    top: int  # index of the stick on top (a or b)


@dataclass(frozen=True)
class TableReading:
    supports: tuple[ReadSupport, ...]
    sticks: tuple[ReadStick, ...]
    crossings: tuple[ReadCrossing, ...] = ()
    cars: tuple[tuple[str, int | None], ...] | None = None  # (colour, stick index) when cars were read

    @classmethod
    def from_observation(cls, obs: Any) -> TableReading:
        """From the vision reader's calibrated observation (`vision.tokyo.observation.TokyoObservation`
        or its `to_dict()`), without importing vision: loose sticks are left out."""
        d = obs.to_dict() if hasattr(obs, "to_dict") else obs
        if not isinstance(d, dict):
            raise EngineError("expected a Tokyo observation (object with to_dict() or its dict)")
        if not d.get("calibrated", True):
            raise EngineError("the observation is not calibrated: positions in mm are needed to judge")
        sups = []
        for i, s in enumerate(d.get("supports") or []):
            if s.get("x_mm") is None or s.get("height") is None:
                raise EngineError(
                    f"observed support {i} has no position in mm or no height: calibrate the camera"
                )
            sups.append([s["x_mm"], s["y_mm"], s["height"], bool(s.get("junction"))])
        index: dict[int, int] = {}
        sticks = []
        for i, s in enumerate(d.get("sticks") or []):
            if s.get("role") == "loose":
                continue
            ends = s.get("endpoints_mm")
            if ends is None:
                raise EngineError(f"observed stick {i} has no end points in mm: calibrate the camera")
            index[i] = len(sticks)
            sticks.append({"a": list(ends[0][:2]), "b": list(ends[1][:2]), "color": s.get("color")})
        crossings = [
            {
                "a": index[c["a"]],
                "b": index[c["b"]],
                "top": index[c["top"]],
                "point": c.get("point_mm") or [0.0, 0.0],
            }
            for c in d.get("crossings") or []
            if c["a"] in index and c["b"] in index and c["top"] in index
        ]
        cars = [{"color": c.get("color"), "stick": index.get(c.get("stick"))} for c in d.get("cars") or []]
        # no car seen at all means cars were not read (the start roads always carry one each)
        return cls.from_json(
            {"supports": sups, "sticks": sticks, "crossings": crossings, "cars": cars or None}
        )

    @classmethod
    def from_json(cls, data: Any) -> TableReading:
        if not isinstance(data, dict):
            raise EngineError(f"a Tokyo table reading is a JSON object, got {type(data).__name__}")
        if any(isinstance(s, dict) and "endpoints_mm" in s for s in data.get("sticks") or []):
            return cls.from_observation(data)
        sups = []
        for i, s in enumerate(data.get("supports") or []):
            if isinstance(s, dict):
                s = [s.get("x"), s.get("y"), s.get("height"), s.get("junction", False)]
            if not isinstance(s, list | tuple) or len(s) not in (3, 4):
                raise EngineError(f"reading support {i}: expected [x, y, height, junction], got {s!r}")
            x, y = check_point(s[:2], f"reading support {i} position")
            sups.append(
                ReadSupport(
                    x,
                    y,
                    check_height(s[2], f"reading support {i} height"),
                    bool(s[3]) if len(s) > 3 else False,
                )
            )
        sticks = []
        for i, s in enumerate(data.get("sticks") or []):
            if not isinstance(s, dict) or "a" not in s or "b" not in s:
                raise EngineError(f"reading stick {i}: expected {{a: [x, y], b: [x, y], color}}, got {s!r}")
            # published sets have plain wooden roads: a colour that is no player colour says nothing
            color = s.get("color") if s.get("color") in KNOWN_COLORS else None
            sticks.append(
                ReadStick(
                    check_point(s["a"], f"reading stick {i} end a"),
                    check_point(s["b"], f"reading stick {i} end b"),
                    color,
                )
            )
        crossings = []
        for i, c in enumerate(data.get("crossings") or []):
            try:
                a, b = int(c["a"]), int(c["b"])
                top = c["top"]
                top = a if top == "a" else b if top == "b" else int(top)
                point = check_point(c.get("point", (0, 0)), f"reading crossing {i} point")
            except (KeyError, TypeError, ValueError):
                raise EngineError(f"reading crossing {i}: expected {{a, b, point, top}}, got {c!r}") from None
            if not (0 <= a < len(sticks) and 0 <= b < len(sticks)) or top not in (a, b):
                raise EngineError(
                    f"reading crossing {i} names sticks {a}, {b} (top {top}) but "
                    f"the reading has {len(sticks)} sticks"
                )
            crossings.append(ReadCrossing(a, b, point, top))
        cars = None
        if data.get("cars") is not None:
            cars = []
            for i, c in enumerate(data["cars"]):
                if not isinstance(c, dict) or "color" not in c:
                    raise EngineError(f"reading car {i}: expected {{color, stick}}, got {c!r}")
                color = check_who(str(c["color"]))
                assert isinstance(color, str)
                cars.append((color, c.get("stick")))
            cars = tuple(cars)
        return cls(tuple(sups), tuple(sticks), tuple(crossings), cars)


def match_build(
    state: TokyoState, reading: TableReading | dict[str, Any], tol_mm: float | None = None
) -> TokyoAction:
    """The action the reading shows: the new stick against the engine's table. `tol_mm` is how far
    a seen end may lie from a support centre (default: one column diameter)."""
    if isinstance(reading, dict):
        reading = TableReading.from_json(reading)
    g = state.rules.geometry
    tol = g.column_diameter_mm if tol_mm is None else tol_mm
    limit = g.stick_length_mm + g.column_diameter_mm  # a seen stick may overhang its supports a little
    for i, s in enumerate(reading.sticks):
        length = math.dist(s.a, s.b)
        if length > limit:
            raise EngineError(
                f"reading stick {i} is {length:.0f} mm long but the set's sticks are "
                f"{g.stick_length_mm:.0f} mm: the reading is wrong"
            )
        if s.color is not None and s.color not in state.rules.colors:
            raise EngineError(
                f"reading stick {i} is {s.color}, but nobody plays {s.color} in this match "
                f"({', '.join(state.rules.colors)})"
            )

    def nearest_support(p: tuple[float, float]) -> int | None:
        best = min(state.supports, key=lambda s: math.hypot(s.x - p[0], s.y - p[1]), default=None)
        if best is not None and math.hypot(best.x - p[0], best.y - p[1]) <= tol:
            return best.id
        return None

    new_supports = [
        r for r in reading.supports if all(math.hypot(s.x - r.x, s.y - r.y) > tol / 2 for s in state.supports)
    ]

    def new_support_at(p: tuple[float, float]) -> ReadSupport | None:
        best = min(new_supports, key=lambda r: math.hypot(r.x - p[0], r.y - p[1]), default=None)
        if best is not None and math.hypot(best.x - p[0], best.y - p[1]) <= tol:
            return best
        return None

    known: dict[tuple[Any, Any], int] = {}
    for st in state.sticks:
        ends = (st.base if st.base is not None else "table", st.end if st.end is not None else "table")
        known[ends] = st.id
        known[ends[::-1]] = st.id
    reading_to_road: dict[int, int] = {}
    fresh: list[int] = []
    for i, s in enumerate(reading.sticks):
        ea = nearest_support(s.a)
        eb = nearest_support(s.b)
        key = (ea if ea is not None else "table", eb if eb is not None else "table")
        road = known.get(key)
        if road is not None and (
            ea is not None and eb is not None or _table_end_matches(state, road, s, tol)
        ):
            reading_to_road[i] = road
        else:
            fresh.append(i)
    if not fresh:
        raise EngineError("the reading shows no new road: every stick matches one already on the table")
    if len(fresh) > 1:
        raise EngineError(
            f"the reading shows {len(fresh)} new sticks ({', '.join(map(str, fresh))}); "
            "a turn lays one road: settle the table and read again"
        )
    i = fresh[0]
    s = reading.sticks[i]
    ends = [(p, nearest_support(p)) for p in (s.a, s.b)]
    if s.color is not None:
        seat = state.rules.colors.index(s.color)
    else:  # a plain stick belongs to whoever owns the support it leaves from, the player to move first
        owners = {state.support(sid).owner for _p, sid in ends if sid is not None}
        mover = state.current_player()
        seat = mover if (mover in owners or not owners) else min(owners)
    color = state.rules.colors[seat]
    if reading.cars is not None:
        for c, _ in reading.cars:
            if c not in state.rules.colors:
                raise EngineError(f"the reading shows a {c} car, but nobody plays {c} in this match")
    own = [(p, sid) for p, sid in ends if sid is not None and state.support(sid).owner == seat]
    cars = None
    if reading.cars is not None:
        cars = sum(1 for c, _ in reading.cars if c == color) - sum(1 for c in state.cars if c.owner == seat)
        cars = max(cars, 0)
    if not state.started(seat):
        for (p, _sid), (q, _) in ((ends[0], ends[1]), (ends[1], ends[0])):
            rs = new_support_at(p)
            if rs is not None and nearest_support(q) is None and new_support_at(q) is None:
                return Start(NewSupport(rs.x, rs.y, rs.height, rs.junction), q, color)
        raise EngineError(
            f"{color} has no start road yet, but the new stick does not run from the table to a new support"
        )
    if not own:
        raise EngineError(
            f"the new {color} road does not start from a {color} support: "
            "a road leaves from one of its owner's supports"
        )
    # prefer an open end as the base when both ends sit on own supports
    open_ids = {b.id for b in state.open_bases(seat)}
    own.sort(key=lambda e: e[1] not in open_ids)
    base_p, base_id = own[0]
    other_p = s.b if base_p == s.a else s.a
    observed = []
    for c in reading.crossings:
        if i in (c.a, c.b):
            other = c.b if c.a == i else c.a
            if other in reading_to_road:
                observed.append(Observed(reading_to_road[other], c.top == i))
    kw: dict[str, Any] = {"player": color, "cars": cars, "observed": tuple(observed)}
    assert base_id is not None
    onto = nearest_support(other_p)
    if onto is not None and onto != base_id:
        return Build(base_id, onto=onto, **kw)
    rs = new_support_at(other_p)
    if rs is not None:
        return Build(base_id, NewSupport(rs.x, rs.y, rs.height, rs.junction), **kw)
    return Build(base_id, ramp=other_p, **kw)


def _table_end_matches(state: TokyoState, road: int, s: ReadStick, tol: float) -> bool:
    """A start road or ramp is the same stick only if its table end is where it was."""
    st = next(x for x in state.sticks if x.id == road)
    pts = [(st.a[0], st.a[1]) if st.base is None else None, (st.b[0], st.b[1]) if st.end is None else None]
    table_pts = [p for p in pts if p is not None]
    return all(min(math.dist(p, s.a), math.dist(p, s.b)) <= tol * 2 for p in table_pts)
