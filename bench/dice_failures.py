"""Per-photo failure pictures of the default dice reader (crops) on each real series: the few worst
held-out photos per set (most dice missed or misread; photos the shipped models trained on are left
out), drawn small with every box marked, into docs/vision/img/fail_<set>_<k>.jpg.

    python bench/dice_failures.py [--realdata ../shared/realdata] [--per-set 3] [--out docs/vision/img]

Marks (vision.dice.evaluate.draw_misses): green = found and read right (its value), red "miss" =
labelled die not found, orange "p/t" = found but read p where the label says t, magenta "false" =
a detection on no die, cyan "unlabelled?" = a detection where no die is labelled (check by eye).
For `pips` / `top_face` sets the red boxes are the labelled pip / face boxes."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.dice.evaluate import (  # noqa: E402
    box_convention,
    draw_misses,
    labels_incomplete,
    score_image,
    trained_photos,
)
from vision.learned.reader import LearnedDiceReader  # noqa: E402
from vision.realdata import load_labels  # noqa: E402
from vision.sources import read_image  # noqa: E402

SETS = ("nell_byler_d6", "epanemu_d6", "matteop65_d6")
SIDE = 480  # longer side of a written picture (keeps the whole folder well under 1.5 MB)


def worst(folder: Path, read, skip: set[str], n: int) -> list[tuple[int, str, np.ndarray]]:
    """(failures, image name, drawn picture) of the n photos with most dice missed or misread."""
    labels = load_labels(folder)
    lenient, convention = labels_incomplete(labels.meta), box_convention(labels.meta)
    found = []
    for item in sorted(labels.items, key=lambda it: it.image):
        if item.image in skip:
            continue
        image = read_image(labels.path(item))
        det = read(image)
        score, marks = score_image(item, det, lenient, convention)
        bad = (score.n_labelled - score.matched) + (score.value_total - score.value_correct) + score.false_pos
        if bad:
            found.append((bad, item.image, image, det, marks))
    found.sort(key=lambda f: (-f[0], f[1]))
    return [(bad, name, draw_misses(image, det, marks)) for bad, name, image, det, marks in found[:n]]


def main() -> int:
    here = Path(__file__).resolve().parents[1]
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--realdata", type=Path, default=here.parent / "shared" / "realdata")
    ap.add_argument("--per-set", type=int, default=3)
    ap.add_argument("--out", type=Path, default=here / "docs" / "vision" / "img")
    args = ap.parse_args()
    if not args.realdata.is_dir():
        print(f"no real photos at {args.realdata}", file=sys.stderr)
        return 2
    read = LearnedDiceReader(mode="crops").read
    trained = trained_photos()
    args.out.mkdir(parents=True, exist_ok=True)
    for old in args.out.glob("fail_*.jpg"):
        old.unlink()
    for name in SETS:
        for k, (bad, image_name, pic) in enumerate(worst(args.realdata / name, read, trained.get(name, set()),
                                                         args.per_set), start=1):
            s = SIDE / max(pic.shape[:2])
            small = cv2.resize(pic, None, fx=s, fy=s, interpolation=cv2.INTER_AREA) if s < 1 else pic
            path = args.out / f"fail_{name}_{k}.jpg"
            cv2.imwrite(str(path), small, [cv2.IMWRITE_JPEG_QUALITY, 80])
            print(f"{path.name}: {image_name}, {bad} dice missed, misread or false")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
