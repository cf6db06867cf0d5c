"""The labelled-photo format of the development set (`labels.json`, see docs/formats/realdata.md)
and the matching used by every evaluation command: greedy IoU matching of boxes, or endpoint
matching of sticks, plus confusion matrices."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from vision.types import VisionError

KINDS = ("die", "domino", "tile", "stick", "route-die")


@dataclass
class LabelledObject:
    kind: str
    value: Any  # int pips / number, or a face name for route dice; None if unlabelled
    bbox: tuple[float, float, float, float]
    color: str | None = None
    endpoints: tuple[tuple[float, float], tuple[float, float]] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class LabelledImage:
    image: str  # file name relative to the folder
    width: int
    height: int
    objects: list[LabelledObject]
    crossings: list[dict[str, Any]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class LabelledSet:
    folder: Path
    items: list[LabelledImage]
    meta: dict[str, Any]

    def path(self, item: LabelledImage) -> Path:
        return self.folder / item.image


def load_labels(folder: Path | str) -> LabelledSet:
    """Read FOLDER/labels.json; raise VisionError naming the file and item on a broken structure."""
    folder = Path(folder)
    path = folder / "labels.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        if folder.is_file():
            raise VisionError(f"{folder}: a file, not a folder (give the folder that holds labels.json "
                              "and its photos)") from None
        raise VisionError(f"{path}: no labels.json in this folder") from None
    except NotADirectoryError:
        raise VisionError(f"{folder}: a file, not a folder (give the folder that holds labels.json "
                          "and its photos)") from None
    except OSError as exc:  # labels.json a folder, unreadable
        raise VisionError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise VisionError(f"{path}: not valid JSON: {exc}") from exc
    except (RecursionError, ValueError) as exc:  # nested thousands deep, a number of 4,300+ digits
        raise VisionError(f"{path}: not valid JSON: {str(exc).split(';')[0]}") from None
    if not isinstance(data, dict) or not isinstance(data.get("items"), list):
        raise VisionError(f"{path}: expected an object with an 'items' list")
    items = []
    for n, raw in enumerate(data["items"]):
        try:
            objects = []
            for obj in raw.get("objects", []):
                ep = obj.get("endpoints")
                known = {"kind", "value", "bbox", "color", "endpoints"}
                objects.append(LabelledObject(
                    kind=str(obj["kind"]),
                    value=obj.get("value"),
                    bbox=tuple(float(v) for v in obj["bbox"]),  # type: ignore[arg-type]
                    color=obj.get("color"),
                    endpoints=(tuple(map(float, ep[0])), tuple(map(float, ep[1]))) if ep else None,  # type: ignore[arg-type]
                    extra={k: v for k, v in obj.items() if k not in known},
                ))
            items.append(LabelledImage(
                image=str(raw["image"]),
                width=int(raw.get("width", 0)),
                height=int(raw.get("height", 0)),
                objects=objects,
                crossings=list(raw.get("crossings") or []),
                extra={k: v for k, v in raw.items() if k not in {"image", "width", "height", "objects",
                                                                  "crossings"}},
            ))
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise VisionError(f"{path}: item {n} is malformed: {exc!r}") from exc
    meta = {k: v for k, v in data.items() if k != "items"}
    return LabelledSet(folder, items, meta)


def iou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of every box in a (N,4 xyxy) against every box in b (M,4)."""
    a = np.asarray(a, np.float64).reshape(-1, 4)
    b = np.asarray(b, np.float64).reshape(-1, 4)
    if len(a) == 0 or len(b) == 0:
        return np.zeros((len(a), len(b)))
    x0 = np.maximum(a[:, None, 0], b[None, :, 0])
    y0 = np.maximum(a[:, None, 1], b[None, :, 1])
    x1 = np.minimum(a[:, None, 2], b[None, :, 2])
    y1 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = np.clip(x1 - x0, 0, None) * np.clip(y1 - y0, 0, None)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    return inter / np.maximum(area_a[:, None] + area_b[None, :] - inter, 1e-9)


def greedy_match(score: np.ndarray, threshold: float) -> list[tuple[int, int]]:
    """Pairs (i, j) taken best-first while score >= threshold, each row and column once.
    For distances, pass the negated distance and a negated threshold."""
    pairs = []
    if score.size == 0:
        return pairs
    order = np.dstack(np.unravel_index(np.argsort(-score, axis=None), score.shape))[0]
    used_i, used_j = set(), set()
    for i, j in order:
        if score[i, j] < threshold:
            break
        if i in used_i or j in used_j:
            continue
        used_i.add(int(i))
        used_j.add(int(j))
        pairs.append((int(i), int(j)))
    return pairs


def confusion_matrix(pairs: list[tuple[Any, Any]], labels: list[Any]) -> list[list[int]]:
    """Rows = true label, columns = predicted label, in the order of `labels`."""
    index = {v: k for k, v in enumerate(labels)}
    m = [[0] * len(labels) for _ in labels]
    for true, pred in pairs:
        if true in index and pred in index:
            m[index[true]][index[pred]] += 1
    return m


def format_confusion(matrix: list[list[int]], labels: list[Any]) -> str:
    width = max(5, *(len(str(v)) + 1 for v in labels))
    head = "true\\pred".ljust(10) + "".join(str(v).rjust(width) for v in labels)
    rows = [str(lab).ljust(10) + "".join(str(c).rjust(width) for c in row)
            for lab, row in zip(labels, matrix, strict=True)]
    return "\n".join([head, *rows])
