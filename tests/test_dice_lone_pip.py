"""One plain-sized mark on a light face is no sure 1 (vision/zones.py `_pips`): with 10 px faces (720p
from 1000 mm at 30 degrees) a white 3's corner pips blur away and its centre pip is all the counter
finds; main called that a 1 at 0.95, surer than a real 1's large pip (0.9), so it overrode the crop
reader's 3 and the decoder held a wrong die on B02 for the rest of the match (tuning seed 2)."""

from __future__ import annotations

import cv2
import numpy as np

from vision.zones import count_pips

SIDE = 32  # die side, px (16 mm at 2 px/mm)


def face(pip_radius_share: float, offsets: list[tuple[float, float]]) -> tuple[np.ndarray, np.ndarray]:
    """A light die's face on light paper, its pips at `offsets` (die sides from the centre)."""
    img = np.full((120, 120, 3), 228, np.uint8)
    c = 60
    cv2.rectangle(img, (c - SIDE // 2, c - SIDE // 2), (c + SIDE // 2, c + SIDE // 2), (240, 240, 240), -1)
    for dx, dy in offsets:
        cv2.circle(img, (int(c + dx * SIDE), int(c + dy * SIDE)), int(round(pip_radius_share * SIDE)),
                   (30, 30, 30), -1, cv2.LINE_AA)
    box = np.array([c - SIDE / 2, c - SIDE / 2, c + SIDE / 2, c + SIDE / 2], np.float32)
    return img, box


def test_a_lone_plain_mark_is_the_least_sure_count() -> None:
    img, box = face(0.09, [(0.0, 0.0)])
    got = count_pips(img, box, SIDE)
    assert got is not None and got[0] == 1
    assert got[1] < 0.6  # main: 0.95, over a crop reader's unsure 3


def test_a_ones_large_pip_and_a_clean_three_keep_their_confidence() -> None:
    one = count_pips(*face(0.13, [(0.0, 0.0)]), SIDE)
    assert one is not None and one[0] == 1 and one[1] == 0.9
    three = count_pips(*face(0.09, [(-0.25, -0.25), (0.0, 0.0), (0.25, 0.25)]), SIDE)
    assert three is not None and three[0] == 3 and three[1] > 0.9
