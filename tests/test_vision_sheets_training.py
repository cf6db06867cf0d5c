"""The sheet side/station classifiers' training samples: cut from a rendered photo by the reader's
own code, labelled from the drawn content, and read right by the shipped classifiers."""

from __future__ import annotations

import numpy as np

from datasets.sheets.train_squares import SIDE_LABELS, scene_samples
from vision.sheets.features import CENTRE_SHAPE, SIDE_SHAPE
from vision.sheets.reader import side_model, station_model


def test_sheet_samples_are_labelled_and_read_by_the_shipped_classifiers() -> None:
    sx, sy, cx, cy = scene_samples(12_345)
    sx, sy, cx, cy = np.array(sx), np.array(sy), np.array(cx), np.array(cy)
    assert sx.shape == (49 * 4 * 2, SIDE_SHAPE[0] * SIDE_SHAPE[1])  # four sides, each also mirrored
    assert cx.shape == (49 * 4, CENTRE_SHAPE[0] * CENTRE_SHAPE[1])  # centre at four quarter turns
    assert set(np.unique(sy)) <= set(range(len(SIDE_LABELS))) and len(np.unique(sy)) == 3
    assert float((side_model().predict_proba(sx).argmax(1) == sy).mean()) > 0.97
    assert float((station_model().predict_proba(cx).argmax(1) == cy).mean()) > 0.97
