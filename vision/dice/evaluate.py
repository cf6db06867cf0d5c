"""Scoring a dice reader against a folder of labelled photos (realdata format).

How a detection matches a labelled die follows the set's `box_convention` (what its boxes enclose):
`whole_die` (the default, also when the key is absent): greedily by IoU >= 0.5, the reader's boxes
enclosing the whole visible die too; `top_face` and `pips` (boxes around the top face or only its pips,
which no whole-die box overlaps at IoU 0.5): a detection and a label may pair when the label's centre
lies inside the detection or the detection's centre inside the label, nearest centres first, each once.
Recall = matched / labelled. Value accuracy is over matched dice that carry a value. Where a set says
its labels are incomplete (some dice have no box), an unmatched detection that overlaps no labelled die
at all cannot be judged from the labels: it is counted as "unverifiable", left out of the lenient
precision and drawn for a person to check; the strict precision, which counts it as wrong, is reported
beside it.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.realdata import (
    LabelledImage,
    LabelledSet,
    confusion_matrix,
    format_confusion,
    greedy_match,
    iou_matrix,
    load_labels,
)
from vision.sources import read_image
from vision.types import Detections, VisionError

VALUES = [1, 2, 3, 4, 5, 6]
Reader = Callable[[np.ndarray], Detections]


def labels_incomplete(meta: dict[str, Any]) -> bool:
    if isinstance(meta.get("labels_complete"), bool):
        return not meta["labels_complete"]
    notes = " ".join(str(meta.get(k, "")) for k in ("notes", "label_quality"))
    return bool(re.search(r"unlabel|no box|leniently|incomplete", notes, re.I))


@dataclass
class ImageScore:
    image: str
    n_labelled: int
    n_detected: int
    matched: int = 0
    false_pos: int = 0
    unverifiable: int = 0
    value_correct: int = 0
    value_total: int = 0
    seconds: float = 0.0
    error: str | None = None
    pairs: list[tuple[int, int]] = field(default_factory=list)  # (true value, predicted value)
    value_conf: list[float] = field(default_factory=list)  # the reader's value confidence, per pair
    colour_pairs: list[tuple[str, str | None]] = field(default_factory=list)

    def row(self) -> dict[str, Any]:
        d = {k: getattr(self, k) for k in ("image", "n_labelled", "n_detected", "matched", "false_pos",
                                             "unverifiable", "value_correct", "value_total")}
        d["missed"] = self.n_labelled - self.matched
        d["ms"] = round(self.seconds * 1000, 1)
        if self.error:
            d["error"] = self.error
        return d


BOX_CONVENTIONS = ("whole_die", "top_face", "pips")


def box_convention(meta: dict[str, Any]) -> str:
    """What the set's boxes enclose (realdata README); a set that does not say means whole dice."""
    value = meta.get("box_convention") or "whole_die"
    if value not in BOX_CONVENTIONS:
        raise VisionError(f"box_convention {value!r} is not one of {', '.join(BOX_CONVENTIONS)}")
    return str(value)


