"""Dice-road actions, one per settled change the camera sees, with JSON forms and a notation.

Notation (case-insensitive, spaces optional around the parts):
  R 3 5          the two dice rolled show 3 and 5 (a chance event)
  3>W07          place a rolled 3 on cell W07
  P3>W07         place the pool die (a 3) on W07
  3>W07 +5       place a rolled 3 on W07 and store the other rolled die, a 5, in the pool
  +5             store the rolled 5 without placing anything (ends the turn)
  pass           use no die (ends the turn)
  reclaim B12    before rolling, take back one's own block stone from B12 (the stone is lost)
  reclaim B12>W07  ... and put it on one's own road at W07 (only if that value is needed there)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from engine.core import Action, EngineError, NotationError

DIE_VALUES = range(1, 7)


def check_die(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in DIE_VALUES:
        raise EngineError(f"{what} must be a die value 1-6, got {value!r}")
    return value


def _check_seat(seat: Any) -> int | None:
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < 4):
        raise EngineError(f"seat must be 0-3 (White, Blue, Green, Yellow), got {seat!r}")
    return seat


def _check_cell(cell: Any, what: str) -> str:
    if not isinstance(cell, str) or not cell.strip():
        raise EngineError(f"{what} must be a cell id such as 'W07', got {cell!r}")
    return cell.strip().upper()


@dataclass(frozen=True)
class Roll(Action):
    """The two dice in the tray after a roll; order does not matter (stored sorted)."""

    a: int
    b: int

    def __post_init__(self) -> None:
        check_die(self.a, "rolled die")
        check_die(self.b, "rolled die")
        if self.a > self.b:
            lo, hi = self.b, self.a
            object.__setattr__(self, "a", lo)
            object.__setattr__(self, "b", hi)

    @property
    def dice(self) -> tuple[int, int]:
        return self.a, self.b

    def to_json(self) -> dict[str, Any]:
        return {"type": "roll", "dice": [self.a, self.b]}

    def notation(self) -> str:
        return f"R {self.a} {self.b}"


@dataclass(frozen=True)
class Reclaim(Action):
    """Before rolling: take back one's oldest block stone from `cell`; `to` is where it went on
    one's own road (None: the stone left the board, or the engine puts it where it is needed)."""

    cell: str
    to: str | None = None
    seat: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "cell", _check_cell(self.cell, "reclaim cell"))
        if self.to is not None:
            object.__setattr__(self, "to", _check_cell(self.to, "reclaim target cell"))
        _check_seat(self.seat)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "reclaim", "cell": self.cell}
        if self.to is not None:
            out["to"] = self.to
        if self.seat is not None:
            out["seat"] = self.seat
        return out

    def notation(self) -> str:
        return f"reclaim {self.cell}" + (f">{self.to}" if self.to else "")


@dataclass(frozen=True)
class Play(Action):
    """A turn's play after the roll: place die `die` (rolled, or the pool die when from_pool) on
    `cell`, and/or store the rolled die `store` in the pool. Neither: a pass."""

    die: int | None = None
    cell: str | None = None
    store: int | None = None
    from_pool: bool = False
    seat: int | None = None

    def __post_init__(self) -> None:
        if (self.die is None) != (self.cell is None):
            raise EngineError("a placement needs both a die value and a cell")
        if self.die is not None:
            check_die(self.die, "placed die")
            object.__setattr__(self, "cell", _check_cell(self.cell, "target cell"))
        elif self.from_pool:
            raise EngineError("from_pool is only meaningful with a placed die")
        if self.store is not None:
            check_die(self.store, "stored die")
        _check_seat(self.seat)

    @property
    def places(self) -> bool:
        return self.die is not None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "play"}
        if self.die is not None:
            out.update(die=self.die, source="pool" if self.from_pool else "roll", cell=self.cell)
        if self.store is not None:
            out["store"] = self.store
        if self.seat is not None:
            out["seat"] = self.seat
        return out

    def notation(self) -> str:
        parts = []
        if self.die is not None:
            parts.append(f"{'P' if self.from_pool else ''}{self.die}>{self.cell}")
        if self.store is not None:
            parts.append(f"+{self.store}")
        return " ".join(parts) or "pass"


DiceAction = Roll | Reclaim | Play


def action_from_json(data: dict[str, Any]) -> DiceAction:
    if not isinstance(data, dict):
        raise EngineError(f"a highway-dice action is a JSON object, got {data!r}")
    kind = data.get("type")
    try:
        if kind == "roll":
            dice = data["dice"]
            if not isinstance(dice, list) or len(dice) != 2:
                raise EngineError(f"roll 'dice' must be a list of two values, got {dice!r}")
            return Roll(dice[0], dice[1])
        if kind == "reclaim":
            return Reclaim(data["cell"], data.get("to"), data.get("seat"))
        if kind == "play":
            source = data.get("source", "roll")
            if source not in ("roll", "pool"):
                raise EngineError(f"play 'source' must be 'roll' or 'pool', got {source!r}")
            return Play(data.get("die"), data.get("cell"), data.get("store"), source == "pool",
                        data.get("seat"))
    except KeyError as exc:
        raise EngineError(f"highway-dice {kind} action lacks {exc}") from exc
    raise EngineError(f"unknown highway-dice action type {kind!r} (roll, reclaim or play)")


_CELL = r"[A-Za-z][A-Za-z0-9-]*"
_ROLL = re.compile(r"^R\s*([1-6])\s*[ ,]\s*([1-6])$", re.I)
_RECLAIM = re.compile(rf"^reclaim\s+({_CELL})(?:\s*>\s*({_CELL}))?$", re.I)
_PLAY = re.compile(rf"^(?:(P)?\s*([1-6])\s*>\s*({_CELL}))?\s*(?:\+\s*([1-6]))?$", re.I)


def parse_action(text: str) -> DiceAction:
    """Read the notation in this module's docstring, e.g. 'R 3 5', '3>W07 +5', 'reclaim B12'."""
    t = text.strip()
    if t.lower() == "pass":
        return Play()
    if m := _ROLL.match(t):
        return Roll(int(m.group(1)), int(m.group(2)))
    if m := _RECLAIM.match(t):
        return Reclaim(m.group(1), m.group(2))
    if t and (m := _PLAY.match(t)):
        die = int(m.group(2)) if m.group(2) else None
        store = int(m.group(4)) if m.group(4) else None
        return Play(die, m.group(3), store, bool(m.group(1)))
    raise NotationError(
        f"cannot read {text!r}: write a roll 'R 3 5', a play '3>W07', '3>W07 +5', 'P3>W07' (pool die), "
        "'+5' (store only), 'pass', or 'reclaim B12' (values 1-6)"
    )
