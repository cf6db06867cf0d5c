"""A token lying on another that hides all but a sliver of it: the cell is refused ("cannot read"
with the region), never read as the top token. The scene is item 29 of
`python -m datasets.tiles.generate OUT --count 30 --seed 18 --look fonts`, whose two fault cells the
reader before the outline check read as 12 and 2 with confidence over 0.99."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from datasets.tiles.scenes import grid_scene
from referee_app.cli import main
from vision.tiles import read_grid_cells
from vision.tiles.reader import SHAPE_FIT, _shape_fit

BOARD = {"b1": 6, "a2": 10, "b3": 14, "c3": 4, "d3": 8, "d4": 2}
SCENE_SEED = 1312561121  # that item's scene seed; 2 fault pieces, each lying on a board piece
FAULT_CELLS = ("b1", "d4")


@pytest.fixture(scope="module")
def scene() -> tuple[np.ndarray, list, dict]:
    return grid_scene(BOARD, SCENE_SEED, "fonts", 2, 1.0)


def test_scene_is_the_one_with_covered_pieces(scene: tuple[np.ndarray, list, dict]) -> None:
    _, objects, cells = scene
    assert len(objects) == len(BOARD) + 2
    assert [c for c in FAULT_CELLS if cells[c] == "unreadable"] == list(FAULT_CELLS)


def test_covered_piece_cells_are_refused_with_region(scene: tuple[np.ndarray, list, dict]) -> None:
    image, _, cells = scene
    reading = read_grid_cells(image)
    for cell in FAULT_CELLS:
        got = reading.cells[cell]
        assert got.status == "unreadable" and got.number is None, (cell, got)
        assert got.region_mm is not None and got.reason
    # the refusal is not bought by refusing everything: the single pieces still read
    for cell, truth in cells.items():
        if isinstance(truth, int):
            assert reading.cells[cell].number == truth, (cell, reading.cells[cell])


def test_eval_cli_counts_no_confident_wrong_cell(scene: tuple[np.ndarray, list, dict], tmp_path: Path) -> None:
    image, objects, cells = scene
    folder = tmp_path / "set"
    folder.mkdir()
    cv2.imwrite(str(folder / "overlap.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    h, w = image.shape[:2]
    item = {"image": "overlap.jpg", "width": w, "height": h, "objects": objects, "cells": cells}
    (folder / "labels.json").write_text(json.dumps({"items": [item]}), encoding="utf-8")
    out = tmp_path / "eval.json"
    assert main(["eval", "tiles", str(folder), "--json", str(out)]) == 0
    per_cell = json.loads(out.read_text())["per_cell"]
    assert per_cell["confident_wrong"] == 0
    assert per_cell["faults_refused"] == per_cell["faults"] == 2


def _square(size: int, angle: float, centre: tuple[int, int] = (60, 60)) -> np.ndarray:
    blob = np.zeros((120, 120), np.uint8)
    box = cv2.boxPoints((centre, (size, size), angle)).astype(np.int32)
    cv2.fillPoly(blob, [box], 1)
    return blob


def test_single_token_shapes_fit_and_a_sliver_does_not() -> None:
    square = _square(70, 20.0)
    disc = cv2.circle(np.zeros((120, 120), np.uint8), (60, 60), 35, 1, -1)
    rounded = cv2.morphologyEx(_square(60, 35.0), cv2.MORPH_DILATE, np.ones((11, 11), np.uint8))
    for blob in (square, disc, rounded):
        assert _shape_fit(blob) > SHAPE_FIT + 0.03
    # a turned token under a square one, showing a sliver about 8 % of a token's width
    under = _square(70, 0.0, (60, 60))
    over = _square(70, 30.0, (66, 64))
    assert _shape_fit(np.maximum(under, over)) < SHAPE_FIT
