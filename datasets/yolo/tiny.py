"""A tiny YOLO dice set drawn in milliseconds (faces pasted flat on plain backgrounds), for the smoke
test that trains one epoch and for trying the training path end to end; not for real models."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from datasets.dice.scenes import DICE_COLOURS, die_face_rgba


def tiny_dice_set(out: Path, n: int = 32, size: int = 96, seed: int = 0) -> Path:
    """N images of 1-3 dice each under out/images/{train,val} (val: every fourth); returns data.yaml."""
    if n < 2:
        raise ValueError(f"n must be at least 2 (one train, one val image), got {n}")
    for sub in ("images/train", "images/val", "labels/train", "labels/val"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    colours = list(DICE_COLOURS)
    for k in range(n):
        rng = np.random.default_rng([seed, k])
        img = np.empty((size, size, 3), np.uint8)
        img[:] = rng.integers(60, 200, 3)
        lines = []
        for j in range(int(rng.integers(1, 4))):
            side = int(rng.integers(size // 6, size // 3))
            x = int(j * size / 3 + rng.integers(0, max(1, size // 3 - side)))  # one die per third
            y = int(rng.integers(0, size - side))
            body, pips = DICE_COLOURS[colours[int(rng.integers(len(colours)))]]
            face = die_face_rgba(int(rng.integers(1, 7)), body, pips, px=side)
            alpha = face[..., 3:4] / 255.0
            roi = img[y:y + side, x:x + side]
            roi[:] = (roi * (1 - alpha) + face[..., 2::-1] * alpha).astype(np.uint8)
            lines.append(f"0 {(x + side / 2) / size:.6f} {(y + side / 2) / size:.6f} {side / size:.6f} "
                         f"{side / size:.6f}")
        split = "val" if k % 4 == 3 else "train"
        cv2.imwrite(str(out / "images" / split / f"tiny_{k:03d}.png"), img)
        (out / "labels" / split / f"tiny_{k:03d}.txt").write_text("\n".join(lines) + "\n")
    data = out / "data.yaml"
    data.write_text(f"path: {out.resolve()}\ntrain: images/train\nval: images/val\nnames:\n  0: 'die'\n")
    return data
