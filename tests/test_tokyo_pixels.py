"""`nonzero_yx` (vision/tokyo/pixels.py) gives what `np.nonzero` gives: the same rows and columns in
the same order, for uint8 and bool masks, slices, empty and full ones."""

from __future__ import annotations

import numpy as np
import pytest

from vision.tokyo.pixels import nonzero_yx


def _same(mask: np.ndarray) -> None:
    ys, xs = nonzero_yx(mask)
    want_y, want_x = np.nonzero(mask)
    assert ys.dtype == want_y.dtype and xs.dtype == want_x.dtype
    assert np.array_equal(ys, want_y) and np.array_equal(xs, want_x)


@pytest.mark.parametrize("share", [0.0, 0.001, 0.3, 1.0])
def test_masks_of_a_frame(share: float) -> None:
    rng = np.random.default_rng(7)
    mask = ((rng.random((720, 1280)) < share) * 255).astype(np.uint8)
    _same(mask)
    _same(mask > 0)
    _same(mask[100:400:2, 37:900])  # a strided slice
    _same((mask // 255).astype(np.uint8) * 3)  # any non-zero value counts


def test_other_arrays_fall_back_to_numpy() -> None:
    a = np.array([[0.0, 1.5], [2.0, 0.0]])
    _same(a)
    _same(np.zeros((0, 5), np.uint8))
