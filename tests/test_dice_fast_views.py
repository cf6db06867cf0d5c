"""The dice road reader's cheaper views (issue #24): `_prep`'s region statistics on ~2 mm blocks, a grey
sheet view, the top-face view's normalised frame warped from the sheet view's, and ZoneWatch's
shortcut for the very same picture. Results only, never times."""

from __future__ import annotations

import itertools

import cv2
import numpy as np
import pytest

from referee_app.demo import bundled_demos
from referee_app.games.dice import DiceAdapter
from vision import zones, zones_reuse
from vision.board3d import warp_roi
from vision.zones_reuse import ZoneWatch


@pytest.fixture(scope="module")
def frames() -> list[np.ndarray]:
    demo = next(d for d in bundled_demos() if d.game == "highway-dice")
    return [f.image for f in itertools.islice(demo.frames(realtime=False), 13)]


def view(seed: int = 3, shape: tuple[int, int] = (150, 230)) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return cv2.GaussianBlur(rng.integers(0, 256, (*shape, 3), dtype=np.uint8), (0, 0), 2.0)


def block_formula(bgr: np.ndarray, px: float) -> np.ndarray:
    """`_prep` written out in float64 NumPy: block means, a box over k blocks (reflected borders),
    bilinear back to the pixels (OpenCV's pixel-centre convention, edges held)."""
    g = cv2.GaussianBlur(cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), 0.4 * px)
    f = max(1, round(2.0 * px))
    k = 2 * round(10.0 * px / f) + 1
    h, w = g.shape
    sh, sw = -(-h // f), -(-w // f)
    gp = np.pad(g.astype(np.float64), ((0, sh * f - h), (0, sw * f - w)), mode="reflect")

    def box(a: np.ndarray) -> np.ndarray:
        r = k // 2
        c = np.pad(a, r, mode="reflect").cumsum(0).cumsum(1)
        c = np.pad(c, ((1, 0), (1, 0)))
        return (c[k:, k:] - c[:-k, k:] - c[k:, :-k] + c[:-k, :-k]) / (k * k)

    mean = box(gp.reshape(sh, f, sw, f).mean(axis=(1, 3)))
    sq = box((gp * gp).reshape(sh, f, sw, f).mean(axis=(1, 3)))
    sd = np.maximum(np.sqrt(np.maximum(sq - mean * mean, 1.0)), 12.0)

    def up(a: np.ndarray, n: int, size: int, axis: int) -> np.ndarray:
        src = (np.arange(size) + 0.5) / f - 0.5
        i0 = np.floor(src).astype(int)
        t = src - i0
        t[i0 < 0], i0[i0 < 0] = 0.0, 0
        t[i0 >= n - 1], i0[i0 >= n - 1] = 0.0, n - 1
        i1 = np.minimum(i0 + 1, n - 1)
        shape = [1, 1]
        shape[axis] = size
        t = t.reshape(shape)
        return np.take(a, i0, axis=axis) * (1 - t) + np.take(a, i1, axis=axis) * t

    def full(a: np.ndarray) -> np.ndarray:
        return up(up(a, sh, sh * f, 0), sw, sw * f, 1)[:h, :w]

    return (g - full(mean)) / full(sd)


@pytest.mark.parametrize("px", [2.0, 3.0, 2.5])
def test_prep_normalises_over_blocks_as_the_formula_says(px: float) -> None:
    bgr = view(shape=(151, 233))  # not a whole number of blocks: the last ones filled by reflection
    got = zones._prep(bgr, px)
    assert got.dtype == np.float32 and got.shape == bgr.shape[:2]
    assert np.abs(got - block_formula(bgr, px)).max() < 1e-3


def test_prep_of_the_grey_view_is_that_of_the_colour_view() -> None:
    bgr = view()
    for px in (2.0, 3.0):
        assert np.array_equal(zones._prep(cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY), px), zones._prep(bgr, px))


def test_a_part_prepared_is_the_whole_view_inside_its_pad() -> None:
    bgr = view(5, (420, 600))
    for px in (2.0, 3.0):
        whole = zones._prep(bgr, px)
        roi = (61, 47, 533, 391)  # off the block grid
        part = zones._prep_roi(bgr, px, roi)
        pad = int(np.ceil(zones.ROI_PAD_MM * px))
        x0, y0, x1, y1 = roi
        inner = (slice(y0 + pad, y1 - pad), slice(x0 + pad, x1 - pad))
        assert np.allclose(part[inner], whole[inner], rtol=0, atol=1e-5)


