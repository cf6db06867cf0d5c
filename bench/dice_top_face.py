"""Ways to read a grown die's top face (issue 21, branch dice21b), scored on the photos the shipped
networks TRAINED on (the complement of datasets/dice/photo_split.series_split's held-out photos), so a
choice between them never looks at held-out photos. Only the value read of dice that grow differs
between variants (boxes, recall and every other die are the same), so the detector and the crop
network's framing run once per photo and are reused for every variant.

    python bench/dice_top_face.py --realdata ../shared/realdata --json out.json

Variants (`LearnedDiceReader._top_face_read`): `square` (shipped since dice21: a square as wide as the
whole die from its top edge, `body.top_face_box`); `quad`: the top face's parallelogram found on the
body's outline (`top_face_quad`) warped to the crop's square (a perspective correction; the square
where no parallelogram is found), the face filling the crop as a box does (context 1.25) or with more
context (`quad16`, `quad20`: 1.6, 2.0); `*L`: the warp only for dice at least 48 px wide; `*_mean`: the
mean of the warped read and the square's; `*_surer`: per die, whichever of the two is surer of its
value; `square8`: the square in all 8 turns and mirrors. `--heldout` scores the held-out photos instead
(report once, never to choose)."""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from datasets.dice.photo_split import series_split  # noqa: E402
from vision.dice.evaluate import evaluate  # noqa: E402
from vision.learned.body import body, top_face_box  # noqa: E402
from vision.learned.crops import KEEP, box_crops  # noqa: E402
from vision.learned.reader import LearnedDiceReader  # noqa: E402
from vision.realdata import load_labels  # noqa: E402

SETS = ("epanemu_d6", "matteop65_d6", "nell_byler_d6")
DETECTOR, CROPS = "vision/learned/models/dice_die_n320.onnx", "vision/learned/models/dice_crops.onnx"
def top_face_quad(outline: np.ndarray) -> np.ndarray | None:
    """The top face's four corners (far, right, near, left; (4, 2)) on a die's outline seen by an
    upright camera from above the table, or None when the outline does not show them.

    A cube seen from above the table shows its top face as a parallelogram (up to perspective) whose
    far corner is the outline's highest point and whose left and right corners are the highest points
    of the outline's leftmost and rightmost edges (the upper ends of the side edges); the near corner
    completes the parallelogram. A die seen square-on (one front face) has a flat top edge instead: its
    highest points span the width and the parallelogram collapses, so None."""
    pts = np.asarray(outline, np.float64).reshape(-1, 2)
    if len(pts) < 4:
        return None
    x0, x1 = pts[:, 0].min(), pts[:, 0].max()
    y0, y1 = pts[:, 1].min(), pts[:, 1].max()
    w, tol = x1 - x0, 0.08 * (x1 - x0)
    if w < 4:
        return None
    top = pts[pts[:, 1] <= y0 + tol]
    far = np.array([top[:, 0].mean(), y0])
    lefts, rights = pts[pts[:, 0] <= x0 + tol], pts[pts[:, 0] >= x1 - tol]
    left, right = lefts[lefts[:, 1].argmin()], rights[rights[:, 1].argmin()]
    near = left + right - far
    depth = near[1] - far[1]
    if depth < 0.3 * w or near[1] > y1 or not (x0 < far[0] < x1):
        return None
    return np.stack([far, right, near, left]).astype(np.float32)


