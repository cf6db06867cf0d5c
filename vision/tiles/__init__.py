"""Numbered pieces (1..16) on the printed 4x4 Highway board. See docs/vision/tiles.md."""

from vision.tiles.geometry import board_geometry, cell_centre_mm, cell_names
from vision.tiles.reader import CellReading, GridReading, read_grid_board, read_grid_cells, read_tiles

__all__ = [
    "CellReading",
    "GridReading",
    "board_geometry",
    "cell_centre_mm",
    "cell_names",
    "read_grid_board",
    "read_grid_cells",
    "read_tiles",
]
