"""A second crop network as the arbiter of close calls (issue 21, branch dicearb): the halves of the
training blocks it is cross-fitted on, the combination rules the bench chooses among, and the reader's
record of the box each value was read on (which the second network reads). Main has none of these."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest


def realdata(shared_dir: Path) -> Path:
    real = shared_dir / "realdata"
    if not (real / "epanemu_d6").is_dir():
        pytest.skip("the photos are not in this copy of the data")
    return real


def test_arbiter_changes_only_close_calls_and_keeps_to_the_top_two() -> None:
    from bench.dice_arbiter import arbitrate

    # die 0: 3 (0.45) against 2 (0.40), a close call; die 1: a sure 5
    ship = np.array([[0.0, 0.05, 0.40, 0.45, 0.05, 0.05, 0.0],
                     [0.0, 0.0, 0.0, 0.0, 0.1, 0.9, 0.0]])
    # the second network says 6 for both, and prefers 2 to 3
    second = np.array([[0.0, 0.0, 0.2, 0.0, 0.0, 0.0, 0.8],
                       [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]])
    assert arbitrate(ship, second, 0.4, 1.0, True).tolist() == [2, 5]  # between 3 and 2 only
    assert arbitrate(ship, second, 0.4, 1.0, False).tolist() == [6, 5]  # any value
    assert arbitrate(ship, second, 1.01, 2.0, False).tolist() == [6, 6]  # every die
    assert arbitrate(ship, second, 0.02, 1.0, False).tolist() == [3, 5]  # not close enough


def test_halves_split_the_training_blocks_whole(shared_dir: Path) -> None:
    from bench.dice_arbiter_halves import SETS, halves
    from datasets.dice.photo_split import series_split, shots
    from vision.realdata import load_labels

    real = realdata(shared_dir)
    for name in SETS:
        labels = load_labels(real / name)
        h = halves(labels)
        assert set(h) == set(series_split(labels))  # every training photo, no held-out one
        assert {"a", "b"} == set(h.values())
        assert min(list(h.values()).count(k) for k in "ab") >= 0.4 * len(h)
        for shot in shots([it for it in labels.items if it.image in h]):
            assert len({h[it.image] for it in shot}) == 1  # a shot never straddles the halves


def test_reader_records_the_box_each_value_was_read_on(shared_dir: Path) -> None:
    from vision.learned.reader import LearnedDiceReader
    from vision.realdata import load_labels
    from vision.sources import read_image

    labels = load_labels(realdata(shared_dir) / "epanemu_d6")
    item = next(it for it in labels.items if it.image == "dice_78.jpg")
    det = LearnedDiceReader(mode="crops").read(read_image(labels.path(item)))
    read = det.data["read"]
    assert read.shape == (len(det), 4) and len(det) > 5
    # a die seen from above is read on its own box; a grown one on the square atop its box
    same = np.abs(read - det.xyxy).max(axis=1) < 0.5
    assert same.any()
    for b, r in zip(det.xyxy[~same], read[~same], strict=True):
        assert abs(r[1] - b[1]) < 0.5 and r[3] < b[3]
