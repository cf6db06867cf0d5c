"""One road's progress: the stones on it, what it needs next, and where the next stone goes.

The cycle arithmetic of the seed, as the rules digest settles it:
  * the road's *step* S is the last completed value of its cycle (1,3,5 or 2,4,6);
  * a pave stone must be next(S); a block stone b = S + 1 (7 counts as 1) takes over the step
    next(S); the unblock u makes b + u = that step (7 counts as 1), which always gives u = 1;
  * a reclaimed block leaves a hole that is repaired with the block's value; the repair completes
    the step the block had taken over (so with or without the unblock, the cycle goes on from it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.core import EngineError
from engine.dice_road.board import Board, Road

ODD_CYCLE = (1, 3, 5)
EVEN_CYCLE = (2, 4, 6)
KINDS = ("pave", "block", "unblock", "repair", "hole", "bridge")


def cycle_of(seat: int) -> tuple[int, int, int]:
    """White (0) and Green (2) pave odd, Blue (1) and Yellow (3) even."""
    return ODD_CYCLE if seat % 2 == 0 else EVEN_CYCLE


# next value after a completed step, per parity (None: the road is still empty)
_NEXT: tuple[dict[int | None, int], ...] = tuple(
    {None: c[0], c[0]: c[1], c[1]: c[2], c[2]: c[0]} for c in (ODD_CYCLE, EVEN_CYCLE)
)


def next_in_cycle(seat: int, step: int | None) -> int:
    return _NEXT[seat & 1][step]


def wrap7(value: int) -> int:
    """Sums of dice beyond 6 wrap round: 7 counts as 1 (the seed's 7-exception)."""
    return (value - 1) % 6 + 1


@dataclass(frozen=True, slots=True)
class Stone:
    """A die lying on the board. `seat` placed it; `t` is the state's clock when it was placed (or,
    for a hole, when the block was reclaimed): the age used by "oldest block" and "oldest hole"."""

    cell: str
    value: int
    seat: int
    kind: str
    t: int

    def to_json(self) -> dict[str, Any]:
        return {"cell": self.cell, "value": self.value, "seat": self.seat, "kind": self.kind, "t": self.t}

    @classmethod
    def from_json(cls, data: Any, where: str) -> Stone:
        if not isinstance(data, dict):
            raise EngineError(f"{where} must be an object {{cell, value, seat, kind, t}}, got {data!r}")
        try:
            cell, value, seat, kind, t = (data[k] for k in ("cell", "value", "seat", "kind", "t"))
        except KeyError as exc:
            raise EngineError(f"{where} lacks {exc}") from exc
        if not isinstance(cell, str):
            raise EngineError(f"{where}.cell must be a cell id, got {cell!r}")
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6:
            raise EngineError(f"{where}.value must be a die value 1-6, got {value!r}")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < 4:
            raise EngineError(f"{where}.seat must be 0-3, got {seat!r}")
        if kind not in KINDS:
            raise EngineError(f"{where}.kind must be one of {', '.join(KINDS)}, got {kind!r}")
        if isinstance(t, bool) or not isinstance(t, int) or t < 0:
            raise EngineError(f"{where}.t must be a non-negative integer, got {t!r}")
        return cls(cell, value, seat, kind, t)


class Routes:
    """The cells a seat's stones occupy, position by position, for one board and player count:
    the road with the bridge or with the detour, then the roundabout lane(s), then the centre."""

    def __init__(self, board: Board, road: Road, players: int) -> None:
        self.road = road
        b = road.bridge_index
        self.via_bridge = road.cells
        self.via_detour = road.cells[:b] + road.detour + road.cells[b + 1:]
        self.detour_positions = range(b, b + len(road.detour))
        self.lanes: tuple[tuple[str, ...], ...] = (
            (road.lanes["outer"], road.lanes["middle"]) if players == 2 else (road.fixed_lane,)
        )
        self.middle: tuple[str, ...] = road.lanes["middle"] if players == 2 else ()
        self.centre = board.centre

    def length(self, detour: bool) -> int:
        return len(self.via_detour if detour else self.via_bridge) + len(self.lanes[0]) + 1

    def at(self, k: int, detour: bool, trail: tuple[Stone, ...]) -> tuple[tuple[str, ...], str]:
        """Cells that may take position k (two at the lane choice) and what the position is:
        'road', 'detour', 'lane', 'centre' or 'end' (past the centre)."""
        part = self.via_detour if detour else self.via_bridge
        if k < len(part):
            return (part[k],), ("detour" if detour and k in self.detour_positions else "road")
        j = k - len(part)
        lane_len = len(self.lanes[0])
        if j < lane_len:
            if j == 0:
                return tuple(lane[0] for lane in self.lanes), "lane"
            first = trail[len(part)].cell
            lane = next(ln for ln in self.lanes if ln[0] == first)
            return (lane[j],), "lane"
        if j == lane_len:
            return (self.centre,), "centre"
        return (), "end"


@dataclass(frozen=True, slots=True)
class RoadStatus:
    """What one road needs now. `needed_cells` is where the owner's next stone goes (the oldest
    hole, or the next position; two cells at a two-player lane choice when the middle is free)."""

    seat: int
    length: int
    step: int | None
    open_block: int | None
    holes: tuple[int, ...]  # trail indices of holes, oldest first
    needed: int
    needed_kind: str  # "pave", "unblock" or "repair"
    needed_cells: tuple[str, ...]
    next_cells: tuple[str, ...]  # cells of the next position, the middle lane included if free
    next_kind: str
    lane_choice: tuple[str, ...]  # both lanes' first cells when the next position is the 2-player choice
    middle_taken: bool
    block_value: int | None  # the value that blocks this road now; None when it cannot be blocked
    detour: bool
    bridge_passed: bool
    warning_passed: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "needed": self.needed,
            "needed_kind": self.needed_kind,
            "needed_cells": list(self.needed_cells),
            "step": self.step,
            "open_block": self.open_block,
            "holes": len(self.holes),
            "block_value": self.block_value,
            "detour": self.detour,
            "bridge_passed": self.bridge_passed,
            "warning_passed": self.warning_passed,
        }


