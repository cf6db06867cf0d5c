"""Die crops for the learned crop reader (vision/learned/crops.py): what the box detector proposes,
labelled "not a die" (0) or the die's value (1..6).

Why from the detector's own proposals: the crop reader judges exactly those boxes at run time (low
confidence, so recall is high), so it must learn their framing errors and their false alarms (tray
prints, lone pips, two touching dice in one box), not only clean hand-drawn boxes. Labelled boxes,
jittered, are added so every die is seen even where the detector missed it.

Each sample is a square patch of PATCH px around the box centre, side CONTEXT x the box's longer side,
so the trainer can still turn, shift and rescale it before cutting the network's input.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from datasets.yolo.progress import progress
from vision.learned.crops import box_crops
from vision.realdata import LabelledImage, iou_matrix, load_labels

PATCH = 64
CONTEXT = 1.6  # patch side / box side; the reader's input keeps about 1.25 of it
POS_IOU, NEG_IOU = 0.5, 0.25
# a proposal overlapping one die at IoU REFINE_IOU..POS_IOU, with the die's centre inside it and no
# other die near, is a die badly framed: labelled with its value and a box target, so the reader
# learns to re-frame it (the detector's only box on a die is sometimes like that)
REFINE_IOU, OTHER_IOU = 0.3, 0.15


def box_patch(image: np.ndarray, box: Sequence[float], size: int = PATCH,
              context: float = CONTEXT) -> np.ndarray:
    """Square patch centred on `box` (x0, y0, x1, y1), side context x its longer side, edges replicated:
    the run time's crop geometry, only wider, so training can still turn and shift it."""
    return box_crops(image, np.asarray(box, np.float32)[None], size, context)[0]


