"""Two crop networks die by die on one real series' held-out photos (datasets/dice/photo_split): which
labelled dice each finds (whole-die boxes, IoU >= 0.5, as `eval dice`) and whether it reads them right,
so a change in value accuracy can be told apart from a change in which dice are found.

    python bench/dice_crop_compare.py ../shared/realdata/epanemu_d6 --a OLD_CROPS.onnx --b NEW_CROPS.onnx

Prints counts per (found by, A right, B right), overall and per scene where the labels name one."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from datasets.dice.photo_split import series_split  # noqa: E402
from vision.dice.evaluate import box_convention  # noqa: E402
from vision.learned.reader import DEFAULT_MODEL, LearnedDiceReader  # noqa: E402
from vision.realdata import greedy_match, iou_matrix, load_labels  # noqa: E402
from vision.sources import read_image  # noqa: E402


def compare(folder: Path, a: Path, b: Path, detector: Path = DEFAULT_MODEL) -> tuple[Counter, Counter]:
    labels = load_labels(folder)
    if box_convention(labels.meta) != "whole_die":
        raise SystemExit(f"{folder}: not whole-die boxes (this compares by IoU)")
    skip = set(series_split(labels))
    readers = {k: LearnedDiceReader(detector, mode="crops", crop_model=m) for k, m in (("A", a), ("B", b))}
    overall: Counter = Counter()
    by_scene: Counter = Counter()
    for item in labels.items:
        if item.image in skip:
            continue
        img = read_image(labels.folder / item.image)
        objs = [o for o in item.objects if o.kind == "die"]
        gt = np.array([o.bbox for o in objs], np.float64).reshape(-1, 4)
        reads = {}
        for k, reader in readers.items():
            det = reader.read(img)
            reads[k] = {i: int(det.values[j]) for i, j in greedy_match(iou_matrix(gt, det.xyxy), 0.5)}
        for i, o in enumerate(objs):
            ra, rb = reads["A"].get(i), reads["B"].get(i)
            found = {(True, True): "both", (True, False): "A only", (False, True): "B only"}.get(
                (ra is not None, rb is not None), "neither")
            key = (found, "-" if ra is None else ra == o.value, "-" if rb is None else rb == o.value)
            overall[key] += 1
            by_scene[(str(item.extra.get("scene", "")), *key)] += 1
    return overall, by_scene


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("folder", type=Path)
    ap.add_argument("--a", type=Path, required=True, help="crop network A (e.g. the shipped one)")
    ap.add_argument("--b", type=Path, required=True, help="crop network B")
    ap.add_argument("--detector", type=Path, default=DEFAULT_MODEL)
    args = ap.parse_args()
    cv2.setNumThreads(1)
    overall, by_scene = compare(args.folder, args.a, args.b, args.detector)
    print("| found by | A right | B right | dice |\n|---|---|---|---:|")
    for (found, ra, rb), n in sorted(overall.items(), key=str):
        print(f"| {found} | {ra} | {rb} | {n} |")
    for key, n in sorted(by_scene.items(), key=str):
        if key[0]:
            print(" / ".join(map(str, key)), n)


if __name__ == "__main__":
    main()
