"""Which real photos a dice model trains on: always a block of consecutive photos, never a sample,
because neighbouring photos of one session show the same dice in the same light.

`training_photos(names, first, block, fold)`: the first `first` photos in file-name order, plus (when a
fold is given) every other block of `block` consecutive photos among the rest: fold "even" takes blocks
0, 2, 4, ..., fold "odd" blocks 1, 3, 5, .... Two models trained on the two folds see the same first
photos and between them every later block exactly once, so each later photo can be scored by the model
that did not see it (cross-validation by blocks: `highway-referee eval dice --crop-model A --crop-model B`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from vision.realdata import LabelledImage, LabelledSet

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


# --- the split of the three real dice series (issue 21): which photos the shipped models train on ---

NELL_FIRST = 52  # nell_byler_d6: its first 52 photos, as every earlier model (held-out part unchanged)
SHARE = 0.5  # epanemu_d6 and matteop65_d6: the first half of each family or series
SHOT_GAP = 5  # a jump in the file number larger than this starts a new shot


def natural_key(name: str) -> tuple[str, int, str]:
    """("two", 21, name) for "two_21.jpg": series prefix, then the number, so dice_9 sorts before dice_10
    (the capture order of numbered exports)."""
    stem = name.rsplit(".", 1)[0]
    head, _, tail = stem.rpartition("_")
    return (head, int(tail), name) if tail.isdigit() else (stem, -1, name)


def shots(items: Sequence[LabelledImage]) -> list[list[LabelledImage]]:
    """Consecutive photos (natural order) of one shot: same series, file numbers close, and the same
    multiset of die values. An export's augmented copies carry their original's dice, so they stay in
    the original's shot, and a shot always goes wholly to training or wholly to evaluation."""
    out: list[list[LabelledImage]] = []
    prev: tuple[str, int, tuple[int, ...]] | None = None
    for it in sorted(items, key=lambda i: natural_key(i.image)):
        series, number, _ = natural_key(it.image)
        values = tuple(sorted(o.value for o in it.objects if isinstance(o.value, int)))
        if prev is not None and series == prev[0] and 0 <= number - prev[1] <= SHOT_GAP and values == prev[2]:
            out[-1].append(it)
        else:
            out.append([it])
        prev = (series, number, values)
    return out


def first_share(items: Sequence[LabelledImage], share: float) -> list[str]:
    """Whole shots from the start (capture order) until at least `share` of the photos are taken."""
    chosen: list[str] = []
    for shot in shots(items):
        if len(chosen) >= share * len(items):
            break
        chosen += [it.image for it in shot]
    return chosen


def series_split(labels: LabelledSet) -> list[str]:
    """The training photos of a realdata dice folder, by its README's rules: blocks of consecutive
    photos, never a sample. nell_byler_d6: the first 52 in file-name order. A folder whose items carry
    "scene" (epanemu_d6): in every scene family, the first half of its shots in capture order. Any other
    folder (matteop65_d6: series dice_, two_, ..., valid_): in every file-name series, the first half of
    its shots. The rest of each family or series is what `eval dice` scores."""
    if labels.folder.resolve().name == "nell_byler_d6":
        return sorted(it.image for it in labels.items)[:NELL_FIRST]
    groups: dict[str, list[LabelledImage]] = {}
    for it in labels.items:
        key = str(it.extra.get("scene")) if "scene" in it.extra else natural_key(it.image)[0]
        groups.setdefault(key, []).append(it)
    return sorted(n for key in sorted(groups) for n in first_share(groups[key], SHARE))
