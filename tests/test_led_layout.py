"""LED layouts: the bundled highway-grid layout, validation messages, the serpentine generator and
`highway-referee led layout`."""

from __future__ import annotations

import json

import pytest

from engine.grid import cell_name
from referee_app.cli import main
from referee_app.led.colors import ColorError, parse_color
from referee_app.led.layout import (
    LayoutError,
    find_layout,
    layout_from_json,
    load_layout,
    rows_from_cells,
    serpentine_layout,
)


def test_bundled_grid_layout_covers_every_engine_cell_serpentine():
    lay = find_layout("highway-grid")
    assert set(lay.cells) == {cell_name(i) for i in range(16)}  # the engine's own cell names
    assert lay.cells["a1"] == (0,) and lay.cells["d1"] == (3,)
    assert lay.cells["d2"] == (4,) and lay.cells["a2"] == (7,)  # second row runs back
    assert lay.seats == (16, 17) and lay.status == {"camera": 18, "mismatch": 19}
    assert lay.led_count == 20 and 0 < lay.brightness <= 1


def test_layout_round_trips_through_json():
    lay = find_layout("highway-grid")
    again = layout_from_json(json.loads(json.dumps(lay.to_json())))
    for key in ("cells", "seats", "status", "rows", "led_count", "game"):
        assert getattr(again, key) == getattr(lay, key)
    assert again.color("illegal") == (255, 0, 0)


def test_serpentine_generator_for_an_arbitrary_board():
    rows = rows_from_cells(["x1", "x2", "x3", "y1", "y2", "y3"], 3)
    lay = serpentine_layout("tokyo-highway", rows, seats=4)
    assert [lay.cells[c][0] for c in ("x1", "x2", "x3", "y1", "y2", "y3")] == [0, 1, 2, 5, 4, 3]
    assert lay.seats == (6, 7, 8, 9) and lay.status == {"camera": 10, "mismatch": 11}
    assert lay.led_count == 12
    straight = serpentine_layout("g", rows, seats=0, status=(), serpentine=False)
    assert straight.cells["y1"] == (3,) and straight.led_count == 6


@pytest.mark.parametrize(("patch", "message"), [
    ({"led_count": 0}, "'led_count' must be an integer 1..1024"),
    ({"cells": {"a1": 25}}, "cells.a1: LED index must be an integer 0..19"),
    ({"seats": [16, 1]}, "LED 1 is used twice"),
    ({"status": {"kettle": 3}}, "status: unknown lights ['kettle']"),
    ({"colors": {"legal": "#zz0000"}}, "colors.legal: '#zz0000' is not a colour"),
    ({"brightness": 3}, "'brightness' must be a number 0..1"),
    ({"rows": [["a1", "q9"]]}, "rows name cells with no LED: ['q9']"),
    ({"speed": 1}, "unknown keys ['speed']"),
])
def test_bad_layouts_name_the_file_and_key(tmp_path, patch, message):
    data = find_layout("highway-grid").to_json() | patch
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(data))
    with pytest.raises(LayoutError) as info:
        load_layout(path)
    assert str(path) in str(info.value) and message in str(info.value)


def test_unreadable_or_unknown_layouts(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text("{ not json")
    with pytest.raises(LayoutError, match=r"broken.json: not valid JSON \(line 1"):
        load_layout(broken)
    with pytest.raises(LayoutError, match="bundled games \\(highway-dice, highway-grid"):
        find_layout("no-such-game")


def test_colour_parsing():
    assert parse_color("#FF8000") == (255, 128, 0) == parse_color([255, 128, 0])
    assert parse_color("amber") == (255, 140, 0)
    for bad in ("#12345", [1, 2], [0, 0, 256], True):
        with pytest.raises(ColorError):
            parse_color(bad, "colors.x")


def test_cli_generates_a_layout_file_from_rows(tmp_path, capsys):
    rows = tmp_path / "rows.txt"
    rows.write_text("# a 2x3 board\nr1c1 r1c2 r1c3\nr2c1, r2c2, r2c3\n")
    out = tmp_path / "lay.json"
    assert main(["led", "layout", "--game", "demo", "--rows-file", str(rows), "--seats", "3",
                 "-o", str(out)]) == 0
    assert "11 LEDs (6 cells, 3 seats, 2 status lights)" in capsys.readouterr().out
    lay = load_layout(out)
    assert lay.cells["r2c1"] == (5,) and lay.seats == (6, 7, 8)


def test_cli_layout_rejects_cells_that_do_not_fill_rows(capsys):
    assert main(["led", "layout", "--game", "g", "--cells", "a,b,c", "--width", "2"]) == 2
    assert "3 cells do not split into rows of 2" in capsys.readouterr().err


def test_rows_from_positions_groups_by_y_and_sorts_by_x():
    from referee_app.led.layout import rows_from_positions

    points = [("c", 30, 1), ("a", 10, 0), ("b", 20, 2.4), ("e", 20, 21), ("d", 5, 19)]
    assert rows_from_positions(points, tolerance=5) == [["a", "b", "c"], ["d", "e"]]


def test_bundled_dice_layout_covers_the_engine_board(repo_dir):
    board = json.loads((repo_dir / "engine/dice_road/boards/default.json").read_text())
    ids = {c["id"] for c in board["cells"]}
    lay = find_layout("highway-dice")
    assert set(lay.cells) == ids
    assert sorted(i for v in lay.cells.values() for i in v) == list(range(len(ids)))
    assert len(lay.seats) == 4 and lay.led_count == len(ids) + 6


def test_cli_layout_from_a_board_file(tmp_path, capsys):
    board = tmp_path / "board.json"
    board.write_text(json.dumps({"pitch": 10, "cells": [
        {"id": "p", "x": 0, "y": 0, "w": 8, "h": 8}, {"id": "q", "x": 10, "y": 1, "w": 8, "h": 8},
        {"id": "r", "x": 10, "y": 10, "w": 8, "h": 8}]}))
    out = tmp_path / "lay.json"
    assert main(["led", "layout", "--game", "g", "--board-json", str(board), "--seats", "0", "-o", str(out)]) == 0
    lay = load_layout(out)
    assert lay.rows == (("p", "q"), ("r",)) and lay.cells["r"] == (2,)
    board.write_text(json.dumps({"cells": [{"id": "p", "x": "left"}]}))
    assert main(["led", "layout", "--game", "g", "--board-json", str(board)]) == 2
    assert 'cells[0] needs "id", "x" and "y" numbers' in capsys.readouterr().err
