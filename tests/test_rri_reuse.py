"""The Railroad Ink adapter's reuse of the last frame's reading: unchanged squares and an unchanged
tray keep theirs, what changed is read again, and a moved table or changed light reads everything
again. Plus the exactness of the sheet reader's fast wide opening."""

from __future__ import annotations

import dataclasses
from functools import cache

import cv2
import numpy as np

from datasets.demo_railroad_ink import TableCamera, TableScene
from engine.railroad_ink import cell_name
from referee_app.games.railroad_ink import RailroadInkAdapter
from vision.sheets.reader import _open_wide

FACES = ["highway_straight", "railway_curve", "railway_t", "station_straight"]
FIRST = {1: ("H--H", False, 1)}
SECOND = {**FIRST, 30: ("-R-R", False, 1)}


@cache
def shot(seed: int, squares: tuple = tuple(FIRST.items()), tray: tuple = tuple(FACES)) -> np.ndarray:
    image = TableCamera(seed=seed).shot(TableScene(dict(squares), list(tray)), 5)
    image.flags.writeable = False
    return image


def read_twice(first: np.ndarray, second: np.ndarray):
    adapter = RailroadInkAdapter()
    a = adapter.read(first)
    b = adapter.read(second)
    fresh = RailroadInkAdapter(reuse=False).read(second)
    return a, b, fresh


def test_a_new_drawing_is_read_and_the_rest_kept() -> None:
    a, b, fresh = read_twice(shot(21), shot(21, tuple(SECOND.items())))
    assert cell_name(30) not in a.items and b.items[cell_name(30)] == "-R-R"
    assert b.items == fresh.items and b.blocked == fresh.blocked
    far = cell_name(48)  # the opposite corner of the sheet: not read again
    assert b.reading.squares[far] is a.reading.squares[far]
    assert b.reading.squares[cell_name(30)] is not a.reading.squares[cell_name(30)]
    assert all(x is y for x, y in zip(b.reading.dice, a.reading.dice, strict=True))  # tray untouched


def test_a_new_roll_is_read_and_the_sheet_kept() -> None:
    roll = ("railway_straight", "highway_curve", "highway_t", "overpass")
    a, b, fresh = read_twice(shot(21), shot(21, tray=roll))
    assert b.items == fresh.items and b.items["tray"] == tuple(sorted(roll))
    assert all(b.reading.squares[k] is a.reading.squares[k] for k in a.reading.squares)


def test_a_moved_table_or_new_light_reads_everything_again() -> None:
    a, b, fresh = read_twice(shot(21), shot(22, tuple(SECOND.items())))  # another camera pose
    assert b.items == fresh.items and b.items[cell_name(30)] == "-R-R"
    assert b.reading.sheet_calibration is not a.reading.sheet_calibration
    dim = (shot(21) * 0.8).astype(np.uint8)
    a, b, fresh = read_twice(shot(21), dim)
    assert b.items == fresh.items
    assert not any(b.reading.squares[k] is a.reading.squares[k] for k in a.reading.squares)


