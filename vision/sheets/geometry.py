"""The printed Railroad Ink player sheet as plain data (mm on the sheet).

7 x 7 squares of 20 mm; squares are named a1..g7 (column letter a-g left to right, row 1-7 top to
bottom). Exits sit outside the grid at the 2nd, 4th and 6th square of every edge, alternating
highway and railway as on the game's own sheet. Routes are drawn in dark pen; everything printed
is light (grey, pale blue) so that only the pen reads as ink. The round number goes in the
square's top-left corner.
"""

from __future__ import annotations

SHEET = "railroad-ink"
SHEET_MM = (200.0, 200.0)
MARKER_MM = 20.0
MARKER_MARGIN_MM = 8.0
SQUARES = 7
SQUARE_MM = 20.0
GRID_ORIGIN_MM = (30.0, 30.0)
COLS = "abcdefg"
GRID_RGB = (165, 185, 205)
CENTRE_RGB = (228, 236, 244)  # the central 3 x 3 squares are tinted, as on the game's sheet
NUMBER_BOX_MM = 7.0  # the round number is written in this top-left corner box
# Exits: (edge, index along the edge 0..6, kind). Kinds alternate H/R around the sheet.
EXITS = [
    ("N", 1, "H"),
    ("N", 3, "R"),
    ("N", 5, "H"),
    ("E", 1, "R"),
    ("E", 3, "H"),
    ("E", 5, "R"),
    ("S", 1, "H"),
    ("S", 3, "R"),
    ("S", 5, "H"),
    ("W", 1, "R"),
    ("W", 3, "H"),
    ("W", 5, "R"),
]


def square_names() -> list[str]:
    return [f"{COLS[c]}{r + 1}" for r in range(SQUARES) for c in range(SQUARES)]


def square_origin_mm(name: str) -> tuple[float, float]:
    col, row = COLS.index(name[0]), int(name[1:]) - 1
    return (GRID_ORIGIN_MM[0] + col * SQUARE_MM, GRID_ORIGIN_MM[1] + row * SQUARE_MM)


def sheet_geometry() -> dict[str, object]:
    return {
        "sheet": SHEET,
        "sheet_mm": list(SHEET_MM),
        "square_mm": SQUARE_MM,
        "grid_origin_mm": list(GRID_ORIGIN_MM),
        "squares": SQUARES,
        "exits": [list(e) for e in EXITS],
        "number_box_mm": NUMBER_BOX_MM,
    }
