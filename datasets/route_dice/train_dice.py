"""Train the dice-face classifier: `python -m datasets.route_dice.train_dice`.

Samples are single faces turned at random, seen at 1.3..4 px/mm with the die's side showing on one
edge (as a tilted camera sees it), coloured light, blur, motion blur (half of them, 0.8-3.2 mm) and
noise, resampled to the reader's top view, then found and cut out by the reader's own code (frame
contour, or the size search where blur wiped the contour out). Writes vision/route_dice/faces.npz.
"""

from __future__ import annotations

import time
from pathlib import Path

import cv2
import numpy as np

from datasets._train import check_and_save, train_parser, training_sets
from datasets.route_dice.scenes import face_rgba
from vision.route_dice import geometry as g
from vision.route_dice.faces import FACES
from vision.route_dice.reader import MIN_ASPECT, MIN_SQUARE_CONTRAST, PX_PER_MM, face_features, face_quads
from vision.route_dice.search import find_square
from vision.tiles.mlp import MLP

MODEL = Path(__file__).resolve().parents[2] / "vision" / "route_dice" / "faces.npz"


def die_view(rng: np.random.Generator, name: str, motion: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """A top-view crop (BGR, PX_PER_MM) of one die lying on the tray, and the face's centre in it."""
    ppm = rng.uniform(1.3, 4.0)
    face = face_rgba(name)
    n = round(2.4 * g.DIE_MM * ppm)
    img = np.empty((n, n, 3), np.float32)
    img[:] = np.array(g.TRAY_RGB[::-1], np.float32) * rng.uniform(0.85, 1.15, 3)
    angle = rng.uniform(0, 360)
    c = np.array([n / 2, n / 2]) + rng.uniform(-0.08, 0.08, 2) * n
    side = g.DIE_MM * ppm
    # the die's side: a lighter-than-tray band next to one edge of the face
    a = np.radians(angle)
    u, v = np.array([np.cos(a), np.sin(a)]), np.array([-np.sin(a), np.cos(a)])
    ext = rng.uniform(0, 0.6) * side
    d = u * rng.choice([-1, 1]) if rng.random() < 0.5 else v * rng.choice([-1, 1])
    corners = np.array([c + (su * u + sv * v) * side / 2 for su, sv in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
    band = np.concatenate([corners, corners + d * ext])
    tone = rng.uniform(0.55, 0.95)
    cv2.fillConvexPoly(
        img, cv2.convexHull(band.astype(np.float32)).astype(np.int32), (230 * tone, 228 * tone, 225 * tone)
    )
    scale = side / face.shape[0]
    M = cv2.getRotationMatrix2D((face.shape[1] / 2, face.shape[0] / 2), -angle, scale)
    M[:, 2] += c - np.array([face.shape[1] / 2, face.shape[0] / 2])
    warped = cv2.warpAffine(face, M, (n, n), flags=cv2.INTER_AREA)
    alpha = warped[..., 3:4].astype(np.float32) / 255
    img = img * (1 - alpha) + warped[..., 2::-1].astype(np.float32) * alpha
    img *= rng.uniform(0.5, 1.3) * rng.uniform(0.88, 1.12, 3)
    img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.0))
    if rng.random() < motion:  # a moving camera: a line kernel as long as the frame is wide, or more
        img = cv2.filter2D(img, -1, motion_kernel(rng, rng.uniform(0.8, 3.2) * ppm))
    img += rng.normal(0, rng.uniform(1, 6), img.shape).astype(np.float32)
    out = np.clip(img, 0, 255).astype(np.uint8)
    view = cv2.resize(out, None, fx=PX_PER_MM / ppm, fy=PX_PER_MM / ppm, interpolation=cv2.INTER_LINEAR)
    return view, c * PX_PER_MM / ppm


def motion_kernel(rng: np.random.Generator, length: float) -> np.ndarray:
    k = max(3, int(round(length)) | 1)
    kernel = np.zeros((k, k), np.float32)
    kernel[k // 2, :] = 1.0
    rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1.0)
    kernel = cv2.warpAffine(kernel, rot, (k, k))
    return kernel / max(float(kernel.sum()), 1e-6)


def cut_face(view: np.ndarray, centre: np.ndarray) -> np.ndarray | None:
    """The face's features as the reader cuts them: from the one clean frame square, or else (frame
    lost in blur) from the square that the reader's size search finds near the die's centre."""
    quads = [q for q, square in face_quads(view, PX_PER_MM) if square]
    if len(quads) == 1:
        return face_features(view, quads[0])
    if quads:
        return None
    side = g.DIE_MM * PX_PER_MM
    gray = cv2.cvtColor(view, cv2.COLOR_BGR2GRAY).astype(np.float32)
    (x0, y0), (x1, y1) = (centre - 0.15 * side).astype(int), (centre + 0.15 * side).astype(int)
    sq = find_square(gray, (int(x0), int(y0), int(x1), int(y1)), side)
    if sq is None or sq.score < MIN_SQUARE_CONTRAST or sq.aspect < MIN_ASPECT:
        return None
    return face_features(view, sq.quad())


def make_samples(rng: np.random.Generator, per_face: int) -> tuple[np.ndarray, np.ndarray]:
    xs, ys = [], []
    for k, name in enumerate(FACES):
        got = 0
        while got < per_face:
            view, centre = die_view(rng, name)
            feats = cut_face(view, centre)
            if feats is None:
                continue
            xs.append(feats[int(rng.integers(4))])
            ys.append(k)
            got += 1
    return np.array(xs), np.array(ys)


def main(argv: list[str] | None = None) -> int:
    args = train_parser(__doc__, MODEL, seed=11, per_face=600, epochs=20).parse_args(argv)
    rng = np.random.default_rng(args.seed)
    t0 = time.time()
    x, y, xv, yv = training_sets(make_samples, rng, args.seed, args.per_face, 40)
    model = MLP.new([x.shape[1], 128, len(FACES)], list(FACES), rng)
    model.fit(x, y, rng, epochs=args.epochs)
    check_and_save(model, xv, yv, args.out, t0, "check-set accuracy (one turn)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
