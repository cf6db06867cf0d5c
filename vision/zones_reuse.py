"""Which zones of a printed sheet (vision.zones) changed in the camera image since they were last read,
so the dice reader reads only those again.

A camera over a still table sends the same pixels frame after frame, up to sensor noise; a hand or a
die changes a few zones. Each zone is watched through the camera-image box that covers everything its
reading looks at: the zone and `margin_mm` round it (a die's crop, its re-framed boxes, the pip window),
on the sheet and on the plane of the dice's top faces (in perspective a die's top shows away from its
foot). A zone keeps its reading only while its box's pixels look as they did when it was read (each
zone against its own pixels), and only once that reading was confirmed: read a second time, it came
out the same. A zone whose die was read unsurely (below SURE), or that
could not be read (a hand, two dice touching), is read again on every frame: there fresh readings are
worth their cost; and on a frame where anything changed, so is every zone seen empty (cheap, and its
refresh keeps the learned empty sheet fresh): what is kept is the dice. The rule for "changed" is the
4x4 and Railroad Ink readers' (vision/tiles/reuse.py): enough pixels moved by more than noise does, or
the box's mean brightness moved (the light changed). Another calibration (the board moved, or was
found again) changes every zone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from vision.tiles.reuse import BRIGHTNESS_STEP, CHANGED_SHARE, MIN_CHANGED_PX, PIXEL_STEP
from vision.zones import READ_REACH_MM, ZoneDie, ZoneReading

Box = tuple[int, int, int, int]  # x0, y0, x1, y1 in camera pixels, end exclusive
MARGIN_MM = READ_REACH_MM  # round a zone: a die's crop with its re-framing shifts reaches about this far
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


def boxes_changed(image: np.ndarray, seen: np.ndarray, boxes: dict[str, Box]) -> set[str]:
    """The names of `boxes` for which `box_changed(image[box], seen[box])` holds, decided by the same
    numbers: each box's count of moved pixels is read off one integral of the moved pixels over the
    boxes' bounding box (the same pixels as each box's own count), and only a box whose count does not
    decide gets the brightness test, by `_grey_mean` of its own pixels as before."""
    if image.shape != seen.shape:  # (another frame size: box by box, as the boxes may still match)
        return {n for n, (x0, y0, x1, y1) in boxes.items()
                if box_changed(image[y0:y1, x0:x1], seen[y0:y1, x0:x1])}
    if not boxes:
        return set()
    ux0, uy0 = min(b[0] for b in boxes.values()), min(b[1] for b in boxes.values())
    ux1, uy1 = max(b[2] for b in boxes.values()), max(b[3] for b in boxes.values())
    diff = cv2.absdiff(image[uy0:uy1, ux0:ux1], seen[uy0:uy1, ux0:ux1])
    b, g, r = cv2.split(diff)
    most = cv2.max(cv2.max(b, g), r)
    moved = cv2.integral(cv2.threshold(most, PIXEL_STEP, 1, cv2.THRESH_BINARY)[1], sdepth=cv2.CV_32S)
    touched = cv2.integral(cv2.threshold(most, 0, 1, cv2.THRESH_BINARY)[1], sdepth=cv2.CV_32S)
    out: set[str] = set()
    for name, (x0, y0, x1, y1) in boxes.items():
        if x1 <= x0 or y1 <= y0:
            continue  # an empty box: nothing in it moved (box_changed of no pixels)
        a0, b0, a1, b1 = x0 - ux0, y0 - uy0, x1 - ux0, y1 - uy0
        if _box_sum(touched, a0, b0, a1, b1) == 0:
            continue  # the very same pixels
        area = max(1, (x1 - x0) * (y1 - y0))
        if _box_sum(moved, a0, b0, a1, b1) > max(MIN_CHANGED_PX, CHANGED_SHARE * area):
            out.add(name)
        elif abs(_grey_mean(image[y0:y1, x0:x1]) - _grey_mean(seen[y0:y1, x0:x1])) > BRIGHTNESS_STEP:
            out.add(name)
    return out


def box_changed(now: np.ndarray, seen: np.ndarray) -> bool:
    """Whether one box's BGR pixels `now` differ from `seen` (the same box of an earlier frame) by the
    rule of `changed_zones`: enough pixels moved by more than noise does, or the mean brightness moved."""
    if now.shape != seen.shape:
        return True
    diff = cv2.absdiff(now, seen)
    if not diff.any():
        return False
    b, g, r = cv2.split(diff)
    moved = cv2.countNonZero(cv2.threshold(cv2.max(cv2.max(b, g), r), PIXEL_STEP, 1, cv2.THRESH_BINARY)[1])
    area = max(1, now.shape[0] * now.shape[1])
    if moved > max(MIN_CHANGED_PX, CHANGED_SHARE * area):
        return True
    return abs(_grey_mean(now) - _grey_mean(seen)) > BRIGHTNESS_STEP


def _grey_mean(bgr: np.ndarray) -> float:
    b, g, r, _ = cv2.mean(bgr)
    return 0.114 * b + 0.587 * g + 0.299 * r  # cv2.COLOR_BGR2GRAY's weights


@dataclass
class _Seen:
    """One zone's last reading and the camera pixels (its box) it was read from."""

    frame: np.ndarray  # the picture it was read from (shared by every zone read from it; never written)
    box: Box
    dice: list[ZoneDie] | None  # None: the reading has no entry for the zone (out of the frame)
    unreadable: str | None
    # the zone's last two readings came out the same: only then is the reading kept. A reading is not
    # a function of the box's pixels alone (the reader's learned empty sheet, and what it read there
    # the frame before, count too), so the first reading after a change may not be the one the next
    # frames would give; kept at once, it stood for as long as the zone stayed still, however the
    # reader would read it now. Read again until two readings in a row agree, it is one the reader
    # stands by. (Asking also for unchanged pixels between the two cost a fifth of the recorded
    # match's frame rate: noise moves some zones' pixels every few frames.)
    confirmed: bool = False

    @property
    def pixels(self) -> np.ndarray:
        x0, y0, x1, y1 = self.box
        return self.frame[y0:y1, x0:x1]

    def same_reading(self, other: _Seen) -> bool:
        if not self.dice and not other.dice and self.dice == other.dice:  # (most zones: both empty)
            return self.unreadable == other.unreadable

        def key(s: _Seen) -> Any:
            dice = None if s.dice is None else sorted((d.value, d.color or "") for d in s.dice)
            return dice, s.unreadable

        return key(self) == key(other)