def road_status(routes: Routes, seat: int, trail: tuple[Stone, ...], bridge_stones: int,
                middle_taken: bool) -> RoadStatus:
    nxt = _NEXT[seat & 1]
    step: int | None = None
    open_block: int | None = None
    holes = []
    for i, s in enumerate(trail):
        kind = s.kind
        if kind == "pave":
            step, open_block = s.value, None
        elif kind == "unblock":
            open_block = None
        else:  # block, hole or repair: each takes over (and, repaired, completes) one step
            step = nxt[step]
            if kind == "block":
                open_block = s.value
            else:
                open_block = None
                if kind == "hole":
                    holes.append(i)
    if len(holes) > 1:
        holes.sort(key=lambda i: trail[i].t)
    detour = bridge_stones >= 3
    k = len(trail)
    next_cells, next_kind = routes.at(k, detour, trail)
    lane_choice = next_cells if len(next_cells) > 1 else ()
    if middle_taken and lane_choice:
        next_cells = tuple(c for c in next_cells if c not in routes.middle)
    if holes:
        needed, needed_kind, needed_cells = trail[holes[0]].value, "repair", (trail[holes[0]].cell,)
    elif open_block is not None:
        needed, needed_kind, needed_cells = wrap7(step - open_block + 6), "unblock", next_cells  # type: ignore[operator]
    else:
        needed, needed_kind, needed_cells = nxt[step], "pave", next_cells
    last_kind = trail[-1].kind if trail else None
    blockable = step is not None and last_kind not in ("block", "hole") and next_kind in ("road", "lane")
    b = routes.road.bridge_index
    return RoadStatus(
        seat=seat,
        length=k,
        step=step,
        open_block=open_block,
        holes=tuple(holes),
        needed=needed,
        needed_kind=needed_kind,
        needed_cells=needed_cells,
        next_cells=next_cells,
        next_kind=next_kind,
        lane_choice=lane_choice,
        middle_taken=middle_taken,
        block_value=wrap7(step + 1) if blockable and step is not None else None,
        detour=detour,
        bridge_passed=k > b,
        warning_passed=k > routes.road.warning_index,
    )
