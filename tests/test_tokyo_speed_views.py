"""A Tokyo view's reading with less work and the same values (issue #24, second round): connected
components labelled by Grana's algorithm (vision.tokyo.labels), a reader that stops at a hand not
outlining the hand's region, an object's region grown on its box, the image's gradients worked out
once a view, and the still test's one difference of two pictures."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from test_tokyo_reuse import DEMO, noisy, picture

from referee_app.games.tokyo import load_calibration
from referee_app.games.tokyo_reuse import StillViews
from vision.tiles.reuse import image_changed
from vision.tokyo.foreground import BRIGHT, pieces_masks
from vision.tokyo.labels import components
from vision.tokyo.large_objects import (
    BLUR_GAIN,
    DEPTH_WIDTHS,
    TABLE_CHROMA,
    WIDE_WIDTHS,
    _chroma_gap,
    _rod_half_width_at,
    large_objects,
)
from vision.tokyo.observation import TokyoObservation
from vision.tokyo.sticks import _ridge, rod_half_width

HANDS = ("001.jpg", "003.jpg", "camera2/005.jpg")  # a hand over the table, building


@pytest.fixture(scope="module")
def calib():
    return load_calibration(DEMO / "calibration.json")[0]


def _mask(name: str) -> np.ndarray:
    (fg,), _ = pieces_masks(picture(name), (BRIGHT,))
    return fg


def test_components_label_count_and_measure_as_the_default_labelling():
    rng = np.random.default_rng(3)
    masks = [_mask("004.jpg"), _mask("001.jpg"), np.zeros((40, 60), np.uint8)]
    masks += [(rng.random((90, 130)) < p).astype(np.uint8) * 255 for p in (0.05, 0.3, 0.6)]
    for mask in masks:
        want = cv2.connectedComponentsWithStats(mask)
        got = components(mask)
        assert got[0] == want[0]
        for a, b in zip(got[1:], want[1:], strict=True):
            assert a.dtype == b.dtype and np.array_equal(a, b)


def _large_objects_reference(obs, fg, image, table, calibration, found):
    """large_objects as it was: each object's region dilated and widened over the whole frame."""
    dist, ridge = _ridge(fg, None)
    hw = rod_half_width(dist, ridge)
    cut = np.zeros(fg.shape, np.uint8)
    deep = dist > DEPTH_WIDTHS * hw
    if not deep.any():
        return cut
    n, lab, stats, centres = cv2.connectedComponentsWithStats(deep.astype(np.uint8))
    for i in range(1, n):
        x, y, w, h, _ = stats[i]
        box = (slice(y, y + h), slice(x, x + w))
        inner = lab[box] == i
        ref = max(hw, BLUR_GAIN * _rod_half_width_at(calibration, centres[i]))
        if float(dist[box][inner].max()) <= DEPTH_WIDTHS * ref:
            continue
        if float(_chroma_gap(image[box][inner], table[box][inner]).mean()) < TABLE_CHROMA:
            continue
        part = np.zeros(lab.shape, bool)
        part[box] = inner
        region = cv2.dilate(part.astype(np.uint8), np.ones((3, 3), np.uint8), iterations=int(4 * ref))
        wide = (dist > WIDE_WIDTHS * ref).astype(np.uint8)
        _, wl = cv2.connectedComponents(wide)
        touching = np.unique(wl[(region > 0) & (wide > 0)])
        touching = touching[touching > 0]
        if len(touching):
            k = int(2 * ref) | 1
            grown = np.isin(wl, touching).astype(np.uint8)
            region |= cv2.dilate(grown, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * k + 1, 2 * k + 1)))
        obs.warnings.append(f"near ({x + w / 2:.0f}, {y + h / 2:.0f})")
        fg[region > 0] = 0
        cut |= region
        found.append((region, image[part].mean(0)))
    return cut * 255


