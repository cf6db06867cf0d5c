"""Dice read zone by zone on the printed dice-road board (what the dice road's referee loop uses)."""

from __future__ import annotations

import numpy as np
import pytest

from datasets.camera import random_pose, table_texture
from datasets.demo_matches import add_hand
from datasets.dice.scenes import render_dice_on_sheet
from engine.dice_road import load_board
from referee_app.games.dice import TRAY, BoardDiceReader, cell_key, pool_key


def board_camera():
    """The printed dice board filmed by one fixed 1280x720 camera: (board, pose, shoot); `shoot(dice,
    at=pose, noise=5)` renders the dice on it, from another camera pose if given."""
    import cv2

    from drawing.dice_board import printable_board

    board = load_board()
    size = (1280, 720)
    mm = (float(board.width), float(board.height))
    _svg, png, _ = printable_board(board, dpi=100)
    sheet = cv2.cvtColor(cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
    pose = random_pose(np.random.default_rng(3), mm, size, height_mm=(850, 900), tilt_deg=(3, 7),
                       yaw_deg=(-3, 3), fill=(0.93, 0.96))
    table = np.ascontiguousarray(table_texture(np.random.default_rng(4), size))

    def shoot(dice, at=pose, noise=5):
        return render_dice_on_sheet(sheet, mm, dice, at, rng=np.random.default_rng(noise), effects=0.3,
                                    background=table)[0]

    return board, pose, shoot


@pytest.fixture(scope="module")
def scene():
    board, _pose, shoot = board_camera()
    return board, shoot


def die(x, y, value, colour, angle=10.0):
    return {"x_mm": x, "y_mm": y, "value": value, "color": colour, "size_mm": 16.0, "angle": angle}


def test_cells_pools_and_tray_are_read_with_values_and_colours(scene):
    board, shoot = scene
    reader = BoardDiceReader(board)
    assert reader.read(shoot([])).items == {}  # the first view teaches the empty sheet
    cells = ["W01", "W02", "B01", "B02", "G01", "Y01"]
    colours = ["white", "white", "blue", "blue", "green", "yellow"]
    dice = [die(board.cells[c].x, board.cells[c].y, v, col, 7 * v)
            for c, v, col in zip(cells, [1, 3, 2, 4, 5, 6], colours, strict=True)]
    pool = board.pools[1]
    dice.append(die(pool.x + pool.w / 2, pool.y + pool.h / 2, 6, "blue", 30))
    t = board.tray
    dice += [die(t.x + 30, t.y + 50, 5, "white", 40), die(t.x + 75, t.y + 60, 2, "white", 70)]
    obs = reader.read(shoot(dice))
    assert obs.blocked is None
    want = {cell_key(c): (v, s) for c, v, s in zip(cells, [1, 3, 2, 4, 5, 6], [0, 0, 1, 1, 2, 3], strict=True)}
    want[pool_key(1)] = 6
    want[TRAY] = (2, 5)
    assert obs.items == want
    assert obs.annotated is not None and obs.annotated.shape == (720, 1280, 3)


def test_a_hand_over_the_board_is_not_read_as_dice(scene):
    board, shoot = scene
    reader = BoardDiceReader(board)
    reader.read(shoot([]))
    image = add_hand(shoot([]), np.random.default_rng(1))
    obs = reader.read(image)
    assert obs.blocked is not None or obs.items == {}


def test_without_markers_the_view_is_blocked(scene):
    board, shoot = scene
    reader = BoardDiceReader(board)
    blank = np.full((720, 1280, 3), 120, np.uint8)
    obs = reader.read(blank)
    assert obs.items == {} and "markers" in obs.blocked


def test_without_a_clean_pip_count_the_crop_reader_reads_the_value(scene, monkeypatch):
    """Pips first: when the pips do not form a clean d6 face, the learned crop reader decides, with less
    trust."""
    import vision.zones

    board, shoot = scene
    monkeypatch.setattr(vision.zones, "count_pips", lambda *a, **k: None)
    reader = BoardDiceReader(board, value_order="pips")
    reader.read(shoot([]))
    cells = ["W01", "B01", "G01", "Y01"]
    values = [2, 4, 5, 6]
    dice = [die(board.cells[c].x, board.cells[c].y, v, col, 11 * v)
            for c, v, col in zip(cells, values, ["white", "blue", "green", "yellow"], strict=True)]
    obs = reader.read(shoot(dice))
    read = {k: v[0] for k, v in obs.items.items() if k.startswith("cell:")}
    assert read == {cell_key(c): v for c, v in zip(cells, values, strict=True)}
    assert all(obs.confidence[k] <= 0.7 for k in read)
