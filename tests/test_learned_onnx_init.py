"""Fine-tuning from a shipped ONNX detector (vision/learned/onnx_init.py; train extra): the rebuilt,
trainable model computes what the ONNX file computes, and the crop trainer fits a CPU budget."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

pytest.importorskip("ultralytics")
pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")


def test_the_shipped_detector_rebuilt_for_training_matches_its_onnx_file(tmp_path: Path) -> None:
    from datasets.dice.surfaces import surface_scene
    from vision.learned.onnx_init import check_against_onnx, rebuild, save_init
    from vision.learned.reader import DEFAULT_MODEL
    from vision.learned.training import require_ultralytics

    require_ultralytics(tmp_path / "yolo_config")
    paths = []
    for k in range(3):
        image, _ = surface_scene(np.random.default_rng([3, k]), (320, 180))
        paths.append(tmp_path / f"{k}.jpg")
        cv2.imwrite(str(paths[-1]), image)
    model = rebuild(DEFAULT_MODEL, "yolov8n.yaml", 1, paths)
    assert check_against_onnx(model, DEFAULT_MODEL, paths) < 0.05
    import torch

    # the batch norms are real ones again (trainable), not folded away
    bns = [m for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    assert len(bns) > 50 and all(float(m.running_var.mean()) != 1.0 for m in bns[:5])
    ck = torch.load(str(save_init(model, tmp_path / "init.pt")), map_location="cpu", weights_only=False)
    assert ck["model"].yaml["nc"] == 1


def test_crop_training_fits_its_minutes(tmp_path: Path) -> None:
    """A budget far below one epoch: the run is shortened to a few steps instead of running on."""
    from referee_app.cli import main

    out = tmp_path / "crops.onnx"
    assert main(["train", "dice-crops", "--renders", "0", "--real-first", "0", "--synthetic", "40", "--threads", "1",
                 "--epochs", "50", "--minutes", "0.01", "--out", str(out)]) == 0
    import json

    card = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert card["epochs"] < 50 and out.exists() and not out.with_suffix(".last.onnx").exists()


def test_the_shipped_crop_network_rebuilt_for_training_matches_its_onnx_file() -> None:
    import onnxruntime as ort
    import torch

    from datasets.dice.crop_training import build_net, load_onnx_weights
    from vision.learned.crops import DEFAULT_CROP_MODEL

    crops = torch.rand(32, 3, 48, 48, generator=torch.Generator().manual_seed(0)) * 255
    net = build_net("c48")
    load_onnx_weights(net, DEFAULT_CROP_MODEL, crops)
    net.eval()
    sess = ort.InferenceSession(str(DEFAULT_CROP_MODEL), providers=["CPUExecutionProvider"])
    theirs = sess.run(None, {sess.get_inputs()[0].name: crops[:6].numpy()})[0]
    with torch.no_grad():
        assert np.abs(net(crops[:6]).numpy() - theirs).max() < 1e-3
    with pytest.raises(ValueError):
        load_onnx_weights(build_net("c32s"), DEFAULT_CROP_MODEL, crops[:, :, :32, :32])