@pytest.mark.parametrize("name", HANDS)
def test_a_hand_is_found_and_outlined_as_on_the_whole_frame_or_only_warned_of(calib, name):
    image = picture(name)
    camera = calib if "camera2" not in name else load_calibration(DEMO / "calibration2.json")[0]
    (fg,), table = pieces_masks(image, (BRIGHT,))
    ref_obs, ref_fg, ref_found = TokyoObservation(), fg.copy(), []
    ref_cut = _large_objects_reference(ref_obs, ref_fg, image, table, camera, ref_found)
    assert ref_found, "the picture shows a hand"
    obs, got_fg, found = TokyoObservation(), fg.copy(), []
    cut = large_objects(obs, got_fg, image, table, camera, found)
    assert np.array_equal(cut, ref_cut) and np.array_equal(got_fg, ref_fg)
    assert [w.split(" px")[0].split("object ")[1] for w in obs.warnings] == ref_obs.warnings
    assert len(found) == len(ref_found)
    for ob, (region, bgr) in zip(found, ref_found, strict=True):
        assert np.array_equal(ob.region, region) and np.array_equal(ob.bgr, bgr)
    # warned of only: the same warnings and colours, no region, the mask untouched
    quick_obs, quick_fg, quick = TokyoObservation(), fg.copy(), []
    none = large_objects(quick_obs, quick_fg, image, table, camera, quick, outline=False)
    assert quick_obs.warnings == obs.warnings and not none.any() and np.array_equal(quick_fg, fg)
    assert [ob.region for ob in quick] == [None] * len(found)
    assert all(np.array_equal(a.bgr, b.bgr) for a, b in zip(quick, found, strict=True))


@pytest.fixture
def sobels(monkeypatch) -> list[int]:
    calls: list[int] = []
    sobel = cv2.Sobel

    def counted(*args, **kw):
        calls.append(1)
        return sobel(*args, **kw)

    monkeypatch.setattr(cv2, "Sobel", counted)
    return calls


def test_a_view_works_out_its_gradients_once(calib, sobels):
    from vision.tokyo import read_tokyo

    reading = read_tokyo(picture("006.jpg"), calib)
    assert reading.sticks and reading.crossings is not None
    assert len(sobels) == 2  # x and y, once: both stick passes and the crossings read them
    sobels.clear()
    read_tokyo(picture("001.jpg"), calib, stop_at_hand=True)  # stopped at the hand: no stick read
    assert not sobels


def test_the_still_test_takes_one_difference_of_the_two_pictures(monkeypatch):
    a = picture("002.jpg")
    still = StillViews(lambda im: str(int(im.sum())))
    still.settle(1, a)
    diffs: list[int] = []
    absdiff = cv2.absdiff

    def counted(*args, **kw):
        diffs.append(1)
        return absdiff(*args, **kw)

    monkeypatch.setattr(cv2, "absdiff", counted)
    kept, _, same = still.settle(1, noisy(a, 2))
    assert kept is not None and np.array_equal(kept, a) and not same and len(diffs) == 1
    changed = picture("004.jpg")
    assert image_changed(changed, a, diff=cv2.absdiff(changed, a)) == image_changed(changed, a) is True


def test_whole_pixel_shifts_gather_the_plain_sums_pixels():
    from vision.tokyo.piece_evidence import _mean_at, _mean_shifted

    rng = np.random.default_rng(5)
    for trial in range(60):
        h, w = (int(v) for v in rng.integers(20, 120, 2))
        ev = cv2.blur((rng.random((h, w)) < 0.3).astype(np.float32), (3, 3))
        n = int(rng.integers(1, 300))
        rot = np.stack([rng.uniform(-40, w + 40, n), rng.uniform(-40, h + 40, n)], 1)  # some off the map
        if trial % 3 == 0:
            rot[: n // 2] = np.round(rot[: n // 2]) + 0.5  # halves: the plain sums are taken
        reach = int(rng.integers(0, 25))
        shifts = rng.integers(-reach, reach + 1, (int(rng.integers(1, 40)), 2)).astype(np.float32)
        want = _mean_at(ev, rot[None, :, 0] + shifts[:, 0, None], rot[None, :, 1] + shifts[:, 1, None])
        got = _mean_shifted(ev, rot, shifts, {})
        assert got.dtype == want.dtype and np.array_equal(got, want)
