"""Small-dice copies of the detector's real training photos (issue 21, datasets/yolo/small_dice.py):
dice cut from labelled photos are pasted in small, labelled, never over a labelled die; `train dice
--small-copies N` adds N such copies per real training photo. No shared data needed."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from datasets.yolo.dice import DiceSetSpec, build_dice_set
from datasets.yolo.small_dice import (
    INPUT_PX,
    MAX_OVERLAP,
    SMALL_AT_INPUT,
    _overlap,
    cut_dice,
    paste_small_dice,
)


def _photo(seed: int, size: int = 640) -> tuple[np.ndarray, np.ndarray]:
    """A grey table with a few large white dice (black pips) and their whole-die boxes."""
    rng = np.random.default_rng(seed)
    img = np.full((size, size, 3), 90, np.uint8)
    boxes = []
    for k in range(3):
        x, y, s = 60 + 180 * k, int(rng.integers(60, 400)), int(rng.integers(60, 100))
        cv2.rectangle(img, (x, y), (x + s, y + s), (235, 235, 235), -1)
        cv2.circle(img, (x + s // 2, y + s // 2), s // 8, (20, 20, 20), -1)
        boxes.append([x, y, x + s, y + s])
    return img, np.array(boxes, np.float64)


def test_pasted_dice_are_small_labelled_and_clear_of_the_others() -> None:
    img, boxes = _photo(1)
    cuts = cut_dice(img, boxes)
    assert len(cuts) == 3
    out, placed = paste_small_dice(img, boxes, cuts, np.random.default_rng(0))
    assert np.array_equal(placed[:3], boxes) and len(placed) > 3
    side = np.maximum(placed[3:, 2] - placed[3:, 0], placed[3:, 3] - placed[3:, 1]) * INPUT_PX / 640
    assert (side >= SMALL_AT_INPUT[0] - 1).all() and (side <= SMALL_AT_INPUT[1] + 1).all()
    for i, b in enumerate(placed[3:]):
        assert _overlap(b, placed[:3 + i]) <= MAX_OVERLAP
        x0, y0, x1, y1 = (int(round(v)) for v in b)
        patch = out[y0:y1, x0:x1].astype(int)
        assert patch.max() > 200  # a white die was pasted there (the table is grey 90)
    # the labelled dice are untouched
    for x0, y0, x1, y1 in boxes.astype(int):
        assert np.array_equal(out[y0 + 3:y1 - 3, x0 + 3:x1 - 3], img[y0 + 3:y1 - 3, x0 + 3:x1 - 3])


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "set"
    folder.mkdir()
    items = []
    for k in range(2):
        img, boxes = _photo(10 + k)
        cv2.imwrite(str(folder / f"p{k}.jpg"), img)
        items.append({"image": f"p{k}.jpg", "width": 640, "height": 640,
                      "objects": [{"kind": "die", "value": 1, "bbox": list(map(float, b)), "color": None,
                                   "endpoints": None} for b in boxes]})
    (folder / "labels.json").write_text(json.dumps({"box_convention": "whole_die", "items": items}))
    return folder


def test_the_set_gets_one_labelled_copy_per_real_photo(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    plain = build_dice_set(tmp_path / "plain", DiceSetSpec(real_folder=folder, real_first=2, renders=0),
                           show_progress=False)
    more = build_dice_set(tmp_path / "more", DiceSetSpec(real_folder=folder, real_first=2, renders=0,
                                                         small_copies=1), show_progress=False)
    assert plain["images"]["train"] == 2 and more["images"]["train"] == 4
    assert more["small_dice_pasted"] > 0
    assert more["boxes"]["train"] == 2 * plain["boxes"]["train"] + more["small_dice_pasted"]
    copies = sorted((tmp_path / "more" / "labels" / "train").glob("small0_*.txt"))
    assert len(copies) == 2 and all(len(c.read_text().splitlines()) > 3 for c in copies)


def test_small_copies_need_the_one_class_scheme(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="small_copies"):
        build_dice_set(tmp_path / "x", DiceSetSpec(real_folder=_folder(tmp_path), renders=0, scheme="value",
                                                   small_copies=1), show_progress=False)


def test_the_detector_card_names_the_small_dice_copies(tmp_path: Path) -> None:
    from vision.learned.card import render_card

    onnx = tmp_path / "d.onnx"
    onnx.write_bytes(b"0" * 1000)
    side = {"model": "yolov8n.yaml", "init": None, "imgsz": 320, "names": ["die"], "epochs_done": 1,
            "epochs_planned": 1, "train_photos": {"epanemu_d6": ["a.jpg"]}, "synthetic_val": {},
            "data": {"images": {"train": 2, "val": 0}, "boxes": {"train": 9, "val": 0},
                     "pip_boxes_grown": None, "small_dice_pasted": 5,
                     "spec": {"seed": 1, "surface_share": 0.0, "small_copies": 1}}}
    assert "5 small dice pasted in" in render_card(onnx, side)
    side["data"]["spec"]["small_copies"] = 0
    assert "pasted" not in render_card(onnx, side)
