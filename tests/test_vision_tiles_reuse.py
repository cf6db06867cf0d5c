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


def _changed_boxes_by_integrals(now: np.ndarray, last: np.ndarray, boxes: dict) -> set:
    """The rule `changed_boxes` applies, written out plainly (per box, from integral images)."""
    import cv2

    from vision.tiles.reuse import BRIGHTNESS_STEP, CHANGED_SHARE, MIN_CHANGED_PX, PIXEL_STEP

    diff = cv2.absdiff(now, last)
    count = cv2.integral((diff.max(axis=2) > PIXEL_STEP).astype(np.uint8))
    gray = [cv2.cvtColor(v, cv2.COLOR_BGR2GRAY).astype(np.int16) for v in (now, last)]
    shifts = cv2.integral(gray[0] - gray[1])
    h, w = diff.shape[:2]
    out = set()
    for name, (x0, y0, x1, y1) in boxes.items():
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        area = max(1, (x1 - x0) * (y1 - y0))
        moved = count[y1, x1] - count[y0, x1] - count[y1, x0] + count[y0, x0]
        shift = shifts[y1, x1] - shifts[y0, x1] - shifts[y1, x0] + shifts[y0, x0]
        if moved > max(MIN_CHANGED_PX, CHANGED_SHARE * area) or abs(shift) / area > BRIGHTNESS_STEP:
            out.add(name)
    return out


def test_changed_boxes_applies_its_rule_to_every_box() -> None:
    """Every box at once (by row bands, without integral images) gives the plain rule's answer:
    boxes reaching past the image, new light, blur, noise and a few changed pixels."""
    import cv2

    from vision.tiles.reuse import changed_boxes

    rng = np.random.default_rng(2)
    changed = 0
    for trial in range(40):
        h, w = (int(v) for v in rng.integers(40, 240, 2))
        last = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
        now = [cv2.add(last, np.full_like(last, int(rng.integers(1, 9)))), cv2.GaussianBlur(last, (0, 0), 0.8),
               np.clip(last + rng.integers(-30, 31, last.shape), 0, 255).astype(np.uint8), last.copy()][trial % 4]
        y, x = int(rng.integers(0, h - 8)), int(rng.integers(0, w - 8))
        now[y : y + 6, x : x + 6, trial % 3] ^= 0x80
        boxes = {"all": (0, 0, w, h)}
        for i in range(30):
            x0, y0 = int(rng.integers(-20, w)), int(rng.integers(-20, h))
            x1, y1 = x0 + int(rng.integers(1, 120)), y0 + int(rng.integers(1, 120))
            if x1 > 0 and y1 > 0:  # (a box wholly before the image has no pixels to compare)
                boxes[str(i)] = (x0, y0, x1, y1)
        want = _changed_boxes_by_integrals(now, last, boxes)
        assert changed_boxes(now, last, boxes) == want
        changed += len(want)
    assert changed > 100
