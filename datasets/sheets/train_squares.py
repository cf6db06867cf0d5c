"""Train the sheet reader's side and station classifiers: `python -m datasets.sheets.train_squares`.

Samples are cut by the reader's own code (`vision.sheets.features`) from whole rendered photos of
hand-drawn sheets (`datasets.sheets.scenes`, every hand, camera and light fault at random strength),
so the classifiers learn what the camera does to a railway's ties (blur along the line, JPEG,
steep views) rather than a rule about stroke widths. Scene seeds start at 30 000, clear of the
seeds used for evaluation. Writes vision/sheets/sides.npz and vision/sheets/station.npz.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from datasets._train import check_and_save, train_parser
from datasets.sheets.scenes import random_content, sheet_scene
from vision.sheets import geometry as g
from vision.sheets.features import (
    CENTRE_SHAPE,
    SIDE_SHAPE,
    SIDES,
    centre_patch,
    darkness,
    side_patch,
    smoothed,
)
from vision.sheets.reader import ink_mask, sheet_view
from vision.tiles.mlp import MLP

HERE = Path(__file__).resolve().parents[2] / "vision" / "sheets"
SIDE_LABELS = ["-", "H", "R"]
STATION_LABELS = ["no", "station"]


def scene_samples(seed: int) -> tuple[list[np.ndarray], list[int], list[np.ndarray], list[int]]:
    """Side patches and labels, centre patches and labels from one rendered sheet."""
    rng = np.random.default_rng(seed)
    content = random_content(rng, float(rng.uniform(0.6, 1.0)))
    image, truth = sheet_scene(content, seed, False, float(min(1.0, rng.uniform(0.5, 1.3))))
    view, _ = sheet_view(image)
    ppm = view.px_per_mm
    _, ratio, _ = ink_mask(view.image, ppm)
    side_src, centre_src = smoothed(darkness(ratio), ppm)
    sx, sy, cx, cy = [], [], [], []
    half = g.SQUARE_MM * ppm / 2
    for name, sq in truth.items():
        if not isinstance(sq, dict):
            continue
        x0, y0 = view.mm_to_px(*g.square_origin_mm(name))
        c = np.array([x0 + half, y0 + half])
        for k, side in enumerate(SIDES):
            p = side_patch(side_src, c, side, ppm)
            sx.extend([p, p.reshape(SIDE_SHAPE)[:, ::-1].ravel()])  # mirrored across: same kind
            sy.extend([SIDE_LABELS.index(sq["sides"][k])] * 2)
        p = centre_patch(centre_src, c, ppm).reshape(CENTRE_SHAPE)
        cx.extend([np.rot90(p, k).ravel() for k in range(4)])
        cy.extend([int(sq["station"])] * 4)
    return sx, sy, cx, cy


def main(argv: list[str] | None = None) -> int:
    ap = train_parser(__doc__, HERE / "sides.npz", seed=3, scenes=240, epochs=30)
    ap.add_argument("--station-out", type=Path, default=HERE / "station.npz")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    t0 = time.time()
    sx, sy, cx, cy = [], [], [], []
    for k in range(args.scenes):
        a, b, c, d = scene_samples(30_000 + args.seed * 1000 + k)
        sx.extend(a)
        sy.extend(b)
        cx.extend(c)
        cy.extend(d)
    print(f"{len(sy)} side and {len(cy)} centre samples from {args.scenes} sheets in {time.time() - t0:.0f}s")
    for x, y, labels, hidden, out in (
        (np.array(sx), np.array(sy), SIDE_LABELS, 96, args.out),
        (np.array(cx), np.array(cy), STATION_LABELS, 48, args.station_out),
    ):
        # hold out whole sheets (the last tenth), not single patches of sheets seen in training
        split = len(y) * 9 // 10
        model = MLP.new([x.shape[1], hidden, len(labels)], labels, rng)
        model.fit(x[:split], y[:split], rng, epochs=args.epochs, lr=0.05)
        check_and_save(model, x[split:], y[split:], out, t0, "held-out sheets accuracy")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
