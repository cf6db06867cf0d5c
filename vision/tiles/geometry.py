"""The printed 4x4 Highway board and pieces as plain data (millimetres on the printed sheet).

The board sheet is 200 x 200 mm with the "highway-grid" ArUco markers in its corners (20 mm markers,
8 mm margin, as drawn by `vision.markers.draw_corner_markers`). The grid is 4 x 4 cells of 36 mm;
pieces are 28 mm squares, so a piece sits on its cell with 4 mm of board showing on every side.
Cells are named a1..d4: column letter a-d left to right, row 1-4 top to bottom.
"""

from __future__ import annotations

SHEET = "highway-grid"
SHEET_MM = (200.0, 200.0)
MARKER_MM = 20.0
MARKER_MARGIN_MM = 8.0
CELL_MM = 36.0
GRID_ORIGIN_MM = (28.0, 28.0)  # top-left corner of cell a1
PIECE_MM = 28.0
# The board is printed in one saturated blue so a piece of any other colour stands out by hue, which
# uneven light does not change. RGB.
BOARD_RGB = (52, 104, 178)
LINE_RGB = (24, 52, 100)
COLS = "abcd"


def cell_names() -> list[str]:
    return [f"{COLS[c]}{r + 1}" for r in range(4) for c in range(4)]


def cell_centre_mm(name: str) -> tuple[float, float]:
    col, row = COLS.index(name[0]), int(name[1]) - 1
    return (GRID_ORIGIN_MM[0] + (col + 0.5) * CELL_MM, GRID_ORIGIN_MM[1] + (row + 0.5) * CELL_MM)


def board_geometry() -> dict[str, object]:
    """Everything a renderer or a calibration needs, as JSON-ready data."""
    return {
        "sheet": SHEET,
        "sheet_mm": list(SHEET_MM),
        "cell_mm": CELL_MM,
        "piece_mm": PIECE_MM,
        "grid_origin_mm": list(GRID_ORIGIN_MM),
        "cells": {name: list(cell_centre_mm(name)) for name in cell_names()},
    }
