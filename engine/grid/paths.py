"""The 4x4 board's geometry: cell names and the 20 monotone paths of each player.

Cells are indexed 0..15 row by row from the top-left. Names: column letter a-d (left to right)
and row number 1-4 (top to bottom), so a1 is top-left and d4 bottom-right.
"""

from __future__ import annotations

from itertools import combinations

from engine.core import EngineError

SIZE = 4
CELLS = SIZE * SIZE
COLS = "abcd"


def cell_name(index: int) -> str:
    return f"{COLS[index % SIZE]}{index // SIZE + 1}"


def parse_cell(text: str) -> int:
    t = text.strip().lower()
    if len(t) != 2 or t[0] not in COLS or t[1] not in "1234":
        raise EngineError(f"not a cell of the 4x4 board: {text!r} (cells are a1..d4, a1 top-left)")
    return (int(t[1]) - 1) * SIZE + COLS.index(t[0])


def _monotone_paths(start_col: int, col_step: int) -> tuple[tuple[int, ...], ...]:
    """All 7-cell paths from the top row corner `start_col` to the opposite bottom corner,
    taking 3 sideways steps (by col_step) and 3 down steps in any order."""
    paths = []
    for sideways in combinations(range(6), 3):
        r, c = 0, start_col
        cells = [r * SIZE + c]
        for k in range(6):
            if k in sideways:
                c += col_step
            else:
                r += 1
            cells.append(r * SIZE + c)
        paths.append(tuple(cells))
    return tuple(sorted(paths))


# Player 1 (seat 0): top-left -> bottom-right with right/down steps.
# Player 2 (seat 1): top-right -> bottom-left with left/down steps.
PATHS: tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]] = (
    _monotone_paths(0, +1),
    _monotone_paths(SIZE - 1, -1),
)
assert len(PATHS[0]) == len(PATHS[1]) == 20
