"""The dice benches score either the held-out blocks (to report) or the training blocks (to choose a
change on, issue 21): `bench/dice_heldout.py --blocks`, `bench/dice_failure_causes.py --blocks`."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.dice_heldout import SETS, left_out
from datasets.dice.photo_split import series_split
from vision.realdata import load_labels


@pytest.mark.parametrize("name", SETS)
def test_training_and_held_out_runs_split_the_photos(shared_dir: Path, name: str) -> None:
    folder = shared_dir / "realdata" / name
    if not (folder / "labels.json").is_file():
        pytest.skip(f"{name} is not in ../shared/realdata")
    labels = load_labels(folder)
    every = {it.image for it in labels.items}
    train = set(series_split(labels))
    assert left_out(labels, "heldout") == train  # a held-out run skips the training blocks
    assert left_out(labels, "train") == every - train  # a training run skips the held-out ones
    with pytest.raises(ValueError):
        left_out(labels, "all")


def test_a_validation_block_is_scored_alone(shared_dir: Path) -> None:
    folder = shared_dir / "realdata" / "epanemu_d6"
    if not (folder / "labels.json").is_file():
        pytest.skip("epanemu_d6 is not in ../shared/realdata")
    labels = load_labels(folder)
    every = {it.image for it in labels.items}
    # the mat's second training shot, carved out of the training blocks
    scored = every - left_out(labels, "train", ("dice_37[2-8].jpg",))
    assert scored == {f"dice_{n}.jpg" for n in range(372, 379)}
    assert scored <= set(series_split(labels))
    assert every - left_out(labels, "heldout", ("dice_37[2-8].jpg",)) == set()  # none of them held out