def quad_crop(image: np.ndarray, quad: np.ndarray, size: int, context: float) -> np.ndarray:
    """A (size, size, 3) crop with `quad` (4 corners in turn) warped to its centred square of side
    size / context: a perspective-corrected face, cut as the crop network's crops are."""
    quad = np.asarray(quad, np.float32).reshape(4, 2)
    side = size / context
    off = (size - side) / 2
    # shrink first (area average) so the warp never samples a large die sparsely
    span = float(np.ptp(quad, axis=0).max())
    scale = min(1.0, 2.0 * side / max(span, 1.0))
    if scale < 1.0:
        x0, y0 = np.floor(quad.min(axis=0) - span).astype(int)
        x1, y1 = np.ceil(quad.max(axis=0) + span).astype(int)
        H, W = image.shape[:2]
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
        patch = image[y0:y1, x0:x1]
        sw, sh = max(1, round(patch.shape[1] * scale)), max(1, round(patch.shape[0] * scale))
        image = cv2.resize(patch, (sw, sh), interpolation=cv2.INTER_AREA)
        quad = (quad - np.array([x0, y0], np.float32)) * np.array([sw / patch.shape[1], sh / patch.shape[0]],
                                                                    np.float32)
    dst = np.array([[off, off], [off + side, off], [off + side, off + side], [off, off + side]], np.float32)
    M = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    return cv2.warpPerspective(image, M, (size, size), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


def warped_crops(reader: LearnedDiceReader, image: np.ndarray, whole: np.ndarray, face: np.ndarray,
                 context: float, min_width: float) -> np.ndarray:
    """The top-face crops of grown dice: the outline's parallelogram warped where found, else the square."""
    size = reader.crops.size
    crops = box_crops(image, top_face_box(whole), size)
    for i, f in enumerate(face):
        if whole[i, 2] - whole[i, 0] < min_width:
            continue
        outline = body(image, f, outline=True)[1]
        quad = None if outline is None else top_face_quad(outline)
        if quad is not None:
            crops[i] = quad_crop(image, quad, size, context)
        COUNT["warped"] += quad is not None
    COUNT["grown"] += len(face)
    return crops


COUNT = {"grown": 0, "warped": 0}  # grown dice read, and those whose top parallelogram was found


def variant(context: float | None, min_width: float = 0.0, mean: bool = False,
            surer: bool = False) -> Callable[..., np.ndarray]:
    """`surer`: per die, the read (warped or square) whose likeliest value is likelier."""
    def read(reader: LearnedDiceReader, image: np.ndarray, whole: np.ndarray, face: np.ndarray) -> np.ndarray:
        square = reader.crops.views(image, top_face_box(whole))
        if context is None:
            return square
        warped = reader.crops.crop_views(warped_crops(reader, image, whole, face, context, min_width))
        if surer:
            pick = warped[:, 1:].max(axis=1) > square[:, 1:].max(axis=1)
            return np.where(pick[:, None], warped, square)
        return 0.5 * (warped + square) if mean else warped
    return read


def eight_views(reader: LearnedDiceReader, image: np.ndarray, whole: np.ndarray,
                face: np.ndarray) -> np.ndarray:
    """The square read in all 8 turns and mirrors (the reader's default is 4)."""
    tta, reader.crops.tta = reader.crops.tta, 8
    try:
        return reader.crops.views(image, top_face_box(whole))
    finally:
        reader.crops.tta = tta


VARIANTS = {"square": variant(None), "quad": variant(KEEP), "quad16": variant(1.6), "quad20": variant(2.0),
            "quadL": variant(KEEP, 48), "quad16L": variant(1.6, 48), "quad_mean": variant(KEEP, mean=True),
            "quad16_mean": variant(1.6, mean=True), "quad_surer": variant(KEEP, surer=True),
            "quad16_surer": variant(1.6, surer=True), "square8": eight_views}


def memo_reader() -> LearnedDiceReader:
    """The default crops reader whose detector and framing run once per photo for all variants."""
    reader = LearnedDiceReader(DETECTOR, mode="crops", crop_model=CROPS)
    cache: dict[Any, Any] = {}
    boxes, forward = reader.boxes, reader.crops.forward

    def key(image: np.ndarray) -> str:
        return hashlib.md5(np.ascontiguousarray(image[::7, ::7]).tobytes()).hexdigest()

    def memo_boxes(image: np.ndarray) -> tuple[np.ndarray, ...]:
        k = ("boxes", key(image))
        cache.setdefault(k, boxes(image))
        return tuple(np.copy(a) for a in cache[k])

    def memo_forward(image: np.ndarray, b: np.ndarray, dedupe: float | None = None) -> tuple[np.ndarray, ...]:
        k = ("forward", key(image), np.asarray(b).tobytes(), dedupe)
        if k not in cache:
            cache[k] = forward(image, b, dedupe=dedupe)
        return tuple(np.copy(a) for a in cache[k])

    reader.boxes, reader.crops.forward = memo_boxes, memo_forward  # type: ignore[method-assign]
    return reader


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--realdata", type=Path,
                    default=Path(__file__).resolve().parents[2] / "shared" / "realdata")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--heldout", action="store_true", help="score the held-out photos (report only)")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    reader, rows = memo_reader(), []
    for name in args.sets.split(","):
        labels = load_labels(args.realdata / name)
        heldout = {it.image for it in labels.items} - set(series_split(labels))
        skip = set(series_split(labels)) if args.heldout else heldout
        for v in args.variants.split(","):
            reader._top_face_read = VARIANTS[v].__get__(reader)  # type: ignore[method-assign]
            c0 = time.process_time()
            COUNT.update(grown=0, warped=0)
            r = evaluate(labels, reader.read, None, skip)
            rows.append({"set": name, "photos": "held out" if args.heldout else "training", "variant": v,
                         "n_images": r["n_images"], "n_labelled": r["n_labelled"], "matched": r["matched"],
                         "read_right": round((r["value_accuracy"] or 0) * r["matched"]),
                         "recall": r["recall"], "value_accuracy": r["value_accuracy"],
                         "grown_read": COUNT["grown"], "warped": COUNT["warped"],
                         "cpu_s": round(time.process_time() - c0, 1)})
            print(json.dumps(rows[-1]), flush=True)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
