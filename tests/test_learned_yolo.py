"""Decoding and suppression of raw YOLO outputs, letterbox geometry, tiling: fixed inputs, no torch."""

from __future__ import annotations

import numpy as np
import pytest

from vision.learned.reader import LearnedDiceReader, tile_windows
from vision.learned.yolo import Letterbox, box_iou, decode, letterbox, nms
from vision.types import VisionError


def raw_output(anchors: list[tuple[float, float, float, float, list[float]]]) -> np.ndarray:
    """(1, 4 + C, N) in the exported layout: rows cx, cy, w, h, then one score row per class."""
    cols = [[cx, cy, w, h, *scores] for cx, cy, w, h, scores in anchors]
    return np.array(cols, np.float32).T[None]


def test_letterbox_fits_and_centres_a_wide_frame() -> None:
    img = np.full((360, 640, 3), 200, np.uint8)
    out, lb = letterbox(img, 320)
    assert out.shape == (320, 320, 3)
    assert lb.scale == pytest.approx(0.5) and lb.pad_x == 0 and lb.pad_y == 70
    assert (out[:70] == 114).all() and (out[-70:] == 114).all() and (out[70:250] == 200).all()


def test_letterbox_boxes_map_back_to_image_pixels() -> None:
    lb = Letterbox(scale=0.25, pad_x=0.0, pad_y=70.0)
    back = lb.to_image(np.array([[10.0, 80.0, 20.0, 90.0]]))
    np.testing.assert_allclose(back, [[40.0, 40.0, 80.0, 80.0]])


def test_decode_keeps_anchors_above_threshold_with_their_best_class() -> None:
    raw = raw_output([(50, 60, 10, 20, [0.1, 0.9]), (5, 5, 2, 2, [0.2, 0.1]), (100, 100, 30, 30, [0.6, 0.3])])
    xyxy, score, cls = decode(raw, conf=0.5)
    np.testing.assert_allclose(xyxy, [[45, 50, 55, 70], [85, 85, 115, 115]])
    np.testing.assert_allclose(score, [0.9, 0.6])
    assert cls.tolist() == [1, 0]


def test_decode_with_nothing_above_threshold_is_empty() -> None:
    xyxy, score, cls = decode(raw_output([(5, 5, 2, 2, [0.2])]), conf=0.5)
    assert xyxy.shape == (0, 4) and len(score) == 0 and len(cls) == 0


@pytest.mark.parametrize("bad", [np.zeros((2, 6, 10)), np.zeros((3, 10)), np.zeros(7)])
def test_decode_rejects_wrong_shapes(bad: np.ndarray) -> None:
    with pytest.raises(VisionError):
        decode(bad, 0.5)


def test_nms_suppresses_overlaps_and_keeps_the_best_first() -> None:
    boxes = np.array([[0, 0, 10, 10], [1, 1, 11, 11], [50, 50, 60, 60], [0.5, 0, 10.5, 10]], np.float32)
    scores = np.array([0.8, 0.9, 0.7, 0.85])
    assert nms(boxes, scores, 0.5).tolist() == [1, 2]


def test_nms_per_class_keeps_overlapping_boxes_of_other_classes() -> None:
    boxes = np.array([[0, 0, 10, 10], [1, 1, 11, 11]], np.float32)
    scores = np.array([0.8, 0.9])
    assert nms(boxes, scores, 0.5, classes=np.array([0, 1])).tolist() == [1, 0]
    assert nms(boxes, scores, 0.5, classes=np.array([0, 0])).tolist() == [1]


def test_nms_of_nothing_and_max_det() -> None:
    assert nms(np.zeros((0, 4)), np.zeros(0), 0.5).tolist() == []
    far = np.array([[i * 20, 0, i * 20 + 10, 10] for i in range(5)], np.float32)
    assert len(nms(far, np.linspace(1, 0.5, 5), 0.5, max_det=3)) == 3


def test_box_iou_matches_hand_computation() -> None:
    iou = box_iou(np.array([0, 0, 10, 10.0]), np.array([[5, 0, 15, 10.0], [20, 20, 30, 30.0]]))
    np.testing.assert_allclose(iou, [50 / 150, 0.0])


def test_tiles_cover_a_1280x720_frame_with_overlap() -> None:
    tiles = tile_windows(1280, 720, 640)
    covered = np.zeros((720, 1280), bool)
    for x0, y0, x1, y1 in tiles:
        assert x1 - x0 <= 640 and y1 - y0 <= 640
        covered[y0:y1, x0:x1] = True
    assert covered.all() and len(tiles) == 6
    assert tile_windows(300, 200, 640) == [(0, 0, 300, 200)]


def test_reader_rejects_bad_settings_and_missing_models(tmp_path) -> None:
    with pytest.raises(VisionError, match="no such model"):
        LearnedDiceReader(tmp_path / "none.onnx")
    with pytest.raises(VisionError, match="mode"):
        LearnedDiceReader(tmp_path / "none.onnx", mode="magic")
    with pytest.raises(VisionError, match="tile"):
        LearnedDiceReader(tmp_path / "none.onnx", tile=10)
