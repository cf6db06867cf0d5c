"""The pieces on the table: supports (column stacks), road sticks, cars, and each player's stock."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from engine.core import EngineError

Point3 = tuple[float, float, float]


@dataclass(frozen=True)
class Support:
    """A stack of `height` columns at (x, y); with `junction` the top column is a yellow one."""

    id: int
    x: float
    y: float
    height: int  # columns in the stack, the junction included
    junction: bool
    owner: int

    @property
    def grey(self) -> int:
        return self.height - (1 if self.junction else 0)

    @property
    def capacity(self) -> int:
        """How many roads may leave it: a junction splits the highway once."""
        return 2 if self.junction else 1

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "x": self.x,
            "y": self.y,
            "height": self.height,
            "junction": self.junction,
            "owner": self.owner,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Support:
        try:
            return cls(
                int(d["id"]),
                float(d["x"]),
                float(d["y"]),
                int(d["height"]),
                bool(d["junction"]),
                int(d["owner"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise EngineError(f"malformed support {d!r}: {exc}") from exc


@dataclass(frozen=True)
class Stick:
    """A road. `base` is the support it leaves from (None for a start road, which climbs from the
    table); `end` the support it arrives on (None for a ramp, which lands on the table).
    `a` and `b` are the 3D centreline rest points (base side first)."""

    id: int
    owner: int
    kind: str  # "start" | "road" | "ramp"
    base: int | None
    end: int | None
    a: Point3
    b: Point3
    crossed_over: bool = False  # some road has passed over it
    crossed_under: bool = False  # some road has passed under it
    cars_earned: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "owner": self.owner,
            "kind": self.kind,
            "base": self.base,
            "end": self.end,
            "a": list(self.a),
            "b": list(self.b),
            "crossed_over": self.crossed_over,
            "crossed_under": self.crossed_under,
            "cars_earned": self.cars_earned,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Stick:
        try:
            return cls(
                int(d["id"]),
                int(d["owner"]),
                str(d["kind"]),
                d.get("base"),
                d.get("end"),
                _p3(d["a"]),
                _p3(d["b"]),
                bool(d.get("crossed_over")),
                bool(d.get("crossed_under")),
                int(d.get("cars_earned", 0)),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise EngineError(f"malformed stick {d!r}: {exc}") from exc


def _p3(v: Any) -> Point3:
    x, y, z = (float(c) for c in v)
    return x, y, z


@dataclass(frozen=True)
class Car:
    owner: int
    stick: int
    model: str = "car"
    at: float | None = None  # mm along the stick from its base end, when known

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"owner": self.owner, "stick": self.stick, "model": self.model}
        if self.at is not None:
            out["at"] = self.at
        return out

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Car:
        try:
            at = d.get("at")
            return cls(
                int(d["owner"]),
                int(d["stick"]),
                str(d.get("model", "car")),
                None if at is None else float(at),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise EngineError(f"malformed car {d!r}: {exc}") from exc


@dataclass(frozen=True)
class Stock:
    """What a player still has in front of them."""

    grey: int
    junctions: int
    sticks: int
    cars: int

    def take(self, grey: int = 0, junctions: int = 0, sticks: int = 0, cars: int = 0) -> Stock:
        return replace(
            self,
            grey=self.grey - grey,
            junctions=self.junctions - junctions,
            sticks=self.sticks - sticks,
            cars=self.cars - cars,
        )

    def to_json(self) -> dict[str, int]:
        return {"grey": self.grey, "junctions": self.junctions, "sticks": self.sticks, "cars": self.cars}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Stock:
        try:
            return cls(int(d["grey"]), int(d["junctions"]), int(d["sticks"]), int(d["cars"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise EngineError(f"malformed stock {d!r}: {exc}") from exc
