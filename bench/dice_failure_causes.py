"""Count the default dice reader's held-out failures by cause, per real series (issue 21).

    python bench/dice_failure_causes.py [--realdata ../shared/realdata] [--sets epanemu_d6] [--json OUT]

Held out = the photos the issue-21 split leaves out of training (datasets/dice/photo_split.series_split);
`--blocks train` counts the training blocks instead (to choose a change on them, not on held-out photos).
Each labelled die the reader misses gets exactly one cause, the first that applies:

  partial   a kept detection overlaps the die at 0.2 <= IoU < 0.5 and is matched to no other die:
            the die was found, but its box is a top face, a half or a die plus shadow
            (`inside` when 80 % or more of the detection lies inside the label: a top face or part)
  rejected  the detector proposed a box at IoU >= 0.5, but the crop network did not keep it
            (judged "not a die", or taken for a repeat of a neighbour)
  small     no proposal, and the die is under 12 px at the detector's input
  crowded   no proposal, and another labelled die's centre lies within 1.5 sides of this one's
  other     no proposal otherwise (dark or busy background, a die seen obliquely, ...)

Misreads are counted by (true value -> read value), scene family (epanemu's `scene`), and whether the
die's side at the detector's input is small, mid or large; matched by the set's box convention as
`eval dice`. `pips`/`top_face` sets (matteop65) only get the proposal-level causes."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from datasets.dice.photo_split import series_split  # noqa: E402
from vision.dice.evaluate import box_convention, centre_match  # noqa: E402
from vision.learned.reader import LearnedDiceReader  # noqa: E402
from vision.realdata import greedy_match, iou_matrix, load_labels  # noqa: E402
from vision.sources import read_image  # noqa: E402

SETS = ("nell_byler_d6", "epanemu_d6", "matteop65_d6")
SMALL_PX = 12.0  # die side at the detector's input below which the detector rarely proposes it
CROWD = 1.5  # neighbouring die centres within this many die sides


def size_band(px: float) -> str:
    return "small (<12 px)" if px < SMALL_PX else "mid (12-30 px)" if px < 30 else "large (>=30 px)"


def miss_cause(i: int, gt: np.ndarray, kept: np.ndarray, kept_used: set[int], props: np.ndarray,
               seen_px: np.ndarray) -> str:
    box = gt[i]
    if len(kept):
        iou = iou_matrix(box[None], kept)[0]
        for j in np.argsort(-iou):
            if iou[j] < 0.2:
                break
            if int(j) in kept_used:
                continue
            b = kept[j]
            ix = (max(0.0, min(b[2], box[2]) - max(b[0], box[0]))
                  * max(0.0, min(b[3], box[3]) - max(b[1], box[1])))
            inside = ix / max((b[2] - b[0]) * (b[3] - b[1]), 1e-6)
            return "partial: inside (top face / part)" if inside >= 0.8 else "partial: offset or oversized"
    if len(props) and iou_matrix(box[None], props)[0].max() >= 0.5:
        return "rejected by the crop network"
    if seen_px[i] < SMALL_PX:
        return "no proposal: small"
    c = (gt[:, :2] + gt[:, 2:]) / 2
    side = max(box[2] - box[0], box[3] - box[1])
    d = np.hypot(*(c - c[i]).T)
    d[i] = np.inf
    if len(gt) > 1 and d.min() < CROWD * side:
        return "no proposal: crowded"
    return "no proposal: other"


def analyse(folder: Path, reader: LearnedDiceReader, draw: Path | None = None,
            blocks: str = "heldout") -> dict[str, Any]:
    """`blocks`: "heldout" (the photos the split leaves out of training) or "train" (the blocks the
    shipped networks trained on: where a change is chosen without looking at held-out photos)."""
    labels = load_labels(folder)
    convention = box_convention(labels.meta)
    train = set(series_split(labels))
    misses: Counter[str] = Counter()
    miss_scene: Counter[str] = Counter()
    wrong: Counter[str] = Counter()
    wrong_scene: Counter[str] = Counter()
    wrong_size: Counter[str] = Counter()
    read_size: Counter[str] = Counter()
    examples: dict[str, list[str]] = {}
    n_lab = n_found = n_vals = n_ok = 0
    for item in labels.items:
        if (item.image in train) == (blocks == "heldout"):
            continue
        objs = [o for o in item.objects if o.kind == "die"]
        gt = np.array([o.bbox for o in objs], np.float64).reshape(-1, 4)
        image = read_image(labels.path(item))
        det = reader.read(image)
        props = reader.net.detect(image, reader.conf, reader.iou)[0]
        long = max(image.shape[:2])
        seen_px = np.maximum(gt[:, 2] - gt[:, 0], gt[:, 3] - gt[:, 1]) * reader.net.size / long
        pairs = greedy_match(iou_matrix(gt, det.xyxy), 0.5) if convention == "whole_die" else \
            centre_match(gt, det.xyxy)
        scene = str(item.extra.get("scene") or "-").split(" (")[0].split(",")[0]
        n_lab += len(objs)
        n_found += len(pairs)
        used = {j for _, j in pairs}
        got = {i for i, _ in pairs}
        for i, j in pairs:
            true, pred = objs[i].value, int(det.values[j])
            if true not in range(1, 7):
                continue
            n_vals += 1
            read_size[size_band(seen_px[i])] += 1
            if pred == true:
                n_ok += 1
                continue
            wrong[f"{true} -> {pred}"] += 1
            wrong_scene[scene] += 1
            wrong_size[size_band(seen_px[i])] += 1
            examples.setdefault(f"misread {true} -> {pred}", []).append(item.image)
        for i in range(len(objs)):
            if i in got:
                continue
            cause = miss_cause(i, gt, det.xyxy, used, props, seen_px) if convention == "whole_die" else (
                "rejected by the crop network" if len(props) and centre_match(gt[i:i + 1], props)
                else "no proposal")
            misses[cause] += 1
            miss_scene[f"{scene} | {cause}"] += 1
            examples.setdefault(cause, []).append(item.image)
        if draw is not None and (len(got) < len(objs)):
            pic = image.copy()
            for b in det.xyxy:
                cv2.rectangle(pic, (int(b[0]), int(b[1])), (int(b[2]), int(b[3])), (0, 200, 0), 1)
            for i in range(len(objs)):
                if i not in got:
                    g = gt[i]
                    cv2.rectangle(pic, (int(g[0]), int(g[1])), (int(g[2]), int(g[3])), (0, 0, 255), 2)
            draw.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(draw / f"{folder.name}_{Path(item.image).stem}.jpg"), pic)
    return {"set": folder.name, "labelled": n_lab, "found": n_found, "values": n_vals, "read_right": n_ok,
            "recall": n_found / max(n_lab, 1), "value_accuracy": n_ok / max(n_vals, 1),
            "misses": dict(misses.most_common()), "misses_by_scene": dict(miss_scene.most_common()),
            "misreads": dict(wrong.most_common()), "misreads_by_scene": dict(wrong_scene.most_common()),
            "misreads_by_size": dict(wrong_size.most_common()),
            "reads_by_size": dict(read_size.most_common()),
            "examples": {k: sorted(set(v)) for k, v in examples.items()}}


def main() -> int:
    here = Path(__file__).resolve().parents[1]
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--realdata", type=Path, default=here.parent / "shared" / "realdata")
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--detector", type=Path, default=None)
    ap.add_argument("--crops", type=Path, default=None)
    ap.add_argument("--draw", type=Path, default=None, help="write each photo with a miss here")
    ap.add_argument("--blocks", choices=("heldout", "train"), default="heldout",
                    help="score the held-out blocks (default) or the training blocks (to choose on)")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    if not args.realdata.is_dir():
        print(f"no real photos at {args.realdata}", file=sys.stderr)
        return 2
    cv2.setNumThreads(1)
    kw: dict[str, Any] = {"mode": "crops"}
    if args.crops:
        kw["crop_model"] = args.crops
    reader = LearnedDiceReader(args.detector, **kw) if args.detector else LearnedDiceReader(**kw)
    out = []
    for name in args.sets.split(","):
        r = analyse(args.realdata / name, reader, args.draw, args.blocks)
        out.append(r)
        print(json.dumps({k: v for k, v in r.items() if k != "examples"}, indent=1), flush=True)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