def test_the_fast_wide_opening_is_the_opening() -> None:
    rng = np.random.default_rng(3)
    for size in (41, 25, 15):
        disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
        for trial in range(6):
            mask = (rng.random((160, 200)) < 0.2).astype(np.uint8)  # strokes: nothing that wide
            if trial % 2:
                cv2.circle(mask, (int(rng.integers(0, 200)), int(rng.integers(0, 160))), size // 2 + 3, 1, -1)
            want = cv2.morphologyEx(mask, cv2.MORPH_OPEN, disc)
            assert np.array_equal(_open_wide(mask, size), want)


def test_squares_read_on_a_crop_read_as_on_the_whole_view() -> None:
    from referee_app.demo import bundled_demos
    from referee_app.games.railroad_ink import read_table
    from vision.sheets.reader import SheetReading, read_squares_in_view, square_windows

    demo = next(d for d in bundled_demos() if d.game == "railroad-ink")
    image = cv2.imread(str(demo.folder / demo.manifest["frames"][-1]["file"]))  # a full sheet
    reading, _ = read_table(image)
    view = reading.sheet_seen.view
    whole = read_squares_in_view(view)
    for name in ("a1", "d4", "g6", "c7"):  # corner, middle, edges: crops clipped differently
        x0, y0, x1, y1 = square_windows(view, 0)[name]
        before = view.image.copy()
        before[y0 + 10 : y1 - 10, x0 + 10 : x1 - 10] = 250  # the square was blank a frame ago
        marked = {k: dataclasses.replace(v, confidence=-1.0) for k, v in whole.items()}
        part = read_squares_in_view(view, SheetReading(marked, dataclasses.replace(view, image=before)))
        again = [k for k in part if part[k].confidence != -1.0]
        assert name in again and len(again) < len(whole)
        assert all(part[k] == whole[k] for k in again)


def test_the_same_picture_gets_the_last_answer_and_one_changed_pixel_does_not(monkeypatch) -> None:
    import referee_app.games.railroad_ink as rri

    reads = []
    real = rri.read_table
    monkeypatch.setattr(rri, "read_table", lambda image, previous=None: reads.append(1) or real(image, previous))
    adapter = RailroadInkAdapter()
    first = shot(21)
    a = adapter.read(first)
    b = adapter.read(first.copy())
    assert len(reads) == 1 and b.items == a.items and b.confidence == a.confidence and b is not a
    b.items.clear()  # each frame's observation is its own: the loop and the decoder may change it
    assert adapter.read(first).items == a.items
    touched = first.copy()
    touched[0, 0, 0] ^= 1  # not the same picture: read (its squares then keep their readings)
    adapter.read(touched)
    assert len(reads) == 2
    second = shot(21, tuple(SECOND.items()))
    c = adapter.read(second)
    assert len(reads) == 3 and c.items == RailroadInkAdapter(reuse=False).read(second).items != a.items


def _searches(monkeypatch) -> list[int]:
    import vision.localise as localise

    calls: list[int] = []
    real = localise.detect_markers
    monkeypatch.setattr(localise, "detect_markers", lambda image: calls.append(1) or real(image))
    return calls


def _shifted(image: np.ndarray, dx: float, dy: float) -> np.ndarray:
    m = np.float32([[1, 0, dx], [0, 1, dy]])
    return cv2.warpAffine(image, m, image.shape[1::-1], flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def test_a_blurrier_or_sharper_frame_is_no_reason_to_search_the_markers(monkeypatch) -> None:
    """A still table seen out of focus (then in focus again) keeps both calibrations without a
    marker search, and reads as a fresh adapter reads that frame."""
    searches = _searches(monkeypatch)
    adapter = RailroadInkAdapter()
    sharp = shot(21, tuple(SECOND.items()))
    adapter.read(sharp)
    assert len(searches) == 1
    for frame in (cv2.GaussianBlur(sharp, (0, 0), 1.0), sharp.copy()):
        frame[0, 0, 0] ^= 1  # never the very same picture
        seen = adapter.read(frame)
        assert len(searches) == 1
        fresh = RailroadInkAdapter(reuse=False).read(frame)  # (searches, as a first frame does)
        del searches[1:]
        assert seen.items == fresh.items


def test_a_table_moved_by_a_pixel_is_searched_again(monkeypatch) -> None:
    """The kept calibrations are not used once the sheet and tray moved: the markers are searched
    and the frame reads as a fresh adapter reads it."""
    searches = _searches(monkeypatch)
    adapter = RailroadInkAdapter()
    first = shot(21, tuple(SECOND.items()))
    adapter.read(first)
    for dx, dy in ((1.0, 0.0), (1.0, 1.5)):
        moved = _shifted(first, dx, dy)
        before = len(searches)
        seen = adapter.read(moved)
        assert len(searches) == before + 1
        assert seen.items == RailroadInkAdapter(reuse=False).read(moved).items


def test_markers_still_up_to_blur_but_not_a_move() -> None:
    from referee_app.games.railroad_ink import read_table
    from vision.tiles.reuse import MARKER_BLUR_PX, STEADY_PX, markers_still

    first = shot(21)
    patches = read_table(first)[0].markers_seen
    assert markers_still(cv2.GaussianBlur(first, (0, 0), 1.2), patches, blur_px=MARKER_BLUR_PX)
    assert not markers_still(cv2.GaussianBlur(first, (0, 0), 1.2), patches)  # the plain rule searches
    for angle in (0, 30, 45, 90):
        dx, dy = STEADY_PX * np.cos(np.radians(angle)), STEADY_PX * np.sin(np.radians(angle))
        assert not markers_still(_shifted(first, dx, dy), patches, blur_px=MARKER_BLUR_PX)
