"""The dice road reader's reuse between frames (vision/zones_reuse.py, BoardDiceReader(reuse=True)): a
changed zone is read again, an unchanged one keeps its reading, a moved board or changed light reads
everything again, and the recorded match reads the same with and without reuse."""

from __future__ import annotations

import itertools

import cv2
import numpy as np
import pytest

from referee_app.demo import bundled_demos
from referee_app.games.dice import DiceAdapter
from vision.zones import ZoneDiceReader, ZoneDie, ZoneReading
from vision.zones_reuse import ZoneWatch, changed_zones


@pytest.fixture(scope="module")
def frames() -> list[np.ndarray]:
    demo = next(d for d in bundled_demos() if d.game == "highway-dice")
    return [f.image for f in itertools.islice(demo.frames(realtime=False), 13)]


def scene(frames: list[np.ndarray], name: str) -> np.ndarray:
    """The demo's frames by scene: 000 empty board (x3), 001 hand rolling, 002 roll 5 5 (x3), ...,
    004 after +5 (a 5 in pool 0, x3), 005 hand rolling, 006 roll 6 4."""
    return frames[{"empty": 0, "hand": 3, "roll": 4, "stored": 8, "hand again": 11, "roll again": 12}[name]]


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> list[set[str] | None]:
    """The `only` argument of every ZoneDiceReader.read (None: every zone read)."""
    calls: list[set[str] | None] = []
    real = ZoneDiceReader.read

    def read(self: ZoneDiceReader, *args: object, **kwargs: object) -> ZoneReading:
        calls.append(kwargs.get("only"))  # type: ignore[arg-type]
        return real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ZoneDiceReader, "read", read)
    return calls


def reader_after(frames: list[np.ndarray], *names: str) -> DiceAdapter:
    """An adapter that read these scenes, each twice (the second read confirms the first: only a
    confirmed reading is kept)."""
    adapter = DiceAdapter()
    for name in names:
        adapter.read(scene(frames, name))
        adapter.read(scene(frames, name).copy())
    return adapter


def test_the_recorded_match_reads_the_same_with_and_without_reuse(frames: list[np.ndarray]) -> None:
    seen = {}
    for reuse in (True, False):
        adapter = DiceAdapter(reuse=reuse)
        adapter.read(frames[0])
        seen[reuse] = [(o.items, o.blocked) for o in map(adapter.read, frames[:12])]
    assert seen[True] == seen[False]
    assert any(items for items, _ in seen[True])  # the roll was read at all


def test_an_unchanged_frame_reads_nothing_again(frames: list[np.ndarray], spy: list) -> None:
    adapter = reader_after(frames, "empty", "roll")
    before = adapter._reader.last_reading
    spy.clear()
    obs = adapter.read(scene(frames, "roll").copy())
    assert spy == []  # no zone read, no view warped
    assert adapter._reader.last_reading is before
    assert obs.items["tray"] == (5, 5)


def test_a_changed_cell_is_read_again_and_the_others_keep_their_reading(frames: list[np.ndarray],
                                                                        spy: list) -> None:
    adapter = reader_after(frames, "empty", "roll")
    reader = adapter._reader
    before = reader.last_reading
    cell = reader.board.cells["B05"]
    u, v = reader.localiser.calibration.to_image(np.array([[cell.x, cell.y]]))[0]
    image = scene(frames, "roll").copy()
    cv2.rectangle(image, (int(u) - 6, int(v) - 6), (int(u) + 6, int(v) + 6), (20, 20, 20), -1)
    spy.clear()
    adapter.read(image)
    (only,) = spy
    assert "cell:B05" in only and "tray" not in only
    before_empty = {name for name, dice in before.dice.items() if not dice}
    assert only <= before_empty  # the cell and the zones seen empty (cheap; refreshes the empty sheet)
    after = reader.last_reading
    assert after.dice["tray"] is before.dice["tray"]  # kept, not read again
    assert after.dice["cell:B05"] is not before.dice["cell:B05"]


def test_after_a_hand_passed_the_zones_are_read_again_not_taken_from_before_it(
        frames: list[np.ndarray], spy: list) -> None:
    """Only the last frame that read anything is a zone's reference (ZoneWatch depth 1): a reading
    from before the hand's frame is never kept, so what the hand changed cannot be held stale."""
    adapter = reader_after(frames, "empty", "stored")
    pool = adapter._reader.last_reading.dice["pool:0"]
    adapter.read(scene(frames, "hand again"))  # the hand's frame changes every zone
    spy.clear()
    obs = adapter.read(scene(frames, "roll again"))
    (only,) = spy
    assert "tray" in only and "pool:0" in only  # read again: the hand's frame was the last reference
    assert adapter._reader.last_reading.dice["pool:0"] is not pool
    assert obs.items == {"pool:0": 5, "tray": (4, 6)}  # and read as the die it is


def test_changed_light_reads_every_zone_again(frames: list[np.ndarray], spy: list) -> None:
    adapter = reader_after(frames, "empty", "roll")
    spy.clear()
    dim = cv2.convertScaleAbs(scene(frames, "roll"), alpha=0.9)
    adapter.read(dim)
    (only,) = spy
    assert only is not None and len(only) == len(adapter._reader._zone_list)


