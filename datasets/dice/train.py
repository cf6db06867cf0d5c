"""Train the dice reader's small models from labelled photos (realdata format) and write them to
vision/dice/models/ (JSON, shipped with the package):

* detector.json - linear classifier over orientation-histogram windows (die vs. not);
* verifier.json - small network re-scoring each detector hit (die vs. not), which removes most
  false alarms on the printed tray walls;
* values.json   - small network reading the top-face value 1..6 from a die crop, trained on the
  real crops plus rendered crops of dice in many more colours (datasets.dice.scenes).

The shipped models were made stage by stage (each run seeds its own generator):
    python -m datasets.dice.train --data DIR --only detector
    python -m datasets.dice.train --data DIR --only verifier
    python -m datasets.dice.train --data DIR --only values

Only the TRAINING block of photos is used: the first TRAIN_PHOTOS photos in name order. Everything
after them is held out for evaluation (neighbouring photos are near-duplicates, so the split is by
block, never at random).
Run:  python -m datasets.dice.train --data ../shared/realdata/nell_byler_d6
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import cv2
import numpy as np

from vision.dice.detector import MODELS  # the reader's model folder: where the trained nets go
from vision.dice.features import (
    VALUE_SIZE,
    die_crop,
    dihedral,
    patch_features,
    square_window,
    value_features,
    verifier_features,
    window_patch,
)
from vision.dice.mlp import SoftmaxNet
from vision.realdata import LabelledSet, greedy_match, iou_matrix, load_labels

TRAIN_PHOTOS = 52  # the first 52 photos in name order: IMG_20191208_111228 .. IMG_20191208_112710


def training_items(labels: LabelledSet, n: int = TRAIN_PHOTOS) -> list:
    return sorted(labels.items, key=lambda it: it.image)[:n]


def held_out_items(labels: LabelledSet, n: int = TRAIN_PHOTOS) -> list:
    return sorted(labels.items, key=lambda it: it.image)[n:]


def die_boxes(item) -> np.ndarray:
    return np.array([o.bbox for o in item.objects if o.kind == "die"], np.float64).reshape(-1, 4)


def _jitter(box: np.ndarray, rng: np.random.Generator, amount: float) -> np.ndarray:
    w = box[2] - box[0]
    c = (box[:2] + box[2:]) / 2 + rng.uniform(-amount, amount, 2) * w
    half = w * (1 + rng.uniform(-amount, amount)) / 2
    return np.array([c[0] - half, c[1] - half, c[0] + half, c[1] + half])


def _window_feats(img: np.ndarray, win: np.ndarray, ks: range | list[int]) -> list[np.ndarray]:
    patch = window_patch(img, win)
    return [patch_features(dihedral(patch, k)) for k in ks]


def detector_samples(images: list[np.ndarray], items: list, rng: np.random.Generator,
                     neg_per_image: int = 150) -> tuple[np.ndarray, np.ndarray]:
    X, y = [], []
    for img, item in zip(images, items, strict=True):
        wins = np.array([square_window(b) for b in die_boxes(item)]).reshape(-1, 4)
        for w in wins:
            X += _window_feats(img, w, range(8))
            X += _window_feats(img, _jitter(w, rng, 0.05), [int(rng.integers(8))])
            y += [1] * 9
        sides = (wins[:, 2] - wins[:, 0]) if len(wins) else np.array([50.0])
        H, W = img.shape[:2]
        made = 0
        while made < neg_per_image:
            side = float(np.median(sides)) * rng.uniform(0.6, 1.7)
            x0, y0 = rng.uniform(-side / 4, W - side * 0.75), rng.uniform(-side / 4, H - side * 0.75)
            cand = np.array([[x0, y0, x0 + side, y0 + side]])
            if len(wins) and iou_matrix(cand, wins).max() > 0.25:
                continue
            X += _window_feats(img, cand[0], [0])
            y.append(0)
            made += 1
    return np.array(X, np.float32), np.array(y, np.int32)


def false_hits(detector, images: list[np.ndarray], items: list) -> list[tuple[int, np.ndarray]]:
    """(image index, window) of detector hits that overlap no labelled die."""
    out = []
    for n, (img, item) in enumerate(zip(images, items, strict=True)):
        det = detector.detect(img)
        boxes = die_boxes(item)
        for b in det.xyxy:
            if not len(boxes) or iou_matrix(b[None], boxes).max() < 0.3:
                out.append((n, square_window(b)))
    return out


def verifier_samples(images, items, hits, rng) -> tuple[np.ndarray, np.ndarray]:
    X, y = [], []
    for img, item in zip(images, items, strict=True):
        for b in die_boxes(item):
            sq = square_window(b, 1.0)
            for _ in range(3):
                X.append(verifier_features(img, _jitter(sq, rng, 0.06)))
                y.append(1)
    for n, win in hits:
        X.append(verifier_features(images[n], square_window(win, 1 / 1.25)))
        y.append(0)
    return np.array(X, np.float32), np.array(y, np.int32)


def detector_boxes(images, items, models: Path) -> list[list[tuple[np.ndarray, int]]]:
    """Per image, the reader's own boxes matched to labelled dice, with the labelled value: the value
    net then also learns from boxes placed the way the detector places them."""
    from vision.dice.reader import DiceReader

    reader = DiceReader(models, need_values=False)
    out = []
    for img, item in zip(images, items, strict=True):
        boxes, _ = reader.find(img)
        gt = die_boxes(item)
        objs = [o for o in item.objects if o.kind == "die"]
        pairs = greedy_match(iou_matrix(gt, boxes), 0.5)
        out.append([(boxes[j].astype(np.float64), objs[i].value) for i, j in pairs])
    return out


def value_samples(images, items, rng, extra=None, top_shift: float = 0.0,
                  scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    X, y = [], []
    for n, (img, item) in enumerate(zip(images, items, strict=True)):
        boxes = [(np.array(o.bbox), o.value) for o in item.objects if o.kind == "die"]
        for bbox, value in boxes + (extra[n] if extra else []):
            if value not in range(1, 7):
                continue
            box = square_window(bbox, 1.0)
            for k in range(8):
                for j in range(3):
                    c = die_crop(img, _jitter(box, rng, 0.07) if j else box, top_shift=top_shift, scale=scale)
                    if j:  # slight turn (the upright estimate errs), light and focus
                        mid = (VALUE_SIZE / 2, VALUE_SIZE / 2)
                        M = cv2.getRotationMatrix2D(mid, rng.uniform(-8, 8), 1.0)
                        c = cv2.warpAffine(c, M, (VALUE_SIZE, VALUE_SIZE), borderMode=cv2.BORDER_REPLICATE)
                        c = cv2.convertScaleAbs(c, alpha=rng.uniform(0.75, 1.25), beta=rng.uniform(-25, 25))
                        if rng.random() < 0.3:
                            c = cv2.GaussianBlur(c, (0, 0), rng.uniform(0.5, 1.2))
                    X.append(value_features(dihedral(c, k)))
                    y.append(int(value) - 1)
    return np.array(X, np.float32), np.array(y, np.int32)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, required=True, help="folder with labels.json (realdata format)")
    ap.add_argument("--train-photos", type=int, default=TRAIN_PHOTOS)
    ap.add_argument("--out", type=Path, default=MODELS)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--synthetic", type=int, default=0,
                    help="rendered die crops to add to the value set (6000 tried: 81.4%% vs 82.8%% without)")
    ap.add_argument("--ensemble", type=int, default=1,
                    help="number of value networks to average (3 tried: 87.2%% held out, same as one)")
    ap.add_argument("--no-detector-crops", dest="detector_crops", action="store_false",
                    help="train the value net on labelled boxes only, not also on the reader's own boxes "
                    "(those need detector and verifier in --out)")
    ap.add_argument("--top-shift", type=float, default=0.0, help="see features.die_crop")
    ap.add_argument("--top-scale", type=float, default=1.0, help="see features.die_crop")
    ap.add_argument("--only", choices=["detector", "verifier", "values"], action="append")
    args = ap.parse_args(argv)
    from vision.dice.detector import DieDetector

    rng = np.random.default_rng(args.seed)
    labels = load_labels(args.data)
    items = training_items(labels, args.train_photos)
    images = [cv2.imread(str(labels.path(it))) for it in items]
    meta = {"trained_on": args.data.name, "train_photos": [it.image for it in items]}
    args.out.mkdir(parents=True, exist_ok=True)
    only = set(args.only or ["detector", "verifier", "values"])
    t = time.time()
    if "detector" in only:
        X, y = detector_samples(images, items, rng)
        net = SoftmaxNet(X.shape[1], 2).fit(X, y, epochs=15, class_weight=np.array([1.0, 2.0]))
        hits = false_hits(DieDetector(net, threshold=0.0), images, items)
        Xh = np.array([_window_feats(images[n], w, [0])[0] for n, w in hits], np.float32)
        Xh = Xh.reshape(-1, X.shape[1])
        X, y = np.concatenate([X, Xh]), np.concatenate([y, np.zeros(len(Xh), np.int32)])
        net = SoftmaxNet(X.shape[1], 2).fit(X, y, epochs=15, class_weight=np.array([1.0, 2.0]))
        net.save(args.out / "detector.json", **meta)
        print(f"detector: {int(y.sum())} positive, {int((y == 0).sum())} negative windows "
              f"({len(Xh)} hard); {time.time() - t:.0f}s")
    if "verifier" in only:
        det = DieDetector(SoftmaxNet.load(args.out / "detector.json"), threshold=0.0)
        hits = false_hits(det, images, items)
        X, y = verifier_samples(images, items, hits, rng)
        net = SoftmaxNet(X.shape[1], 2, hidden=48).fit(X, y, epochs=40)
        net.save(args.out / "verifier.json", **meta)
        print(f"verifier: {int(y.sum())} dice, {int((y == 0).sum())} false hits, training accuracy "
              f"{np.mean(net.proba(X).argmax(1) == y):.3f}; {time.time() - t:.0f}s")
    if "values" in only:
        extra = detector_boxes(images, items, args.out) if args.detector_crops else None
        X, y = value_samples(images, items, rng, extra, args.top_shift, args.top_scale)
        if args.synthetic:
            from datasets.dice.scenes import synthetic_die_crop

            ys = np.arange(args.synthetic) % 6
            Xs = np.array([value_features(synthetic_die_crop(rng, int(v) + 1, VALUE_SIZE)) for v in ys])
            X, y = np.concatenate([X, Xs]), np.concatenate([y, ys.astype(np.int32)])
        for k in range(args.ensemble):  # nets differing in start and batch order; the reader averages them
            net = SoftmaxNet(X.shape[1], 6, hidden=96, seed=k).fit(X, y, epochs=40, l2=1e-3, seed=k)
            net.save(args.out / ("values.json" if k == 0 else f"values_{k}.json"), **meta,
                     top_shift=args.top_shift, top_scale=args.top_scale)
            print(f"values net {k}: {len(y)} crops, training accuracy "
                  f"{np.mean(net.proba(X).argmax(1) == y):.3f}; {time.time() - t:.0f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