def test_the_top_face_views_frame_is_the_sheet_views_warped_as_the_empty_sheet_is(
        frames: list[np.ndarray]) -> None:
    adapter = DiceAdapter()
    for f in frames[:5]:
        adapter.read(f)
    r = adapter._reader
    from vision.board3d import face_view

    calib = r.localiser.calibration
    image = frames[4]
    top = r._top_view(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), calib, None)
    assert top.ndim == 2  # the sheet view in grey
    faces = face_view(image, r.pose, r.sheet_mm, r.px_per_mm)
    obs = zones._prep(top, r.px_per_mm)
    got_obs, got_ref = r.zones._faces_prep(faces, obs)
    h, w = faces.image.shape[:2]
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    for got, sheet in ((got_obs, obs), (got_ref, r.zones.reference)):
        want = cv2.warpPerspective(sheet, faces.to_sheet_view, (w, h), flags=flags,
                                   borderMode=cv2.BORDER_REPLICATE)
        assert np.array_equal(got, want)
    # and on the part of the views a partial read warps, the same pixels
    roi = (200, 100, 700, 500)
    part = r.zones._faces_prep(faces, obs, roi)[0]
    x0, y0, x1, y1 = roi
    assert np.array_equal(part[y0:y1, x0:x1], got_obs[y0:y1, x0:x1])
    assert np.array_equal(warp_roi(obs, faces.to_sheet_view, (w, h), flags, roi,
                                   borderMode=cv2.BORDER_REPLICATE), part)


def test_same_picture_is_byte_for_byte() -> None:
    same_picture = zones_reuse.same_picture
    a = view()
    assert same_picture(a, a.copy())
    b = a.copy()
    b[-1, -1, -1] ^= 1
    assert not same_picture(a, b) and not same_picture(a, None) and not same_picture(a, a[:-1])


def test_the_very_same_picture_again_compares_no_box_and_plans_as_the_comparisons_do(
        frames: list[np.ndarray], monkeypatch: pytest.MonkeyPatch) -> None:
    adapter = DiceAdapter()
    for f in frames[:6]:
        adapter.read(f)
    watch = adapter._reader._watch
    key = watch.key
    calls: list[str] = []  # the boxes compared
    real = zones_reuse.boxes_changed
    monkeypatch.setattr(zones_reuse, "boxes_changed", lambda a, b, boxes: calls.extend(boxes) or real(a, b, boxes))
    fast = watch.plan(frames[5].copy(), key)  # the last frame read, as a fresh array
    assert calls == []
    monkeypatch.setattr(zones_reuse, "same_picture", lambda a, b: False)
    slow = watch.plan(frames[5], key)
    assert len(calls) == len(watch.boxes)
    assert fast == slow


def test_the_same_picture_through_another_calibration_reads_every_zone(frames: list[np.ndarray]) -> None:
    """The shortcut holds only under the key the picture was recorded with: after the board moved (a
    new calibration, zone reader or resolution) the very same picture is planned as a fresh one."""
    adapter = DiceAdapter()
    for f in frames[:3]:
        adapter.read(f)
    watch = adapter._reader._watch
    assert watch.last is not None
    moved = (object(), *watch.key[1:])  # another calibration object
    assert watch.plan(frames[2], moved) == (None, {})
    assert watch.plan(frames[2], watch.key)[0] is not None  # under its own key: planned
    watch.forget()
    assert watch.last is None and watch.plan(frames[2], moved) == (None, {})


def test_a_watch_that_never_recorded_takes_no_shortcut() -> None:
    watch = ZoneWatch()
    a = view()
    assert watch.plan(a, ("k",)) == (None, {})


def test_the_recording_reads_the_same_with_and_without_the_same_picture_shortcut(
        frames: list[np.ndarray], monkeypatch: pytest.MonkeyPatch) -> None:
    def run() -> list[tuple]:
        adapter = DiceAdapter()
        adapter.read(frames[0])
        return [(o.items, o.confidence, o.blocked, o.beliefs) for o in map(adapter.read, frames)]

    fast = run()
    monkeypatch.setattr(zones_reuse, "same_picture", lambda a, b: False)
    assert run() == fast
    assert any(items for items, *_ in fast)


def test_a_frame_drawn_into_after_it_was_recorded_is_not_the_same_picture() -> None:
    """The watch keeps its own copy of the last picture: a caller that draws into its frame (or a
    camera that refills one buffer) must not make a changed picture look like the one recorded."""
    image = np.full((100, 100, 3), 128, np.uint8)
    boxes = {"a": (0, 0, 100, 100)}
    watch, key = ZoneWatch(), (object(),)
    from vision.zones import ZoneReading

    watch.record(image, key, boxes, None, {}, ZoneReading({"a": []}))
    image[40:60, 40:60] = 250  # the same array, a die drawn in
    assert watch.plan(image, key)[0] == {"a"}
