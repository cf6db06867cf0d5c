"""A light die's pips are counted in dim light (vision/zones.py `count_pips`, vision/zones_one.py
`pip_depth`): a pip had to lie 80 grey levels below the paper, set in full light; in the simulator's
dim room (45 % of the light) the whole contrast of a pip is about 90 levels and only its blurred core
passed, too small to be a pip (tuning seed 8 of the dice-road match, 1080p / 850 mm / 30 degrees dim:
a white 2 beside a white 6 in the tray never counted, the crop reader doubting the blob, two rolls
missed)."""

from __future__ import annotations

import numpy as np
import pytest
from test_vision_zones import board_camera
from test_zones_off_centre import dim

from referee_app.games.dice import BoardDiceReader
from vision.zones import count_pips


@pytest.fixture(scope="module")
def sheet_view():
    """(shoot a white die on B03 and rectify the frame, the die's box on that view, die side px)."""
    board, _pose, shoot = board_camera()
    reader = BoardDiceReader(board)
    reader.read(shoot([]))
    px = reader.px_per_mm
    c = board.cells["B03"]

    def view(value: int, light: float, noise: int = 7) -> np.ndarray:
        d = {"x_mm": c.x, "y_mm": c.y, "value": value, "color": "white", "size_mm": 16.0, "angle": 15.0}
        frame = shoot([d], noise=noise)
        return reader.localiser.calibration.rectify(dim(frame) if light < 1 else frame, px)

    box = np.array([c.x - 8, c.y - 8, c.x + 8, c.y + 8], np.float32) * px
    return view, box, 16.0 * px


@pytest.mark.parametrize("value", [2, 3, 4, 5, 6])
def test_a_white_dies_pips_are_counted_in_dim_light(sheet_view, value) -> None:
    view, box, side = sheet_view
    got = count_pips(view(value, 0.45), box, side)
    assert got is not None and got[0] == value  # main: None for each value (noise 7)


@pytest.mark.parametrize("value", [2, 5])
def test_full_light_counts_as_before(sheet_view, value) -> None:
    view, box, side = sheet_view
    got = count_pips(view(value, 1.0), box, side)
    assert got is not None and got[0] == value


def test_the_pip_depth_is_unchanged_in_full_light_and_scales_below_it() -> None:
    from vision.zones_one import pip_depth

    assert pip_depth(250.0, 200.0) == 80.0  # full light: the old 80 levels
    assert pip_depth(115.0, 100.0) == pytest.approx(0.35 * 115.0)  # dim: a share of the paper
    assert pip_depth(115.0, 20.0) == pytest.approx(0.55 * 95.0)  # and 55 % of the way to the darkest
