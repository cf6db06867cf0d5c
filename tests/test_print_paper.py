"""`print highway-dice|tokyo-mat --paper a4|letter`: large sheets as tiles for home printers, and the
dice board read from such tiles taped together with gaps and small turns between them."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from datasets.dice.assembled import assemble, photograph, seam_dice, seam_expected
from engine.dice_road import load_board
from referee_app.cli import main
from referee_app.games.dice import DiceAdapter
from vision.localise import detect_markers, localise
from vision.tiled import tiled_sheet_from_json

DPI = 100.0
PX = DPI / 25.4


def _print(tmp_path: Path, *args: str) -> Path:
    out = tmp_path / "print"
    assert main(["print", *args, "--out", str(out), "--dpi", f"{DPI:g}"]) == 0
    return out


def _rgb(path: Path) -> np.ndarray:
    return cv2.cvtColor(cv2.imread(str(path), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)


@pytest.fixture(scope="module")
def a4_board(tmp_path_factory):
    out = _print(tmp_path_factory.mktemp("board"), "highway-dice", "--paper", "a4")
    meta = json.loads((out / "highway-dice-default-a4-tiles.json").read_text())
    return out, meta


def test_the_a2_board_comes_as_six_a4_pages_each_tile_located_by_its_own_markers(a4_board):
    out, meta = a4_board
    assert [t["tile"] for t in meta["tiles"]] == ["r1c1", "r1c2", "r1c3", "r2c1", "r2c2", "r2c3"]
    assert sorted(p.name for p in out.glob("*.svg"))[0] == "highway-dice-default-a4-r1c1.svg"
    assert 'width="210mm" height="297mm"' in (out / "highway-dice-default-a4-r2c2.svg").read_text()
    ids = [m for t in meta["tiles"] for m in t["markers"]]
    assert len(ids) == len(set(ids))  # every marker names one place on one tile
    plan = tiled_sheet_from_json(meta)
    for tile, info in zip(plan.tiles, meta["tiles"], strict=True):
        page = cv2.imread(str(out / f"highway-dice-default-a4-{tile.name}.png"), cv2.IMREAD_COLOR)
        seen = detect_markers(page)
        assert set(tile.marker_centres()) <= set(seen), tile.name
        assert len(tile.markers) >= 3, tile.name
        cal = localise(page, tile, markers={m: c for m, c in seen.items() if m in tile.marker_centres()})
        # the tile's corners come back where the page put them
        ox, oy = info["tile_on_page_mm"]
        x0, y0, x1, y1 = tile.rect
        corners_px = np.array([[ox, oy], [ox + x1 - x0, oy], [ox + x1 - x0, oy + y1 - y0]]) * PX
        assert np.abs(cal.to_sheet(corners_px) - [[x0, y0], [x1, y0], [x1, y1]]).max() < 1.0


def test_letter_pages_carry_the_same_tiles_and_say_where_each_goes(tmp_path, a4_board):
    out = _print(tmp_path, "highway-dice", "--paper", "letter")
    meta = json.loads((out / "highway-dice-default-letter-tiles.json").read_text())
    assert [t["markers"] for t in meta["tiles"]] == [t["markers"] for t in a4_board[1]["tiles"]]
    svg = (out / "highway-dice-default-letter-r2c2.svg").read_text()
    assert 'width="215.9mm" height="279.4mm"' in svg
    assert "tile row 2 col 2 of 2 x 3" in svg and "tape to the right of row 2 col 1; below row 1 col 2" in svg


def test_the_tokyo_mat_splits_into_four_a4_pages(tmp_path):
    out = _print(tmp_path, "tokyo-mat", "--paper", "a4")
    meta = json.loads((out / "tokyo-mat-a3-a4-tiles.json").read_text())
    assert [t["tile"] for t in meta["tiles"]] == ["r1c1", "r1c2", "r2c1", "r2c2"]
    assert all(len(t["markers"]) == 1 for t in meta["tiles"])  # the mat's own corner markers only
    assert 'width="297mm" height="210mm"' in (out / "tokyo-mat-a3-a4-r1c1.svg").read_text()


def test_a_bad_paper_name_is_refused_and_nothing_written(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["print", "highway-dice", "--paper", "a3", "--out", str(tmp_path / "x")])
    assert "invalid choice" in capsys.readouterr().err and not (tmp_path / "x").exists()


def _assembled(out: Path, meta: dict, seed: int):
    plan = tiled_sheet_from_json(meta)
    pages = {t.name: _rgb(out / f"highway-dice-default-a4-{t.name}.png") for t in plan.tiles}
    on_page = {t["tile"]: tuple(t["tile_on_page_mm"]) for t in meta["tiles"]}
    return assemble(pages, plan, on_page, PX, np.random.default_rng(seed))


def _score(items: dict, want: dict) -> tuple[int, int]:
    """(zones read exactly right, zones read wrong or seen where nothing stands)."""
    return (sum(items.get(k) == v for k, v in want.items()),
            sum(1 for k, v in items.items() if want.get(k) != v))


def test_the_assembled_board_reads_as_well_as_the_one_piece_print(a4_board, tmp_path):
    """A board taped from the A4 tiles with 2-3 mm gaps and turns of up to 0.8 degrees, read through
    the dice adapter, against the same dice on the one-piece print under the same camera settings."""
    out, meta = a4_board
    board = load_board()
    want = seam_expected()
    one = _rgb(_print(tmp_path, "highway-dice") / "highway-dice-default.png")
    seed = 11
    sheet = _assembled(out, meta, seed)
    empty, full = photograph(sheet.image, sheet.size_mm, seam_dice(board, sheet.where), seed)
    adapter = DiceAdapter()
    assert adapter.read(empty).items == {}  # the first view teaches the empty board
    tiled = _score(adapter.read(full).items, want)
    assert adapter._reader.tiled is True
    e1, f1 = photograph(one, (float(board.width), float(board.height)), seam_dice(board, lambda x, y: (x, y)), seed)
    plain = DiceAdapter()
    plain.read(e1)
    single = _score(plain.read(f1).items, want)
    assert plain._reader.tiled is False
    # of 12 zones both read 11 right and none wrong here; on eight other seeds the one-piece print reads
    # 77 of 96 right and the tiles 70 (docs/formats/printing-tiles.md): one zone either way is allowed
    assert tiled[0] >= single[0] - 1 and tiled[1] <= single[1] + 1, (tiled, single)


def test_a_board_that_cannot_hold_its_tile_markers_is_refused_before_anything_is_written(tmp_path, monkeypatch,
                                                                                        capsys):
    import drawing.paper

    monkeypatch.setattr(drawing.paper, "TILE_MARKER_IDS", (24, 25))  # as if the board left room for two
    out = tmp_path / "x"
    assert main(["print", "highway-dice", "--paper", "a4", "--out", str(out)]) != 0
    assert "cannot tile board 'default'" in capsys.readouterr().err and not out.exists()
