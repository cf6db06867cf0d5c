"""The dice-road board as data: cells with real-size geometry (mm), each seat's road, its bridge,
detour and warning mark, the roundabout lanes, the dice tray and the pools.

The format is documented in docs/formats/dice-board.md. `load_board()` reads the shipped default
(importlib.resources); `Board.from_data()` takes a user's board as a dict or JSON text and checks it
for consistency, raising EngineError that names the problem and where it is.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from engine import jsontext
from engine.core import EngineError

MAX_SEATS = 4
SEAT_COLOURS = ("white", "blue", "green", "yellow")
SEAT_LETTERS = ("W", "B", "G", "Y")
SEAT_NAMES = ("White", "Blue", "Green", "Yellow")
BRIDGE_WARNING_CELLS = 9  # the seed: blocking the bridge is allowed after the ninth cell before it


@dataclass(frozen=True)
class Cell:
    id: str
    x: float  # centre, mm from the sheet's top-left corner
    y: float
    w: float
    h: float

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "x": self.x, "y": self.y, "w": self.w, "h": self.h}


@dataclass(frozen=True)
class Rect:
    x: float  # top-left corner, mm
    y: float
    w: float
    h: float

    def to_json(self) -> dict[str, float]:
        return {"x": self.x, "y": self.y, "w": self.w, "h": self.h}

    def overlaps(self, x0: float, y0: float, x1: float, y1: float) -> bool:
        return self.x < x1 and x0 < self.x + self.w and self.y < y1 and y0 < self.y + self.h


@dataclass(frozen=True)
class Road:
    """One seat's road. `cells` runs from the corner to the roundabout entry (the centre excluded)."""

    seat: int
    cells: tuple[str, ...]
    bridge_index: int
    flanks: tuple[str, str]
    detour: tuple[str, ...]
    warning_index: int
    lanes: dict[str, tuple[str, ...]]  # two-player lanes: "outer" and "middle" (seats 0 and 1)
    fixed_lane: tuple[str, ...]  # the lane used with three or four players

    @property
    def bridge(self) -> str:
        return self.cells[self.bridge_index]

    @property
    def warning(self) -> str:
        return self.cells[self.warning_index]


