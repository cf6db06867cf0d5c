"""`median_u8` (vision/quantiles.py) is `float(np.median(...))` of a uint8 array bit for bit: odd and
even sizes, 1-d, 2-d and strided (a channel of an HSV window), levels bunched or spread, ties at the
middle. The dice road's pip counter reads its core's grey, saturation and value medians with it."""

from __future__ import annotations

import numpy as np
import pytest

from vision.quantiles import median_u8


def test_median_u8_is_numpys_median_bit_for_bit() -> None:
    rng = np.random.default_rng(24)
    for i in range(3000):
        h, w = (int(v) for v in rng.integers(1, 30, 2))
        a = rng.integers(0, 256, (h, w + 2, 3), dtype=np.uint8)[:, 1:w + 1, i % 3]  # strided
        if i % 4 == 1:
            a = (a // 85 * 85).astype(np.uint8)  # few levels: ties across the middle
        elif i % 4 == 2:
            a = np.clip(a, 120, 130)  # bunched
        want = float(np.median(a))
        got = median_u8(a)
        assert got == want and type(got) is float, (a.shape, got, want)
    for a in (np.array([0, 255], np.uint8), np.array([7], np.uint8), np.array([254, 255, 255, 0], np.uint8)):
        assert median_u8(a) == float(np.median(a))


def test_other_types_are_numpys_own() -> None:
    a = np.array([0.25, 3.5, 1.0, 2.0], np.float32)
    assert median_u8(a) == float(np.median(a))
    with pytest.warns(RuntimeWarning):
        assert np.isnan(median_u8(np.zeros(0, np.uint8)))
