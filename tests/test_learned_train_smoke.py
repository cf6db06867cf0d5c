"""Smoke test of the training path (needs the train extra; skipped without it): one epoch on a tiny
generated set, export to ONNX, then the torch-free runtime (OpenCV DNN) must reproduce the PyTorch
model's raw output on the same letterboxed image and decode it."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

pytest.importorskip("ultralytics")
pytest.importorskip("onnx")


def test_one_epoch_export_and_torch_free_readback(tmp_path: Path) -> None:
    from datasets.yolo.tiny import tiny_dice_set
    from vision.learned.training import checkpoint_progress, export_onnx, require_ultralytics, train_step
    from vision.learned.yolo import OnnxYolo, decode, letterbox

    config = tmp_path / "yolo_config"
    require_ultralytics(config)  # offline switches before ultralytics loads anything
    import torch

    data = tiny_dice_set(tmp_path / "tiny", n=32, size=96)
    step = train_step(data, tmp_path / "runs", "smoke", config, epochs=1, imgsz=64, batch=8, minutes=5)
    assert step.finished and step.best.exists()
    assert checkpoint_progress(step.last) == (1, 1)

    onnx = export_onnx(step.best, tmp_path / "smoke_64.onnx", 64, config)
    net = OnnxYolo(onnx)
    assert net.size == 64
    image = cv2.imread(str(next((tmp_path / "tiny" / "images" / "val").glob("*.png"))))
    square, _ = letterbox(image, 64)
    rgb = cv2.cvtColor(square, cv2.COLOR_BGR2RGB)
    raw = net.forward(rgb)
    assert raw.shape == (1, 5, 8 * 8 + 4 * 4 + 2 * 2)  # 4 box rows + 1 class, anchors of strides 8/16/32

    model = torch.load(str(step.best), map_location="cpu", weights_only=False)["model"].float().eval()
    with torch.no_grad():
        ref = model(torch.from_numpy(rgb.transpose(2, 0, 1)[None].astype(np.float32) / 255.0))[0].numpy()
    np.testing.assert_allclose(raw, ref, atol=1e-3, rtol=1e-3)
    xyxy, score, cls = decode(raw, conf=0.0)
    assert len(xyxy) == raw.shape[2] and (score >= 0).all() and (score <= 1).all() and (cls == 0).all()
    boxes, scores, _ = net.detect(image, conf=0.001)
    assert ((boxes >= 0) & (boxes <= 96)).all() and len(boxes) == len(scores)
