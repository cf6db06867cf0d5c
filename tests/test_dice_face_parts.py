"""The dice road reader warps onto the top-face view only the parts its reading looks at (issue #24):
the normalised views over the cells' windows, and the frame itself round each zone read. Every
pixel looked at is the whole view's; the recording reads the same. Results only, never times."""

from __future__ import annotations

import itertools

import cv2
import numpy as np
import pytest
from dice_readings import read_in_full

from referee_app.demo import bundled_demos
from referee_app.games.dice import DiceAdapter
from vision import zones
from vision.board3d import Parts, warp_roi


@pytest.fixture(scope="module")
def frames() -> list[np.ndarray]:
    demo = next(d for d in bundled_demos() if d.game == "highway-dice")
    return [f.image for f in itertools.islice(demo.frames(realtime=False), 13)]


def test_the_normalised_top_face_views_are_warped_over_the_cells_windows_only(
        frames: list[np.ndarray], monkeypatch: pytest.MonkeyPatch) -> None:
    adapter = DiceAdapter()
    adapter.read(frames[0])
    warped: list[tuple[int, int, int, int]] = []
    real = zones.warp_part

    def spy(image: np.ndarray, M: np.ndarray, part: tuple[int, int, int, int], flags: int,
            dst: np.ndarray | None = None, **kwargs: object) -> np.ndarray:
        if image.dtype == np.float32:  # the normalised views (the frame's parts are uint8)
            warped.append(part)
        return real(image, M, part, flags, dst=dst, **kwargs)

    monkeypatch.setattr(zones, "warp_part", spy)
    adapter.read(frames[4])  # a new scene: every zone read
    r = adapter._reader.zones
    cells = {z.name: r._window(z, 3.0) for z in r.zones if not z.many}
    part = r._cells_part(cells)
    rects = [zones._within(part, rect) for rect in r._cells_rects(cells)]
    assert warped == rects + rects  # the frame and the empty sheet, each over the cells' rectangles
    x0, y0, x1, y1 = part
    h, w = r.reference.shape
    assert (x1 - x0) * (y1 - y0) < 0.8 * w * h  # the tray's and pools' margins left out
    covered = np.zeros((h, w), np.int32)
    for a0, b0, a1, b1 in rects:
        assert x0 <= a0 < a1 <= x1 and y0 <= b0 < b1 <= y1
        covered[b0:b1, a0:a1] += 1
    assert covered.max() == 1  # no pixel warped twice
    assert covered.sum() < 0.6 * (x1 - x0) * (y1 - y0)  # the paths and gaps between cells left out
    for z in r.zones:
        if not z.many:
            a0, b0, a1, b1 = r._window(z, zones.PIPS_MARGIN_MM)
            assert x0 < a0 and y0 < b0 and a1 < x1 and b1 < y1  # with the pixel _changed_in reads
            assert covered[b0 - 1:b1 + 1, a0 - 1:a1 + 1].all()


def test_the_cells_part_of_a_warp_is_the_whole_warps_pixels(frames: list[np.ndarray]) -> None:
    adapter = DiceAdapter()
    for f in frames[:5]:
        adapter.read(f)
    r = adapter._reader
    from vision.board3d import face_view

    faces = face_view(frames[4], r.pose, r.sheet_mm, r.px_per_mm)
    cells = {z.name: r.zones._window(z, 3.0) for z in r.zones.zones if not z.many}
    part = r.zones._cells_part(cells)
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    whole = warp_roi(r.zones.reference, faces.to_sheet_view, faces.size, flags, borderMode=cv2.BORDER_REPLICATE)
    got = r.zones._faces_prep(faces, np.zeros_like(r.zones.reference), part)[1]
    x0, y0, x1, y1 = part
    assert np.array_equal(got[y0:y1, x0:x1], whole[y0:y1, x0:x1])
    assert not got[:y0].any() and not got[y1:].any()
    assert zones._within(None, part) == part and zones._within(part, None) == part
    assert zones._within((0, 0, 10, 10), (20, 20, 30, 30)) == (20, 20, 20, 20)  # nothing in common
    assert not warp_roi(r.zones.reference, faces.to_sheet_view, faces.size, flags, (20, 20, 20, 20)).any()


def test_parts_are_made_where_asked_once_and_as_the_whole_view() -> None:
    rng = np.random.default_rng(2)
    whole = rng.integers(0, 256, (100, 150, 3), dtype=np.uint8)
    made: list[tuple[int, int, int, int]] = []

    def make(r: tuple[int, int, int, int]) -> np.ndarray:
        made.append(r)
        return whole[r[1]:r[3], r[0]:r[2]].copy()

    view = Parts(whole.shape, whole.dtype, make, bounds=(5, 0, 140, 100))
    got = view.part((40, 40, 60, 60))
    assert made == [(32, 32, 64, 64)]  # the tiles it touches
    assert np.array_equal(got[32:64, 32:64], whole[32:64, 32:64]) and not got[:32].any()
    view.part((45, 45, 50, 50))
    assert len(made) == 1  # made already
    view.part((0, 0, 150, 100))
    assert made[-1] == (5, 0, 140, 100)  # the rest, within the bounds only
    assert np.array_equal(got[:, 5:140], whole[:, 5:140]) and not got[:, :5].any() and not got[:, 140:].any()


def test_the_grey_of_a_face_view_follows_the_parts_made_later(frames: list[np.ndarray]) -> None:
    """A grey view converted once and kept would miss what is warped after it: each part asked for
    is converted from the colour pixels made for it."""
    adapter = DiceAdapter()
    for f in frames[:5]:
        adapter.read(f)
    r = adapter._reader
    from vision.board3d import face_view

    whole = face_view(frames[4], r.pose, r.sheet_mm, r.px_per_mm)
    lazy = face_view(frames[4], r.pose, r.sheet_mm, r.px_per_mm, lazy=True)
    grey = cv2.cvtColor(whole.image, cv2.COLOR_BGR2GRAY)
    first, later = (100, 120, 300, 260), (700, 400, 900, 600)
    for x0, y0, x1, y1 in (first, later):
        part = lazy.grey((x0, y0, x1, y1))
        assert np.array_equal(part[y0:y1, x0:x1], grey[y0:y1, x0:x1])
        assert np.array_equal(lazy.part((x0, y0, x1, y1))[y0:y1, x0:x1], whole.image[y0:y1, x0:x1])
    assert lazy.holds(lazy.part(first)) and not lazy.holds(whole.image)
    assert np.array_equal(lazy.image, whole.image)  # made whole: the rest warped too
    assert lazy.holds(lazy.image)


def test_the_recording_reads_the_same_with_the_top_face_view_warped_whole(
        frames: list[np.ndarray], monkeypatch: pytest.MonkeyPatch) -> None:
    parts = read_in_full(frames)
    # every zone's reach the whole view: each view warped, converted and masked whole, as before
    monkeypatch.setattr(zones.ZoneDiceReader, "_reach_mm", lambda self: 10_000.0)
    assert read_in_full(frames) == parts
    assert any(o[0] for o in parts)
