"""The shipped ONNX dice detector, loaded through OpenCV DNN (no torch), on a render and a real photo."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.learned.reader import MODELS, LearnedDiceReader
from vision.learned.yolo import OnnxYolo
from vision.realdata import greedy_match, iou_matrix

DIE = MODELS / "dice_die_n320.onnx"
pytestmark = pytest.mark.skipif(not DIE.exists(), reason="no shipped detector")


def test_shipped_model_has_a_card_and_loads_with_opencv_dnn() -> None:
    side = json.loads(DIE.with_suffix(".json").read_text(encoding="utf-8"))
    from vision.learned.card_photos import photos_by_set

    assert side["names"] == ["die"] and side["imgsz"] == 320
    assert len(photos_by_set(side)["nell_byler_d6"]) == 52  # nell's first 52, whatever else it saw
    assert DIE.with_suffix(".md").exists() and DIE.stat().st_size < 20e6
    net = OnnxYolo(DIE, backend="opencv")
    assert net.size == 320
    raw = net.forward(np.zeros((320, 320, 3), np.uint8))
    assert raw.shape == (1, 5, 2100)
    assert float(raw[0, 4].max()) < 0.3  # nothing to find on a black square


def test_combo_reads_a_rendered_frame() -> None:
    from datasets.dice import random_scene

    image, labels = random_scene(np.random.default_rng([5, 1]), (1280, 720), n_dice=6)
    det = LearnedDiceReader(DIE, mode="combo", backend="opencv", tile=640).read(image)
    assert det.kind == "die" and len(det.colors) == len(det)
    assert ((det.values >= 1) & (det.values <= 6)).all()
    gt = np.array([o["bbox"] for o in labels], np.float64)
    pairs = greedy_match(iou_matrix(gt, det.xyxy), 0.5)
    assert len(pairs) >= len(gt) // 2, (len(pairs), len(gt))


def test_combo_finds_and_reads_dice_in_a_held_out_photo(shared_dir: Path) -> None:
    folder = shared_dir / "realdata" / "nell_byler_d6"
    data = json.loads((folder / "labels.json").read_text(encoding="utf-8"))
    item = sorted(data["items"], key=lambda i: i["image"])[70]  # photo 71: not trained on
    image = cv2.imread(str(folder / item["image"]))
    det = LearnedDiceReader(DIE, mode="combo", backend="opencv").read(image)
    gt = np.array([o["bbox"] for o in item["objects"]], np.float64)
    pairs = greedy_match(iou_matrix(gt, det.xyxy), 0.5)
    assert len(pairs) >= 0.8 * len(gt)
    right = sum(int(det.values[j]) == item["objects"][i]["value"] for i, j in pairs)
    assert right >= 0.7 * len(pairs)
