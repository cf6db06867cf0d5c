"""The 7x7 sheet: geometry, the 12 exits, and an immutable `Sheet` of drawn squares.

Cells are indexed row * 7 + col, rows 0-6 from the top (printed A-G), columns 0-6 from the left.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from engine.core import EngineError
from engine.railroad_ink.packed import pack_erase, pack_infos, pack_put
from engine.railroad_ink.tiles import (
    PIECES,
    TileInfo,
    check_sides,
    identify,
    is_overpass,
    pieces_for,
    tile_info,
    transform,
)

SIZE = 7
CELLS = SIZE * SIZE
ROW_NAMES = "ABCDEFG"
N, E, S, W = 0, 1, 2, 3
OPPOSITE = (2, 3, 0, 1)
CENTRE = frozenset(r * SIZE + c for r in range(2, 5) for c in range(2, 5))
MIDDLE = 3 * SIZE + 3  # the volcano's square and the first meteor's start

# (cell, side) -> exit kind, for the printed sheet (shared/rules/railroad-ink.md).
STANDARD_EXITS: tuple[tuple[int, int, str], ...] = (
    (0 * 7 + 1, N, "H"), (0 * 7 + 3, N, "R"), (0 * 7 + 5, N, "H"),
    (1 * 7 + 6, E, "R"), (3 * 7 + 6, E, "H"), (5 * 7 + 6, E, "R"),
    (6 * 7 + 1, S, "H"), (6 * 7 + 3, S, "R"), (6 * 7 + 5, S, "H"),
    (1 * 7 + 0, W, "R"), (3 * 7 + 0, W, "H"), (5 * 7 + 0, W, "R"),
)


def _neighbour(cell: int, side: int) -> int:
    r, c = divmod(cell, SIZE)
    r += (-1, 0, 1, 0)[side]
    c += (0, 1, 0, -1)[side]
    return r * SIZE + c if 0 <= r < SIZE and 0 <= c < SIZE else -1


NEIGHBOURS: tuple[tuple[int, int, int, int], ...] = tuple(
    (_neighbour(i, 0), _neighbour(i, 1), _neighbour(i, 2), _neighbour(i, 3)) for i in range(CELLS)
)


def cell_name(cell: int) -> str:
    r, c = divmod(cell, SIZE)
    return f"{ROW_NAMES[r]}{c}"


def square_name(row: int, col: int) -> str:
    return f"{ROW_NAMES[row]}{col} (row {row}, col {col})"


def check_square(row: object, col: object, where: str = "") -> int:
    at = f"{where}: " if where else ""
    if not isinstance(row, int) or not isinstance(col, int) or isinstance(row, bool) or isinstance(col, bool):
        raise EngineError(f"{at}row and col must be integers 0-6, got row={row!r} col={col!r} (rule "
                          f"rri.board)")
    if not (0 <= row < SIZE and 0 <= col < SIZE):
        raise EngineError(f"{at}square row {row}, col {col} is outside the 7x7 sheet (rows and columns are "
                          "0-6) (rule rri.board)")
    return row * SIZE + col


def parse_cell(text: str) -> int:
    t = text.strip().upper()
    if len(t) != 2 or t[0] not in ROW_NAMES or not t[1].isdigit() or int(t[1]) >= SIZE:
        raise EngineError(f"not a square of the sheet: {text!r} (squares are A0..G6, A0 top-left) (rule "
                          f"rri.board)")
    return ROW_NAMES.index(t[0]) * SIZE + int(t[1])


@dataclass(frozen=True)
class Square:
    """One drawn square. `sides` is authoritative; `piece` names what was drawn."""

    sides: str
    piece: str
    overpass: bool = False
    round: int = 0  # the round number written in the square (0 = drawn before round 1)
    special: bool = False
    info: TileInfo = field(init=False, compare=False, repr=False)  # shared facts about the shape

    def __post_init__(self) -> None:
        object.__setattr__(self, "info", tile_info(self.sides, self.overpass))

    @classmethod
    def make(cls, sides: str, piece: str | None = None, overpass: bool | None = None, round: int = 0,
             where: str = "") -> Square:
        """A validated square. A (sides, piece, overpass) combination seen valid before is not
        checked again: reading a sheet meets the same few dozen shapes over and over."""
        key = (sides, piece, overpass)
        known = _VALID.get(key) if type(sides) is str and (piece is None or type(piece) is str) \
            and (overpass is None or type(overpass) is bool) else None
        if known is None:
            known = cls._validate(sides, piece, overpass, where)
            if type(sides) is str:
                _VALID[key] = known
        sq = object.__new__(cls)  # the frozen dataclass's __init__ would redo the shape lookup
        sq.__dict__.update(sides=sides, piece=known[0], overpass=known[1], round=round, special=known[2],
                           info=known[3])
        return sq

    @staticmethod
    def _validate(sides: str, piece: str | None, overpass: bool | None, where: str
                  ) -> tuple[str, bool, bool, TileInfo]:
        check_sides(sides, where)
        at = f" at {where}" if where else ""
        if piece is None:
            piece = identify(sides, bool(overpass), where)
        elif piece not in pieces_for(sides, is_overpass(piece) if piece in PIECES else False):
            if piece not in PIECES:
                raise EngineError(f"unknown piece {piece!r}{at} (rule rri.face)")
            raise EngineError(f"sides {sides!r}{at} are not a rotation or mirror of {piece} "
                              f"(rule rri.face)")
        op = is_overpass(piece)
        if overpass is not None and bool(overpass) != op:
            raise EngineError(f"{piece}{at}: overpass must be {str(op).lower()} (rule rri.face)")
        return piece, op, piece.startswith("special_"), tile_info(sides, op)


# (sides, piece or None, overpass or None) -> (piece, overpass, special, shape) for valid squares
_VALID: dict[tuple[str, str | None, bool | None], tuple[str, bool, bool, TileInfo]] = {}


@dataclass(frozen=True)
class Sheet:
    """One player's sheet: 49 squares (None = empty), the placement order, craters and the last impact."""

    cells: tuple[Square | None, ...] = (None,) * CELLS
    order: tuple[int, ...] = ()  # cells in the order they were drawn (export keeps it)
    craters: frozenset[int] = frozenset()
    impact: int = MIDDLE  # where the next meteor starts from
    specials: tuple[str, ...] = ()  # specials crossed off, in order (incl. one spent to ignore a meteor)
    exits: tuple[tuple[int, int, str], ...] = field(default=STANDARD_EXITS, compare=False)
    # bit-packed sides (engine/railroad_ink/packed.py), derived from `cells`
    packed: tuple[int, ...] = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        if len(self.cells) != CELLS:
            raise EngineError(f"a sheet has {CELLS} squares, got {len(self.cells)}")
        if len(self.packed) != 23:
            object.__setattr__(self, "packed", pack_infos([sq.info if sq else None for sq in self.cells]))

    def _derive(self, cells: tuple[Square | None, ...], order: tuple[int, ...], craters: frozenset[int],
                specials: tuple[str, ...], packed: tuple[int, ...]) -> Sheet:
        """A copy with new squares, built without re-validating or re-packing them (the hot path of
        replaying a game: dataclasses.replace would re-run __post_init__ over all 49 squares)."""
        new = object.__new__(Sheet)
        set_ = object.__setattr__
        set_(new, "cells", cells)
        set_(new, "order", order)
        set_(new, "craters", craters)
        set_(new, "impact", self.impact)
        set_(new, "specials", specials)
        set_(new, "exits", self.exits)
        set_(new, "packed", packed)
        return new

    def put(self, cell: int, square: Square) -> Sheet:
        cells = list(self.cells)
        old = cells[cell]
        cells[cell] = square
        order = (tuple(c for c in self.order if c != cell) if cell in self.order else self.order) + (cell,)
        specials = self.specials + (square.piece,) if square.special else self.specials
        craters = self.craters - {cell} if cell in self.craters else self.craters
        return self._derive(tuple(cells), order, craters, specials,
                            pack_put(self.packed, cell, square.info, old.info if old else None))

    def erase(self, cell: int) -> Sheet:
        cells = list(self.cells)
        old = cells[cell]
        cells[cell] = None
        return self._derive(tuple(cells), tuple(c for c in self.order if c != cell), self.craters,
                            self.specials, pack_erase(self.packed, cell, old.info if old else None))

    def placed(self) -> Iterator[tuple[int, Square]]:
        for c in self.order:
            sq = self.cells[c]
            if sq is not None:
                yield c, sq

    def exit_at(self, cell: int, side: int) -> str | None:
        for c, s, k in self.exits:
            if c == cell and s == side:
                return k
        return None

    def facing(self, cell: int, side: int) -> str | None:
        """What a side of `cell` faces: an exit kind ('H'/'R'), 'edge', 'crater', None (empty square)
        or the neighbour's side character."""
        n = NEIGHBOURS[cell][side]
        if n < 0:
            return self.exit_at(cell, side) or "edge"
        sq = self.cells[n]
        if sq is None:
            return "crater" if n in self.craters else None
        return sq.sides[OPPOSITE[side]]

    def diagram(self) -> str:
        rows = []
        for r in range(SIZE):
            parts = []
            for c in range(SIZE):
                i = r * SIZE + c
                sq = self.cells[i]
                parts.append("xxxx" if i in self.craters else ("...." if sq is None else sq.sides))
            rows.append(f"{ROW_NAMES[r]} " + " ".join(parts))
        return "\n".join(rows)


