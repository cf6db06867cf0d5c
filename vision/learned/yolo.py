"""Torch-free YOLO inference: letterbox, the exported graph's raw output decoded, NMS in numpy.

An Ultralytics detection model exported to ONNX (YOLOv8/11 heads) takes a 1x3xSxS RGB float input in
0..1 and returns (1, 4 + C, N): for each of N anchor points a box centre/size in input pixels and C
class scores already passed through a sigmoid. No suppression is in the graph, so it is done here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.learned.onnx_model import OnnxModel
from vision.types import VisionError

PAD_VALUE = 114  # Ultralytics' letterbox grey


@dataclass(frozen=True)
class Letterbox:
    """How an image was fitted into the square input: input = image * scale + (pad_x, pad_y)."""

    scale: float
    pad_x: float
    pad_y: float

    def to_image(self, xyxy: np.ndarray) -> np.ndarray:
        out = np.asarray(xyxy, np.float32).copy()
        out[:, [0, 2]] = (out[:, [0, 2]] - self.pad_x) / self.scale
        out[:, [1, 3]] = (out[:, [1, 3]] - self.pad_y) / self.scale
        return out


def letterbox(image: np.ndarray, size: int) -> tuple[np.ndarray, Letterbox]:
    """Resize keeping the aspect ratio so the longer side is `size`, pad the rest evenly with grey."""
    h, w = image.shape[:2]
    scale = min(size / h, size / w)
    nw, nh = max(1, int(round(w * scale))), max(1, int(round(h * scale)))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    resized = cv2.resize(image, (nw, nh), interpolation=interp) if (nw, nh) != (w, h) else image
    px, py = (size - nw) / 2, (size - nh) / 2
    top, left = int(round(py - 0.1)), int(round(px - 0.1))
    out = cv2.copyMakeBorder(resized, top, size - nh - top, left, size - nw - left, cv2.BORDER_CONSTANT,
                             value=(PAD_VALUE, PAD_VALUE, PAD_VALUE))
    return out, Letterbox(scale, float(left), float(top))


def decode(raw: np.ndarray, conf: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(1, 4 + C, N) or (4 + C, N) raw output -> xyxy (input pixels), best score, best class, for the
    anchors whose best class score is at least `conf`."""
    out = np.asarray(raw, np.float32)
    if out.ndim == 3:
        if out.shape[0] != 1:
            raise VisionError(f"decode takes one image's output, got batch of {out.shape[0]}")
        out = out[0]
    if out.ndim != 2 or out.shape[0] < 5:
        raise VisionError(f"expected a (4 + classes, anchors) output, got shape {np.shape(raw)}")
    scores = out[4:]
    cls = scores.argmax(axis=0)
    best = scores[cls, np.arange(scores.shape[1])]
    keep = best >= conf
    cx, cy, w, h = out[:4, keep]
    xyxy = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1).astype(np.float32)
    return xyxy, best[keep].astype(np.float32), cls[keep].astype(np.int32)


def box_iou(box: np.ndarray, others: np.ndarray) -> np.ndarray:
    ix0 = np.maximum(box[0], others[:, 0])
    iy0 = np.maximum(box[1], others[:, 1])
    ix1 = np.minimum(box[2], others[:, 2])
    iy1 = np.minimum(box[3], others[:, 3])
    inter = np.clip(ix1 - ix0, 0, None) * np.clip(iy1 - iy0, 0, None)
    area = (box[2] - box[0]) * (box[3] - box[1])
    areas = (others[:, 2] - others[:, 0]) * (others[:, 3] - others[:, 1])
    return inter / np.maximum(area + areas - inter, 1e-9)


def nms(xyxy: np.ndarray, scores: np.ndarray, iou: float, classes: np.ndarray | None = None,
        max_det: int = 300) -> np.ndarray:
    """Greedy non-maximum suppression; indices kept, best first. With `classes`, boxes of different
    classes never suppress each other (each class is shifted to its own region of the plane)."""
    boxes = np.asarray(xyxy, np.float64).reshape(-1, 4)
    if len(boxes) == 0:
        return np.zeros(0, np.int64)
    if classes is not None:
        span = float(boxes.max() - boxes.min()) + 1.0
        boxes = boxes + (np.asarray(classes, np.float64) * span)[:, None]
    order = np.argsort(-np.asarray(scores), kind="stable")
    keep: list[int] = []
    while len(order) and len(keep) < max_det:
        i = int(order[0])
        keep.append(i)
        rest = order[1:]
        order = rest[box_iou(boxes[i], boxes[rest]) <= iou]
    return np.array(keep, np.int64)


class OnnxYolo:
    """An exported YOLO detector run by OpenCV DNN (or onnxruntime when asked and installed)."""

    def __init__(self, path: Path | str, backend: str = "auto") -> None:
        self.model = OnnxModel(path, backend)
        self.path, self.backend = self.model.path, self.model.backend
        shape = self.model.input_shape
        self.size = int(shape[2]) if shape and isinstance(shape[2], int) else self._probe_size()

    def _probe_size(self) -> int:
        """The square input size: from the model card beside the file, else tried from the file name."""
        stem = self.path.stem
        digits = "".join(ch if ch.isdigit() else " " for ch in stem.split("_")[-1]).split()
        if digits:
            return int(digits[-1])
        raise VisionError(f"{self.path}: cannot tell the input size; name the file like model_320.onnx")

    def forward(self, image_rgb_square: np.ndarray) -> np.ndarray:
        return self.model.run(cv2.dnn.blobFromImage(image_rgb_square, 1 / 255.0, swapRB=False))

    def detect(self, image_bgr: np.ndarray, conf: float = 0.25, iou: float = 0.5,
               agnostic: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Boxes (image pixels), scores, classes of one BGR image, suppressed."""
        square, lb = letterbox(image_bgr, self.size)
        raw = self.forward(cv2.cvtColor(square, cv2.COLOR_BGR2RGB))
        xyxy, score, cls = decode(raw, conf)
        keep = nms(xyxy, score, iou, None if agnostic else cls)
        h, w = image_bgr.shape[:2]
        boxes = lb.to_image(xyxy[keep])
        boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, w)
        boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, h)
        return boxes, score[keep], cls[keep]