def label_proposals(gt: np.ndarray, values: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Class per proposal and the index of its die (-1 for none): the value of the die it frames
    (IoU >= POS_IOU, or a lone die badly framed, see REFINE_IOU), 0 when it frames no die (IoU <
    NEG_IOU with every die), -1 when ambiguous (left out)."""
    out = np.zeros(len(boxes), np.int64)
    which = np.full(len(boxes), -1, np.int64)
    if len(gt) and len(boxes):
        m = iou_matrix(boxes, gt)
        best = m.argmax(axis=1)
        top = m[np.arange(len(boxes)), best]
        second = np.sort(m, axis=1)[:, -2] if m.shape[1] > 1 else np.zeros(len(boxes))
        gc = (gt[best, :2] + gt[best, 2:]) / 2
        inside = (gc >= boxes[:, :2]).all(axis=1) & (gc <= boxes[:, 2:]).all(axis=1)
        refine = (top >= REFINE_IOU) & inside & (second < OTHER_IOU)
        pos = (top >= POS_IOU) | refine
        out = np.where(pos, values[best], np.where(top < NEG_IOU, 0, -1))
        which = np.where(pos, best, -1)
    return out, which


def box_target(box: Sequence[float], die: Sequence[float], context: float = CONTEXT) -> np.ndarray:
    """The die's centre and side (sqrt of its box area) in the normalised coordinates of the patch cut
    around `box` (-1..1 across the patch, as torch's grid_sample counts)."""
    x0, y0, x1, y1 = (float(v) for v in box)
    d0, e0, d1, e1 = (float(v) for v in die)
    half = max(x1 - x0, y1 - y0, 2.0) * context / 2
    return np.array([((d0 + d1) - (x0 + x1)) / 2 / half, ((e0 + e1) - (y0 + y1)) / 2 / half,
                     np.sqrt(max(d1 - d0, 1.0) * max(e1 - e0, 1.0)) / half], np.float32)


def jittered(box: Sequence[float], rng: np.random.Generator, amount: float = 0.2) -> np.ndarray:
    x0, y0, x1, y1 = (float(v) for v in box)
    w, h = x1 - x0, y1 - y0
    d = rng.uniform(-amount, amount, 4) * np.array([w, h, w, h])
    return np.array([x0, y0, x1, y1]) + d


# a whole-die box this much taller than wide is a die seen from low (its front face below the top)
OBLIQUE = 1.15


def top_face_samples(image: np.ndarray, item_objects: list[tuple[Sequence[float], int]],
                     rng: np.random.Generator, copies: int) -> tuple[list[np.ndarray], list[int]]:
    """Crops of dice seen from low framed as the reader reads a grown die (vision/learned/body.py
    `top_face_box`: the square at the top of the whole-die box), jittered; only for whole-die boxes at
    least OBLIQUE times taller than wide (from above, the top-face square is the proposal's framing,
    which the other samples already cover). No box target: the reader does not re-frame these."""
    from vision.learned.body import top_face_box

    patches: list[np.ndarray] = []
    labels: list[int] = []
    for b, v in item_objects:
        x0, y0, x1, y1 = (float(c) for c in b)
        if y1 - y0 < OBLIQUE * (x1 - x0):
            continue
        face = top_face_box(np.array([x0, y0, x1, y1], np.float32))[0]
        for _ in range(copies):
            patches.append(box_patch(image, jittered(face, rng, 0.1)))
            labels.append(int(v))
    return patches, labels


def image_samples(image: np.ndarray, item_objects: list[tuple[Sequence[float], int]], proposals: np.ndarray,
                  rng: np.random.Generator, gt_copies: int = 2,
                  max_negatives: int = 40) -> tuple[list[np.ndarray], list[int], list[np.ndarray]]:
    """Patches, classes and box targets (NaN for "not a die") for one image: detector proposals
    (labelled by overlap) and jittered labelled boxes."""
    gt = np.array([b for b, _ in item_objects], np.float32).reshape(-1, 4)
    values = np.array([v for _, v in item_objects], np.int64)
    cls, which = label_proposals(gt, values, proposals)
    patches, labels, targets = [], [], []
    none = np.full(3, np.nan, np.float32)
    neg = np.flatnonzero(cls == 0)
    if len(neg) > max_negatives:
        neg = rng.choice(neg, max_negatives, replace=False)
    for i in list(np.flatnonzero(cls > 0)) + list(neg):
        patches.append(box_patch(image, proposals[i]))
        labels.append(int(cls[i]))
        targets.append(box_target(proposals[i], gt[which[i]]) if cls[i] > 0 else none)
    for b, v in item_objects:
        for _ in range(gt_copies):
            j = jittered(b, rng)
            patches.append(box_patch(image, j))
            labels.append(int(v))
            targets.append(box_target(j, b))
    return patches, labels, targets


def _objects(item: LabelledImage) -> list[tuple[Sequence[float], int]]:
    return [(o.bbox, int(o.value)) for o in item.objects
            if o.kind == "die" and isinstance(o.value, int) and 1 <= o.value <= 6]


def synthetic_patch(rng: np.random.Generator, value: int, deep_smoky: bool = False) -> np.ndarray:
    """One generated die crop (datasets/dice/scenes.py: many body and pip colours, smoky dice among
    them) padded to the patch framing (the crop covers about 1.25 die sides, the patch CONTEXT)."""
    from datasets.dice.scenes import synthetic_die_crop

    inner = int(round(PATCH * 1.25 / CONTEXT))
    c = synthetic_die_crop(rng, value, size=inner, deep_smoky=deep_smoky)
    edge = np.concatenate([c[0], c[-1], c[:, 0], c[:, -1]]).astype(np.float32)
    out = np.empty((PATCH, PATCH, 3), np.float32)
    out[:] = np.median(edge, axis=0)  # the table around the crop: its own border colour, a little noise
    out += rng.normal(0, 2.0, out.shape)
    pad = (PATCH - inner) // 2
    out[pad:pad + inner, pad:pad + inner] = c
    return np.clip(out, 0, 255).astype(np.uint8)


def build(out: Path, real: Path | None, real_first: int, renders: int, seed: int, detector: Path,
          conf: float = 0.01, show_progress: bool = True, synthetic: int = 0,
          photos: Sequence[str] | None = None, deep_smoky: bool = False,
          real_sets: Sequence[Path] = (), surface_share: float = 0.0, top_face_copies: int = 0,
          leave_out: Sequence[str] = ()) -> dict[str, Any]:
    """Write OUT (an .npz): x (N, PATCH, PATCH, 3) uint8 BGR, y (N,) 0..6, target (N, 3) the die's
    centre and side in patch coordinates (NaN: none), source (N,) 0 real / 1 render / 2 generated crop,
    group (N,) the real photo's index or -1, hard (N,) 1 for the top-face copies below.
    Real photos: the first `real_first` of REAL's labels.json in file-name order, or exactly `photos`
    when given (datasets/dice/photo_split.py); the rest stay unseen for evaluation.
    `real_sets`: more realdata folders, each with its training blocks (photo_split.series_split); where
    their boxes enclose only the pips, the boxes are grown to whole dice (pip_boxes.py) to label the
    proposals, and no box target is learned from them (the grown box is a guess of the framing).
    Renders: `renders` scenes of datasets/dice from `seed`, the first `surface_share` of every 20 on
    bare table tops (surfaces.py). `top_face_copies`: per real die seen from low (whole-die boxes
    only), that many crops framed as the reader reads a grown die (`top_face_samples`).
    `leave_out`: file-name patterns (fnmatch) of real photos kept out (a validation block carved out
    of the training blocks)."""
    from datasets.dice.scenes import random_scene
    from vision.learned.yolo import OnnxYolo

    net = OnnxYolo(detector)
    rng = np.random.default_rng(seed)
    xs: list[np.ndarray] = []
    ys: list[int] = []
    ts: list[np.ndarray] = []
    src: list[int] = []
    group: list[int] = []  # index of the real photo in file-name order, -1 for renders (for splits)
    hard: list[int] = []
    used: list[str] = []

    def kept(name: str) -> bool:
        return not any(fnmatch(name, pat) for pat in leave_out)

    if real is not None and (real_first > 0 or photos):
        labelled = load_labels(real)
        items = sorted(labelled.items, key=lambda it: it.image)
        items = [it for it in items if it.image in set(photos)] if photos is not None else items[:real_first]
        items = [it for it in items if kept(it.image)]
        for g, item in enumerate(progress(items, len(items), "real photos", enabled=show_progress)):
            image = cv2.imread(str(labelled.path(item)))
            if image is None:
                continue
            boxes, _, _ = net.detect(image, conf, 0.5)
            # real photos are few: more jittered copies of each labelled die
            p, lab, tg = image_samples(image, _objects(item), boxes, rng, gt_copies=4)
            fp, flab = top_face_samples(image, _objects(item), rng, top_face_copies)
            xs += p + fp
            ys += lab + flab
            ts += tg + [np.full(3, np.nan, np.float32)] * len(flab)
            src += [0] * (len(lab) + len(flab))
            group += [g] * (len(lab) + len(flab))
            hard += [0] * len(lab) + [1] * len(flab)
            used.append(item.image)
    by_set: dict[str, list[str]] = {Path(real).name: list(used)} if used else {}
    for folder in real_sets:
        names = _add_real_set(Path(folder), net, conf, rng, (xs, ys, ts, src, group, hard), show_progress,
                              top_face_copies, kept)
        by_set.setdefault(Path(folder).name, []).extend(names)
    for k in progress(range(renders), renders, "renders", enabled=show_progress):
        r = np.random.default_rng([seed, k])
        if k % 20 < round(20 * surface_share):
            from datasets.dice.surfaces import surface_scene

            image, objects = surface_scene(r, (1280, 720))
        else:
            image, objects = random_scene(r)
        boxes, _, _ = net.detect(image, conf, 0.5)
        objs = [(o["bbox"], int(o["value"])) for o in objects]
        p, lab, tg = image_samples(image, objs, boxes, rng, gt_copies=1, max_negatives=15)
        xs += p
        ys += lab
        ts += tg
        src += [1] * len(lab)
        group += [-1] * len(lab)
        hard += [0] * len(lab)
    for k in progress(range(synthetic), synthetic, "die crops", enabled=show_progress):
        value = int(rng.integers(1, 7))
        xs.append(synthetic_patch(np.random.default_rng([seed, 7, k]), value, deep_smoky))
        ys.append(value)
        ts.append(np.full(3, np.nan, np.float32))
        src.append(2)
        group.append(-1)
        hard.append(0)
    x = np.stack(xs) if xs else np.zeros((0, PATCH, PATCH, 3), np.uint8)
    y = np.array(ys, np.int64)
    meta = {"real": str(real) if real else None, "real_photos": used, "real_photos_by_set": by_set,
            "real_sets": [str(f) for f in real_sets], "surface_share": surface_share, "renders": renders,
            "seed": seed,
            "detector": Path(detector).name, "conf": conf, "synthetic": synthetic,
            "patch": PATCH, "context": CONTEXT, "deep_smoky": deep_smoky,
            "top_face_copies": top_face_copies, "leave_out": list(leave_out), "hard": int(sum(hard)),
            "counts": {str(c): int((y == c).sum()) for c in range(7)}}
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, x=x, y=y, source=np.array(src, np.int8),
                        target=np.array(ts, np.float32).reshape(-1, 3),
                        group=np.array(group, np.int32), hard=np.array(hard, np.int8), meta=json.dumps(meta))
    return meta


def _add_real_set(folder: Path, net: Any, conf: float, rng: np.random.Generator, acc: tuple[list, ...],
                  show_progress: bool, top_face_copies: int = 0,
                  kept: Callable[[str], bool] = lambda name: True) -> list[str]:
    """Samples of one folder's training blocks (those `kept`) appended to the accumulators (x, y,
    target, source, group, hard); returns the photos used. Top-face copies only where boxes are
    whole dice."""
    from datasets.dice.photo_split import series_split
    from datasets.dice.pip_boxes import grow_pip_box

    xs, ys, ts, src, group, hard = acc
    labelled = load_labels(folder)
    pips = labelled.meta.get("box_convention", "whole_die") == "pips"
    chosen = set(series_split(labelled))
    items = [it for it in sorted(labelled.items, key=lambda i: i.image)
             if it.image in chosen and kept(it.image)]
    used = []
    base = max(group, default=-1) + 1
    shown = progress(items, len(items), f"real photos {folder.name}", enabled=show_progress)
    for g, item in enumerate(shown):
        image = cv2.imread(str(labelled.path(item)))
        if image is None:
            continue
        objs = _objects(item)
        if pips:
            objs = [(grow_pip_box(image, b)[0], v) for b, v in objs]
        boxes, _, _ = net.detect(image, conf, 0.5)
        p, lab, tg = image_samples(image, objs, boxes, rng, gt_copies=4)
        if pips:
            tg = [np.full(3, np.nan, np.float32) for _ in tg]
        fp, flab = top_face_samples(image, objs, rng, 0 if pips else top_face_copies)
        xs += p + fp
        ys += lab + flab
        ts += tg + [np.full(3, np.nan, np.float32)] * len(flab)
        src += [0] * (len(lab) + len(flab))
        group += [base + g] * (len(lab) + len(flab))
        hard += [0] * len(lab) + [1] * len(flab)
        used.append(item.image)
    return used
