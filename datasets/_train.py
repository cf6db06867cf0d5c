"""What the small-classifier trainers (`datasets.*.train_*`) share: their common options, the
training and check sets, and the last step (score on the check set, save, say where)."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from vision.tiles.mlp import MLP

Samples = Callable[[np.random.Generator, int], tuple[np.ndarray, np.ndarray]]


def train_parser(doc: str | None, model: Path, seed: int, **counts: int) -> argparse.ArgumentParser:
    """One integer option per keyword (per_face=500 gives --per-face, default 500), then --seed and
    --out (default `model`), in that order; the trainer adds its own after."""
    ap = argparse.ArgumentParser(description=doc)
    for name, default in counts.items():
        ap.add_argument("--" + name.replace("_", "-"), type=int, default=default)
    ap.add_argument("--seed", type=int, default=seed)
    ap.add_argument("--out", type=Path, default=model)
    return ap


def training_sets(
    make_samples: Samples, rng: np.random.Generator, seed: int, count: int, check_count: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`count` training samples drawn from `rng` and `check_count` check samples from seed + 1000."""
    t0 = time.time()
    x, y = make_samples(rng, count)
    xv, yv = make_samples(np.random.default_rng(seed + 1000), check_count)
    print(f"rendered {len(y)} training + {len(yv)} check samples in {time.time() - t0:.0f}s")
    return x, y, xv, yv


def check_and_save(
    model: MLP, x: np.ndarray, y: np.ndarray, out: Path, t0: float, what: str, lead: str = ""
) -> float:
    """Print the accuracy on (x, y) as `what` with the time since t0, save the model to `out`."""
    acc = float((model.predict_proba(x).argmax(1) == y).mean())
    print(f"{lead}trained in {time.time() - t0:.0f}s; {what} {acc:.4f}")
    model.save(out)
    print(f"wrote {out}")
    return acc
