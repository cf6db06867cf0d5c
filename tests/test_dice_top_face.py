"""The top-face experiment of branch dice21b (issue 21): the body's outline (vision/learned/body.py), the
reader's top-face hook and bench/dice_top_face.py's perspective-corrected top face. The shipped reading
is unchanged (the warped face did not beat the square on the training photos)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from tests.test_dice_body import oblique_die
from vision.realdata import iou_matrix

BENCH = Path(__file__).resolve().parents[1] / "bench"


@pytest.fixture(scope="module")
def top_face():  # noqa: ANN201 - the bench module
    sys.path.insert(0, str(BENCH))
    try:
        import dice_top_face

        yield dice_top_face
    finally:
        sys.path.remove(str(BENCH))


def test_the_body_outline_spans_the_grown_die() -> None:
    from vision.learned.body import body, grow_box

    img, face, whole = oblique_die()
    grown, outline = body(img, face, outline=True)
    np.testing.assert_array_equal(grown, grow_box(img, face))
    assert outline is not None
    span = np.r_[outline.min(axis=0), outline.max(axis=0)]
    assert iou_matrix(span[None], whole[None])[0, 0] >= 0.85


def test_no_outline_unless_asked_or_grown() -> None:
    from vision.learned.body import body

    img, face, _ = oblique_die()
    assert body(img, face)[1] is None
    img, face, _ = oblique_die(bg=(200, 225, 235))  # a table of the die's colour: nothing grows
    grown, outline = body(img, face, outline=True)
    np.testing.assert_array_equal(grown, face)
    assert outline is None


def test_crop_views_of_box_crops_are_the_views() -> None:
    from vision.learned.crops import CropReader, box_crops

    img, face, _ = oblique_die()
    crops = CropReader()
    boxes = np.stack([face, face + 5])
    np.testing.assert_allclose(crops.crop_views(box_crops(img, boxes, crops.size)), crops.views(img, boxes),
                               atol=1e-6)


def test_the_reader_reads_grown_dice_on_the_top_face_square() -> None:
    from vision.learned.body import top_face_box
    from vision.learned.reader import LearnedDiceReader

    img, face, whole = oblique_die()
    reader = LearnedDiceReader(mode="crops")
    np.testing.assert_allclose(reader._top_face_read(img, whole[None], face[None]),
                               reader.crops.views(img, top_face_box(whole[None])), atol=1e-6)


def test_a_cube_seen_corner_on_shows_its_top_parallelogram(top_face) -> None:  # noqa: ANN001
    far, right, near, left = (50, 10), (90, 30), (50, 50), (10, 30)
    hexagon = np.array([far, right, (90, 80), (50, 100), (10, 80), left], np.float32)
    np.testing.assert_allclose(top_face.top_face_quad(hexagon), [far, right, near, left], atol=1.0)


def test_a_cube_seen_square_on_has_no_top_parallelogram(top_face) -> None:  # noqa: ANN001
    rectangle = np.array([(10, 10), (90, 10), (90, 100), (10, 100)], np.float32)
    assert top_face.top_face_quad(rectangle) is None


def test_the_warp_fills_the_crops_square_with_the_face(top_face) -> None:  # noqa: ANN001
    import cv2

    img = np.zeros((300, 300, 3), np.uint8)
    quad = np.array([(150, 60), (250, 120), (150, 180), (50, 120)], np.float32)  # a wide diamond
    cv2.fillConvexPoly(img, quad.astype(np.int32), (255, 255, 255))
    crop = top_face.quad_crop(img, quad, 32, 1.25)
    assert crop.shape == (32, 32, 3)
    assert crop[6:26, 6:26].min() > 200  # inside the square: the face
    assert crop[:2].max() < 60 and crop[:, :2].max() < 60  # the margin: beyond the face
