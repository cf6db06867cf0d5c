"""Train the round-number digit classifier: `python -m datasets.sheets.train_digits`.

Two sources, both cut out by the sheet reader's own code: (1) handwritten-looking digits 1..7
(many Hershey fonts, slant, rotation, pen width, blur) and scribbles ("none"), drawn alone;
(2) the number boxes of whole rendered sheets photographed by the seeded camera, so the classifier
also sees exactly what the reader sees. Writes vision/sheets/round_digits.npz.
"""

from __future__ import annotations

import time
from pathlib import Path

import cv2
import numpy as np

from datasets._train import check_and_save, train_parser
from datasets.sheets.draw import digit_image
from datasets.sheets.scenes import random_content, sheet_scene
from vision.sheets import geometry as g
from vision.sheets.reader import DIGIT_INK, PX_PER_MM, digit_crop, digit_patch, ink_mask, sheet_view
from vision.tiles.mlp import MLP

MODEL = Path(__file__).resolve().parents[2] / "vision" / "sheets" / "round_digits.npz"
LABELS = ["none", "1", "2", "3", "4", "5", "6", "7"]


def _scribble(rng: np.random.Generator, px: int = 48) -> np.ndarray:
    img = np.zeros((px, px), np.uint8)
    pts = rng.uniform(px * 0.2, px * 0.8, (int(rng.integers(2, 6)), 2)).astype(np.int32)
    cv2.polylines(
        img, [pts.reshape(-1, 1, 2)], False, 255, max(1, round(px * rng.uniform(0.05, 0.12))), cv2.LINE_AA
    )
    return img


def glyph_sample(rng: np.random.Generator, label: int) -> np.ndarray | None:
    mask = digit_image(label, rng) if label else _scribble(rng)
    size_mm = rng.uniform(5.0, 6.5)
    true_ppm = rng.uniform(1.6, 4.0)
    n = max(6, round(size_mm * true_ppm))
    small = cv2.resize(mask, (n, n), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
    small = cv2.GaussianBlur(small, (0, 0), rng.uniform(0.3, 1.3))  # defocus and motion of the camera
    small = np.clip(small * rng.uniform(0.7, 1.0) + rng.normal(0, 0.05, small.shape), 0, 1)
    view = cv2.resize(
        small, None, fx=PX_PER_MM / true_ppm, fy=PX_PER_MM / true_ppm, interpolation=cv2.INTER_LINEAR
    )
    ink = view > rng.uniform(0.2, 0.5)
    ys, xs = np.nonzero(ink)
    if len(xs) < 4:
        return None
    return digit_patch(ink[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1].astype(np.float32)).ravel()


def scene_samples(seed: int) -> tuple[list[np.ndarray], list[int]]:
    rng = np.random.default_rng(seed)
    content = random_content(rng)
    image, truth = sheet_scene(content, seed)
    view, _ = sheet_view(image)
    _, ratio, _ = ink_mask(view.image, view.px_per_mm)
    mask = ratio < DIGIT_INK
    xs, ys = [], []
    m = int(round(0.4 * view.px_per_mm))
    for name, sq in truth.items():
        if not isinstance(sq, dict) or sq["sides"] == "----":
            continue
        x0, y0 = (int(round(v)) for v in view.mm_to_px(*g.square_origin_mm(name)))
        crop = digit_crop(mask, x0 + m, y0 + m, view.px_per_mm)
        if crop is None or isinstance(crop, str):
            continue
        xs.append(digit_patch(crop).ravel())
        ys.append(sq["round"] or 0)
    return xs, ys


def main(argv: list[str] | None = None) -> int:
    args = train_parser(__doc__, MODEL, seed=5, per_class=600, scenes=80).parse_args(argv)
    rng = np.random.default_rng(args.seed)
    t0 = time.time()
    xs, ys = [], []
    for label in range(len(LABELS)):
        got = 0
        while got < args.per_class:
            s = glyph_sample(rng, label)
            if s is not None:
                xs.append(s)
                ys.append(label)
                got += 1
    for k in range(args.scenes):  # scene seeds 10_000+ keep clear of the evaluation seeds
        sx, sy = scene_samples(10_000 + args.seed * 1000 + k)
        xs.extend(sx)
        ys.extend(sy)
    x, y = np.array(xs), np.array(ys)
    order = rng.permutation(len(y))
    split = len(y) // 10
    model = MLP.new([x.shape[1], 96, len(LABELS)], LABELS, rng)
    model.fit(x[order[split:]], y[order[split:]], rng, epochs=25)
    held = order[:split]
    check_and_save(model, x[held], y[held], args.out, t0, "held-out accuracy", lead=f"{len(y)} samples, ")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
