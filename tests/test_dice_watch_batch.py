"""ZoneWatch compares the zones read from one picture with it at once (issue #24): `boxes_changed`
decides each box as `box_changed` does, every zone still against the pixels it was itself read from
(a zone kept over several frames is never compared with a later picture, or a slow change would keep
a stale reading), and the zones read from one frame share one copy of it. Results only, never times."""

from __future__ import annotations

import cv2
import numpy as np

from vision.zones import ZoneDie, ZoneReading
from vision.zones_reuse import ZoneWatch, box_changed, boxes_changed

BOXES = {"a": (0, 0, 60, 60), "b": (40, 0, 120, 60), "c": (10, 30, 110, 90), "corner": (100, 70, 120, 90)}


def picture(seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return cv2.GaussianBlur(rng.integers(40, 220, (90, 120, 3), dtype=np.uint8), (0, 0), 1.5)


def test_boxes_changed_decides_every_box_as_box_changed() -> None:
    rng = np.random.default_rng(1)
    seen = picture()
    cases = [seen.copy(), cv2.add(seen, np.full_like(seen, 2)), cv2.add(seen, np.full_like(seen, 6))]
    for k in range(40):  # a few moved pixels about the thresholds, a light step about BRIGHTNESS_STEP
        now = seen.copy()
        n = int(rng.integers(0, 30))
        ys, xs = rng.integers(0, 90, n), rng.integers(0, 120, n)
        now[ys, xs] = rng.integers(0, 256, (n, 3), dtype=np.uint8)
        if k % 3 == 0:
            y0, x0 = int(rng.integers(0, 60)), int(rng.integers(0, 90))
            now[y0:y0 + 30, x0:x0 + 30] = cv2.add(now[y0:y0 + 30, x0:x0 + 30], np.full((30, 30, 3), 4 + k % 5,
                                                                                     np.uint8))
        cases.append(now)
    decided = set()
    for now in cases:
        want = {n for n, (x0, y0, x1, y1) in BOXES.items() if box_changed(now[y0:y1, x0:x1], seen[y0:y1, x0:x1])}
        assert boxes_changed(now, seen, BOXES) == want
        decided |= want
    assert decided >= {"a", "b", "c", "corner"}  # the cases did move boxes both ways
    assert boxes_changed(picture(), seen, {}) == set()


def reading(die_in_a: int) -> ZoneReading:
    return ZoneReading({"a": [ZoneDie(die_in_a, 0.99, "white", (0, 0, 1, 1), {})], "b": [], "c": [],
                        "corner": []})


def test_a_kept_zone_is_compared_with_the_picture_it_was_read_from() -> None:
    """Zone a keeps its die while b is read on later frames; a's pixels drift a little each frame (under
    the light step each time, over it in all): the drift must count, against a's own picture."""
    watch, key = ZoneWatch(), (object(),)
    f0 = picture()
    for _ in range(2):  # read twice: confirmed
        todo, source = watch.plan(f0, key)
        watch.record(f0, key, BOXES, todo, source, reading(5))
    assert watch.plan(f0.copy(), key) == (set(), dict.fromkeys(BOXES, 0))
    frame, steps = f0, []
    for _ in range(3):
        frame = frame.copy()
        frame[0:60, 0:40] = cv2.add(frame[0:60, 0:40], np.full((60, 40, 3), 3, np.uint8))  # a's own part
        frame[70:90, 100:120] = 255 - frame[70:90, 100:120]  # something else changed: b..corner are read
        todo, source = watch.plan(frame, key)
        steps.append("a" in todo)
        # a kept: its reading stays the one read from f0, its pixels those of f0
        watch.record(frame, key, BOXES, todo, source, reading(5 if "a" in source else 6))
        if "a" in source:
            assert watch.seen["a"].frame is not watch.last and np.array_equal(watch.seen["a"].pixels,
                                                                            f0[0:60, 0:60])
    # each step alone moves a's mean by 2 levels (kept), the steps together by over BRIGHTNESS_STEP
    assert steps == [False, False, True]


def test_the_zones_read_from_one_picture_share_one_copy_of_it() -> None:
    watch, key = ZoneWatch(), (object(),)
    f0 = picture()
    watch.record(f0, key, BOXES, None, {}, reading(5))
    assert watch.last is not f0 and np.array_equal(watch.last, f0)
    assert all(entry.frame is watch.last for entry in watch.seen.values())
    f0[:] = 0  # the caller draws into its frame: the watch's picture is its own
    assert np.array_equal(watch.seen["a"].pixels, picture()[0:60, 0:60])
