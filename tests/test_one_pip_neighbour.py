"""A light 1 told by its pip (`vision.zones_one.one_pip_face`) while a second light 1 lies 33 mm off,
its pip inside the three-dice window looked at but out of the blob's reach: tuning seed 1's roll 1 1 at
3840x2160/850 mm/30 degrees (tests/test_dice_4k_like_pair.py), where main refused the first 1 for the
other's pip and read the roll as a single 1."""

from __future__ import annotations

import cv2
import numpy as np

from vision.zones_one import REACH, one_pip_face

DIE = 32.0  # px: a 16 mm die at 2 px/mm, the views' resolution


def _two_ones() -> tuple[np.ndarray, list[np.ndarray]]:
    grey = np.full((240, 320), 235, np.uint8)
    # as in that frame's top-face view (shifted): 67 px (33 mm) apart
    pips = [np.array([102.0, 113.0]), np.array([166.0, 132.0])]
    for p in pips:
        x, y = int(p[0]), int(p[1])
        cv2.rectangle(grey, (x - 14, y - 14), (x + 14, y + 14), 225, -1)  # a light face
        cv2.ellipse(grey, (x, y), (4, 4), 0, 0, 360, 30, -1)  # a 1's pip (about 2.1 plain pip areas)
    return grey, pips


def test_one_found_beside_another_one() -> None:
    grey, pips = _two_ones()
    # the first die's blob, mostly its side and shadow, its pip at the blob's corner; the second pip
    # lies in the window looked at (three dice round the blob) but past the blob's reach
    blob = np.array([107.0, 71.0, 142.0, 115.0])
    found = one_pip_face(grey, blob, DIE, None, REACH)
    assert found is not None and np.linalg.norm(found - pips[0]) < 1.5


def test_two_ones_in_reach_still_refused() -> None:
    grey, _pips = _two_ones()
    blob = np.array([115.0, 105.0, 150.0, 140.0])  # between the two: both pips within its reach
    assert one_pip_face(grey, blob, DIE, None, REACH) is None
