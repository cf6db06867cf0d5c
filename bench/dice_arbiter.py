"""A second, independently trained crop network as the arbiter of close calls (issue 21, branch dicearb).

Phase `dump`: the default reader (`LearnedDiceReader(mode="crops")`, as `eval dice`) on the photos of
one part ("a" / "b": the halves of the training blocks, bench/dice_arbiter_halves.py; "heldout": the
blocks no network trained on); per found die matched to a labelled value (as `eval dice` matches):
the label, the shipped reading's class probabilities, and each second network's probabilities on the
box the value was read on (its 4 turned views, context 1.25).

    python bench/dice_arbiter.py dump --realdata ../shared/realdata --part b \\
        --first /tmp/dicearb/proxy_a.onnx --second /tmp/dicearb/fold_a.onnx --out /tmp/dicearb/dump_b.json

Phase `choose`: every rule of the grid on dumps whose second networks did not train on their photos;
rows of dice read right per series. Phase `apply`: one rule on a dump.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.dice_arbiter_halves import SETS, halves  # noqa: E402
from datasets.dice.photo_split import series_split  # noqa: E402
from vision.dice.evaluate import box_convention, centre_match  # noqa: E402
from vision.learned.crops import CropReader  # noqa: E402
from vision.learned.reader import LearnedDiceReader  # noqa: E402
from vision.realdata import greedy_match, iou_matrix, load_labels  # noqa: E402
from vision.sources import read_image  # noqa: E402

MARGINS = (0.2, 0.4, 0.6, 1.01)  # a close call: the two likeliest shares differ by less (1.01: every die)
WEIGHTS = (0.5, 1.0, 2.0)  # the second reading's weight in the mean of value shares
TOP_TWO = (True, False)  # True: the second reading only chooses between the first's two likeliest


def part_photos(labels, part: str) -> set[str]:
    if part == "heldout":
        return {it.image for it in labels.items} - set(series_split(labels))
    return {n for n, h in halves(labels).items() if h == part}


def dump(realdata: Path, part: str, seconds: list[Path], first: Path | None = None) -> list[dict]:
    """`first`: the crop network of the reader (None: the shipped one), a stand-in that did not see
    the part's photos."""
    reader = LearnedDiceReader(mode="crops", crop_model=first)
    others = [CropReader(p, 4) for p in seconds]
    rows = []
    for name in SETS:
        labels = load_labels(realdata / name)
        convention = box_convention(labels.meta)
        photos = part_photos(labels, part)
        for item in sorted(labels.items, key=lambda i: i.image):
            if item.image not in photos:
                continue
            image = read_image(labels.path(item))
            det = reader.read(image)
            objs = [o for o in item.objects if o.kind == "die"]
            gt = np.array([o.bbox for o in objs], np.float64).reshape(-1, 4)
            pairs = (greedy_match(iou_matrix(gt, det.xyxy), 0.5) if convention == "whole_die"
                     else centre_match(gt, det.xyxy))
            pairs = [(i, j) for i, j in pairs if objs[i].value in range(1, 7)]
            if not pairs:
                continue
            js = [j for _, j in pairs]
            read = det.data["read"][js]
            second = [o.views(image, read) for o in others]
            for k, (i, j) in enumerate(pairs):
                rows.append({"set": name, "image": item.image, "label": int(objs[i].value),
                             "value": int(det.values[j]), "ship": det.data["proba"][j].round(5).tolist(),
                             "second": [s[k].round(5).tolist() for s in second]})
        print(name, part, sum(r["set"] == name for r in rows), flush=True)
    return rows


def shares(p: np.ndarray) -> np.ndarray:
    v = np.asarray(p, np.float64)[..., 1:]
    return v / np.maximum(v.sum(axis=-1, keepdims=True), 1e-9)


