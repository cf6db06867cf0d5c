"""The table estimate and the glare spots, quicker (issue #24, fifth round): the rough mask's table
pixels taken at half size (`_keep_from_half`) and the saturated pixels by one `cv2.inRange`
(`saturated`) give the values of the plain computations (copied here from before the change) bit for
bit, on the bundled recording's frames and on frames whose sides do not divide by 4."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import vision.tokyo.foreground as fgmod
from referee_app.demo import DEMO_ROOT
from vision.tokyo.channels import channel_min
from vision.tokyo.foreground import (
    _keep_from_half,
    estimate_table,
    foreground_mask,
    refine_background,
    saturated,
)

DEMO = DEMO_ROOT / "tokyo-highway"
FRAMES = ("000.jpg", "003.jpg", "011.jpg", "021.jpg", "028.jpg", "camera2/014.jpg")


def _estimate_plain(image: np.ndarray) -> fgmod.TableEstimate:
    """estimate_table as it was: the rough mask brought to full size, then refine_background."""
    h, w = image.shape[:2]
    thumb = fgmod._thumb(image)
    table = fgmod._chroma_of(thumb)
    half = cv2.resize(image, (max(8, w // 2), max(8, h // 2)), interpolation=cv2.INTER_AREA)
    eighth = cv2.resize(half, (max(8, w // 8), max(8, h // 8)), interpolation=cv2.INTER_AREA)
    rough = foreground_mask(half, cv2.medianBlur(cv2.medianBlur(eighth, 11), 11), table)
    rough = cv2.resize(rough, (w, h), interpolation=cv2.INTER_NEAREST)
    return fgmod.TableEstimate(table, refine_background(image, rough), thumb)


@pytest.mark.parametrize("name", FRAMES)
def test_estimate_equals_the_full_size_rough_mask(name: str) -> None:
    image = cv2.imread(str(DEMO / name), cv2.IMREAD_COLOR)
    got, want = estimate_table(image), _estimate_plain(image)
    assert np.array_equal(got.background, want.background)
    assert np.array_equal(got.chroma, want.chroma) and np.array_equal(got.thumb, want.thumb)


def test_keep_from_half_on_random_masks() -> None:
    rng = np.random.default_rng(5)
    for h, w in ((720, 1280), (180, 320), (36, 64)):
        for share in (0.001, 0.05, 0.4):
            half = ((rng.random((h // 2, w // 2)) < share) * 255).astype(np.uint8)
            full = cv2.resize(half, (w, h), interpolation=cv2.INTER_NEAREST)
            want = cv2.resize(cv2.dilate(full, np.ones((9, 9), np.uint8)), (w // 4, h // 4),
                              interpolation=cv2.INTER_AREA) < 64
            assert np.array_equal(_keep_from_half(half, (w // 4, h // 4)), want)


def test_odd_sized_frames_keep_the_full_size_path() -> None:
    image = cv2.imread(str(DEMO / "021.jpg"), cv2.IMREAD_COLOR)[:715, :1277]
    assert np.array_equal(estimate_table(image).background, _estimate_plain(image).background)


def test_saturated_is_every_channel_at_least_245() -> None:
    rng = np.random.default_rng(9)
    image = rng.integers(230, 256, (72, 128, 3), dtype=np.uint8)
    got = saturated(image)
    assert got.dtype == np.uint8 and got.any()
    assert np.array_equal(got, (channel_min(image) >= 245).astype(np.uint8))
    frame = cv2.imread(str(DEMO / "028.jpg"), cv2.IMREAD_COLOR)
    assert np.array_equal(saturated(frame), (channel_min(frame) >= 245).astype(np.uint8))
