"""Realdata objects -> YOLO lines: clipping, dropping, classes per scheme, stick keypoints."""

from __future__ import annotations

import pytest

from datasets.yolo.labels import SCHEMES, clip_box, get_scheme, keypoints, yolo_lines
from vision.route_dice.faces import FACES

W, H = 400, 200  # not square: a swapped normalisation gives different numbers


def numbers(line: str) -> list[float]:
    return [float(v) for v in line.split()]


def test_clip_and_drop_reasons() -> None:
    assert clip_box([-10, 20, 50, 80], W, H) == (0.0, 20.0, 50.0, 80.0)
    assert clip_box([390, 190, 450, 260], W, H) == (390.0, 190.0, 400.0, 200.0)
    assert clip_box([-30, 10, -1, 40], W, H) == "outside"
    assert clip_box([10, 200, 40, 230], W, H) == "outside"
    assert clip_box([399, 10, 420, 40], W, H) == "thin"  # 1 px left inside


def test_tiles_number_scheme_lines_and_normalisation() -> None:
    objs = [{"kind": "tile", "value": 7, "bbox": [100, 50, 140, 90]},
            {"kind": "tile", "value": 16, "bbox": [-20, 150, 20, 210]},
            {"kind": "tile", "value": None, "bbox": [0, 0, 30, 30]},
            {"kind": "tile", "value": 3, "bbox": [500, 10, 530, 40]}]
    lines, dropped = yolo_lines(get_scheme("tiles", "number"), objs, W, H)
    assert dropped == {"unlabelled": 1, "outside": 1}
    assert numbers(lines[0]) == pytest.approx([6, 120 / W, 70 / H, 40 / W, 40 / H])
    assert numbers(lines[1]) == pytest.approx([15, 10 / W, 175 / H, 20 / W, 50 / H])
    piece, _ = yolo_lines(get_scheme("tiles", "piece"), objs, W, H)
    assert [ln.split()[0] for ln in piece] == ["0", "0", "0"]  # the unnumbered piece is still a piece


def test_route_dice_classes_and_leaning() -> None:
    scheme = get_scheme("route-dice", None)
    assert scheme.name == "face" and scheme.names[-1] == "leaning" and len(scheme.names) == len(FACES) + 1
    objs = [{"kind": "route-die", "value": FACES[4], "bbox": [10, 10, 40, 40]},
            {"kind": "route-die", "value": FACES[0], "bbox": [60, 10, 90, 40], "leaning": True},
            {"kind": "tile", "value": 1, "bbox": [10, 10, 40, 40]}]
    lines, dropped = yolo_lines(scheme, objs, W, H)
    assert [int(ln.split()[0]) for ln in lines] == [4, len(FACES)] and not dropped
    one, _ = yolo_lines(get_scheme("route-dice", "die"), objs, W, H)
    assert [ln.split()[0] for ln in one] == ["0", "0"]


def test_stick_keypoints_leftmost_first_and_outside_ends() -> None:
    assert keypoints([[300, 20], [100, 180]], W, H) == pytest.approx([0.25, 0.9, 2, 0.75, 0.1, 2])
    assert keypoints([[-5, 20], [100, 180]], W, H) == pytest.approx([0, 0, 0, 0.25, 0.9, 2])
    assert keypoints(None, W, H) == [0.0] * 6


def test_pose_lines_for_sticks_supports_cars() -> None:
    objs = [{"kind": "stick", "bbox": [100, 20, 300, 180], "endpoints": [[300, 20], [100, 180]],
             "visible_fraction": 0.8},
            {"kind": "stick", "bbox": [0, 0, 50, 50], "endpoints": [[0, 0], [50, 50]], "visible_fraction": 0.0},
            {"kind": "support", "value": 2, "bbox": [200, 100, 220, 140]},
            {"kind": "car", "bbox": [150, 60, 170, 70]}]
    lines, dropped = yolo_lines(get_scheme("sticks", "stick"), objs, W, H)
    assert dropped == {"hidden": 1} and len(lines) == 1
    assert lines[0].split()[7] == "2" and lines[0].split()[10] == "2"  # visibilities written as integers
    assert numbers(lines[0]) == pytest.approx([0, 0.5, 0.5, 0.5, 0.8, 0.25, 0.9, 2, 0.75, 0.1, 2])
    pieces, _ = yolo_lines(get_scheme("sticks", "pieces"), objs, W, H)
    assert [numbers(ln)[0] for ln in pieces] == [0, 1, 2]
    assert all(numbers(ln)[5:] == [0] * 6 for ln in pieces[1:])  # no ends on supports and cars
    boxes, _ = yolo_lines(get_scheme("sticks", "boxes"), objs, W, H)
    assert [len(ln.split()) for ln in boxes] == [5, 5, 5]


def test_unknown_kind_and_scheme_are_named() -> None:
    with pytest.raises(ValueError, match="kind must be one of"):
        get_scheme("dominoes", None)
    with pytest.raises(ValueError, match="piece, number.*'faces'"):
        get_scheme("tiles", "faces")
    assert set(SCHEMES) == {"tiles", "route-dice", "sticks"}
