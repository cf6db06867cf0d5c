"""Whole-die boxes for obliquely seen dice (issue 21): vision/learned/body.py grows a framed face to the
die's body, and the default crops reader uses it (main's reader leaves such dice as top faces, which
miss their whole-die labels at IoU 0.5)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from photo_counts import count_read

from vision.realdata import iou_matrix, load_labels

MAT = (150, 90, 110)  # BGR: the blue-purple mat of epanemu's photos


def oblique_die(bg: tuple[int, int, int] = MAT, face: tuple[int, int, int] = (200, 225, 235),
                side: tuple[int, int, int] = (130, 146, 153)) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A 200x200 picture of a die seen from low: its top face (60x35, three dark pips) above its front
    face (60x40, the same plastic in shade), with a shadow of the mat's hue below. Returns the image,
    the top face's box and the whole die's box."""
    img = np.full((200, 200, 3), bg, np.uint8)
    img[130:170, 60:130] = (np.array(bg) * 0.55).astype(np.uint8)  # shadow: the mat, darker
    img[65:100, 70:130] = face
    img[100:140, 70:130] = side
    for cx, cy in ((80, 72), (100, 82), (120, 92)):
        img[cy - 3:cy + 3, cx - 3:cx + 3] = (30, 30, 30)
    return img, np.array([70, 65, 130, 100], np.float32), np.array([70, 65, 130, 140], np.float32)


def test_a_top_face_grows_to_the_whole_die() -> None:
    from vision.learned.body import grow_box

    img, face, whole = oblique_die()
    grown = grow_box(img, face)
    assert iou_matrix(face[None], whole[None])[0, 0] < 0.5  # the face alone misses the label
    assert iou_matrix(grown[None], whole[None])[0, 0] >= 0.9
    assert grown[3] < 150  # the shadow (the mat's hue) is not the die


def test_a_front_face_grows_up_to_the_top() -> None:
    from vision.learned.body import grow_box

    img, _, whole = oblique_die()
    grown = grow_box(img, np.array([70, 100, 130, 140], np.float32))
    assert iou_matrix(grown[None], whole[None])[0, 0] >= 0.9


def test_a_die_on_a_table_of_its_own_colour_keeps_its_box() -> None:
    from vision.learned.body import grow_box

    img, face, _ = oblique_die(bg=(200, 225, 235))
    np.testing.assert_array_equal(grow_box(img, face), face)


def test_a_touching_die_of_the_same_colour_is_not_the_body() -> None:
    from vision.learned.body import grow_boxes

    img = np.full((200, 200, 3), (200, 200, 200), np.uint8)  # a light grey table
    a = np.array([50, 80, 90, 120], np.float32)
    b = np.array([90, 85, 130, 125], np.float32)  # its neighbour, touching on the right
    for x0, y0, x1, y1 in (a, b):
        img[int(y0):int(y1), int(x0):int(x1)] = (60, 160, 40)  # two green dice, seen from above
    grown = grow_boxes(img, np.stack([a, b]))
    np.testing.assert_allclose(grown, np.stack([a, b]), atol=1.0)


def test_the_top_face_is_the_upper_square_of_a_tall_die() -> None:
    from vision.learned.body import top_face_box

    boxes = np.array([[10, 20, 50, 90], [0, 0, 60, 40]], np.float32)
    np.testing.assert_array_equal(top_face_box(boxes), [[10, 20, 50, 60], [0, 0, 60, 40]])


def test_nothing_to_grow_returns_an_empty_array() -> None:
    from vision.learned.body import grow_boxes

    assert grow_boxes(np.zeros((50, 50, 3), np.uint8), np.zeros((0, 4), np.float32)).shape == (0, 4)


def test_a_profile_reads_on_the_crop_networks_own_boxes() -> None:
    from vision.learned.reader import LearnedDiceReader

    assert LearnedDiceReader(mode="crops").grow
    assert not LearnedDiceReader(mode="crops", grow=False).grow


# held-out photos of epanemu_d6's blue-purple mat (no shipped model trained on them): large dice seen
# from low, whose whole-die labels main's reader misses as top faces or front faces
MAT_PHOTOS = ("dice_402.jpg", "dice_403.jpg", "dice_405.jpg", "dice_407.jpg", "dice_411.jpg", "dice_413.jpg")


def test_oblique_dice_on_the_mat_are_found_whole(shared_dir: Path) -> None:
    from datasets.dice.photo_split import series_split
    from vision.learned.reader import LearnedDiceReader

    labels = load_labels(shared_dir / "realdata" / "epanemu_d6")
    trained = set(series_split(labels))
    assert not trained & set(MAT_PHOTOS)
    labelled, found, right = count_read(LearnedDiceReader(mode="crops"), labels, MAT_PHOTOS)
    if labelled == 0:
        pytest.skip("the mat photos are not in this copy of the data")
    # main's reader (no growth) finds 72 of these 90 dice at IoU 0.5 and reads 61 of them right; this
    # one finds 79 and reads 66 right (the grown dice read on their top face)
    assert found >= 77, (found, labelled)
    assert right >= 64, (right, found)
