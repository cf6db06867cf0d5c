"""A small fully connected classifier in numpy (one or two hidden ReLU layers, softmax out).

The readers ship their weights as .npz files next to the code; training runs offline from synthetic
images (`python -m vision.tiles.train`) and needs nothing beyond numpy.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

SMALL_BATCH = 64


class MLP:
    def __init__(
        self,
        weights: list[np.ndarray],
        biases: list[np.ndarray],
        labels: list[str],
        mean: np.ndarray,
        std: np.ndarray,
    ) -> None:
        self.W = [w.astype(np.float32) for w in weights]
        self.b = [b.astype(np.float32) for b in biases]
        self.labels = list(labels)
        self.mean = mean.astype(np.float32)
        self.std = std.astype(np.float32)

    @classmethod
    def new(cls, sizes: list[int], labels: list[str], rng: np.random.Generator) -> MLP:
        W = [rng.normal(0, np.sqrt(2.0 / a), (a, b)) for a, b in zip(sizes[:-1], sizes[1:], strict=True)]
        b = [np.zeros(s) for s in sizes[1:]]
        return cls(W, b, labels, np.zeros(sizes[0]), np.ones(sizes[0]))

    def _forward(self, x: np.ndarray) -> list[np.ndarray]:
        acts = [(x.astype(np.float32) - self.mean) / self.std]
        for i, (w, b) in enumerate(zip(self.W, self.b, strict=True)):
            a = acts[-1]
            # Small batches row by row: a multi-threaded BLAS matrix product on a busy machine can
            # be 10-100x slower than single-threaded matrix-vector products for these sizes.
            z = (np.stack([r @ w for r in a]) if len(a) <= SMALL_BATCH else a @ w) + b
            acts.append(np.maximum(z, 0) if i < len(self.W) - 1 else z)
        return acts

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        z = self._forward(x)[-1]
        z = z - z.max(1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(1, keepdims=True)

    def fit(
        self,
        x: np.ndarray,
        y: np.ndarray,
        rng: np.random.Generator,
        epochs: int = 12,
        lr: float = 0.05,
        batch: int = 128,
        weight_decay: float = 1e-4,
    ) -> None:
        """Plain SGD with momentum and a step-down learning rate. A fresh model takes its input
        scaling from `x`; a loaded one keeps its own, so fine-tuning continues where it stopped."""
        if not self.std.any() or np.all(self.std == 1):
            self.mean = x.mean(0).astype(np.float32)
            self.std = (x.std(0) + 0.05).astype(np.float32)
        vel_w = [np.zeros_like(w) for w in self.W]
        vel_b = [np.zeros_like(b) for b in self.b]
        n = len(x)
        for ep in range(epochs):
            rate = lr * (0.1 if ep >= int(epochs * 0.8) else 1.0)
            order = rng.permutation(n)
            for s in range(0, n, batch):
                idx = order[s : s + batch]
                acts = self._forward(x[idx])
                z = acts[-1] - acts[-1].max(1, keepdims=True)
                p = np.exp(z)
                p /= p.sum(1, keepdims=True)
                p[np.arange(len(idx)), y[idx]] -= 1
                grad = p / len(idx)
                for i in range(len(self.W) - 1, -1, -1):
                    gw = acts[i].T @ grad + weight_decay * self.W[i]
                    gb = grad.sum(0)
                    if i > 0:
                        grad = (grad @ self.W[i].T) * (acts[i] > 0)
                    vel_w[i] = 0.9 * vel_w[i] - rate * gw
                    vel_b[i] = 0.9 * vel_b[i] - rate * gb
                    self.W[i] += vel_w[i]
                    self.b[i] += vel_b[i]

    def save(self, path: Path) -> None:
        arrays: dict[str, np.ndarray] = {"mean": self.mean, "std": self.std, "labels": np.array(self.labels)}
        for i, (w, b) in enumerate(zip(self.W, self.b, strict=True)):
            arrays[f"W{i}"] = w.astype(np.float16)
            arrays[f"b{i}"] = b.astype(np.float32)
        np.savez_compressed(path, **arrays)

    @classmethod
    def load(cls, path: Path) -> MLP:
        with np.load(path) as data:
            n = sum(1 for k in data.files if k.startswith("W"))
            return cls(
                [data[f"W{i}"] for i in range(n)],
                [data[f"b{i}"] for i in range(n)],
                [str(s) for s in data["labels"]],
                data["mean"],
                data["std"],
            )
