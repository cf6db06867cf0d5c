"""The classifier samples cut from whole rendered frames: labelled by the piece's true number at its
true turn, and "wrong way up" at other turns, through the reader's own segmentation."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from datasets.tiles.scene_pieces import cached_scene_samples, scene_samples
from vision.tiles.patch import PATCH
from vision.tiles.reader import model


def test_scene_samples_are_upright_numbers_and_wrong_turns() -> None:
    x, y = scene_samples(np.random.default_rng(3), 2, per_piece=2)
    assert x.shape[1] == PATCH * PATCH and len(x) == len(y) > 8
    assert (y == 0).sum() == (y > 0).sum()  # as many wrong turns as upright samples
    assert set(np.unique(y[y > 0])) <= set(range(1, 17))
    # the shipped classifier agrees with the labels on most of them: the turns are the true ones
    agree = float((model().predict_proba(x).argmax(1) == y).mean())
    assert agree > 0.8, agree


def test_scene_samples_are_cached(tmp_path: Path) -> None:
    path = tmp_path / "scenes.npz"
    x, y = cached_scene_samples(path, [5], 1)
    assert path.exists()
    x2, y2 = cached_scene_samples(path, [99], 50)  # read back, not rendered again
    assert np.array_equal(y, y2) and np.allclose(x.astype(np.float16), x2)
