"""Smoke test of `train yolo` (needs the train extra; skipped without it): a tiny tiles set, one epoch
at 64 px, ONNX export with its model card, then the torch-free runtime loads and runs the model."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from referee_app.cli import main

pytest.importorskip("ultralytics")
pytest.importorskip("onnx")


def test_train_yolo_one_epoch_export_card_and_runtime(tmp_path: Path) -> None:
    from vision.learned.yolo import OnnxYolo

    data = tmp_path / "tiles"
    assert main(["dataset", "yolo", "tiles", "--out", str(data), "--n", "8", "--size", "128", "96",
                 "--no-progress"]) == 0
    onnx = tmp_path / "tiles_piece_64.onnx"
    assert main(["train", "yolo", "--data", str(data / "data.yaml"), "--name", "smoke", "--runs",
                 str(tmp_path / "runs"), "--epochs", "1", "--imgsz", "64", "--batch", "8",
                 "--export", str(onnx)]) == 0
    side = json.loads(onnx.with_suffix(".json").read_text())
    assert side["names"] == ["piece"] and side["imgsz"] == 64 and side["task"] == "detect"
    assert (side["epochs_done"], side["epochs_planned"]) == (1, 1) and side["model"] == "yolov8n.yaml"
    assert side["data"]["kind"] == "tiles" and side["data"]["images"] == {"train": 6, "val": 2}
    assert "metrics/mAP50(B)" in side["synthetic_val"]
    card = onnx.with_suffix(".md").read_text()
    assert "Epochs: 1 of 1" in card and "Synthetic val" in card and "MB" in card

    net = OnnxYolo(onnx)
    assert net.size == 64
    image = cv2.imread(str(next((data / "images" / "val").glob("*.jpg"))))
    boxes, scores, _ = net.detect(image, conf=0.0001)
    assert len(boxes) == len(scores)
    # a finished run resumes to nothing and can still be exported
    assert main(["train", "yolo", "--name", "smoke", "--runs", str(tmp_path / "runs"), "--resume"]) == 0
