"""Train the numbered-piece classifier from synthetic pieces: `python -m datasets.tiles.train_tiles`.

Each sample is a piece in a random look (TRAIN_FONTS only), turned by a random angle, drawn on the
board blue at a random scale with uneven light, blur and noise, then cut out by the reader's own
code (`vision.tiles.patch`). The patch turned back to upright (+-9 degrees) is labelled with its
number; the same patch at a wrong turn is labelled "wrong way up" (class 0), which is how the
reader later finds the upright angle. With --scenes N, samples cut from N whole rendered frames
per --scene-seeds seed by the reader's own segmentation join them (`scene_pieces`): these carry
what a camera frame does to a piece that the single-piece renders miss. Writes
vision/tiles/digits.npz (deterministic from the seeds).
"""

from __future__ import annotations

import time
from pathlib import Path

import cv2
import numpy as np

from datasets._train import check_and_save, train_parser, training_sets
from datasets.tiles.scene_pieces import cached_scene_samples
from datasets.tiles.scenes import printed_piece
from datasets.tiles.tokens import PRINTED, TRAIN_FONTS, random_look, render_token
from vision.tiles.geometry import BOARD_RGB
from vision.tiles.mlp import MLP
from vision.tiles.patch import board_mask, ink_frame, patches, piece_ink
from vision.tiles.reader import PX_PER_MM

MODEL = Path(__file__).resolve().parents[2] / "vision" / "tiles" / "digits.npz"
SYMMETRIC = {1, 8, 11}  # look the same turned half round when they carry no bar


def piece_on_board(
    rng: np.random.Generator, number: int, look, angle: float, px_per_mm: float, view_ppm: float = PX_PER_MM
) -> tuple[np.ndarray, np.ndarray]:
    """A rectified-view crop of one turned piece on the board, and the piece's footprint mask."""
    token = look if isinstance(look, np.ndarray) else render_token(number, look, 8.0)
    size_mm = token.shape[0] / 8.0 if isinstance(look, np.ndarray) else look.size_mm
    n = round(size_mm * 1.7 * px_per_mm)
    s = px_per_mm / 8.0
    M = cv2.getRotationMatrix2D(
        (token.shape[1] / 2, token.shape[0] / 2), angle, s * 8.0 * size_mm / token.shape[0]
    )
    M[:, 2] += (n / 2 - token.shape[1] / 2, n / 2 - token.shape[0] / 2)
    M[:, 2] += rng.uniform(-0.1, 0.1, 2) * n
    warped = cv2.warpAffine(token, M, (n, n), flags=cv2.INTER_AREA)
    board = np.empty((n, n, 3), np.float32)
    board[:] = np.array(BOARD_RGB, np.float32) * rng.uniform(0.9, 1.1, 3)
    a = warped[..., 3:4].astype(np.float32) / 255
    img = board * (1 - a) + warped[..., :3].astype(np.float32) * a
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32) / n
    ang = rng.uniform(0, 2 * np.pi)
    gain = rng.uniform(0.45, 1.25) * (
        1 + rng.uniform(0, 0.5) * ((xx - 0.5) * np.cos(ang) + (yy - 0.5) * np.sin(ang))
    )
    img = img * gain[..., None]
    if rng.random() < 0.3:  # glare
        cv2.circle(
            spot := np.zeros((n, n), np.float32),
            tuple(int(v) for v in rng.uniform(0, n, 2)),
            int(n * rng.uniform(0.05, 0.2)),
            1.0,
            -1,
        )
        img += rng.uniform(30, 90) * cv2.GaussianBlur(spot, (0, 0), n * 0.06)[..., None]
    img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.1))
    img += rng.normal(0, rng.uniform(1, 7), img.shape).astype(np.float32)
    bgr = np.clip(img, 0, 255).astype(np.uint8)[..., ::-1].copy()
    if view_ppm != px_per_mm:  # the camera saw it at px_per_mm; the reader's top view resamples it
        bgr = cv2.resize(
            bgr, None, fx=view_ppm / px_per_mm, fy=view_ppm / px_per_mm, interpolation=cv2.INTER_LINEAR
        )
        n = bgr.shape[0]
    fg = (~board_mask(bgr)).astype(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(fg, 8)
    if count < 2:
        return bgr, np.zeros((n, n), bool)
    k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    blob = labels == k
    return bgr, blob


def make_samples(rng: np.random.Generator, count: int) -> tuple[np.ndarray, np.ndarray]:
    xs, ys = [], []
    while len(ys) < count:
        number = int(rng.integers(1, 17))
        u = rng.random()
        look = (
            printed_piece(number, 8.0)
            if u < 0.3
            else PRINTED
            if u < 0.4
            else random_look(rng, number, TRAIN_FONTS)
        )
        theta = rng.uniform(0, 360)
        bgr, blob = piece_on_board(rng, number, look, theta, rng.uniform(1.3, 4.0))
        ink = piece_ink(bgr, blob, max(1, round(1.2 * PX_PER_MM)))
        if ink is None or (frame := ink_frame(ink)) is None:
            continue
        off = rng.uniform(30, 330)
        if not getattr(look, "bar", True) and number in SYMMETRIC and abs(off - 180) < 25:
            off = 90.0
        angles = np.array([-theta + rng.uniform(-9, 9), -theta + off])
        p = patches(ink, frame, angles)
        xs.append(p)
        ys.extend([number, 0])
    return np.concatenate(xs), np.array(ys)


def main(argv: list[str] | None = None) -> int:
    ap = train_parser(__doc__, MODEL, seed=7, samples=44000, epochs=20)
    ap.add_argument("--init", type=Path, help="continue from these weights (fine-tune on fresh samples)")
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--hidden", default="256,128", help="hidden layer sizes, comma-separated")
    ap.add_argument("--scenes", type=int, default=0, help="also cut samples from this many frames per seed")
    ap.add_argument("--scene-seeds", default="101,102", help="seeds of the rendered frames, comma-separated")
    ap.add_argument("--scene-cache", type=Path, help="keep (or reuse) the scene samples in this .npz")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    t0 = time.time()
    x, y, xv, yv = training_sets(make_samples, rng, args.seed, args.samples, 4000)
    if args.scenes:
        seeds = [int(v) for v in args.scene_seeds.split(",")]
        xs, ys = cached_scene_samples(args.scene_cache, seeds, args.scenes)
        print(f"{len(ys)} samples cut from {args.scenes} rendered frames of each of seeds {seeds}")
        x, y = np.concatenate([x, xs.astype(np.float32)]), np.concatenate([y, ys.astype(y.dtype)])
    labels = ["wrong-way-up"] + [str(i) for i in range(1, 17)]
    if args.init:
        model = MLP.load(args.init)
    else:
        hidden = [int(v) for v in args.hidden.split(",")]
        model = MLP.new([x.shape[1], *hidden, len(labels)], labels, rng)
    model.fit(x, y, rng, epochs=args.epochs, lr=args.lr)
    check_and_save(model, xv, yv, args.out, t0, "check-set patch accuracy")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
