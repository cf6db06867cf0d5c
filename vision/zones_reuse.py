"""Which zones of a printed sheet (vision.zones) changed in the camera image since they were last read,
so the dice reader reads only those again.

A camera over a still table sends the same pixels frame after frame, up to sensor noise; a hand or a
die changes a few zones. Each zone is watched through the camera-image box that covers everything its
reading looks at: the zone and `margin_mm` round it (a die's crop, its re-framed boxes, the pip window),
on the sheet and on the plane of the dice's top faces (in perspective a die's top shows away from its
foot). A zone whose die was read unsurely (below SURE), or that could not be read (a hand, two dice
touching), is read again on every frame: there fresh readings are worth their cost; and on a frame
where anything changed, so is every zone seen empty (cheap, and its refresh keeps the learned empty
sheet fresh): what is kept is the dice. The rule for
"changed" is the 4x4 and Railroad Ink readers' (vision/tiles/reuse.py): enough
pixels moved by more than noise does, or the box's mean brightness moved (the light changed). Another
calibration (the board moved, or was found again) changes every zone. Each zone is compared with the
pixels it was read from, in the last frame that read anything: the boxes read again are copied
into the kept image, so a slow drift still adds up until it counts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import cv2
import numpy as np

from vision.tiles.reuse import BRIGHTNESS_STEP, CHANGED_SHARE, MIN_CHANGED_PX, PIXEL_STEP
from vision.zones import ZoneReading

Box = tuple[int, int, int, int]  # x0, y0, x1, y1 in camera pixels, end exclusive
MARGIN_MM = 20.0  # round a zone: a die's crop with its re-framing shifts reaches about this far
# a zone holding a die read less surely than this is read again on every frame, changed or not: a die
# on the edge between two values can read either way from one frame's noise to the next (tuning seed
# 1: a 2 read as a 3 at 0.80 on the roll's first frame, as a 2 at 0.93 on the next), and the referee's
# stability gate should see those fresh readings rather than the first one held; so should a zone
# that could not be read (held, "a large object" in a pool outlived the hand that made it: tuning seed
# 1 with hands)
SURE = 0.9


def zone_boxes(zones: Sequence[Any], to_image: Any, shape: tuple[int, ...], margin_mm: float = MARGIN_MM,
               project: Any = None, height_mm: float = 0.0) -> dict[str, Box]:
    """Per zone (vision.zones.Zone: name, x, y, w, h in sheet mm) the camera-image box of the zone and
    `margin_mm` round it. `to_image` maps sheet mm (N, 2) to image pixels; `project`, if given, maps
    (N, 3) points at `height_mm` above the sheet too (the dice's top faces)."""
    h, w = shape[:2]
    out: dict[str, Box] = {}
    for z in zones:
        x0, y0, x1, y1 = z.x - margin_mm, z.y - margin_mm, z.x + z.w + margin_mm, z.y + z.h + margin_mm
        rect = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)
        pts = np.asarray(to_image(rect), np.float64).reshape(-1, 2)
        if project is not None:
            top = np.asarray(project(np.column_stack([rect, np.full(4, height_mm)])), np.float64)
            pts = np.concatenate([pts, top.reshape(-1, 2)])
        bx0, by0 = (int(np.floor(v)) - 1 for v in pts.min(axis=0))
        bx1, by1 = (int(np.ceil(v)) + 2 for v in pts.max(axis=0))
        out[z.name] = (max(0, bx0), max(0, by0), min(w, bx1), min(h, by1))
    return out


def changed_zones(image: np.ndarray, seen: np.ndarray, boxes: dict[str, Box],
                  brightness: tuple[Callable[[], np.ndarray], np.ndarray] | None = None) -> set[str]:
    """Names of `boxes` whose pixels in `image` differ from `seen` (same-size BGR camera images).
    `brightness`: a function giving `image`'s grey integral (`grey_integral`) and `seen`'s, when the
    caller keeps them."""
    if image.shape != seen.shape:
        return set(boxes)
    diff = cv2.absdiff(image, seen)
    if not diff.any():
        return set()
    b, g, r = cv2.split(diff)
    moved = cv2.integral(cv2.threshold(cv2.max(cv2.max(b, g), r), PIXEL_STEP, 1, cv2.THRESH_BINARY)[1],
                         sdepth=cv2.CV_32S)
    if brightness is None:
        brightness = (lambda: grey_integral(image)), grey_integral(seen)
    now, last = brightness[0](), brightness[1]
    out: set[str] = set()
    for name, (x0, y0, x1, y1) in boxes.items():
        area = max(1, (x1 - x0) * (y1 - y0))
        if _box_sum(moved, x0, y0, x1, y1) > max(MIN_CHANGED_PX, CHANGED_SHARE * area):
            out.add(name)
        elif abs(_box_sum(now, x0, y0, x1, y1) - _box_sum(last, x0, y0, x1, y1)) / area > BRIGHTNESS_STEP:
            out.add(name)
    return out


