"""Cross-fitting halves of the dice training blocks (issue 21, branch dicearb): the training photos of
each real series (datasets/dice/photo_split.series_split) cut into two halves, "a" and "b", by whole
blocks in capture order (consecutive shots joined until a block has at least BLOCK photos; blocks
alternate a, b, a, ...), so near-duplicate neighbours and an export's augmented copies stay together.
A second crop network trained on one half never saw the other half: the rule that combines it with the
shipped network is chosen there (bench/dice_arbiter.py).

    python bench/dice_arbiter_halves.py --realdata ../shared/realdata --build /tmp/dicearb/all.crops.npz
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from datasets.dice.photo_split import series_split, shots  # noqa: E402
from vision.realdata import LabelledSet, load_labels  # noqa: E402

SETS = ("nell_byler_d6", "epanemu_d6", "matteop65_d6")
BLOCK = 4  # photos per block at least (a dice set stays on the table for 4-9 photos)
HALVES = ("a", "b")


def halves(labels: LabelledSet) -> dict[str, str]:
    """Training photo name -> "a" or "b"."""
    train = set(series_split(labels))
    items = [it for it in labels.items if it.image in train]
    out: dict[str, str] = {}
    block: list[str] = []
    k = 0
    for shot in shots(items):
        block += [it.image for it in shot]
        if len(block) >= BLOCK:
            out.update({n: HALVES[k % 2] for n in block})
            block, k = [], k + 1
    out.update({n: HALVES[k % 2] for n in block})
    return out


def split_crop_set(data: Path, realdata: Path, out_a: Path, out_b: Path) -> dict[str, int]:
    """Two crop sets from one built on every training photo: each keeps the renders, the generated
    crops and the real crops of its own half only (by the crop's photo, `group`)."""
    z = np.load(data)
    meta = json.loads(str(z["meta"]))
    names: list[tuple[str, str]] = []
    for s, photos in meta["real_photos_by_set"].items():
        names += [(s, n) for n in photos]
    half_of = {s: halves(load_labels(realdata / s)) for s in meta["real_photos_by_set"]}
    group_half = np.array([half_of[s][n] for s, n in names])
    group = z["group"]
    counts = {}
    for h, out in zip(HALVES, (out_a, out_b), strict=True):
        keep = (group < 0) | np.isin(group, np.flatnonzero(group_half == h))
        m = dict(meta)
        by_set = meta["real_photos_by_set"].items()
        m["real_photos_by_set"] = {s: [n for n in p if half_of[s][n] == h] for s, p in by_set}
        m["real_photos"] = [n for s, n in names if half_of[s][n] == h]
        m["half"] = h
        y = z["y"][keep]
        m["counts"] = {str(c): int((y == c).sum()) for c in range(7)}
        np.savez_compressed(out, x=z["x"][keep], y=y, source=z["source"][keep], target=z["target"][keep],
                            group=group[keep], hard=z["hard"][keep], meta=json.dumps(m))
        counts[h] = int(keep.sum())
    return counts


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--realdata", type=Path, required=True)
    ap.add_argument("--build", type=Path,
                    help="build the crop set of every training photo here, then split it")
    ap.add_argument("--seed", type=int, default=202)
    args = ap.parse_args()
    for s in SETS:
        h = halves(load_labels(args.realdata / s))
        print(s, {k: sum(v == k for v in h.values()) for k in HALVES})
    if args.build:
        from datasets.dice.crops import build
        from vision.learned.reader import DEFAULT_MODEL

        r = args.realdata
        if not args.build.exists():
            build(args.build, r / SETS[0], 52, 60, args.seed, DEFAULT_MODEL, synthetic=2000,
                  real_sets=[r / SETS[1], r / SETS[2]], surface_share=0.5, show_progress=False)
        stem = args.build.with_suffix("").with_suffix("")
        print(split_crop_set(args.build, r, Path(f"{stem}_a.crops.npz"), Path(f"{stem}_b.crops.npz")))


if __name__ == "__main__":
    main()
