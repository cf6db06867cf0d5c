"""Less work per view, the same values (issue #24, fifth round): the rods' width floor back-projects
its samples in one stacked call (`ray_to_plane_each`), the junction test converts only its sampled
pixels to HSV, and the blobs are opened and labelled on the box of the mask (`find_blobs`). Each is
checked against the whole computation on the bundled recording's frames, bit for bit."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import vision.tokyo.supports as supports
from referee_app.demo import DEMO_ROOT
from referee_app.games.tokyo import load_calibration
from vision.tokyo.foreground import BRIGHT, pieces_masks
from vision.tokyo.labels import components
from vision.tokyo.large_objects import FLOOR_SHARE, rod_half_width_floor
from vision.tokyo.reader import _top_unit_yellow
from vision.tokyo.supports import find_blobs

DEMO = DEMO_ROOT / "tokyo-highway"
FRAMES = ("003.jpg", "011.jpg", "021.jpg", "028.jpg", "camera2/021.jpg")


@pytest.fixture(scope="module")
def calib():
    return load_calibration(DEMO / "calibration.json")[0]


def _image(name: str) -> np.ndarray:
    return cv2.imread(str(DEMO / name), cv2.IMREAD_COLOR)


def test_rays_each_equal_one_ray_at_a_time(calib) -> None:
    cam = calib.camera
    rng = np.random.default_rng(4)
    for n in (1, 2, 7, 64, 300):
        uv = rng.uniform(-50, 1330, (n, 2))
        for z in (0.0, 15.0, 92.5):
            want = np.array([cam.ray_to_plane(uv[k : k + 1], z)[0] for k in range(n)])
            assert np.array_equal(cam.ray_to_plane_each(uv, z), want)


@pytest.mark.parametrize("name", FRAMES)
def test_rod_floor_equals_one_ray_at_a_time(calib, name: str) -> None:
    (fg,), _ = pieces_masks(_image(name), (BRIGHT,))
    ys, xs = np.nonzero(fg)
    pick = np.linspace(0, len(xs) - 1, min(64, len(xs))).astype(int)
    z = 1.5 * calib.sizes.unit_mm
    points = np.array([calib.camera.ray_to_plane(np.array([[xs[k], ys[k]]], np.float64), z)[0] for k in pick])
    want = FLOOR_SHARE * float(np.median(calib.local_scales(points)[2]))
    assert rod_half_width_floor(calib, fg) == want


def _yellow_plain(calib, hsv: np.ndarray, care: np.ndarray, x: float, y: float, height: int) -> float | None:
    """_top_unit_yellow as it was, on the whole frame's HSV."""
    s = calib.sizes
    r = 0.85 * s.column_diameter_mm / 2
    eye = calib.camera.centre
    ang = np.linspace(0, 2 * np.pi, 48, endpoint=False)
    ring = np.stack([np.cos(ang), np.sin(ang)], 1)
    ring = ring[ring @ (eye[:2] - np.array([x, y])) > 0.3 * np.linalg.norm(eye[:2] - np.array([x, y]))]
    zs = (height - 1) * s.unit_mm + np.array([0.25, 0.5, 0.75]) * s.unit_mm
    pts = np.array([[x + r * cx, y + r * cy, z] for z in zs for cx, cy in ring])
    uv, _ = calib.camera.project(pts)
    H, W = care.shape
    xi, yi = np.round(uv[:, 0]).astype(int), np.round(uv[:, 1]).astype(int)
    inside = (xi >= 0) & (xi < W) & (yi >= 0) & (yi < H)
    xi, yi = xi[inside], yi[inside]
    keep = care[yi, xi]
    if np.count_nonzero(keep) < 6 or len(np.unique(np.c_[xi, yi][keep], axis=0)) < 4:
        return None
    px = hsv[yi[keep], xi[keep]].astype(int)
    yellow = (px[:, 0] >= 18) & (px[:, 0] <= 34) & (px[:, 1] >= 90)
    return float(yellow.mean())


def test_junction_yellow_from_sampled_pixels_equals_the_whole_frames_hsv(calib) -> None:
    image = _image("028.jpg")
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
    care = np.ones(image.shape[:2], bool)
    care[:, 500:560] = False
    rng = np.random.default_rng(2)
    seen = 0
    for _ in range(60):
        x, y, h = float(rng.uniform(-200, 200)), float(rng.uniform(-150, 150)), int(rng.integers(1, 10))
        want = _yellow_plain(calib, hsv, care, x, y, h)
        assert _top_unit_yellow(calib, image, care, x, y, h) == want
        seen += want is not None
    assert seen > 30


def _whole_frame(mask: np.ndarray, margin: int = 0, columns: int = 1) -> tuple[slice, slice] | None:
    return (slice(0, mask.shape[0]), slice(0, mask.shape[1])) if mask.any() else None


@pytest.mark.parametrize("name", FRAMES)
def test_blobs_on_the_box_equal_the_whole_frames(name: str, monkeypatch) -> None:
    image = _image(name)
    (fg,), _ = pieces_masks(image, (BRIGHT,))
    rods = np.zeros(fg.shape, np.uint8)
    cv2.line(rods, (300, 400), (900, 500), 255, 14)  # a stick band taken out
    got = find_blobs(image, fg, 5.0, rods)
    monkeypatch.setattr(supports, "mask_box", _whole_frame)
    want = find_blobs(image, fg, 5.0, rods)
    assert len(got) == len(want) and want
    for a, b in zip(got, want, strict=True):
        assert a.bbox == b.bbox and a.area == b.area and a.colour == b.colour
        assert np.array_equal(a.mask, b.mask) and np.array_equal(a.bgr, b.bgr) and np.array_equal(a.top_bgr, b.top_bgr)
        assert (a.column_fraction, a.yellow_fraction) == (b.column_fraction, b.yellow_fraction)


@pytest.mark.parametrize("threads", [1, 4])
def test_labels_on_an_even_box_come_in_the_whole_frames_order(threads: int) -> None:
    """Why the box starts on an even row and column: so cut, the labels and stats are the whole
    frame's (moved); cut at an odd one, some masks' labels come in another order."""
    before = cv2.getNumThreads()
    cv2.setNumThreads(threads)
    try:
        rng = np.random.default_rng(0)
        odd_differ = 0
        for _ in range(200):
            h, w = int(rng.integers(20, 300)), int(rng.integers(20, 300))
            m = np.zeros((h, w), np.uint8)
            for _ in range(int(rng.integers(1, 12))):
                cv2.circle(m, (int(rng.integers(0, w)), int(rng.integers(0, h))), int(rng.integers(1, 8)), 255, -1)
            m |= (rng.random((h, w)) < 0.01).astype(np.uint8) * 255
            n, lab, stats, _ = components(m)
            ys, xs = np.nonzero(m)
            for y0, x0 in ((ys.min() // 2 * 2, xs.min() // 2 * 2), (ys.min(), xs.min())):
                n2, lab2, stats2, _ = components(m[y0:, x0:])
                whole = np.zeros_like(lab)
                whole[y0:, x0:] = lab2
                stats2 = stats2.copy()
                stats2[1:, 0] += x0
                stats2[1:, 1] += y0
                same = n2 == n and np.array_equal(whole, lab) and np.array_equal(stats2[1:], stats[1:])
                if y0 % 2 == 0 and x0 % 2 == 0:
                    assert same
                else:
                    odd_differ += not same
        assert odd_differ > 0
    finally:
        cv2.setNumThreads(before)
