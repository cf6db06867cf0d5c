"""The opening book of Highway 4x4 (book.json beside this module, written by bench/grid_book.py):
what is proved about positions too deep to search in a time limit, looked up under the four
path-keeping symmetries of engine/grid/exact.py.

An entry holds either an exact margin (`value`, Player 1's view, with a best move when known) or,
where only a bound is proved, the `outcome` (1 / 0 / -1: Player 1 wins / draw / Player 2 wins) with
the move that keeps it and the bound (`at_least`); a bound is never served as a value.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from engine.grid.exact import SYMMETRIES
from engine.grid.paths import CELLS, cell_name, parse_cell
from engine.grid.position import parse_position

BOOK_PATH = Path(__file__).with_name("book.json")


@dataclass(frozen=True)
class BookEntry:
    value: int | None  # the exact margin, Player 1's view; None where only the outcome is proved
    outcome: int | None  # 1 / 0 / -1 for Player 1 win / draw / Player 2 win (from value when known)
    best: tuple[int, int] | None  # (piece, cell) keeping the value (or the outcome)
    at_least: int | None  # a proved lower bound of the margin where the value is unknown


def _canonical(board: tuple[int, ...] | list[int]) -> tuple[tuple[int, ...], int]:
    """(the smallest of the four symmetric boards, index of the symmetry giving it)."""
    best, index = None, 0
    for g, perm in enumerate(SYMMETRIES):
        image = [0] * CELLS
        for c, v in enumerate(board):
            image[perm[c]] = v
        t = tuple(image)
        if best is None or t < best:
            best, index = t, g
    assert best is not None
    return best, index


@cache
def _load(path: Path = BOOK_PATH) -> dict[tuple[int, ...], dict]:
    if not path.exists():
        return {}
    table = {}
    for rec in json.loads(path.read_text())["entries"]:
        board = parse_position(rec["position"]).board
        key, g = _canonical(board)
        best = None
        if rec.get("best"):
            piece, cell = rec["best"].split("@")
            best = (int(piece), SYMMETRIES[g][parse_cell(cell)])  # in the canonical board's cells
        table[key] = {**rec, "_best": best}
    return table


def lookup(board: tuple[int, ...] | list[int], path: Path = BOOK_PATH) -> BookEntry | None:
    """The book's entry for this board (any of its symmetric forms), or None."""
    key, g = _canonical(board)
    rec = _load(path).get(key)
    if rec is None:
        return None
    best = rec["_best"]
    if best is not None:  # back to this board's cells: each symmetry is its own inverse
        best = (best[0], SYMMETRIES[g][best[1]])
    value = rec.get("value")
    outcome = rec.get("outcome") if value is None else (value > 0) - (value < 0)
    return BookEntry(value, outcome, best, rec.get("at_least"))


def describe_move(move: tuple[int, int]) -> str:
    return f"{move[0]}@{cell_name(move[1])}"
