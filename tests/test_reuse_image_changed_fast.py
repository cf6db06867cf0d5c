"""vision.tiles.reuse.image_changed's fast path (one inRange for the moved pixels, skipped squares when
almost none moved, 8-bit grey integrals) gives main's answer: the old computation, kept here verbatim,
against the new one on still, noisy, spotted, relit and partly relit frames."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.tiles import reuse
from vision.tiles.reuse import BRIGHTNESS_STEP, CHANGED_SHARE, MIN_CHANGED_PX, PIXEL_STEP, image_changed


def _old_image_changed(now: np.ndarray, last: np.ndarray, size: int = 32) -> bool:
    """main's image_changed at 72db509 (after the shape and all-equal tests)."""
    diff = cv2.absdiff(now, last)
    if not diff.any():
        return False
    h, w = now.shape[:2]
    ys, xs = np.r_[0:h:size, h], np.r_[0:w:size, w]
    area = np.diff(ys)[:, None] * np.diff(xs)[None, :]
    b, g, r = cv2.split(diff)
    moved = reuse._grid_sums(cv2.integral((cv2.max(cv2.max(b, g), r) > PIXEL_STEP).astype(np.uint8)), ys, xs)
    if (moved > np.maximum(MIN_CHANGED_PX, CHANGED_SHARE * area)).any():
        return True
    now_gray, last_gray = (cv2.cvtColor(v, cv2.COLOR_BGR2GRAY) for v in (now, last))
    shifts = reuse._grid_sums(cv2.integral(cv2.subtract(now_gray, last_gray, dtype=cv2.CV_16S)), ys, xs)
    return bool((np.abs(shifts) / area > BRIGHTNESS_STEP).any())


def _frames(seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    h, w = rng.integers(40, 200), rng.integers(40, 260)
    last = cv2.GaussianBlur(rng.integers(0, 256, (h, w, 3), dtype=np.uint8), (7, 7), 2)
    pairs = []
    for amp in (1, 3, 8):  # sensor noise, some of it past PIXEL_STEP where amp is large
        noise = rng.integers(-amp, amp + 1, last.shape)
        pairs.append((np.clip(last.astype(int) + noise * rng.integers(1, 4), 0, 255).astype(np.uint8), last))
    for n in (1, 4, 5, 6, 12, 40):  # a few pixels jump, in one square or scattered
        now = last.copy()
        y, x = rng.integers(0, h - 4), rng.integers(0, w - 4)
        pts = (rng.integers(y, y + 4, n), rng.integers(x, x + 4, n)) if n < 12 else (
            rng.integers(0, h, n), rng.integers(0, w, n))
        now[pts[0], pts[1], rng.integers(0, 3)] ^= np.uint8(PIXEL_STEP + rng.integers(1, 60))
        pairs.append((now, last))
    for step in (3, 4, 5, 6):  # the light shifts by about BRIGHTNESS_STEP, over a part or all of it
        now = last.astype(int)
        y, x = rng.integers(0, h // 2), rng.integers(0, w // 2)
        now[y:y + rng.integers(20, 80), x:x + rng.integers(20, 80)] += step * rng.choice([-1, 1])
        pairs.append((np.clip(now, 0, 255).astype(np.uint8), last))
    return pairs


@pytest.mark.parametrize("seed", range(12))
def test_fast_image_changed_answers_as_the_old_computation(seed: int) -> None:
    answers = set()
    for now, last in _frames(seed):
        for size in (8, 32):
            old = _old_image_changed(now, last, size)
            assert image_changed(now, last, size) == old
            assert image_changed(now, last, size, diff=cv2.absdiff(now, last)) == old
            answers.add(old)
    assert answers == {True, False}  # both answers were tested


def test_a_noisy_still_frame_skips_the_moved_squares_and_signed_differences(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fails on main's code, which builds the moved pixels' integral and a 16-bit difference's."""
    rng = np.random.default_rng(5)
    last = rng.integers(30, 220, (96, 128, 3), dtype=np.uint8)
    now = np.clip(last.astype(int) + rng.integers(-2, 3, last.shape), 0, 255).astype(np.uint8)
    seen: list[np.dtype] = []
    integral = cv2.integral

    def counted(src: np.ndarray, *args: object, **kw: object) -> np.ndarray:
        seen.append(src.dtype)
        return integral(src, *args, **kw)

    monkeypatch.setattr(reuse.cv2, "integral", counted)
    assert not image_changed(now, last)
    assert seen == [np.uint8, np.uint8]  # the two grey pictures' only
