"""The foreground masks: one table estimate, a mask per brightness gain; the sticks' mask needs more
brightness to call a pixel a piece, so lit table between shadows does not join a rod into a blob."""

from __future__ import annotations

import cv2
import numpy as np

from vision.tokyo.foreground import BRIGHT, pieces_mask, pieces_masks
from vision.tokyo.reader import STICK_BRIGHT


def _table_with_lit_patch() -> np.ndarray:
    rng = np.random.default_rng(1)
    img = np.full((360, 480, 3), (120, 150, 110), np.float32)  # light green cloth (BGR)
    for x in range(200, 480, 36):
        img[150:, x : x + 18] *= 0.6  # shadow bands: they pull the table estimate down between them
    cv2.line(img, (40, 80), (440, 120), (60, 60, 200), 12)  # a red rod
    img += rng.normal(0, 2, img.shape)
    return img.clip(0, 255).astype(np.uint8)


def test_sticks_mask_leaves_lit_table_and_keeps_the_rod() -> None:
    img = _table_with_lit_patch()
    (ordinary, rods), _ = pieces_masks(img, (BRIGHT, STICK_BRIGHT))
    lit = np.zeros(img.shape[:2], bool)
    lit[220:340, 221:233] = True  # lit table between the first shadows (deeper in, both masks give way)
    rod = np.zeros(img.shape[:2], bool)
    cv2.line(rod.view(np.uint8), (60, 82), (420, 118), 1, 4)
    assert (ordinary[lit] > 0).mean() > 0.5  # the ordinary mask calls the lit table a piece
    assert (rods[lit] > 0).mean() < 0.05
    assert (rods[rod] > 0).mean() > 0.95 and (ordinary[rod] > 0).mean() > 0.95
    assert ((rods > 0) <= (ordinary > 0)).all()  # a higher gain only takes pixels away


def test_pieces_mask_is_the_ordinary_mask() -> None:
    img = _table_with_lit_patch()
    (ordinary,), table = pieces_masks(img, (BRIGHT,))
    one, table1 = pieces_mask(img)
    assert (one == ordinary).all() and (table == table1).all()
