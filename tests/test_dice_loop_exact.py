"""The dice road loop's fourth round of speed-ups (issue #24) keeps every reading bit for bit: the
normalised top-face views warped over the cells' rectangles into kept buffers, parts of views written
straight into place, the watch's picture copy kept for a repeated picture, the crop reader's rivals'
views made one at a time and its new rows returned as they came. Results only, never times."""

from __future__ import annotations

import itertools

import cv2
import numpy as np
import pytest
from dice_readings import read_in_full

from referee_app.demo import bundled_demos
from referee_app.games.dice import DiceAdapter
from vision import zones
from vision.board3d import Parts, warp_part, warp_roi
from vision.learned.crops import CropReader, dihedral_stack, dihedral_view
from vision.zones_reuse import ZoneWatch, same_picture


@pytest.fixture(scope="module")
def frames() -> list[np.ndarray]:
    demo = next(d for d in bundled_demos() if d.game == "highway-dice")
    return [f.image for f in itertools.islice(demo.frames(realtime=False), 13)]


def test_tile_rects_cover_each_window_once_and_leave_the_gaps_out() -> None:
    windows = ((10, 12, 40, 30), (38, 12, 70, 30), (200, 100, 230, 140), (0, 0, 5, 5), (290, 190, 300, 200))
    rects = zones._tile_rects(windows, 200, 300, 16)
    covered = np.zeros((200, 300), np.int32)
    for x0, y0, x1, y1 in rects:
        assert 0 <= x0 < x1 <= 300 and 0 <= y0 < y1 <= 200
        covered[y0:y1, x0:x1] += 1
    assert covered.max() == 1  # disjoint
    for x0, y0, x1, y1 in windows:  # each window and the pixel round it
        assert covered[max(0, y0 - 1):y1 + 1, max(0, x0 - 1):x1 + 1].all()
    assert covered.sum() < 0.2 * 200 * 300  # not their bounding box


def test_the_cells_rects_are_kept_per_set_of_windows_for_a_new_reader(frames: list[np.ndarray]) -> None:
    one, two = DiceAdapter(), DiceAdapter()
    for a in (one, two):
        a.read(frames[0])
        a.read(frames[4])
    r1, r2 = one._reader.zones, two._reader.zones
    cells = {z.name: r1._window(z, 3.0) for z in r1.zones if not z.many}
    fewer = dict(itertools.islice(cells.items(), 5))
    assert r1._cells_rects(cells) is r2._cells_rects(cells)  # found once for every reader
    assert r1._cells_rects(fewer) != r1._cells_rects(cells)  # another set: its own
    H, W = r1.reference.shape
    wins = tuple(r1._window(z, zones.PIPS_MARGIN_MM) for z in r1.zones if z.name in fewer)
    assert r1._cells_rects(fewer) == zones._tile_rects(wins, H, W, zones.RECT_TILE)


def test_the_kept_buffers_read_as_fresh_zero_arrays_after_other_rects(frames: list[np.ndarray]) -> None:
    """A buffer written over many rectangles, then asked for fewer: the rest is zero again, as a
    fresh array would be (kept as it was, the earlier frame's pixels would stay in it)."""
    adapter = DiceAdapter()
    for f in frames[:5]:
        adapter.read(f)
    r = adapter._reader
    zr = r.zones
    from vision.board3d import face_view

    faces = face_view(frames[4], r.pose, r.sheet_mm, r.px_per_mm)
    cells = {z.name: zr._window(z, 3.0) for z in zr.zones if not z.many}
    part = zr._cells_part(cells)
    rng = np.random.default_rng(5)
    sheet = rng.normal(size=zr.reference.shape).astype(np.float32)
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    whole = [warp_roi(v, faces.to_sheet_view, faces.size, flags, borderMode=cv2.BORDER_REPLICATE)
             for v in (sheet, zr.reference)]
    every = zr._cells_rects(cells)
    few = every[:3]
    zr._faces_prep(faces, sheet, part, every)  # the buffers written over every rectangle
    got = zr._faces_prep(faces, sheet, part, few)
    mask = np.zeros(zr.reference.shape, bool)
    for rect in few:
        x0, y0, x1, y1 = zones._within(part, rect)
        mask[y0:y1, x0:x1] = True
    for g, w in zip(got, whole, strict=True):
        assert np.array_equal(g[mask], w[mask])  # the whole warp's pixels there
        assert not g[~mask].any()  # zero elsewhere, as a fresh array
    again = zr._faces_prep(faces, sheet, part, every)
    for g, w in zip(again, whole, strict=True):
        for rect in every:
            x0, y0, x1, y1 = zones._within(part, rect)
            assert np.array_equal(g[y0:y1, x0:x1], w[y0:y1, x0:x1])


def test_the_recording_reads_the_same_with_the_normalised_views_warped_over_the_whole_part(
        frames: list[np.ndarray], monkeypatch: pytest.MonkeyPatch) -> None:
    fast = read_in_full(frames, annotated=True)
    # as before: the two views warped over the cells' whole bounding part, into fresh arrays
    monkeypatch.setattr(zones.ZoneDiceReader, "_cells_rects", lambda self, cells: None)
    assert read_in_full(frames, annotated=True) == fast
    assert any(o[0] for o in fast)