class Board:
    """A validated board. Instances are shared and never mutated."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        self.name = _req(data, "name", str, "board")
        self.title = str(data.get("title", self.name))
        sheet = _req(data, "sheet", dict, "board")
        self.width = _num(sheet, "width", "sheet")
        self.height = _num(sheet, "height", "sheet")
        self.pitch = _num(data, "pitch", "board")
        self.cells: dict[str, Cell] = {}
        for k, raw in enumerate(_req(data, "cells", list, "board")):
            where = f"cells[{k}]"
            if not isinstance(raw, dict):
                raise EngineError(f"board {where} must be an object, got {raw!r}")
            cid = _req(raw, "id", str, where)
            if cid != cid.strip().upper():
                raise EngineError(f"board {where}: cell id {cid!r} must be upper-case without spaces")
            if cid in self.cells:
                raise EngineError(f"board {where}: cell id {cid!r} appears twice")
            cell = Cell(cid, _num(raw, "x", where), _num(raw, "y", where), _num(raw, "w", where),
                        _num(raw, "h", where))
            if cell.w <= 0 or cell.h <= 0:
                raise EngineError(f"board cell {cid}: size must be positive, got {cell.w} x {cell.h}")
            if not (0 <= cell.x - cell.w / 2 and cell.x + cell.w / 2 <= self.width
                    and 0 <= cell.y - cell.h / 2 and cell.y + cell.h / 2 <= self.height):
                raise EngineError(f"board cell {cid} at ({cell.x}, {cell.y}) lies outside the "
                                  f"{self.width} x {self.height} mm sheet")
            self.cells[cid] = cell
        self.centre = self._cell_ref(_req(data, "centre", str, "board"), "centre")
        order = _req(data, "turn_order", list, "board")
        roads_raw = _req(data, "roads", dict, "board")
        if not roads_raw or len(roads_raw) > MAX_SEATS:
            raise EngineError(f"board must have 1..{MAX_SEATS} roads, got {len(roads_raw)}")
        self.roads: tuple[Road, ...] = tuple(
            self._road(seat, roads_raw.get(str(seat))) for seat in range(len(roads_raw))
        )
        if sorted(order) != list(range(len(self.roads))):
            raise EngineError(f"board turn_order {order} must list each seat 0..{len(self.roads) - 1} once")
        self.turn_order: tuple[int, ...] = tuple(int(s) for s in order)
        self.tray = self._rect(_req(data, "tray", dict, "board"), "tray")
        pools = _req(data, "pools", dict, "board")
        self.pools: tuple[Rect, ...] = tuple(
            self._rect(pools.get(str(s)), f"pools.{s}") for s in range(len(self.roads))
        )
        self._check_disjoint()
        self.seat_of_road_cell: dict[str, int] = {c: r.seat for r in self.roads for c in r.cells}

    # -- loading ------------------------------------------------------------------------
    @classmethod
    def from_data(cls, data: dict[str, Any] | str) -> Board:
        """A user's board: a dict or JSON text."""
        if isinstance(data, str):
            try:
                data = jsontext.loads(data)
            except json.JSONDecodeError as exc:
                raise EngineError(f"board file is not valid JSON: {exc}") from exc
        if not isinstance(data, dict) or data.get("format") != "highway-dice-board":
            raise EngineError('not a dice-road board: expected an object with "format": "highway-dice-board"')
        return cls(data)

    def to_json(self) -> dict[str, Any]:
        return self.data

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Board) and (self is other or self.data == other.data)

    def __hash__(self) -> int:
        return hash(self.name)

    @property
    def max_players(self) -> int:
        return len(self.roads)

    def cell(self, cid: str) -> Cell:
        try:
            return self.cells[cid]
        except KeyError:
            raise EngineError(f"cell {cid!r} is not on board {self.name!r}") from None

    # -- validation helpers --------------------------------------------------------------
    def _cell_ref(self, cid: Any, where: str) -> str:
        if not isinstance(cid, str) or cid not in self.cells:
            raise EngineError(f"board {where}: {cid!r} is not one of the board's cells")
        return cid

    def _rect(self, raw: Any, where: str) -> Rect:
        if not isinstance(raw, dict):
            raise EngineError(f"board {where} must be a rectangle {{x, y, w, h}} in mm, got {raw!r}")
        r = Rect(_num(raw, "x", where), _num(raw, "y", where), _num(raw, "w", where), _num(raw, "h", where))
        if r.w <= 0 or r.h <= 0 or r.x < 0 or r.y < 0 or r.x + r.w > self.width or r.y + r.h > self.height:
            raise EngineError(f"board {where} {r.to_json()} must have a positive size and lie on the sheet")
        return r

    def adjacent(self, a: str, b: str) -> bool:
        """Orthogonal neighbours: centres one pitch apart along x or along y."""
        ca, cb = self.cells[a], self.cells[b]
        dx, dy = abs(ca.x - cb.x), abs(ca.y - cb.y)
        tol = 0.1 * self.pitch
        return (abs(dx - self.pitch) <= tol and dy <= tol) or (abs(dy - self.pitch) <= tol and dx <= tol)

    def _chain(self, cells: list[str], where: str) -> None:
        for a, b in zip(cells, cells[1:], strict=False):
            if not self.adjacent(a, b):
                raise EngineError(f"board {where} is not connected: {a} and {b} are not neighbours "
                                  f"(centres must be one pitch, {self.pitch:g} mm, apart)")

    def _road(self, seat: int, raw: Any) -> Road:
        where = f"roads.{seat}"
        if not isinstance(raw, dict):
            raise EngineError(f"board {where} is missing (roads are keyed by seat '0', '1', ...)")
        cells = [self._cell_ref(c, f"{where}.cells") for c in _req(raw, "cells", list, where)]
        if len(set(cells)) != len(cells):
            raise EngineError(f"board {where}: a cell appears twice on the road")
        self._chain(cells, where)
        br = _req(raw, "bridge", dict, where)
        bcell = self._cell_ref(br.get("cell"), f"{where}.bridge.cell")
        if bcell not in cells[1:-1]:
            raise EngineError(f"board {where}.bridge.cell {bcell} must be a road cell with a road cell "
                              "on each side")
        b = cells.index(bcell)
        flanks = [self._cell_ref(c, f"{where}.bridge.flanks") for c in _req(br, "flanks", list, where)]
        if len(flanks) != 2:
            raise EngineError(f"board {where}.bridge.flanks must name two cells, got {flanks}")
        prev, nxt = self.cells[cells[b - 1]], self.cells[cells[b + 1]]
        along_x = abs(prev.y - nxt.y) < 0.1 * self.pitch
        for f in flanks:
            if not self.adjacent(f, bcell) or f in cells:
                raise EngineError(f"board {where}: bridge flank {f} is not beside bridge cell {bcell}")
            fc, bc = self.cells[f], self.cells[bcell]
            across = abs(fc.x - bc.x) < 0.1 * self.pitch if along_x else abs(fc.y - bc.y) < 0.1 * self.pitch
            if not across:
                raise EngineError(f"board {where}: bridge flank {f} must lie across the road at {bcell}, "
                                  "not along it")
        if flanks[0] == flanks[1]:
            raise EngineError(f"board {where}: the two bridge flanks are the same cell {flanks[0]}")
        detour = [self._cell_ref(c, f"{where}.bridge.detour") for c in _req(br, "detour", list, where)]
        if not detour or set(detour) & (set(cells) | set(flanks)):
            raise EngineError(f"board {where}.bridge.detour must be cells off the road and off the flanks")
        self._chain([cells[b - 1], *detour, cells[b + 1]], f"{where}.bridge.detour")
        warning = self._cell_ref(br.get("warning"), f"{where}.bridge.warning")
        if warning not in cells[:b]:
            raise EngineError(f"board {where}.bridge.warning {warning} must be a road cell before the bridge")
        fixed = [self._cell_ref(c, f"{where}.fixed_lane") for c in _req(raw, "fixed_lane", list, where)]
        self._chain([cells[-1], *fixed, self.centre], f"{where}.fixed_lane")
        lanes: dict[str, tuple[str, ...]] = {}
        if "lanes" in raw:
            lraw = _req(raw, "lanes", dict, where)
            for name in ("outer", "middle"):
                lane = [self._cell_ref(c, f"{where}.lanes.{name}") for c in _req(lraw, name, list, where)]
                self._chain([cells[-1], *lane, self.centre], f"{where}.lanes.{name}")
                lanes[name] = tuple(lane)
            if len(lanes["outer"]) != len(lanes["middle"]):
                raise EngineError(f"board {where}: the outer and middle lanes must be equally long")
            if lanes["outer"][0] == lanes["middle"][0]:
                raise EngineError(f"board {where}: the outer and middle lanes must start on different cells")
        elif seat < 2:
            raise EngineError(f"board {where} needs two-player lanes {{'outer': [...], 'middle': [...]}}")
        return Road(seat, tuple(cells), b, (flanks[0], flanks[1]), tuple(detour), cells.index(warning),
                    lanes, tuple(fixed))

    def _check_disjoint(self) -> None:
        owner: dict[str, str] = {}
        for r in self.roads:
            for c in [*r.cells, *r.flanks, *r.detour]:
                if c in owner or c == self.centre:
                    raise EngineError(f"board: cell {c} is used by both {owner.get(c, 'the centre')} and "
                                      f"road {r.seat}")
                owner[c] = f"road {r.seat}"
        fixed: dict[str, int] = {}
        for r in self.roads:
            for c in r.fixed_lane:
                if c in owner or c in fixed:
                    raise EngineError(f"board: fixed lane cell {c} of road {r.seat} is not free "
                                      "(three- and four-player lanes must never cross)")
                fixed[c] = r.seat
        for name, rect in [("tray", self.tray), *((f"pool {s}", p) for s, p in enumerate(self.pools))]:
            for c in self.cells.values():
                if rect.overlaps(c.x - c.w / 2, c.y - c.h / 2, c.x + c.w / 2, c.y + c.h / 2):
                    raise EngineError(f"board {name} overlaps cell {c.id}")