def test_a_moved_board_reads_every_zone_again(frames: list[np.ndarray], spy: list) -> None:
    adapter = reader_after(frames, "empty", "roll")
    calib = adapter._reader.localiser.calibration
    spy.clear()
    moved = cv2.warpAffine(scene(frames, "roll"), np.float32([[1, 0, 12], [0, 1, 8]]), (1280, 720),
                           borderMode=cv2.BORDER_REPLICATE)
    adapter.read(moved)
    assert adapter._reader.localiser.calibration is not calib
    assert spy == [None]


def test_an_unsure_die_is_read_again_on_every_frame() -> None:
    image = np.full((100, 200, 3), 128, np.uint8)
    boxes = {"a": (0, 0, 100, 100), "b": (100, 0, 200, 100)}
    unsure = ZoneReading({"a": [ZoneDie(3, 0.6, None, (0, 0, 1, 1))],
                          "b": [ZoneDie(4, 0.97, None, (0, 0, 1, 1))]})
    watch = ZoneWatch()
    key = (object(),)
    watch.record(image, key, boxes, None, {}, unsure)
    todo, source = watch.plan(image.copy(), key)
    assert todo == {"a", "b"}  # the first reading of each is not kept before a second one agrees
    watch.record(image, key, boxes, todo, source, unsure)
    todo, source = watch.plan(image.copy(), key)
    assert todo == {"a"} and source == {"b": 0}
    assert watch.plan(image, (object(),)) == (None, {})  # another calibration: everything


def die(value: int, confidence: float = 0.97) -> list[ZoneDie]:
    return [ZoneDie(value, confidence, "white", (0, 0, 1, 1))]


def test_a_reading_is_kept_only_once_a_second_reading_of_the_same_pixels_agrees() -> None:
    """The first reading after a change is read again on the next frame; two readings that disagree
    keep the zone read until two in a row agree. On main the first reading was kept at once, for as
    long as the zone stayed still, however the reader would have read it on the next frame."""
    empty = np.full((100, 100, 3), 128, np.uint8)
    boxes = {"a": (0, 0, 100, 100)}
    watch, key = ZoneWatch(), (object(),)
    watch.record(empty, key, boxes, None, {}, ZoneReading({"a": []}))
    placed = empty.copy()
    placed[40:60, 40:60] = 250  # a die put down
    todo, source = watch.plan(placed, key)
    assert todo == {"a"}
    watch.record(placed, key, boxes, todo, source, ZoneReading({"a": die(6)}))  # its first reading
    still = placed.copy()
    todo, source = watch.plan(still, key)
    assert todo == {"a"}  # not kept yet: read again
    watch.record(still, key, boxes, todo, source, ZoneReading({"a": die(5)}))  # the reader changed its mind
    todo, source = watch.plan(still, key)
    assert todo == {"a"}
    watch.record(still, key, boxes, todo, source, ZoneReading({"a": die(5, 0.95)}))  # agrees
    todo, source = watch.plan(still, key)
    assert todo == set() and watch.kept(source).dice["a"][0].value == 5


def test_a_zone_is_compared_with_its_own_pixels_not_its_neighbours_reads() -> None:
    """Overlapping boxes: the neighbour `b`, read on every frame (unsure), must not carry into the
    picture `a` is compared with the pixels `a` was never read from. A die slid into the overlap a
    few pixels per frame (each step under the change threshold) was never seen by `a` on main: the
    picture it was compared with followed the die through `b`'s reads, and `a` kept "empty"... here
    a sure die, kept, while a second die came in."""
    rng = np.random.default_rng(1)
    base = rng.integers(100, 140, (100, 200, 3), dtype=np.uint8)
    boxes = {"a": (0, 0, 120, 100), "b": (80, 0, 200, 100)}
    watch, key = ZoneWatch(), (object(),)
    reading = ZoneReading({"a": die(4), "b": die(2, 0.5)})  # b unsure: read on every frame
    watch.record(base, key, boxes, None, {}, reading)
    todo, source = watch.plan(base.copy(), key)
    watch.record(base, key, boxes, todo, source, reading)  # a confirmed
    image = base.copy()
    read_again = set()
    for step in range(20):  # a dark die pushed in from b's side, a pixel a frame
        x = 119 - step
        image[30:40, x:x + 20] = 10
        todo, source = watch.plan(image, key)
        read_again |= todo
        watch.record(image, key, boxes, todo, source, reading)
    assert "a" in read_again


def test_changed_zones_counts_moved_pixels_and_brightness() -> None:
    rng = np.random.default_rng(0)
    seen = rng.integers(60, 200, (120, 240, 3), dtype=np.uint8)
    boxes = {"left": (0, 0, 120, 120), "right": (120, 0, 240, 120)}
    assert changed_zones(seen.copy(), seen, boxes) == set()
    noisy = cv2.add(seen, np.full_like(seen, 3))  # sensor noise and a tiny gain: nothing changed
    assert changed_zones(noisy, seen, boxes) == set()
    die = seen.copy()
    die[50:58, 160:168] = 0  # a small die's worth of pixels
    assert changed_zones(die, seen, boxes) == {"right"}
    light = cv2.add(seen, np.full_like(seen, 10))  # the light changed: everything
    assert changed_zones(light, seen, boxes) == {"left", "right"}