def _centres(boxes: np.ndarray) -> np.ndarray:
    return np.column_stack([(boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2])


def _inside(points: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """[i, j]: point i lies inside box j."""
    x, y = points[:, None, 0], points[:, None, 1]
    return ((x >= boxes[None, :, 0]) & (x <= boxes[None, :, 2])
            & (y >= boxes[None, :, 1]) & (y <= boxes[None, :, 3]))


def centre_match(gt: np.ndarray, found: np.ndarray) -> list[tuple[int, int]]:
    """Label/detection pairs for top-face and pip boxes: the label's centre inside the detection or
    the detection's centre inside the label; nearest centres (relative to the detection's size) first."""
    gt, found = gt.reshape(-1, 4), np.asarray(found, np.float64).reshape(-1, 4)
    if not len(gt) or not len(found):
        return []
    gc, fc = _centres(gt), _centres(found)
    allowed = _inside(gc, found) | _inside(fc, gt).T
    size = np.maximum(np.hypot(found[:, 2] - found[:, 0], found[:, 3] - found[:, 1]), 1e-6)
    closeness = 1.0 - np.linalg.norm(gc[:, None, :] - fc[None, :, :], axis=2) / size[None, :]
    return greedy_match(np.where(allowed, closeness, -1e9), -1e8)  # only allowed pairs


def _touching(gt: np.ndarray, found: np.ndarray, convention: str) -> np.ndarray:
    """[i, j]: detection j overlaps labelled die i (used to tell a false detection from one where no
    die is labelled)."""
    ious = iou_matrix(gt, found)
    if convention == "whole_die":
        return ious > 0.05
    return ious > 0.0  # a pip box is a small part of the die: any overlap touches it


def score_image(item: LabelledImage, det: Detections, lenient: bool,
                convention: str = "whole_die") -> tuple[ImageScore, dict[str, list]]:
    objs = [o for o in item.objects if o.kind == "die"]
    gt = np.array([o.bbox for o in objs], np.float64).reshape(-1, 4)
    if convention == "whole_die":
        pairs = greedy_match(iou_matrix(gt, det.xyxy), 0.5)
    else:
        pairs = centre_match(gt, det.xyxy)
    touching = _touching(gt, det.xyxy, convention)
    s = ImageScore(item.image, len(objs), len(det), matched=len(pairs))
    matched_d = {j for _, j in pairs}
    wrong = []
    for i, j in pairs:
        true = objs[i].value
        if true in VALUES:
            pred = int(det.values[j])
            s.value_total += 1
            s.value_correct += int(pred == true)
            s.pairs.append((true, pred))
            s.value_conf.append(float(det.value_confidence[j]))
            if pred != true:
                wrong.append((j, true, pred))
        if objs[i].color is not None:
            s.colour_pairs.append((objs[i].color, det.colors[j]))
    fps, unver = [], []
    for j in range(len(det)):
        if j in matched_d:
            continue
        touches = len(gt) and touching[:, j].any()
        (unver if lenient and not touches else fps).append(j)
    s.false_pos, s.unverifiable = len(fps), len(unver)
    matched_g = {i for i, _ in pairs}
    misses = [i for i in range(len(objs)) if i not in matched_g]
    return s, {"missed": [gt[i] for i in misses], "false": [det.xyxy[j] for j in fps],
               "unverifiable": [det.xyxy[j] for j in unver],
               "wrong": [(det.xyxy[j], t, p) for j, t, p in wrong]}


def draw_misses(image: np.ndarray, det: Detections, marks: dict[str, list]) -> np.ndarray:
    """Green: read right; red: labelled die not found; magenta: false detection; orange: wrong value
    (pred/true); cyan: detection where no die is labelled (check by eye)."""
    out = image.copy()

    def box(b, colour, text=None, width=1):
        x0, y0, x1, y1 = (int(round(v)) for v in b)
        cv2.rectangle(out, (x0, y0), (x1, y1), colour, width)
        if text:
            cv2.putText(out, text, (x0, max(10, y0 - 3)), cv2.FONT_HERSHEY_SIMPLEX, 0.45, colour, 1,
                        cv2.LINE_AA)

    for b, v in zip(det.xyxy, det.values, strict=True):
        box(b, (0, 170, 0), str(int(v)))
    for b in marks["missed"]:
        box(b, (0, 0, 255), "miss", 2)
    for b in marks["false"]:
        box(b, (255, 0, 255), "false", 2)
    for b in marks["unverifiable"]:
        box(b, (255, 255, 0), "unlabelled?", 2)
    for b, t, p in marks["wrong"]:
        box(b, (0, 140, 255), f"{p}/{t}", 2)
    return out


def evaluate(labels: LabelledSet, reader: Reader, lenient: bool | None = None,
             skip: set[str] | None = None, draw_dir: Path | None = None) -> dict[str, Any]:
    lenient = labels_incomplete(labels.meta) if lenient is None else lenient
    convention = box_convention(labels.meta)
    skip = skip or set()
    scores: list[ImageScore] = []
    skipped = [it.image for it in labels.items if it.image in skip]
    if draw_dir is not None:
        draw_dir.mkdir(parents=True, exist_ok=True)
    for item in labels.items:
        if item.image in skip:
            continue
        n_lab = sum(o.kind == "die" for o in item.objects)
        try:
            image = read_image(labels.path(item))
        except VisionError as exc:
            scores.append(ImageScore(item.image, n_lab, 0, error=str(exc)))
            continue
        t = time.perf_counter()
        det = reader(image)
        dt = time.perf_counter() - t
        s, marks = score_image(item, det, lenient, convention)
        s.seconds = dt
        scores.append(s)
        bad = marks["missed"] or marks["false"] or marks["wrong"] or marks["unverifiable"]
        if draw_dir is not None and bad:
            name = Path(item.image).stem + "_misses.jpg"
            cv2.imwrite(str(draw_dir / name), draw_misses(image, det, marks))
    return summarise(labels, scores, lenient, skipped, convention)


def summarise(labels: LabelledSet, scores: list[ImageScore], lenient: bool,
              skipped: list[str], convention: str = "whole_die") -> dict[str, Any]:
    n_lab = sum(s.n_labelled for s in scores)
    n_det = sum(s.n_detected for s in scores)
    tp = sum(s.matched for s in scores)
    fp = sum(s.false_pos for s in scores)
    unver = sum(s.unverifiable for s in scores)
    v_ok = sum(s.value_correct for s in scores)
    v_n = sum(s.value_total for s in scores)
    pairs = [p for s in scores for p in s.pairs]
    cpairs = [p for s in scores for p in s.colour_pairs]
    timed = [s.seconds for s in scores if not s.error]
    out: dict[str, Any] = {
        "folder": str(labels.folder),
        "box_convention": convention,
        "matched_by": "IoU >= 0.5" if convention == "whole_die" else "centre inside the other box",
        "n_images": len(scores),
        "n_labelled": n_lab,
        "n_detected": n_det,
        "matched": tp,
        "recall": tp / n_lab if n_lab else None,
        "precision": tp / (tp + fp) if tp + fp else None,
        "precision_strict": tp / (tp + fp + unver) if tp + fp + unver else None,
        "unverifiable": unver,
        "lenient": lenient,
        "value_accuracy": v_ok / v_n if v_n else None,
        "end_to_end": v_ok / n_lab if n_lab else None,
        "confusion": {"labels": VALUES, "matrix": confusion_matrix(pairs, VALUES)},
        "ms_per_image": round(1000 * float(np.mean(timed)), 1) if timed else None,
        "skipped_images": skipped,
        "errors": [s.row() for s in scores if s.error],
        "images": [s.row() for s in scores],
    }
    if cpairs:
        out["colour_accuracy"] = sum(t == p for t, p in cpairs) / len(cpairs)
    conf = [c for s in scores for c in s.value_conf]
    out["value_reads"] = [[t, p, round(c, 4)] for (t, p), c in zip(pairs, conf, strict=True)]
    out["confident_values"] = confident_values(pairs, conf)
    return out


CONFIDENCE_LEVELS = (0.5, 0.7, 0.8, 0.9, 0.95)


def confident_values(pairs: list[tuple[int, int]], conf: list[float],
                     levels: tuple[float, ...] = CONFIDENCE_LEVELS) -> list[dict[str, Any]]:
    """Per confidence level: the share of found dice whose value the reader gives at least that
    confidence, and how many of those are right. A referee that asks the players about the rest is
    wrong only that often (risk against coverage)."""
    rows = []
    ok = np.array([t == p for t, p in pairs], bool)
    c = np.asarray(conf, np.float64)
    for level in levels:
        sure = c >= level
        rows.append({"min_confidence": level, "share": float(sure.mean()) if len(c) else None,
                     "value_accuracy": float(ok[sure].mean()) if sure.any() else None,
                     "wrong": int((sure & ~ok).sum())})
    return rows


def format_report(r: dict[str, Any]) -> str:
    pct = lambda v: "n/a" if v is None else f"{100 * v:.1f}%"  # noqa: E731
    lines = [f"{r['folder']}: {r['n_images']} images, {r['n_labelled']} labelled dice, "
             f"{r['n_detected']} detected"]
    if "box_convention" in r:
        lines.append(f"  boxes: {r['box_convention']} (a detection matches a labelled die by "
                     f"{r['matched_by']})")
    if r["skipped_images"]:
        lines.append(f"  skipped {len(r['skipped_images'])} images the shipped models were trained on "
                     "(--include-training to score them too)")
    lines.append(f"  recall {pct(r['recall'])}  precision {pct(r['precision'])}"
                 + (f" (lenient; strict {pct(r['precision_strict'])}, {r['unverifiable']} detections "
                    "where no die is labelled)" if r["lenient"] else ""))
    lines.append(f"  value accuracy on matched dice {pct(r['value_accuracy'])}  "
                 f"end to end (found and read right) {pct(r['end_to_end'])}")
    if "colour_accuracy" in r:
        lines.append(f"  colour accuracy {pct(r['colour_accuracy'])}")
    for row in r.get("confident_values", []):
        lines.append(f"  value confidence >= {row['min_confidence']:.2f}: {pct(row['share'])} of found dice, "
                     f"{pct(row['value_accuracy'])} of them right ({row['wrong']} wrong)")
    if r["ms_per_image"] is not None:
        lines.append(f"  {r['ms_per_image']} ms per image")
    for e in r["errors"]:
        lines.append(f"  error: {e['error']}")
    lines.append(format_confusion(r["confusion"]["matrix"], VALUES))
    return "\n".join(lines)


def write_json(path: Path, report: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=1), encoding="utf-8")


def load(folder: Path) -> LabelledSet:
    """The labelled set; VisionError for a die whose value is neither 1..6 nor null (value unknown):
    a typed 7 would otherwise be scored as an unknown value, and the set's accuracy silently shift."""
    labels = load_labels(folder)
    for item in labels.items:
        dice = [o for o in item.objects if o.kind == "die"]
        for k, o in enumerate(dice):
            if o.value is not None and (isinstance(o.value, bool) or o.value not in VALUES):
                raise VisionError(f"{folder / 'labels.json'}: {item.image}: die {k} has value "
                                  f"{o.value!r:.20}; a die's value is 1..6 (null: not known)")
    return labels


def trained_photos(classical_models: Path | None = None,
                   without: Collection[Path] = ()) -> dict[str, set[str]]:
    """Folder name -> photos that any shipped dice model trained on: every model sidecar (the classical
    folder's and vision/learned/models') that says `trained_on` and `train_photos`, except the sidecars
    in `without`. Evaluations leave those photos out, so every reader is scored on photos it never saw."""
    from vision.dice.detector import MODELS as CLASSICAL
    from vision.learned.card_photos import photos_by_set
    from vision.learned.reader import MODELS as LEARNED

    out: dict[str, set[str]] = {}
    leave = {p.resolve() for p in without}
    for side in [*sorted((classical_models or CLASSICAL).glob("*.json")), *sorted(LEARNED.glob("*.json"))]:
        if side.resolve() in leave:
            continue
        try:
            meta = json.loads(side.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for folder, photos in photos_by_set(meta).items():
            out.setdefault(folder, set()).update(photos)
    return out