def arbitrate(ship: np.ndarray, second: np.ndarray, margin: float, weight: float,
              top_two: bool) -> np.ndarray:
    """Values 1..6: the shipped reading's, except where its two likeliest shares differ by less than
    `margin`: there the mean of the two readings' shares (second at `weight`) decides, among all six
    values or (top_two) among the shipped reading's two likeliest."""
    a, b = shares(ship), shares(second)
    two = np.sort(a, axis=1)[:, -2:]
    close = two[:, 1] - two[:, 0] < margin
    mixed = (a + weight * b) / (1 + weight)
    if top_two:
        first2 = np.argsort(-a, axis=1)[:, :2]
        mask = np.zeros_like(a, bool)
        np.put_along_axis(mask, first2, True, axis=1)
        mixed = np.where(mask, mixed, -1.0)
    return np.where(close, mixed.argmax(axis=1), a.argmax(axis=1)) + 1


def second_of(rows: list[dict], which: int | None) -> np.ndarray:
    """The second reading per die: network `which`, or (None) the mean of all of them."""
    s = np.array([r["second"] for r in rows], np.float64)  # (N, networks, 7)
    return s.mean(axis=1) if which is None else s[:, which]


def counts(rows: list[dict], values: np.ndarray) -> dict[str, list[int]]:
    """Per series: [found with a value label, read right]."""
    out = {}
    for name in SETS:
        idx = [k for k, r in enumerate(rows) if r["set"] == name]
        out[name] = [len(idx), int(sum(values[k] == rows[k]["label"] for k in idx))]
    return out


def grid(parts: list[tuple[list[dict], int | None]], rules: list[tuple | None] | None = None) -> list[dict]:
    """Rules on each (dump, which second network) and summed; the first row is no arbiter."""
    out = []
    rules = [None, *itertools.product(MARGINS, WEIGHTS, TOP_TWO)] if rules is None else rules
    for rule in rules:
        total = {n: [0, 0] for n in SETS}
        for rows, which in parts:
            ship = np.array([r["ship"] for r in rows])
            vals = (shares(ship).argmax(axis=1) + 1 if rule is None
                    else arbitrate(ship, second_of(rows, which), *rule))
            for n, (f, r) in counts(rows, vals).items():
                total[n][0] += f
                total[n][1] += r
        named = None if rule is None else dict(zip(("margin", "weight", "top_two"), rule, strict=True))
        out.append({"rule": named, **{n: total[n] for n in SETS}})
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("--realdata", type=Path, required=True)
    d.add_argument("--part", choices=("a", "b", "heldout"), required=True)
    d.add_argument("--second", type=Path, action="append", required=True)
    d.add_argument("--first", type=Path, help="the reader's crop network (default: the shipped one)")
    d.add_argument("--out", type=Path, required=True)
    c = sub.add_parser("choose", help="DUMP:INDEX ... (INDEX: which second network; 'mean': all)")
    c.add_argument("parts", nargs="+")
    c.add_argument("--json", type=Path)
    a = sub.add_parser("apply", help="one rule only (the held-out run): DUMP:INDEX ...")
    a.add_argument("parts", nargs="+")
    a.add_argument("--margin", type=float, required=True)
    a.add_argument("--weight", type=float, required=True)
    a.add_argument("--top-two", action="store_true")
    a.add_argument("--json", type=Path)
    args = ap.parse_args()
    cv2.setNumThreads(1)
    if args.cmd == "dump":
        rows = dump(args.realdata, args.part, args.second, args.first)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"part": args.part, "first": str(args.first),
                                        "second": [str(p) for p in args.second],
                                        "dice": rows}), encoding="utf-8")
        return
    parts = []
    for spec in args.parts:
        path, _, which = spec.rpartition(":")
        rows = json.loads(Path(path).read_text(encoding="utf-8"))["dice"]
        parts.append((rows, None if which == "mean" else int(which)))
    table = grid(parts, [None, (args.margin, args.weight, args.top_two)] if args.cmd == "apply" else None)
    for row in table:
        print(json.dumps(row))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(table, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
