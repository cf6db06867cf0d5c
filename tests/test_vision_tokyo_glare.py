"""Glare is a compact blown-out blob: the saturated streak along a light stick's lit top (and the star
that crossing light sticks make) is not glare, and a stick whose middle lies under a real glare
spot is kept whole (drawn scenes on a neutral grey table, no camera)."""

from __future__ import annotations

import cv2
import numpy as np

from vision.realdata import greedy_match
from vision.tokyo import read_tokyo
from vision.tokyo.evaluate import endpoint_distance
from vision.tokyo.foreground import glare_mask, pieces_mask

H, W = 720, 1280


def _table(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.full((H, W, 3), 128, np.float32) + rng.normal(0, 2.0, (H, W, 3)).astype(np.float32)


def _light_stick(img: np.ndarray, p0: np.ndarray, p1: np.ndarray, streak: bool = True) -> None:
    """A white stick lit from one side: a dark rim, a light body and a saturated streak on top."""
    a, b = tuple(int(v) for v in p0), tuple(int(v) for v in p1)
    cv2.line(img, a, b, (70, 70, 70), 16, cv2.LINE_AA)
    cv2.line(img, a, b, (228, 230, 232), 12, cv2.LINE_AA)
    if streak:
        u = (p1 - p0) / np.linalg.norm(p1 - p0)
        n = 2 * np.array([-u[1], u[0]])
        cv2.line(img, tuple(int(v) for v in p0 + n), tuple(int(v) for v in p1 + n), (255, 255, 255), 3,
                 cv2.LINE_AA)


def _pile(seed: int, count: int = 6) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
    """`count` light sticks crossing in one pile in the middle of the frame."""
    rng = np.random.default_rng(seed)
    img = _table(seed)
    sticks = []
    for k in range(count):
        angle = np.pi * k / count + rng.uniform(-0.08, 0.08)
        centre = np.array([640.0, 360.0]) + rng.uniform(-25, 25, 2)
        half = 150 * np.array([np.cos(angle), np.sin(angle)])
        sticks.append((centre - half, centre + half))
    for p0, p1 in sticks:
        _light_stick(img, p0, p1)
    return img, sticks


def _done(img: np.ndarray) -> np.ndarray:
    return np.clip(cv2.GaussianBlur(img, (0, 0), 0.7), 0, 255).astype(np.uint8)


def _matched(image: np.ndarray, truth, obs) -> int:
    gt = np.array([[p0, p1] for p0, p1 in truth], np.float64)
    det = np.array([s.endpoints for s in obs.sticks], np.float64).reshape(-1, 2, 2)
    return len(greedy_match(-endpoint_distance(gt, det), -0.03 * float(np.hypot(*image.shape[:2]))))


def test_crossing_light_sticks_are_not_glare() -> None:
    for seed in (0, 1):
        img, truth = _pile(seed)
        image = _done(img)
        _, table = pieces_mask(image)
        assert not glare_mask(image, table).any()
        obs = read_tokyo(image, None)
        assert not any(w.startswith("glare") for w in obs.warnings)
        # the code before this change masked the pile's middle and read no stick at all
        assert _matched(image, truth, obs) >= 3


def test_glare_is_a_compact_blob() -> None:
    img = _table(3)
    cv2.line(img, (100, 100), (400, 130), (255, 255, 255), 4)  # a streak: long and thin
    cv2.rectangle(img, (600, 300), (606, 304), (255, 255, 255), -1)  # a tiny speck
    cv2.circle(img, (900, 500), 14, (255, 255, 255), -1)  # a spot
    image = _done(img)
    _, table = pieces_mask(image)
    mask = glare_mask(image, table) > 0
    assert mask[500, 900] and not mask[115, 250] and not mask[302, 603]
    assert not mask[:300, :500].any()


def test_a_stick_under_a_glare_spot_is_kept_whole() -> None:
    img, truth = _pile(0)
    p0, p1 = np.array([200.0, 600.0]), np.array([480.0, 560.0])
    _light_stick(img, p0, p1, streak=False)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    cx, cy = (p0 + p1) / 2
    img += 260 * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * 14.0 ** 2))[..., None]
    image = _done(img)
    obs = read_tokyo(image, None)
    assert any(w.startswith("glare") for w in obs.warnings)
    # the two pieces either side of the spot are one stick between the ends that show
    assert _matched(image, [(p0, p1)], obs) == 1
    assert _matched(image, truth, obs) >= 3
