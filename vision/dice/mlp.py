"""A small softmax classifier (no hidden layer = logistic regression, or one ReLU hidden layer) in
numpy, trained with Adam, saved as JSON. Enough for the dice reader's stages; no ML framework needed
at run time. Inputs are standardised with the mean/std stored in the model."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from vision.types import VisionError


class SoftmaxNet:
    def __init__(self, n_in: int, n_out: int, hidden: int = 0, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        sizes = [n_in, *([hidden] if hidden else []), n_out]
        pairs = zip(sizes[:-1], sizes[1:], strict=True)
        self.W = [rng.normal(0, np.sqrt(2.0 / a), (a, b)).astype(np.float32) for a, b in pairs]
        self.b = [np.zeros(b, np.float32) for b in sizes[1:]]
        self.mean = np.zeros(n_in, np.float32)
        self.std = np.ones(n_in, np.float32)

    def _forward(self, X: np.ndarray) -> list[np.ndarray]:
        acts = [(np.asarray(X, np.float32) - self.mean) / self.std]
        for k, (W, b) in enumerate(zip(self.W, self.b, strict=True)):
            z = acts[-1] @ W + b
            acts.append(np.maximum(z, 0) if k < len(self.W) - 1 else z)
        return acts

    def logits(self, X: np.ndarray) -> np.ndarray:
        return self._forward(X)[-1]

    def proba(self, X: np.ndarray) -> np.ndarray:
        z = self.logits(X)
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)

    def fit(self, X: np.ndarray, y: np.ndarray, epochs: int = 30, lr: float = 1e-3, l2: float = 1e-4,
            batch: int = 128, seed: int = 0, class_weight: np.ndarray | None = None) -> SoftmaxNet:
        X = np.asarray(X, np.float32)
        self.mean = X.mean(axis=0)
        self.std = X.std(axis=0) + 1e-3
        rng = np.random.default_rng(seed)
        params = self.W + self.b
        m = [np.zeros_like(p) for p in params]
        v = [np.zeros_like(p) for p in params]
        n_out = self.b[-1].shape[0]
        cw = np.ones(n_out, np.float32) if class_weight is None else np.asarray(class_weight, np.float32)
        t = 0
        for _ in range(epochs):
            order = rng.permutation(len(X))
            for s in range(0, len(X), batch):
                idx = order[s:s + batch]
                acts = self._forward(X[idx])
                z = acts[-1] - acts[-1].max(axis=1, keepdims=True)
                p = np.exp(z)
                p /= p.sum(axis=1, keepdims=True)
                onehot = np.eye(n_out, dtype=np.float32)[y[idx]]
                wts = cw[y[idx]][:, None]
                delta = (p - onehot) * wts / len(idx)
                grads_W, grads_b = [], []
                for k in range(len(self.W) - 1, -1, -1):
                    grads_W.insert(0, acts[k].T @ delta + l2 * self.W[k])
                    grads_b.insert(0, delta.sum(axis=0))
                    if k:
                        delta = (delta @ self.W[k].T) * (acts[k] > 0)
                t += 1
                for i, (p_, g) in enumerate(zip(params, grads_W + grads_b, strict=True)):
                    m[i] = 0.9 * m[i] + 0.1 * g
                    v[i] = 0.999 * v[i] + 0.001 * g * g
                    p_ -= lr * (m[i] / (1 - 0.9 ** t)) / (np.sqrt(v[i] / (1 - 0.999 ** t)) + 1e-8)
        return self

    def to_json(self) -> dict:
        r = lambda a: np.round(a.astype(np.float64), 4).tolist()  # noqa: E731
        return {"W": [r(w) for w in self.W], "b": [r(b) for b in self.b], "mean": r(self.mean),
                "std": r(self.std)}

    @classmethod
    def from_json(cls, data: dict) -> SoftmaxNet:
        net = cls.__new__(cls)
        net.W = [np.asarray(w, np.float32) for w in data["W"]]
        net.b = [np.asarray(b, np.float32) for b in data["b"]]
        net.mean = np.asarray(data["mean"], np.float32)
        net.std = np.asarray(data["std"], np.float32)
        return net

    def save(self, path: Path, **meta: object) -> None:
        path.write_text(json.dumps({**meta, "net": self.to_json()}), encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> SoftmaxNet:
        try:
            return cls.from_json(json.loads(path.read_text(encoding="utf-8"))["net"])
        except FileNotFoundError:
            raise VisionError(f"{path}: dice model missing; run python -m datasets.dice.train") from None
        except (ValueError, KeyError, TypeError) as exc:
            raise VisionError(f"{path}: not a dice model file: {exc}") from exc
