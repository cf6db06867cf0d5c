"""Numbered pieces on the 4x4 board: printing, reading through the camera, faults, evaluation CLI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from datasets.tiles.scenes import grid_scene, render_grid_frame
from referee_app.cli import main
from vision.tiles import board_geometry, read_grid_board, read_grid_cells, read_tiles
from vision.types import VisionError

SAMPLES = Path(__file__).resolve().parents[1] / "datasets" / "samples" / "tiles"


def test_print_highway_grid_writes_real_size_sheets(tmp_path: Path) -> None:
    assert main(["print", "highway-grid", "--out", str(tmp_path), "--dpi", "100"]) == 0
    svg = (tmp_path / "highway-grid-board.svg").read_text()
    assert 'width="200mm"' in svg and 'height="200mm"' in svg
    assert (tmp_path / "highway-grid-pieces.png").read_bytes()[:4] == b"\x89PNG"
    geo = json.loads((tmp_path / "highway-grid-geometry.json").read_text())
    assert geo["cells"]["a1"] == [46.0, 46.0] and geo["cells"]["d4"] == [154.0, 154.0]
    assert geo == json.loads(json.dumps(board_geometry()))


def test_board_read_through_the_camera_with_turned_pieces() -> None:
    board = {"a1": 6, "b1": 9, "c2": 16, "d3": 11, "a4": 1, "d4": 8, "b3": 13}
    image = render_grid_frame(board, seed=4, effects=0.6)
    got = read_grid_board(image)
    assert set(got) == {f"{c}{r}" for c in "abcd" for r in range(1, 5)}
    for cell, (number, conf) in got.items():
        if cell in board:
            assert number == board[cell], (cell, number, conf)
            assert conf >= 0.6
        else:
            assert number is None and conf > 0.5, (cell, number, conf)


def test_six_and_nine_are_told_apart_upside_down() -> None:
    # the same pieces turned by the seed to many angles: 6 and 9 never swap
    for seed in range(3):
        got = read_grid_board(render_grid_frame({"b2": 6, "c3": 9}, seed=100 + seed, effects=0.3))
        assert got["b2"][0] in (6, None) and got["c3"][0] in (9, None)
        assert got["b2"][0] == 6 or got["c3"][0] == 9


def test_faults_are_refused_with_their_region() -> None:
    refused = 0
    for seed in range(4):
        image, _, truth = grid_scene({"a1": 3, "c3": 12}, seed=200 + seed, faults=1, effects=0.3)
        reading = read_grid_cells(image)
        for cell, t in truth.items():
            c = reading.cells[cell]
            if t == "unreadable":
                assert c.status == "unreadable", (seed, cell, c)
                assert c.region_mm is not None and c.reason
                refused += 1
            elif isinstance(t, int):
                assert c.number in (t, None), (seed, cell, c)  # never a confident wrong number
    assert refused >= 2


def test_read_tiles_boxes_land_on_the_pieces() -> None:
    image, objects, _ = grid_scene({"b2": 5, "d1": 14}, seed=9, effects=0.3)
    det = read_tiles(image)
    assert det.kind == "tile" and len(det) == 2
    assert sorted(det.values.tolist()) == [5, 14]
    for obj in objects:
        x0, y0, x1, y1 = obj["bbox"]
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        assert any(b[0] <= cx <= b[2] and b[1] <= cy <= b[3] for b in det.xyxy)


def test_no_board_in_view_is_a_clear_error() -> None:
    with pytest.raises(VisionError, match="marker"):
        read_grid_board(np.full((360, 640, 3), 127, np.uint8))


def test_eval_tiles_on_the_shipped_sample(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    assert main(["eval", "tiles", str(SAMPLES), "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    for key in ("recall", "precision", "value_accuracy", "confusion", "per_cell"):
        assert key in report
    assert report["objects"] > 10
    # the sample mixes printed pieces with foreign fonts and round tokens (some never trained on):
    # unclear pieces are refused, so value accuracy counts refusals as misses
    assert report["value_accuracy"] >= 0.7 and report["recall"] >= 0.75
    cells = report["per_cell"]
    assert cells["cell_accuracy"] >= 0.8 and cells["confident_wrong"] == 0
    assert cells["faults_refused"] == cells["faults"] > 0
    assert len(report["confusion"]["matrix"]) == 17


def test_eval_tiles_bad_folder_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "tiles", str(tmp_path / "nope"), "--json", str(tmp_path / "r.json")]) == 2
    assert "no such folder" in capsys.readouterr().err
    (tmp_path / "labels.json").write_text('{"items": [{"image": "missing.jpg", "objects": []}]}')
    assert main(["eval", "tiles", str(tmp_path)]) == 2
    assert "missing.jpg" in capsys.readouterr().err


def test_loose_tokens_without_a_board_in_foreign_looks() -> None:
    """Round/square tokens in fonts held out of training, on a plain table: never a wrong number."""
    import cv2

    from datasets.tiles.tokens import HELD_OUT_FONTS, random_look, render_token

    rng = np.random.default_rng(2)
    img = np.full((480, 640, 3), (60, 120, 90), np.uint8)
    placed = {3: (100, 100), 6: (300, 120), 9: (500, 100), 12: (150, 330), 15: (420, 320)}
    for n, (x, y) in placed.items():
        t = render_token(n, random_look(rng, n, HELD_OUT_FONTS), 4)
        M = cv2.getRotationMatrix2D((t.shape[1] / 2, t.shape[0] / 2), rng.uniform(0, 360), 1.0)
        M[:, 2] += (x - t.shape[1] / 2, y - t.shape[0] / 2)
        w = cv2.warpAffine(t, M, (640, 480))
        a = w[..., 3:4] / 255.0
        img = (img * (1 - a) + w[..., 2::-1] * a).astype(np.uint8)
    det = read_tiles(img)
    assert len(det) == 5
    read = 0
    for (cx, cy), value in zip(det.centers(), det.values, strict=True):
        truth = min(placed, key=lambda n: (placed[n][0] - cx) ** 2 + (placed[n][1] - cy) ** 2)
        assert value in (truth, -1)
        read += int(value == truth)
    assert read >= 3


def test_a_saved_calibration_reads_frames_whose_markers_are_hidden() -> None:
    from vision.localise import Calibration, SheetSpec, localise
    from vision.tiles import geometry as geo

    first = render_grid_frame({"a1": 2}, seed=21, effects=0.2)
    cal = Calibration.from_json(localise(first, SheetSpec(geo.SHEET, *geo.SHEET_MM)).to_json())
    later = render_grid_frame({"a1": 2, "c3": 15}, seed=21, effects=0.2)  # same camera, a move later
    corners = cal.to_image(np.array([[0, 0], [200, 0], [200, 200], [0, 200]], float))
    hidden = later.copy()
    for x, y in corners.astype(int):  # hands over the markers
        hidden[max(0, y - 60) : y + 60, max(0, x - 60) : x + 60] = (40, 60, 80)
    with pytest.raises(VisionError):
        read_grid_board(hidden)
    got = read_grid_board(hidden, cal)
    assert got["a1"][0] == 2 and got["c3"][0] == 15 and got["b2"] == (None, got["b2"][1])
