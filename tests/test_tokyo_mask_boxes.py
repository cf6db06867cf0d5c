"""Mask work on the box of the set pixels (issue #24, fifth round): `distance_l2` and the rods' ridge
(vision/tokyo/pixels.py, sticks.py) give the whole frame's values bit for bit, on random masks and on
the piece masks of the bundled recording. OpenCV hands the 5x5 transform to IPP, whose float sums
depend on a pixel's column modulo its SIMD width: the box's columns are aligned for that (a box cut
at any column differs in the last bit, which the first test shows)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from referee_app.demo import DEMO_ROOT
from vision.tokyo.foreground import BRIGHT, pieces_masks
from vision.tokyo.pixels import DIST_MARGIN, distance_l2, mask_box
from vision.tokyo.reader import STICK_BRIGHT
from vision.tokyo.sticks import _ridge_boxed, rod_half_width

DEMO = DEMO_ROOT / "tokyo-highway"


def _full_ridge(fg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ridge as it was computed on the whole frame."""
    dist = cv2.distanceTransform(fg, cv2.DIST_L2, 5)
    peak = cv2.dilate(dist, np.ones((3, 3), np.uint8))
    return dist, ((dist >= peak - 0.35) & (dist >= 1.5)).astype(np.uint8)


def _masks(count: int, seed: int = 1) -> list[np.ndarray]:
    """Discs, bars and specks on frames whose widths are multiples of 64 (as 720p's and 1080p's are)
    and on some that are not; some touch the frame's edges."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(count):
        h = int(rng.integers(20, 300))
        w = int(rng.integers(2, 20)) * 64 + (int(rng.integers(1, 64)) if k % 4 == 3 else 0)
        m = np.zeros((h, w), np.uint8)
        for _ in range(int(rng.integers(1, 6))):
            x, y = int(rng.integers(0, w)), int(rng.integers(0, h))
            cv2.circle(m, (x, y), int(rng.integers(1, 60)), 255, -1)
            cv2.line(m, (x, y), (int(rng.integers(0, w)), int(rng.integers(0, h))), 255, int(rng.integers(3, 15)))
        if k % 3 == 0:
            m |= (rng.random((h, w)) < 0.02).astype(np.uint8) * 255
        out.append(m)
    return out


def _recorded_masks() -> list[np.ndarray]:
    out = []
    for name in ("003.jpg", "011.jpg", "021.jpg", "028.jpg", "camera2/021.jpg"):
        image = cv2.imread(str(DEMO / name), cv2.IMREAD_COLOR)
        masks, _ = pieces_masks(image, (BRIGHT, STICK_BRIGHT))
        out += masks
    return out


def test_a_box_cut_at_any_column_can_differ_from_the_whole_frame() -> None:
    """Why the box's columns are aligned: cut at the set pixels' own columns, some transforms differ
    from the whole frame's (in the last bit); if none did, the alignment would be dead weight."""
    differ = 0
    for m in _masks(150):
        box = mask_box(m, DIST_MARGIN)
        if box is None:
            continue
        out = np.zeros(m.shape, np.float32)
        out[box] = cv2.distanceTransform(m[box], cv2.DIST_L2, 5)
        differ += not np.array_equal(out, cv2.distanceTransform(m, cv2.DIST_L2, 5))
    if differ == 0:
        pytest.skip("this OpenCV build's transform does not depend on the column (no IPP)")
    assert differ > 0


@pytest.mark.parametrize("source", ["random", "recorded"])
def test_distance_and_ridge_on_the_box_equal_the_whole_frame(source: str) -> None:
    masks = _masks(300) if source == "random" else _recorded_masks()
    for m in masks:
        want = cv2.distanceTransform(m, cv2.DIST_L2, 5)
        got = distance_l2(m)
        assert got.dtype == want.dtype and np.array_equal(got, want)
        dist, ridge = _full_ridge(m)
        d2, r2, box = _ridge_boxed(m)
        assert np.array_equal(d2, dist) and np.array_equal(r2, ridge)
        assert rod_half_width(d2, r2, box) == rod_half_width(dist, ridge)
        d3, r3, _ = _ridge_boxed(m, want)  # with the caller's transform
        assert np.array_equal(r3, ridge)


def test_empty_and_full_masks() -> None:
    empty = np.zeros((72, 128), np.uint8)
    assert mask_box(empty) is None
    assert np.array_equal(distance_l2(empty), cv2.distanceTransform(empty, cv2.DIST_L2, 5))
    _, ridge, box = _ridge_boxed(empty)
    assert box is None and not ridge.any()
    full = np.full((72, 128), 255, np.uint8)
    assert mask_box(full) == (slice(0, 72), slice(0, 128))
    assert np.array_equal(distance_l2(full), cv2.distanceTransform(full, cv2.DIST_L2, 5))


def test_mask_box_grows_and_aligns_within_the_frame() -> None:
    m = np.zeros((50, 300), np.uint8)
    m[10:20, 70:90] = 1
    assert mask_box(m) == (slice(10, 20), slice(70, 90))
    assert mask_box(m, 2) == (slice(8, 22), slice(68, 92))
    assert mask_box(m, 2, 64) == (slice(8, 22), slice(64, 128))
    m[45:50, 290:300] = 1
    assert mask_box(m, 2, 64) == (slice(8, 50), slice(64, 300))  # the frame's edge, not 320


def _sticks_of(name: str):
    from vision.tokyo.sticks import detect_sticks

    image = cv2.imread(str(DEMO / name), cv2.IMREAD_COLOR)
    (_, rods), _ = pieces_masks(image, (BRIGHT, STICK_BRIGHT))
    raw, hw = detect_sticks(image, rods)
    return [(s.p0.tolist(), s.p1.tolist(), s.half_width, s.support) for s in raw], hw


@pytest.mark.parametrize("name", ["011.jpg", "021.jpg", "028.jpg", "camera2/028.jpg"])
def test_sticks_from_the_cut_hough_transform_equal_the_whole_frames(name: str, monkeypatch) -> None:
    """The stick pass votes on its core cut at the core's right and bottom edge; voting on the whole
    frame (the cut padded back with zeros) finds the same sticks, to the last bit."""
    got = _sticks_of(name)
    real = cv2.HoughLines
    cuts: list[tuple[int, int]] = []

    def whole(image: np.ndarray, *args, **kwargs):
        cuts.append(image.shape)
        padded = np.zeros((720, 1280), np.uint8)
        padded[: image.shape[0], : image.shape[1]] = image
        return real(padded, *args, **kwargs)

    monkeypatch.setattr(cv2, "HoughLines", whole)
    want = _sticks_of(name)
    assert got == want and got[0]
    assert all(c != (720, 1280) for c in cuts)  # the pass did cut