def grey_integral(image: np.ndarray) -> np.ndarray:
    return cv2.integral(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), sdepth=cv2.CV_32S)


def _box_sum(integral: np.ndarray, x0: int, y0: int, x1: int, y1: int) -> float:
    return float(integral[y1, x1] - integral[y0, x1] - integral[y1, x0] + integral[y0, x0])


class ZoneWatch:
    """The camera pixels each zone was read from and what it read, for the last `depth` frames that
    read anything, under one `key`: a tuple of the objects the zones were read through (calibration,
    zone reader ...), the same objects while nothing moved. A zone that looks as it did in any of them
    keeps that frame's reading."""

    # depth 1: only the last frame that read anything. Keeping the reading of the frame before it too
    # (depth 2, so a zone looks "as before" once a hand has passed) lost report seed 105 at 1920x1080 /
    # 850 mm / 30 degrees from its 6th move on (6/24; 24/24 at depth 1 and without reuse): a reading
    # older than the last one can be kept where the table changed since
    def __init__(self, depth: int = 1) -> None:
        self.depth = depth
        self.key: Any = None
        self.boxes: dict[str, Box] = {}
        # newest first: (pixels, their grey integral, reading)
        self.snapshots: list[tuple[np.ndarray, np.ndarray, ZoneReading]] = []

    def same(self, key: Any) -> bool:
        last = self.key
        if last is None or len(last) != len(key):
            return False
        return all(a is b for a, b in zip(last, key, strict=True))

    def plan(self, image: np.ndarray, key: Any) -> tuple[set[str] | None, dict[str, int]]:
        """The zones to read again in `image` (None: every zone: another `key`, or no frame yet), and
        for each of the others the snapshot whose reading it keeps (0 the newest)."""
        if not self.snapshots or not self.same(key) or not self.boxes:
            return None, {}
        todo, source = set(self.boxes), {}
        grey: list[np.ndarray] = []

        def now() -> np.ndarray:  # only when some pixels differ at all
            if not grey:
                grey.append(grey_integral(image))
            return grey[0]

        for k, (seen, seen_grey, _reading) in enumerate(self.snapshots):
            still = todo - changed_zones(image, seen, {n: self.boxes[n] for n in todo}, (now, seen_grey))
            source.update(dict.fromkeys(still, k))
            todo -= still
            if not todo:
                break
        changed = bool(todo)
        for name, k in list(source.items()):
            kept = self.snapshots[k][2]
            unsure = name in kept.unreadable or any(d.confidence < SURE for d in kept.dice.get(name, ()))
            # while anything changed, the zones seen empty are read too: reading one empty refreshes
            # the learned empty sheet there, which is how a die's ghost left in it fades (tuning seed 1
            # with hands: kept unrefreshed, a ghost in pool 2 read as "a large object", 12/24 moves
            # against main's 15/24; read, 19/24); only the dice zones' readings are worth keeping
            if unsure or (changed and name in kept.dice and not kept.dice[name]):
                todo.add(name)
                del source[name]
        return todo, source

    def kept(self, source: dict[str, int]) -> ZoneReading:
        """The readings the unchanged zones keep, each from its snapshot."""
        out = ZoneReading()
        for name, k in source.items():
            reading = self.snapshots[k][2]
            if name in reading.dice:
                out.dice[name] = reading.dice[name]
            if name in reading.unreadable:
                out.unreadable[name] = reading.unreadable[name]
        return out

    def record(self, image: np.ndarray, key: Any, boxes: dict[str, Box], todo: set[str] | None,
               source: dict[str, int], reading: ZoneReading) -> None:
        """`reading` was made of `image`, reading the zones `todo` (None: all, under `key` with these
        `boxes`) and keeping the others' from `source` (see `plan`)."""
        if todo is None or not self.snapshots or not self.same(key):
            self.key, self.boxes, self.snapshots = key, boxes, [(image.copy(), grey_integral(image), reading)]
            return
        if not todo and not any(source.values()):
            return  # nothing read, nothing taken from an older frame: the newest snapshot stands
        seen = self.snapshots[0][0].copy()
        for name, k in source.items():
            if k:
                x0, y0, x1, y1 = self.boxes[name]
                seen[y0:y1, x0:x1] = self.snapshots[k][0][y0:y1, x0:x1]
        for name in todo:
            x0, y0, x1, y1 = self.boxes[name]
            seen[y0:y1, x0:x1] = image[y0:y1, x0:x1]
        self.snapshots = [(seen, grey_integral(seen), reading), *self.snapshots[:self.depth - 1]]

    def forget(self) -> None:
        self.key, self.boxes, self.snapshots = None, {}, []
