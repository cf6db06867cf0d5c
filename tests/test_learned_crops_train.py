"""Training the die crop reader through the CLI (needs the train extra; skipped without it): a tiny
crop set, one epoch, ONNX export with its card, read back by the torch-free run time."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from photo_subset import first_photos

pytest.importorskip("torch")
pytest.importorskip("onnx")


def test_train_dice_crops_exports_a_model_the_runtime_reads(tmp_path: Path) -> None:
    from referee_app.cli import main
    from vision.learned.crops import CropReader

    out = tmp_path / "crops_tiny.onnx"
    assert main(["train", "dice-crops", "--renders", "2", "--real-first", "0", "--synthetic", "40",
                 "--epochs", "1", "--out", str(out)]) == 0
    card = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert card["epochs"] == 1 and card["synthetic"] == 40 and card["train_photos"] == []
    assert "Model card" in out.with_suffix(".md").read_text(encoding="utf-8")
    image = np.full((120, 160, 3), 200, np.uint8)
    boxes = np.array([[10, 10, 50, 50], [60, 20, 110, 70]], np.float32)
    for backend in ("opencv", "auto"):
        proba, framed = CropReader(out, tta=4, backend=backend).forward(image, boxes)
        assert proba.shape == (2, 7) and np.allclose(proba.sum(axis=1), 1.0, atol=1e-4)
        assert framed.shape == (2, 4) and np.isfinite(framed).all()


def test_train_dice_crops_rejects_bad_arguments(tmp_path: Path, capsys) -> None:
    from referee_app.cli import main

    assert main(["train", "dice-crops", "--epochs", "0", "--out", str(tmp_path / "x.onnx")]) == 2
    assert "--epochs" in capsys.readouterr().err
    assert main(["train", "dice-crops", "--real", str(tmp_path), "--out", str(tmp_path / "x.onnx")]) == 2
    assert "no labels.json" in capsys.readouterr().err


def test_train_dice_crops_on_a_block_fold_records_its_photos(tmp_path: Path, shared_dir: Path) -> None:
    from referee_app.cli import main

    src = shared_dir / "realdata" / "nell_byler_d6"
    folder = tmp_path / "six"
    items = first_photos(src, 6, folder)
    out = tmp_path / "fold.onnx"
    assert main(["train", "dice-crops", "--real", str(folder), "--real-first", "2", "--real-block", "2",
                 "--real-fold", "odd", "--renders", "0", "--synthetic", "8", "--deep-smoky", "--epochs", "1",
                 "--out", str(out)]) == 0
    card = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    names = [it["image"] for it in items]
    assert card["train_photos"] == names[:2] + names[4:6]  # first 2, then block 1 of the rest
    assert card["real_fold"] == "odd" and card["real_block"] == 2
    assert card["deep_smoky"] is True and card["synthetic"] == 8
    assert "--deep-smoky" in out.with_suffix(".md").read_text(encoding="utf-8")  # the rebuild line
    assert "odd blocks of 2 consecutive photos" in out.with_suffix(".md").read_text(encoding="utf-8")
    assert main(["train", "dice-crops", "--real-fold", "odd", "--out", str(out)]) == 2


def test_strong_augmentation_keeps_the_die_and_changes_its_surroundings() -> None:
    import torch

    from datasets.dice.crop_training import _swap_surroundings, augment

    # patch 0: a die (box target: centre 0, side 0.5 of the patch); patch 1: not a die (no target)
    x = torch.stack([torch.full((3, 64, 64), 200.0), torch.full((3, 64, 64), 30.0)])
    target = torch.tensor([[0.0, 0.0, 0.5], [float("nan")] * 3])
    gen = torch.Generator().manual_seed(0)
    for _ in range(20):  # a third of the dice are moved: some draw moves patch 0 onto patch 1
        out = _swap_surroundings(x, gen, target)
        if not torch.equal(out[0], x[0]):
            break
    assert torch.equal(out[1], x[1])  # not a die: left alone
    assert torch.allclose(out[0, :, 28:36, 28:36], x[0, :, 28:36, 28:36])  # the die itself stays
    assert out[0, :, :4, :4].max() < 40  # its surroundings are the other patch's
    crops, tb = augment(x, gen, True, target, size=48, strength="strong")
    assert crops.shape == (2, 3, 48, 48) and tb.shape == (2, 3)
    assert 0 <= float(crops.min()) and float(crops.max()) <= 255


def test_train_dice_crops_card_records_strong_augmentation(tmp_path: Path) -> None:
    from referee_app.cli import main

    out = tmp_path / "strong.onnx"
    assert main(["train", "dice-crops", "--renders", "0", "--real-first", "0", "--synthetic", "30",
                 "--epochs", "1", "--augment", "strong", "--out", str(out)]) == 0
    assert json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))["augment"] == "strong"
    assert "--augment strong" in out.with_suffix(".md").read_text(encoding="utf-8")
