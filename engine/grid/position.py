"""A 4x4 position as text: 16 entries row by row from a1 (top-left), '.' for an empty cell.

Entries are separated by spaces or commas; '/' may separate rows and, when used, every row must
hold 4 entries, e.g. "7 . 3 . / . . . . / . 12 . . / . . . 16". Whose turn it is follows from the
number of pieces (Player 1 starts), so any position with distinct pieces 1..16 is accepted.
"""

from __future__ import annotations

import re

from engine.core import EngineError
from engine.grid.paths import CELLS, SIZE, cell_name
from engine.grid.state import GridState

_EMPTY = {".", "-", "0", "_"}


def parse_position(text: str) -> GridState:
    """Read a position; errors name the offending entry, its cell and the row."""
    if not isinstance(text, str) or not text.strip():
        raise EngineError("empty position: give 16 entries row by row, '.' for empty, e.g. "
                          "'7 . 3 . / . . . . / . . . . / . . . .'")
    rows = [r for r in text.strip().split("/")]
    if len(rows) > 1:
        if len(rows) != SIZE:
            raise EngineError(f"position has {len(rows)} rows separated by '/', expected {SIZE}")
        entries: list[str] = []
        for number, row in enumerate(rows, start=1):
            items = _split(row)
            if len(items) != SIZE:
                raise EngineError(f"position row {number} has {len(items)} entries, expected {SIZE}: "
                                  f"{row.strip()!r}")
            entries += items
    else:
        entries = _split(text)
        if len(entries) != CELLS:
            raise EngineError(f"position has {len(entries)} entries, expected {CELLS} "
                              "(row by row from a1, '.' for empty)")
    board: list[int] = []
    seen: dict[int, int] = {}
    for index, entry in enumerate(entries):
        if entry in _EMPTY:
            board.append(0)
            continue
        if not entry.isdigit() or not 1 <= int(entry) <= 16:
            raise EngineError(f"position entry {index + 1} (cell {cell_name(index)}) is {entry!r}: "
                              "expected a piece number 1..16 or '.'")
        piece = int(entry)
        if piece in seen:
            raise EngineError(f"piece {piece} is placed twice in the position, at {cell_name(seen[piece])} "
                              f"and {cell_name(index)}")
        seen[piece] = index
        board.append(piece)
    return GridState(tuple(board))


def _split(text: str) -> list[str]:
    return [t for t in re.split(r"[\s,;]+", text.strip()) if t]


def format_position(state: GridState) -> str:
    """The inverse of parse_position: '7 . 3 . / . . . . / ...'."""
    rows = []
    for r in range(SIZE):
        rows.append(" ".join(str(p) if p else "." for p in state.board[r * SIZE:(r + 1) * SIZE]))
    return " / ".join(rows)
