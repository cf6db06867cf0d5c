"""Classifier samples cut from whole rendered camera frames by the reader's own code.

The synthetic single-piece samples of `train_tiles` miss what a real frame does to a piece: the
camera's perspective and the piece's 2 mm height, motion blur, JPEG, a slightly-off localisation,
and the resampling into the reader's top view. These samples go through all of it: a board scene
is rendered (`grid_scene_pieces`), localised and segmented exactly as `read_grid_cells` does, and
each piece the segmentation hands to the classifier becomes samples at its true upright turn
(label = its number) and at wrong turns (label 0, "wrong way up").
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from datasets.tiles.scenes import grid_scene_pieces, random_board
from vision.localise import LocaliseError
from vision.tiles.patch import ink_frame, patches, piece_ink
from vision.tiles.reader import PieceCut, grid_view, segment_cells

SYMMETRIC = {1, 8, 11}  # the same turned half round when a foreign look has no bar


def scene_samples(
    rng: np.random.Generator, scenes: int, per_piece: int = 2, jitter: float = 9.0
) -> tuple[np.ndarray, np.ndarray]:
    """`per_piece` upright and `per_piece` wrong-turn patches of every readable piece in `scenes`
    rendered frames (printed pieces and training-font looks, effects mostly at full strength)."""
    xs: list[np.ndarray] = []
    ys: list[int] = []
    for _ in range(scenes):
        board = random_board(rng, float(rng.uniform(0.5, 1.0)))
        look = "printed" if rng.random() < 0.45 else "fonts"
        effects = float(min(1.0, rng.uniform(0.4, 1.4)))
        image, _, truth, pieces = grid_scene_pieces(board, int(rng.integers(2**31)), look, 0, effects)
        try:
            view, _ = grid_view(image)
        except LocaliseError:
            continue
        turn = {int(p["number"]): float(p["angle"]) for p in pieces}
        for name, seg in segment_cells(view).items():
            number = truth.get(name)
            if not isinstance(seg, PieceCut) or not isinstance(number, int):
                continue
            ink = piece_ink(seg.crop, seg.blob, max(1, round(1.2 * view.px_per_mm)))
            if ink is None or (frame := ink_frame(ink)) is None:
                continue
            upright = turn[number] + rng.uniform(-jitter, jitter, per_piece)
            off = rng.uniform(30, 330, per_piece)
            if look != "printed" and number in SYMMETRIC:
                off = np.where(np.abs(off - 180) < 25, 90.0, off)
            xs.append(patches(ink, frame, np.concatenate([upright, turn[number] + off])))
            ys.extend([number] * per_piece + [0] * per_piece)
    if not xs:
        return np.zeros((0, 0), np.float32), np.zeros(0, np.int64)
    return np.concatenate(xs), np.array(ys)


def cached_scene_samples(path: Path | None, seeds: list[int], scenes: int) -> tuple[np.ndarray, np.ndarray]:
    """`scene_samples` of `scenes` frames from each of `seeds`, kept in `path` (an .npz) so repeated
    trainings skip rendering (several seeds can be rendered by parallel runs, then joined)."""
    if path is not None and path.exists():
        with np.load(path) as data:
            return data["x"], data["y"]
    parts = [scene_samples(np.random.default_rng([seed, 77]), scenes) for seed in seeds]
    x = np.concatenate([p[0] for p in parts if len(p[1])])
    y = np.concatenate([p[1] for p in parts if len(p[1])])
    if path is not None:
        np.savez_compressed(path, x=x.astype(np.float16), y=y.astype(np.int8))
    return x, y