def _req(data: dict[str, Any], key: str, kind: type, where: str) -> Any:
    if key not in data:
        raise EngineError(f"board {where} lacks {key!r}")
    value = data[key]
    if not isinstance(value, kind):
        raise EngineError(f"board {where}.{key} must be a {kind.__name__}, got {value!r}")
    return value


def _num(data: dict[str, Any], key: str, where: str) -> float:
    value = _req(data, key, object, where)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise EngineError(f"board {where}.{key} must be a number (mm), got {value!r}")
    return float(value)


@cache
def load_board(name: str = "default") -> Board:
    """A board shipped in engine/dice_road/boards/<name>.json."""
    try:
        text = resources.files("engine.dice_road").joinpath("boards", f"{name}.json").read_text("utf-8")
    except (FileNotFoundError, OSError):
        raise EngineError(f"no shipped dice-road board named {name!r} (shipped: default)") from None
    return Board.from_data(text)


def resolve_board(board: Board | dict[str, Any] | str | None) -> Board:
    """A Board from a Board, a dict, JSON text, a shipped board's name, or None (the default)."""
    if board is None:
        return load_board()
    if isinstance(board, Board):
        return board
    if isinstance(board, str) and not board.lstrip().startswith("{"):
        return load_board(board)
    return Board.from_data(board)


def board_json(board: Board | None = None) -> dict[str, Any]:
    """The board's data (the shipped default when None), as stored in its JSON file."""
    return (board or load_board()).to_json()
