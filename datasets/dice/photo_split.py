"""Which real photos a dice model trains on: always a block of consecutive photos, never a sample,
because neighbouring photos of one session show the same dice in the same light.

`training_photos(names, first, block, fold)`: the first `first` photos in file-name order, plus (when a
fold is given) every other block of `block` consecutive photos among the rest: fold "even" takes blocks
0, 2, 4, ..., fold "odd" blocks 1, 3, 5, .... Two models trained on the two folds see the same first
photos and between them every later block exactly once, so each later photo can be scored by the model
that did not see it (cross-validation by blocks: `highway-referee eval dice --crop-model A --crop-model B`).
"""

from __future__ import annotations

from collections.abc import Iterable

FOLDS = ("even", "odd")


def training_photos(names: Iterable[str], first: int, block: int = 4, fold: str | None = None) -> list[str]:
    ordered = sorted(names)
    if first < 0 or block < 1:
        raise ValueError("first must be >= 0 and block >= 1")
    chosen = ordered[:first]
    if fold is None:
        return chosen
    if fold not in FOLDS:
        raise ValueError(f"fold must be one of {', '.join(FOLDS)}, not {fold!r}")
    parity = FOLDS.index(fold)
    rest = ordered[first:]
    return chosen + [n for i, n in enumerate(rest) if (i // block) % 2 == parity]
