"""Synthetic dice scenes: deterministic, labels consistent between the two formats, bad dice named."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from datasets.camera import random_pose
from datasets.dice.scenes import die_face_rgba, random_scene, render_dice_on_sheet
from drawing.dice_tray import tray_rgb
from referee_app.cli import main
from vision.dice.tray import TRAY_SIZE_MM
from vision.realdata import load_labels


def test_same_seed_same_scene() -> None:
    a_img, a_lab = random_scene(np.random.default_rng(11), (640, 360))
    b_img, b_lab = random_scene(np.random.default_rng(11), (640, 360))
    c_img, _ = random_scene(np.random.default_rng(12), (640, 360))
    assert np.array_equal(a_img, b_img) and a_lab == b_lab
    assert not np.array_equal(a_img, c_img)


def test_render_dice_on_sheet_boxes_surround_each_die() -> None:
    rng = np.random.default_rng(4)
    pose = random_pose(rng, TRAY_SIZE_MM, out_size=(960, 540), tilt_deg=(0, 10))
    dice = [{"x_mm": 80, "y_mm": 80, "value": 6, "color": "red", "size_mm": 16, "angle": 10},
            {"x_mm": 200, "y_mm": 130, "value": 1, "color": "white", "size_mm": 14, "angle": 40}]
    img, labels = render_dice_on_sheet(tray_rgb(3.0), TRAY_SIZE_MM, dice, pose, rng, effects=0.0)
    assert [o["value"] for o in labels] == [6, 1] and [o["color"] for o in labels] == ["red", "white"]
    x0, y0, x1, y1 = (int(v) for v in labels[0]["bbox"])
    patch = img[y0:y1, x0:x1].reshape(-1, 3).astype(int)
    assert ((patch[:, 2] > 120) & (patch[:, 1] < 80)).mean() > 0.3  # the red die is inside its box
    with pytest.raises(ValueError, match="die 0"):
        render_dice_on_sheet(tray_rgb(1.0), TRAY_SIZE_MM, [{"x_mm": 1, "value": 3}], pose, rng)
    with pytest.raises(ValueError, match="1..6"):
        die_face_rgba(7, (0, 0, 0), (255, 255, 255))


def test_dataset_command_writes_both_label_formats(tmp_path) -> None:
    out = tmp_path / "d"
    assert main(["dataset", "dice", "--out", str(out), "--n", "3", "--seed", "1", "--size", "640", "360"]) == 0
    labels = load_labels(out)
    assert len(labels.items) == 3
    for item in labels.items:
        img = cv2.imread(str(labels.path(item)))
        assert img.shape == (360, 640, 3)
        yolo = (out / "labels" / (item.image.split("/")[-1].rsplit(".", 1)[0] + ".txt")).read_text().split()
        assert len(yolo) == 5 * len(item.objects)
        for k, obj in enumerate(item.objects):
            assert int(yolo[5 * k]) == obj.value - 1
            cx = float(yolo[5 * k + 1]) * 640
            assert abs(cx - (max(0, obj.bbox[0]) + min(640, obj.bbox[2])) / 2) < 0.01
    assert json.loads((out / "labels.json").read_text())["labels_complete"] is True


def test_dataset_command_bad_arguments(tmp_path, capsys) -> None:
    assert main(["dataset", "dice", "--out", str(tmp_path), "--n", "0"]) == 2
    assert "--n must be" in capsys.readouterr().err


def test_shipped_sample_is_small_and_loads(repo_dir) -> None:
    folder = repo_dir / "datasets" / "samples" / "dice"
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    assert size < 2_000_000
    labels = load_labels(folder)
    assert len(labels.items) == 6 and all(labels.path(it).is_file() for it in labels.items)
