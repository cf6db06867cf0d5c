"""Two sticks meeting nearly in line read as one run: a run longer than any stick there is split at
its bend (the `longest` hook of detect_sticks; with a camera the reader supplies it)."""

from __future__ import annotations

import cv2
import numpy as np

from vision.tokyo.foreground import pieces_mask
from vision.tokyo.sticks import detect_sticks

A = ((100, 300), (400, 292))  # about -1.5 degrees
B = ((392, 292), (700, 303))  # about +2 degrees: a bend the Hough band swallows whole


def _frame() -> np.ndarray:
    img = np.full((600, 800, 3), (90, 140, 170), np.uint8)
    for p, q in (A, B):
        cv2.line(img, p, q, (200, 200, 200), 12)
    return img


def _near(stick, seg, tol: float = 20.0) -> bool:
    got = np.array([stick.p0, stick.p1], np.float64)
    want = np.array(seg, np.float64)
    return min(np.abs(got - want).max(), np.abs(got[::-1] - want).max()) <= tol


def test_bent_run_longer_than_a_stick_is_split_in_two() -> None:
    img = _frame()
    fg, _ = pieces_mask(img)
    merged, _ = detect_sticks(img, fg)
    assert len(merged) == 1 and merged[0].length > 550  # without the hook: one long stick
    split, _ = detect_sticks(img, fg, longest=lambda p0, p1: 360.0)
    assert len(split) == 2
    assert any(_near(s, A) for s in split) and any(_near(s, B) for s in split)


def test_straight_run_of_a_right_length_is_left_alone() -> None:
    img = np.full((600, 800, 3), (90, 140, 170), np.uint8)
    cv2.line(img, (150, 200), (450, 230), (200, 200, 200), 12)
    fg, _ = pieces_mask(img)
    got, _ = detect_sticks(img, fg, longest=lambda p0, p1: 360.0)
    assert len(got) == 1 and _near(got[0], ((150, 200), (450, 230)))
