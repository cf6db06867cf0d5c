"""The 4x4 reader's reuse of the last frame's reading: unchanged cells keep theirs, a changed cell is
read again, and a moved board or changed light reads everything again."""

from __future__ import annotations

from functools import cache

import numpy as np

from datasets.tiles.scenes import render_grid_frame
from referee_app.games.grid import GridAdapter
from vision.tiles.reader import GridReading, cell_windows, read_grid_cells
from vision.tiles.reuse import changed_regions

BOARD = {"a1": 6, "b1": 9, "c2": 16, "d3": 11, "a4": 1, "d4": 8, "b3": 13}


@cache
def frame(swap: int | None = None) -> np.ndarray:
    """The board seen by one steady camera, with piece 16 on c2 swapped for `swap`."""
    image = render_grid_frame(BOARD if swap is None else {**BOARD, "c2": swap}, seed=4)
    image.flags.writeable = False
    return image


@cache
def first_reading() -> GridReading:
    return read_grid_cells(frame())


def test_one_changed_cell_is_read_again_and_the_rest_kept() -> None:
    first = first_reading()
    assert first.cells["c2"].number == 16
    image = frame(5)  # piece 16 swapped for piece 5
    again = read_grid_cells(image, first.calibration, first)
    fresh = read_grid_cells(image, first.calibration)
    assert again.cells == fresh.cells  # the same reading as without reuse
    assert again.cells["c2"].number == 5
    assert again.cells["a1"] is first.cells["a1"]  # far from the change: kept, not re-read
    assert again.cells["c2"] is not first.cells["c2"]


def test_a_still_frame_keeps_every_reading() -> None:
    first = first_reading()
    again = read_grid_cells(frame().copy(), first.calibration, first)
    assert all(again.cells[k] is first.cells[k] for k in first.cells)


def test_a_moved_board_or_new_light_reads_everything_again() -> None:
    first = first_reading()
    moved_image = render_grid_frame({**BOARD, "b2": 3}, seed=7)  # another camera pose
    moved = read_grid_cells(moved_image, None, first)  # the board found again: another warp
    assert moved.cells == read_grid_cells(moved_image).cells
    assert moved.cells["b2"].number == 3
    dim = (frame() * 0.85).astype(np.uint8)
    view = read_grid_cells(dim, first.calibration).view
    assert changed_regions(view, first.view, cell_windows(view)) == set(cell_windows(view))


def test_the_adapter_reads_a_changed_cell_after_a_still_one() -> None:
    adapter = GridAdapter()
    assert adapter.read(frame()).items["c2"] == 16
    assert adapter.read(frame().copy()).items["c2"] == 16
    assert adapter.read(frame(5)).items["c2"] == 5