# -- whole-sheet symmetries (used to check that scoring does not depend on orientation) -------------
def map_cell_rotate(cell: int) -> int:
    r, c = divmod(cell, SIZE)
    return c * SIZE + (SIZE - 1 - r)


def map_cell_mirror(cell: int) -> int:
    r, c = divmod(cell, SIZE)
    return r * SIZE + (SIZE - 1 - c)


def transform_sheet(sheet: Sheet, rotate_cw_quarter_turns: int = 0, mirrored: bool = False) -> Sheet:
    """The same drawing seen rotated/mirrored, with its exits carried along."""
    def cell_map(c: int) -> int:
        if mirrored:
            c = map_cell_mirror(c)
        for _ in range(rotate_cw_quarter_turns % 4):
            c = map_cell_rotate(c)
        return c

    def side_map(s: int) -> int:
        if mirrored and s in (E, W):
            s = OPPOSITE[s]
        return (s + rotate_cw_quarter_turns) % 4

    cells: list[Square | None] = [None] * CELLS
    for c, sq in enumerate(sheet.cells):
        if sq is not None:
            cells[cell_map(c)] = replace(sq, sides=transform(sq.sides, rotate_cw_quarter_turns, mirrored))
    exits = tuple(sorted((cell_map(c), side_map(s), k) for c, s, k in sheet.exits))
    return Sheet(tuple(cells), tuple(cell_map(c) for c in sheet.order),
                 frozenset(cell_map(c) for c in sheet.craters), cell_map(sheet.impact), sheet.specials, exits)
