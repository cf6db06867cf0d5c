"""Stage 1 of the dice reader: find dice. A linear classifier over orientation-histogram windows
(trained by datasets/dice/train.py, models/detector.json) scores every window of an image pyramid at
once by correlating its weights with the image's cell map; overlapping hits are merged by
non-maximum suppression, then a small verifier network (models/verifier.json) re-scores each hit."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np

from vision.dice.features import BINS, CELL, CONTEXT, WIN, WIN_CELLS, cell_features
from vision.dice.mlp import SoftmaxNet
from vision.types import Detections

MODELS = Path(__file__).with_name("models")


def linear_kernel(net: SoftmaxNet) -> tuple[np.ndarray, float]:
    """The 2-class linear net as a (WIN_CELLS, WIN_CELLS, BINS) kernel on raw features and a bias."""
    dW = (net.W[0][:, 1] - net.W[0][:, 0]) / net.std
    bias = float(net.b[0][1] - net.b[0][0] - net.mean @ dW)
    return dW.reshape(WIN_CELLS, WIN_CELLS, BINS).astype(np.float32), bias


def nms(boxes: np.ndarray, scores: np.ndarray, iou: float, limit: int = 1500,
        contain: float = 1.01) -> np.ndarray:
    """Indices kept by greedy non-maximum suppression, best first (only the `limit` best considered).
    A box is also dropped when more than `contain` of the smaller box lies inside a better one
    (a die's own corner or pip group seen as a small die)."""
    order = np.argsort(-scores)[:limit]
    b = boxes[order].astype(np.float32)
    area = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    # all pairwise overlaps at once, then a cheap greedy pass over boolean rows
    x0 = np.maximum(b[:, None, 0], b[None, :, 0])
    y0 = np.maximum(b[:, None, 1], b[None, :, 1])
    x1 = np.minimum(b[:, None, 2], b[None, :, 2])
    y1 = np.minimum(b[:, None, 3], b[None, :, 3])
    inter = np.clip(x1 - x0, 0, None) * np.clip(y1 - y0, 0, None)
    clash = inter / (area[:, None] + area[None, :] - inter) > iou
    clash |= inter / np.minimum(area[:, None], area[None, :]) > contain
    alive = np.ones(len(order), bool)
    keep = []
    for i in range(len(order)):
        if alive[i]:
            keep.append(order[i])
            alive &= ~clash[i]
    return np.asarray(keep, int)


class DieDetector:
    """`die_px`: the range of die sizes (box side in pixels) to look for; narrow it when the camera
    set-up is known (the calibration gives px per mm) and it runs much faster."""

    def __init__(self, net: SoftmaxNet | None = None, threshold: float = 0.0,
                 die_px: tuple[float, float] = (20.0, 72.0), step: float = 1.12,
                 nms_iou: float = 0.3) -> None:
        net = SoftmaxNet.load(MODELS / "detector.json") if net is None else net
        self.kernel, self.bias = linear_kernel(net)
        self.threshold = threshold
        self.die_px = die_px
        self.step = step
        self.nms_iou = nms_iou

    def scales(self) -> list[float]:
        inner = WIN / CONTEXT
        f_max, f_min = inner / self.die_px[0], inner / self.die_px[1]
        n = max(1, math.ceil(math.log(f_max / f_min) / math.log(self.step)) + 1)
        return [f_max / self.step ** k for k in range(n)]

    def score_map(self, image: np.ndarray) -> np.ndarray:
        """Score of the window whose top-left cell is (i, j), for every window fully inside."""
        if image.shape[0] < WIN or image.shape[1] < WIN:
            return np.zeros((0, 0), np.float32)
        F = cell_features(image)
        Hc, Wc = F.shape[:2]
        if Hc < WIN_CELLS or Wc < WIN_CELLS:
            return np.zeros((0, 0), np.float32)
        out = np.full((Hc, Wc), self.bias, np.float32)
        for k in range(BINS):
            out += cv2.filter2D(F[..., k], cv2.CV_32F, self.kernel[..., k], anchor=(0, 0),
                                borderType=cv2.BORDER_CONSTANT)
        return out[:Hc - WIN_CELLS + 1, :Wc - WIN_CELLS + 1]

    def raw(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every window scoring above the threshold, as die boxes (N,4) in image pixels, and scores."""
        all_boxes, all_scores = [], []
        H, W = image.shape[:2]
        for f in self.scales():
            size = (round(W * f), round(H * f))
            scaled = cv2.resize(image, size, interpolation=cv2.INTER_LINEAR if f > 1 else cv2.INTER_AREA)
            S = self.score_map(scaled)
            ii, jj = np.nonzero(S > self.threshold)
            if len(ii) == 0:
                continue
            inner = WIN / CONTEXT
            cx = (jj * CELL + WIN / 2) / f
            cy = (ii * CELL + WIN / 2) / f
            half = inner / 2 / f
            all_boxes.append(np.stack([cx - half, cy - half, cx + half, cy + half], 1))
            all_scores.append(S[ii, jj])
        if not all_boxes:
            return np.zeros((0, 4), np.float32), np.zeros(0, np.float32)
        return np.concatenate(all_boxes).astype(np.float32), np.concatenate(all_scores).astype(np.float32)

    def detect(self, image: np.ndarray) -> Detections:
        boxes, scores = self.raw(image)
        keep = nms(boxes, scores, self.nms_iou)
        boxes, scores = boxes[keep], scores[keep]
        n = len(keep)
        conf = 1.0 / (1.0 + np.exp(-scores))
        return Detections(xyxy=boxes.reshape(n, 4), confidence=conf.astype(np.float32),
                          values=-np.ones(n, np.int32), value_confidence=np.zeros(n, np.float32),
                          kind="die", data={"score": scores.astype(np.float32)})
