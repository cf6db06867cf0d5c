"""Physical constants of a Tokyo Highway set and the rule options of a match.

Units: millimetres on the table (x right, y away from the player, z up); support heights in column
units. The published boxes do not print their piece sizes, so the lengths below are measured
estimates of the itten set: measure yours and pass `geometry={...}` to `new_state`.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, fields
from typing import Any

from engine import jsontext
from engine.core import EngineError

# Colours a camera may report. The seed's set is purple/green; the published sets use pink/blue
# (2 players) and blue/green/pink/orange (4-player edition).
KNOWN_COLORS = ("purple", "green", "pink", "blue", "orange")
DEFAULT_COLORS = {
    2: ("purple", "green"),
    3: ("blue", "green", "pink"),
    4: ("blue", "green", "pink", "orange"),
}


def finite(v: int | float) -> bool:
    """math.isfinite that answers False for an integer too large for a float (it raises there);
    sizes and heights arrive from JSON, where an integer may have hundreds of digits."""
    try:
        return math.isfinite(v)
    except OverflowError:
        return False


@dataclass(frozen=True)
class SetGeometry:
    """Sizes of the pieces (mm). Defaults: measured estimates of the published set."""

    stick_length_mm: float = 114.0  # a road stick (wooden, popsicle-like)
    stick_width_mm: float = 10.0  # its width seen from above
    stick_thickness_mm: float = 3.0  # its height seen from the side
    column_diameter_mm: float = 15.0  # grey and yellow columns are the same cylinder
    unit_height_mm: float = 10.0  # one column
    clearance_mm: float = 1.0  # pieces closer than this count as touching (camera precision)
    car_length_mm: float = 18.0
    car_height_mm: float = 8.0

    def __post_init__(self) -> None:
        for f in fields(self):
            v = getattr(self, f.name)
            if not isinstance(v, int | float) or isinstance(v, bool) or not finite(v) or v < 0:
                raise EngineError(f"geometry.{f.name} must be a finite number >= 0, got {v!r}")
            if v == 0 and f.name != "clearance_mm":
                raise EngineError(f"geometry.{f.name} must be > 0")

    @property
    def column_radius(self) -> float:
        return self.column_diameter_mm / 2

    def top_z(self, height: int) -> float:
        """Height of a road's centreline resting on a support `height` columns high."""
        return height * self.unit_height_mm + self.stick_thickness_mm / 2

    @property
    def table_z(self) -> float:
        return self.stick_thickness_mm / 2

    def to_json(self) -> dict[str, float]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> SetGeometry:
        if not isinstance(data, dict):
            raise EngineError(f"geometry must be an object of sizes in mm, got {data!r}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise EngineError(f"unknown geometry field(s) {unknown}; known: {sorted(known)}")
        return cls(**data)


@dataclass(frozen=True)
class Block:
    """A building of the 3-4 player edition: an obstacle box standing on the table."""

    x: float  # centre (mm)
    y: float
    w: float  # size along x
    d: float  # size along y
    h: float  # height (mm)

    def __post_init__(self) -> None:
        vals = (self.x, self.y, self.w, self.d, self.h)
        if not all(isinstance(v, int | float) and finite(v) for v in vals) or min(vals[2:]) <= 0:
            raise EngineError(f"a building needs finite x, y and positive w, d, h, got {vals}")

    def to_json(self) -> list[float]:
        return [self.x, self.y, self.w, self.d, self.h]

    @classmethod
    def from_json(cls, data: Any) -> Block:
        if isinstance(data, dict):
            data = [data.get(k) for k in ("x", "y", "w", "d", "h")]
        if not isinstance(data, list | tuple) or len(data) != 5:
            raise EngineError(f"a building is [x, y, w, d, h] in mm, got {data!r}")
        return cls(*data)


def _json_option(key: str, text: str) -> Any:
    try:
        return jsontext.loads(text)
    except json.JSONDecodeError as exc:
        raise EngineError(f"option {key} must be JSON, e.g. {key}='{{...}}': {exc.msg}") from None


# Material per player. 2 players: the seed. 3-4 players: the 4-player box (80 grey, 8 yellow,
# 36 sticks) shared evenly, with the published car counts 10/8/7.
MATERIAL = {2: (30, 3, 15, 10), 3: (26, 2, 12, 8), 4: (20, 2, 9, 7)}


@dataclass(frozen=True)
class TokyoRules:
    """Everything fixed for one match: players, colours, set sizes and rule options."""

    players: int = 2
    colors: tuple[str, ...] = ("purple", "green")
    geometry: SetGeometry = SetGeometry()
    grey: int = 30  # grey columns per player
    junctions: int = 3  # yellow junction columns per player
    sticks: int = 15  # road sticks per player
    cars: int = 10  # cars per player
    own_crossing_blocks_cars: bool = True  # seed: a road that also crosses an own road earns no car
    knock_per_piece: bool = False  # seed: one column per affected opponent; option: one per piece
    same_model_bonus: bool = False  # advanced rule: same car model takes a grey column
    first_player: int = 0  # who saw a rainbow last
    blocks: tuple[Block, ...] = ()

    def __post_init__(self) -> None:
        if self.players not in (2, 3, 4):
            raise EngineError(f"tokyo-highway is played by 2, 3 or 4 players, not {self.players}")
        if len(self.colors) != self.players or len(set(self.colors)) != self.players:
            raise EngineError(f"give one distinct colour per player, got {list(self.colors)}")
        for c in self.colors:
            if c not in KNOWN_COLORS:
                raise EngineError(f"unknown car colour {c!r}; known colours: {', '.join(KNOWN_COLORS)}")
        for name in ("grey", "junctions", "sticks", "cars"):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise EngineError(f"material {name} must be a whole number >= 1, got {v!r}")
        if self.first_player not in range(self.players):
            raise EngineError(f"first_player must be a seat 0..{self.players - 1}, got {self.first_player}")

    VARIANT_KEYS = (
        "colors",
        "geometry",
        "grey",
        "junctions",
        "sticks",
        "cars",
        "own_crossing_blocks_cars",
        "knock_per_piece",
        "same_model_bonus",
        "first_player",
        "blocks",
    )

    @classmethod
    def from_variant(cls, players: int = 2, **variant: Any) -> TokyoRules:
        unknown = sorted(set(variant) - set(cls.VARIANT_KEYS))
        if unknown:
            raise EngineError(f"unknown tokyo-highway option(s) {unknown}; known: {list(cls.VARIANT_KEYS)}")
        if players not in MATERIAL:
            raise EngineError(f"tokyo-highway is played by 2, 3 or 4 players, not {players}")
        grey, junctions, sticks, cars = MATERIAL[players]
        kw: dict[str, Any] = {
            "players": players,
            "colors": DEFAULT_COLORS[players],
            "grey": grey,
            "junctions": junctions,
            "sticks": sticks,
            "cars": cars,
        }
        for key, value in variant.items():
            if key in ("geometry", "blocks") and isinstance(value, str):
                value = _json_option(key, value)  # from a command line: --variant geometry='{...}'
            elif key == "colors" and isinstance(value, str):
                value = [c.strip() for c in value.split(",") if c.strip()]
            if key == "geometry":
                value = value if isinstance(value, SetGeometry) else SetGeometry.from_json(value)
            elif key == "blocks":
                if not isinstance(value, list | tuple):
                    raise EngineError("blocks must be a list of [x, y, w, d, h] buildings")
                value = tuple(b if isinstance(b, Block) else Block.from_json(b) for b in value)
            elif key == "colors":
                if not isinstance(value, list | tuple):
                    raise EngineError("colors must be a list of colour names")
                value = tuple(str(c) for c in value)
            elif key in ("own_crossing_blocks_cars", "knock_per_piece", "same_model_bonus"):
                if not isinstance(value, bool):
                    raise EngineError(f"option {key} must be true or false, got {value!r}")
            kw[key] = value
        return cls(**kw)

    def to_json(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "colors": list(self.colors),
            "geometry": self.geometry.to_json(),
            "grey": self.grey,
            "junctions": self.junctions,
            "sticks": self.sticks,
            "cars": self.cars,
            "own_crossing_blocks_cars": self.own_crossing_blocks_cars,
            "knock_per_piece": self.knock_per_piece,
            "same_model_bonus": self.same_model_bonus,
            "first_player": self.first_player,
            "blocks": [b.to_json() for b in self.blocks],
        }

    @classmethod
    def from_json(cls, data: Any) -> TokyoRules:
        if not isinstance(data, dict):
            raise EngineError(f"tokyo-highway rules must be an object, got {data!r}")
        data = dict(data)
        players = data.pop("players", 2)
        return cls.from_variant(players, **data)

    def seat_of(self, who: int | str | None, default: int) -> int:
        """A seat from a seat index or a colour name (None: `default`)."""
        if who is None:
            return default
        if isinstance(who, str):
            if who not in self.colors:
                raise EngineError(f"no player plays {who} in this match (colours: {', '.join(self.colors)})")
            return self.colors.index(who)
        if who not in range(self.players):
            raise EngineError(f"player must be a seat 0..{self.players - 1}, got {who!r}")
        return who