class ZoneWatch:
    """Per zone, its last reading and the camera pixels it was read from, under one `key`: a tuple
    of the objects the zones were read through (calibration, zone reader ...), the same objects
    while nothing moved. A zone keeps its reading while its own pixels look as they did when it was
    read, and only once a second reading agreed with the first. Each zone is
    compared with its own pixels, never with a picture pieced together from other zones' reads
    (boxes overlap: a neighbour read again would carry this zone's changed pixels into the picture
    it is compared with, so a change could slip in piece by piece and never count), so a slow
    drift adds up until it counts."""

    def __init__(self) -> None:
        self.key: Any = None
        self.boxes: dict[str, Box] = {}
        self.seen: dict[str, _Seen] = {}
        # a copy of the image last recorded: every zone's pixels were read from it or compared with it
        # as unchanged, so the very same picture again (a recording holding a scene) changed no zone,
        # without comparing 128 boxes. A copy (a caller may draw into its frame), and a new one each
        # time: the zones read from it keep it as the pixels they were read from
        self.last: np.ndarray | None = None
        self._same: np.ndarray | None = None  # the frame `plan` last found to be `last`'s very picture

    def same(self, key: Any) -> bool:
        last = self.key
        if last is None or len(last) != len(key):
            return False
        return all(a is b for a, b in zip(last, key, strict=True))

    def plan(self, image: np.ndarray, key: Any) -> tuple[set[str] | None, dict[str, int]]:
        """The zones to read again in `image` (None: every zone: another `key`, or no frame yet), and
        the others, whose readings are kept (each mapped to 0: the kept readings' only source)."""
        if not self.seen or not self.same(key) or not self.boxes:
            return None, {}
        same = same_picture(image, self.last)
        self._same = image if same else None  # for `record`, when it is given this very frame
        moved = set() if same else self._moved(image)
        todo, source = set(moved), {}
        for name in self.boxes.keys() - moved:
            entry = self.seen[name]
            dice = entry.dice or []
            unsure = entry.unreadable is not None or any(d.confidence < SURE for d in dice)
            # while anything changed, the zones seen empty are read too: reading one empty refreshes
            # the learned empty sheet there, which is how a die's ghost left in it fades (tuning seed 1
            # with hands: kept unrefreshed, a ghost in pool 2 read as "a large object", 12/24 moves
            # against main's 15/24; read, 19/24); only the dice zones' readings are worth keeping
            if not entry.confirmed or unsure or (moved and entry.dice is not None and not dice):
                todo.add(name)
            else:
                source[name] = 0
        return todo, source

    def _moved(self, image: np.ndarray) -> set[str]:
        """The zones whose box in `image` changed from the pixels they were last read from
        (`box_changed` of each): the zones read from one picture (most: every zone is read on a frame
        where anything changed) are compared with it at once (`boxes_changed`)."""
        out: set[str] = set()
        by_frame: dict[int, list[str]] = {}
        for name in self.boxes:
            entry = self.seen.get(name)
            if entry is None:
                out.add(name)
            else:
                by_frame.setdefault(id(entry.frame), []).append(name)
        for names in by_frame.values():
            seen = self.seen[names[0]].frame
            out |= boxes_changed(image, seen, {n: self.seen[n].box for n in names})
        return out

    def kept(self, source: dict[str, int]) -> ZoneReading:
        """The readings the unchanged zones keep."""
        out = ZoneReading()
        for name in source:
            entry = self.seen[name]
            if entry.dice is not None:
                out.dice[name] = entry.dice
            if entry.unreadable is not None:
                out.unreadable[name] = entry.unreadable
        return out

    def record(self, image: np.ndarray, key: Any, boxes: dict[str, Box], todo: set[str] | None,
               source: dict[str, int], reading: ZoneReading) -> None:
        """`reading` was made of `image`, reading the zones `todo` (None: all, under `key` with these
        `boxes`) and keeping the others' (`source`, see `plan`)."""
        fresh = todo is None or not self.seen or not self.same(key)
        if fresh:
            self.key, self.boxes, self.seen = key, boxes, {}
        # after `plan(image)` (or fresh): each zone read from it or compared with it. One copy of the
        # picture, shared by the zones read from it (a copy per box cost more: the boxes overlap). No
        # zone read from the very picture last copied (a recording holding a scene): that copy stays
        if fresh or todo or self._same is not image:
            self.last = image.copy()
        self._same = None
        for name in (self.boxes if fresh else todo or ()):
            entry = _Seen(self.last, self.boxes[name], reading.dice.get(name), reading.unreadable.get(name))
            last = self.seen.get(name)
            entry.confirmed = last is not None and entry.same_reading(last)
            self.seen[name] = entry

    def forget(self) -> None:
        self.key, self.boxes, self.seen, self.last, self._same = None, {}, {}, None, None


def same_picture(image: np.ndarray, last: np.ndarray | None) -> bool:
    """Whether `image` is byte for byte `last` (a quarter of a millisecond for a 720p frame). A camera's
    frames differ by sensor noise everywhere, so a differing frame is told by its first rows (a
    hundredth of the work); equal there, the whole picture decides."""
    if last is None or image.shape != last.shape or image.dtype != last.dtype:
        return False
    head = max(1, image.shape[0] // 64) if image.ndim else 0
    if image.ndim and cv2.norm(image[:head], last[:head], cv2.NORM_INF) != 0:
        return False
    return cv2.norm(image, last, cv2.NORM_INF) == 0
