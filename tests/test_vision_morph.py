"""vision.morph: the disc closing and opening by the disc's rectangles give OpenCV's values."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.morph import _stairs, close_disc, open_disc


def _images() -> list[np.ndarray]:
    rng = np.random.default_rng(5)
    noise = rng.integers(0, 256, (90, 130), dtype=np.uint8)
    paper = np.full((120, 110), 215, np.uint8)  # a light sheet with dark strokes and a dark blot
    cv2.line(paper, (5, 60), (105, 55), 40, 2)
    cv2.circle(paper, (30, 30), 12, 20, -1)
    mask = (rng.random((70, 80)) < 0.3).astype(np.uint8)
    return [noise, paper, mask, noise[:7, :9].copy()]  # and one smaller than the disc


@pytest.mark.parametrize("size", [1, 3, 5, 9, 15, 25, 35, 41])
def test_close_and_open_by_a_disc_are_opencvs(size: int) -> None:
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
    for image in _images():
        assert np.array_equal(close_disc(image, size), cv2.morphologyEx(image, cv2.MORPH_CLOSE, disc))
        assert np.array_equal(open_disc(image, size), cv2.morphologyEx(image, cv2.MORPH_OPEN, disc))


def test_the_rectangles_make_up_the_disc() -> None:
    for size in (5, 35):
        union = np.zeros((size, size), np.uint8)
        c = size // 2
        for w, h in _stairs(size):
            union[c - h // 2 : c + h // 2 + 1, c - w // 2 : c + w // 2 + 1] = 1
        assert np.array_equal(union, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size)))
