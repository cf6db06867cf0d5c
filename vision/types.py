"""Plain data passed between vision stages and to the referee (vision knows no rules).

`Frame` is one image from a source. `Detections` is one plain dataclass of parallel numpy arrays
(boxes, confidences, values, colours) in the style of Roboflow supervision, so every reader hands
the same shape to the next stage. Per-game observations build on these.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


class VisionError(ValueError):
    """Input the vision stage cannot work with (unreadable image, wrong shape or type...)."""


@dataclass
class Frame:
    image: np.ndarray  # HxWx3 uint8 BGR (OpenCV order)
    timestamp: float  # seconds (time.time() of capture, or media time for files)
    source_id: str  # e.g. "camera:0", "file:match.mp4", "folder:frames/"
    index: int = 0  # frame number within the source

    def __post_init__(self) -> None:
        check_image(self.image)


def check_image(image: Any) -> np.ndarray:
    """Raise VisionError unless `image` is a non-empty HxWx3 uint8 array."""
    if not isinstance(image, np.ndarray):
        raise VisionError(f"a frame must be a numpy array, got {type(image).__name__}")
    if image.dtype != np.uint8:
        raise VisionError(f"a frame must be uint8, got {image.dtype}")
    if image.ndim != 3 or image.shape[2] != 3 or image.shape[0] < 8 or image.shape[1] < 8:
        raise VisionError(f"a frame must be HxWx3 with H,W >= 8, got shape {image.shape}")
    return image


@dataclass
class Detections:
    """N detected objects. All arrays have length N; `values` is -1 where unknown."""

    xyxy: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), np.float32))  # pixels
    confidence: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))  # 0..1 overall
    values: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))  # pips / number / class
    value_confidence: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    colors: list[str | None] = field(default_factory=list)  # colour class name per object
    kind: str = "die"  # realdata kind: die, tile, stick, route-die...
    data: dict[str, Any] = field(default_factory=dict)  # extra per-object arrays, same length N

    def __post_init__(self) -> None:
        n = len(self.xyxy)
        self.xyxy = np.asarray(self.xyxy, np.float32).reshape(n, 4)
        for name in ("confidence", "values", "value_confidence"):
            arr = getattr(self, name)
            if len(arr) != n:
                raise VisionError(f"Detections.{name} has {len(arr)} entries for {n} boxes")
        if len(self.colors) != n:
            if self.colors:
                raise VisionError(f"Detections.colors has {len(self.colors)} entries for {n} boxes")
            self.colors = [None] * n

    def __len__(self) -> int:
        return len(self.xyxy)

    def __getitem__(self, index: Any) -> Detections:
        idx = np.arange(len(self))[index]
        idx = np.atleast_1d(idx)
        return Detections(
            xyxy=self.xyxy[idx],
            confidence=np.asarray(self.confidence)[idx],
            values=np.asarray(self.values)[idx],
            value_confidence=np.asarray(self.value_confidence)[idx],
            colors=[self.colors[i] for i in idx],
            kind=self.kind,
            data={k: np.asarray(v)[idx] for k, v in self.data.items()},
        )

    @classmethod
    def empty(cls, kind: str = "die") -> Detections:
        return cls(kind=kind)

    @classmethod
    def from_lists(cls, boxes: list, confidence: list, values: list, kind: str,
                   data: dict[str, Any] | None = None) -> Detections:
        """From per-object lists, as readers collect them; the value confidence is the confidence."""
        conf = np.array(confidence, np.float32)
        return cls(xyxy=np.array(boxes, np.float32).reshape(-1, 4), confidence=conf,
                   values=np.array(values, np.int32), value_confidence=conf.copy(), kind=kind,
                   data=data or {})

    def centers(self) -> np.ndarray:
        return np.stack([(self.xyxy[:, 0] + self.xyxy[:, 2]) / 2, (self.xyxy[:, 1] + self.xyxy[:, 3]) / 2], 1)

    def to_objects(self) -> list[dict[str, Any]]:
        """The realdata `objects` form (see shared realdata README)."""
        return [
            {
                "kind": self.kind,
                "value": int(self.values[i]) if self.values[i] >= 0 else None,
                "bbox": [round(float(v), 1) for v in self.xyxy[i]],
                "color": self.colors[i],
                "confidence": round(float(self.confidence[i]), 4),
            }
            for i in range(len(self))
        ]