def test_warp_part_into_a_slice_is_the_whole_warp_there() -> None:
    rng = np.random.default_rng(1)
    image = rng.integers(0, 256, (120, 160, 3), dtype=np.uint8)
    M = np.array([[0.9, 0.05, 3.0], [-0.04, 1.1, 2.0], [1e-4, 2e-4, 1.0]])
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    whole = cv2.warpPerspective(image, M, (150, 110), flags=flags)
    out = np.zeros_like(whole)
    dst = out[20:70, 30:100]
    assert warp_part(image, M, (30, 20, 100, 70), flags, dst=dst) is dst
    assert np.array_equal(out[20:70, 30:100], whole[20:70, 30:100]) and not out[:20].any()
    assert np.array_equal(warp_roi(image, M, (150, 110), flags, (30, 20, 100, 70)), out)


def test_parts_written_into_place_are_the_parts_returned() -> None:
    rng = np.random.default_rng(3)
    whole = rng.integers(0, 256, (100, 150), dtype=np.uint8)

    def make(r: tuple[int, int, int, int]) -> np.ndarray:
        return whole[r[1]:r[3], r[0]:r[2]].copy()

    def into(r: tuple[int, int, int, int], dst: np.ndarray) -> None:
        dst[...] = whole[r[1]:r[3], r[0]:r[2]]

    a, b = Parts(whole.shape, whole.dtype, make), Parts(whole.shape, whole.dtype, into, into=True)
    for rect in ((40, 40, 60, 60), (0, 0, 20, 90), (100, 10, 150, 100)):
        assert np.array_equal(a.part(rect), b.part(rect))
    assert np.array_equal(a.part(), whole) and np.array_equal(b.part(), whole)


def test_same_picture_tells_a_change_in_the_last_rows() -> None:
    rng = np.random.default_rng(4)
    image = rng.integers(0, 256, (720, 1280, 3), dtype=np.uint8)
    assert same_picture(image, image.copy())
    late = image.copy()
    late[-1, -1, 2] ^= 1  # the head equal, one byte at the end not
    assert not same_picture(late, image)
    early = image.copy()
    early[0, 0, 0] ^= 1
    assert not same_picture(early, image)
    assert not same_picture(image[:, :640], image) and not same_picture(image, None)


def test_the_watch_keeps_its_copy_for_the_same_picture_and_copies_any_other(frames: list[np.ndarray]) -> None:
    adapter = DiceAdapter()
    adapter.read(frames[0])
    adapter.read(frames[0])  # every zone read again: now confirmed
    watch: ZoneWatch = adapter._reader._watch
    kept = watch.last
    adapter.read(frames[0].copy())  # the very same picture: nothing read, the copy kept
    assert watch.last is kept
    assert same_picture(frames[1], frames[0])  # (the recording holds its first scene)
    frame = frames[4].copy()
    adapter.read(frame)  # another picture: copied, and not the caller's array
    assert watch.last is not kept and watch.last is not frame
    assert np.array_equal(watch.last, frames[4])
    frame[:] = 0  # the caller draws into its frame: the watch's copy is its own
    before = watch.last
    adapter.read(frames[4].copy())  # zones left to confirm are read again: a fresh copy then
    assert np.array_equal(watch.last, frames[4])
    adapter.read(frames[4].copy())
    adapter.read(frames[4].copy())
    settled = watch.last
    adapter.read(frames[4].copy())  # all confirmed, nothing read: the copy kept
    assert watch.last is settled and np.array_equal(before, frames[4])


def test_dihedral_views_one_at_a_time_are_the_stacks() -> None:
    rng = np.random.default_rng(6)
    crops = rng.integers(0, 256, (3, 8, 8, 3), dtype=np.uint8)
    stack = dihedral_stack(crops, 8)
    for i in range(8):
        assert np.array_equal(dihedral_view(crops, i), stack[i])
    assert len({dihedral_view(crops, i).tobytes() for i in range(8)}) == 8


def test_new_crops_come_back_as_the_network_ran_them_and_read_only(frames: list[np.ndarray]) -> None:
    reader = CropReader(tta=8, memo=64)
    plain = CropReader(tta=8)
    rng = np.random.default_rng(7)
    crops = rng.integers(0, 256, (3, reader.size, reader.size, 3), dtype=np.uint8)
    first = reader._run(crops)
    assert np.array_equal(first, plain._run(crops))
    with pytest.raises(ValueError):
        first[0, 0] = 1.0  # kept rows: nobody writes into them
    mixed = np.concatenate([crops[1:], rng.integers(0, 256, (1, reader.size, reader.size, 3), dtype=np.uint8)])
    assert np.array_equal(reader._run(mixed), plain._run(mixed))
    assert np.array_equal(reader._run(crops), first)
