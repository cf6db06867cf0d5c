"""Realdata objects (the generators' labels.json entries) -> YOLO label lines, per kind and scheme.

Detection lines are `class cx cy w h`; pose lines (Tokyo sticks) append the two stick ends as
keypoints, `x1 y1 v1 x2 y2 v2`. Everything is normalised by the image size after clipping the box
to the image. What is dropped, and why, is counted per reason so a manifest can say so:
  outside    - the box lies entirely outside the image
  thin       - after clipping the box is under MIN_PX pixels wide or tall (nothing to learn from)
  hidden     - a stick with no visible pixel (the renderer gives its projected axis box instead)
  unlabelled - the scheme needs a value (a number, a face) and the object has none
Stick ends are written leftmost first; an end outside the image is `0 0 0` (Ultralytics' "not
labelled" keypoint). An end hidden under another piece keeps visibility 2: the generator does not
say which ends are covered.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from vision.route_dice.faces import FACES

MIN_PX = 2.0
KINDS = ("tiles", "route-dice", "sticks")
PIECE_NUMBERS = tuple(range(1, 17))


@dataclass(frozen=True)
class Scheme:
    """One way of turning a kind's objects into classes."""

    kind: str
    name: str
    names: tuple[str, ...]
    pose: bool = False  # lines carry the two stick ends as keypoints (kpt_shape [2, 3])
    help: str = ""


SCHEMES: dict[str, dict[str, Scheme]] = {
    "tiles": {
        "piece": Scheme("tiles", "piece", ("piece",), help="one class: every numbered piece"),
        "number": Scheme("tiles", "number", tuple(str(n) for n in PIECE_NUMBERS),
                         help="16 classes: the piece's number (class = number - 1)"),
    },
    "route-dice": {
        "face": Scheme("route-dice", "face", (*FACES, "leaning"),
                       help=f"{len(FACES)} face classes plus 'leaning' (a die resting on another)"),
        "die": Scheme("route-dice", "die", ("die",), help="one class: every die top, leaning or not"),
    },
    "sticks": {
        "stick": Scheme("sticks", "stick", ("stick",), pose=True,
                        help="pose: one class, the stick's two ends as keypoints"),
        "pieces": Scheme("sticks", "pieces", ("stick", "support", "car"), pose=True,
                         help="pose: sticks with ends, supports and cars with unlabelled keypoints"),
        "boxes": Scheme("sticks", "boxes", ("stick", "support", "car"),
                        help="detection: stick, support and car boxes, no keypoints"),
    },
}


def get_scheme(kind: str, name: str | None) -> Scheme:
    """The scheme `name` of `kind` (its first scheme when None); ValueError naming the choices."""
    if kind not in SCHEMES:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    schemes = SCHEMES[kind]
    if name is None:
        return next(iter(schemes.values()))
    if name not in schemes:
        raise ValueError(f"scheme for {kind} must be one of {', '.join(schemes)}, got {name!r}")
    return schemes[name]


def clip_box(bbox: Sequence[float], width: int, height: int) -> tuple[float, float, float, float] | str:
    """The box clipped to the image, or the reason it is dropped ('outside' or 'thin')."""
    x0, y0, x1, y1 = (float(v) for v in bbox)
    if x1 <= 0 or y1 <= 0 or x0 >= width or y0 >= height:
        return "outside"
    x0, y0, x1, y1 = max(0.0, x0), max(0.0, y0), min(float(width), x1), min(float(height), y1)
    if x1 - x0 < MIN_PX or y1 - y0 < MIN_PX:
        return "thin"
    return x0, y0, x1, y1


def class_of(scheme: Scheme, obj: dict[str, Any]) -> int | None:
    """The class index of a realdata object under `scheme`; None when the scheme does not take it
    (another kind of object, or no value to learn from)."""
    kind, value = obj.get("kind"), obj.get("value")
    if scheme.kind == "tiles":
        if kind != "tile":
            return None
        if scheme.name == "piece":
            return 0
        return int(value) - 1 if value in PIECE_NUMBERS else None
    if scheme.kind == "route-dice":
        if kind != "route-die":
            return None
        if scheme.name == "die":
            return 0
        if obj.get("leaning"):
            return len(scheme.names) - 1
        return scheme.names.index(value) if value in FACES else None
    if scheme.name == "stick":
        return 0 if kind == "stick" else None
    return scheme.names.index(kind) if kind in scheme.names else None


def _kind_taken(scheme: Scheme, obj: dict[str, Any]) -> bool:
    wanted = {"tiles": ("tile",), "route-dice": ("route-die",)}.get(scheme.kind, scheme.names)
    return obj.get("kind") in wanted


def keypoints(endpoints: Any, width: int, height: int) -> list[float]:
    """x1 y1 v1 x2 y2 v2, normalised, the leftmost end first (then the upper one) so the keypoints have
    a meaning a left-right flip can swap (flip_idx [1, 0]); an end outside the image (or none given)
    is 0 0 0."""
    ends = sorted((float(e[0]), float(e[1])) for e in endpoints[:2]) if endpoints else [None, None]
    out: list[float] = []
    for end in ends:
        if end is not None and 0 <= float(end[0]) <= width and 0 <= float(end[1]) <= height:
            out += [float(end[0]) / width, float(end[1]) / height, 2.0]
        else:
            out += [0.0, 0.0, 0.0]
    return out


def _number(i: int, v: float) -> str:
    """Coordinates with 6 decimals; keypoint visibilities (columns 6 and 9 after the class) as 0/2."""
    return f"{v:.0f}" if i >= 4 and (i - 4) % 3 == 2 else f"{v:.6f}"


def yolo_lines(scheme: Scheme, objects: list[dict[str, Any]], width: int,
               height: int) -> tuple[list[str], Counter[str]]:
    """The label lines of one image and the count of dropped objects per reason."""
    lines: list[str] = []
    dropped: Counter[str] = Counter()
    for obj in objects:
        if not _kind_taken(scheme, obj):
            continue
        cls = class_of(scheme, obj)
        if cls is None:
            dropped["unlabelled"] += 1
            continue
        if obj.get("kind") == "stick" and obj.get("visible_fraction", 1.0) <= 0:
            dropped["hidden"] += 1
            continue
        box = clip_box(obj["bbox"], width, height)
        if isinstance(box, str):
            dropped[box] += 1
            continue
        x0, y0, x1, y1 = box
        values = [(x0 + x1) / 2 / width, (y0 + y1) / 2 / height, (x1 - x0) / width, (y1 - y0) / height]
        if scheme.pose:
            ends = obj.get("endpoints") if obj.get("kind") == "stick" else None
            values += keypoints(ends, width, height)
        lines.append(" ".join([str(cls), *(_number(i, v) for i, v in enumerate(values))]))
    return lines, dropped
