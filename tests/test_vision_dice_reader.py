"""The dice reader through its public entry point: bad input, regions of interest, colours, rendered
scenes, and a few held-out real photos (never the training block)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from datasets.camera import project, random_pose
from datasets.dice.scenes import render_dice_on_sheet
from datasets.dice.train import TRAIN_PHOTOS
from drawing.dice_tray import tray_rgb
from vision.dice import read_dice
from vision.dice.colour import classify_colour, palette_lab
from vision.dice.tray import ROLL_AREA_MM, TRAY_SIZE_MM
from vision.realdata import greedy_match, iou_matrix, load_labels
from vision.types import VisionError


@pytest.mark.parametrize("bad, message", [
    (np.zeros((50, 50, 3), np.float32), "uint8"),
    (np.zeros((50, 50), np.uint8), "HxWx3"),
    (np.zeros((0, 0, 3), np.uint8), "HxWx3"),
    (None, "numpy array"),
])
def test_bad_frames_are_named(bad, message: str) -> None:
    with pytest.raises(VisionError, match=message):
        read_dice(bad)


def test_bad_roi_and_palette() -> None:
    img = np.full((100, 100, 3), 200, np.uint8)
    with pytest.raises(VisionError, match="outside"):
        read_dice(img, roi=(200, 200, 300, 300))
    with pytest.raises(VisionError, match="roi must be"):
        read_dice(img, roi=("a", 0, 1, 1))
    with pytest.raises(VisionError, match="unknown colour names"):
        read_dice(img, colors=["mauve"])
    assert len(read_dice(img)) == 0  # a blank table: no dice, no error


def test_colour_palette_is_configurable() -> None:
    face = np.zeros((40, 40, 3), np.uint8)
    face[:] = (40, 140, 240)  # BGR orange
    names, lab = palette_lab({"team-a": (240, 140, 40), "team-b": (40, 60, 200)})
    assert classify_colour(face, names, lab)[0] == "team-a"
    names, lab = palette_lab(["yellow", "blue"])
    assert classify_colour(face, names, lab)[0] == "yellow"


@pytest.fixture(scope="module")
def rendered():
    rng = np.random.default_rng(21)
    pose = random_pose(rng, TRAY_SIZE_MM, out_size=(800, 600), tilt_deg=(0, 8), fill=(0.9, 0.95))
    dice = [{"x_mm": 70 + 45 * k, "y_mm": 70 + 35 * (k % 2), "value": v, "color": c, "size_mm": 15,
             "angle": 15 * k}
            for k, (v, c) in enumerate([(1, "red"), (2, "white"), (3, "blue"), (4, "green"), (5, "black")])]
    img, labels = render_dice_on_sheet(tray_rgb(3.0), TRAY_SIZE_MM, dice, pose, rng, effects=0.3)
    x0, y0, x1, y1 = ROLL_AREA_MM
    corners = project(pose, [[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    roi = (*corners.min(0), *corners.max(0))  # what the app reads: the tray's roll area only
    return img, labels, roi


def test_rendered_dice_are_found_and_read(rendered) -> None:
    # the models learnt from real photos only; on renders the white die on the light tray is the
    # usual miss (see docs/vision/dice.md), so this asks for 4 of 5 and right values on those found
    img, labels, roi = rendered
    det = read_dice(img, roi=roi)
    gt = np.array([o["bbox"] for o in labels])
    pairs = greedy_match(iou_matrix(gt, det.xyxy), 0.4)
    assert len(pairs) >= 4, det.to_objects()
    assert sum(labels[i]["value"] == det.values[j] for i, j in pairs) >= len(pairs) - 1
    assert sum(labels[i]["color"] == det.colors[j] for i, j in pairs) >= len(pairs) - 1
    assert np.all((det.confidence > 0) & (det.confidence <= 1))


def test_roi_limits_and_offsets_boxes(rendered) -> None:
    img, labels, _ = rendered
    x0, y0, x1, y1 = labels[2]["bbox"]
    roi = (x0 - 30, y0 - 30, x1 + 30, y1 + 30)
    det = read_dice(img, roi=roi)
    assert len(det) >= 1
    assert np.all(det.xyxy[:, 0] >= roi[0] - 1) and np.all(det.xyxy[:, 2] <= roi[2] + 1)
    assert iou_matrix(np.array([labels[2]["bbox"]]), det.xyxy).max() > 0.5


def test_held_out_real_photos(shared_dir) -> None:
    labels = load_labels(shared_dir / "realdata" / "nell_byler_d6")
    items = sorted(labels.items, key=lambda it: it.image)
    held_out = [items[TRAIN_PHOTOS + 10], items[TRAIN_PHOTOS + 48]]  # IMG_20191209_095414, _100229
    n = found = read = 0
    for item in held_out:
        det = read_dice(cv2.imread(str(labels.path(item))))
        gt = np.array([o.bbox for o in item.objects])
        pairs = greedy_match(iou_matrix(gt, det.xyxy), 0.5)
        n += len(gt)
        found += len(pairs)
        read += sum(item.objects[i].value == det.values[j] for i, j in pairs)
    assert found >= 0.85 * n and read >= 0.7 * n


@pytest.mark.parametrize("shape", [(8, 8, 3), (9, 500, 3), (30, 30, 3)])
def test_tiny_frames_and_regions_give_no_dice(shape) -> None:
    assert len(read_dice(np.full(shape, 128, np.uint8))) == 0
    assert len(read_dice(np.full((100, 100, 3), 128, np.uint8), roi=(10, 10, 14, 14))) == 0
