"""Large objects labelled on the piece mask's box (vision/tokyo/large_objects.py) are found, warned of,
outlined and cut out exactly as main's whole-frame labelling did."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import vision.tokyo.large_objects as lo
from vision.tokyo.calibration import PinholeCamera, TokyoCalibration
from vision.tokyo.labels import components
from vision.tokyo.large_objects import (
    BLUR_GAIN,
    DEPTH_WIDTHS,
    HAND_WARNING,
    TABLE_CHROMA,
    WIDE_WIDTHS,
    LargeObject,
    _chroma_gap,
    _ridge_boxed,
    _rod_half_width_at,
    _wide_parts,
    rod_half_width,
)
from vision.tokyo.observation import TokyoObservation
from vision.tokyo.pixels import distance_l2


def _main_large_objects(  # main's code, for comparison
    obs: TokyoObservation,
    fg: np.ndarray,
    image: np.ndarray | None = None,
    table: np.ndarray | None = None,
    calibration: TokyoCalibration | None = None,
    found: list[LargeObject] | None = None,
    dist: np.ndarray | None = None,
    outline: bool = True,
) -> np.ndarray:
    """Warn of each large object in `fg` (cleared there in place) and return the mask (255) of the
    regions withheld. `image` and `table` (the table estimate, image-sized) let table-coloured blobs
    pass; `calibration` sets the rods' width where the mask cannot; `found`, if given, receives each
    object (for `drop_fingers`); `dist`, if the caller has it, is `fg`'s distance transform (L2, 5x5
    mask), as the stick pass takes it. Without `outline` the objects are warned of (and given to
    `found`) but no region is grown round them and `fg` is left as it is: a reader that stops at a
    hand needs the warnings alone (the tests of each object read neither `fg` nor the regions)."""
    dist, ridge, box = _ridge_boxed(fg, dist)
    hw = rod_half_width(dist, ridge, box)
    cut = np.zeros(fg.shape, np.uint8)
    deep = dist > DEPTH_WIDTHS * hw
    if not deep.any():
        return cut
    n, lab, stats, centres = components(deep.astype(np.uint8))
    tinted = image is not None and table is not None and table.shape[:2] == image.shape[:2]
    for i in range(1, n):
        x, y, w, h, _ = stats[i]
        # the tests on the component's box: the same pixels in the same order as on the whole frame
        box = (slice(y, y + h), slice(x, x + w))
        inner = lab[box] == i
        ref = hw
        if calibration is not None:
            ref = max(hw, BLUR_GAIN * _rod_half_width_at(calibration, centres[i]))
            if float(dist[box][inner].max()) <= DEPTH_WIDTHS * ref:
                continue
        if tinted and float(_chroma_gap(image[box][inner], table[box][inner]).mean()) < TABLE_CHROMA:
            continue
        obs.warnings.append(
            f"{HAND_WARNING} near ({x + w / 2:.0f}, {y + h / 2:.0f}) px: readings there are withheld"
        )
        # the object's colour from its pixels in the frame's row order (its box holds them all)
        bgr = None if image is None else image[box][inner].mean(0)
        if not outline:
            if found is not None:
                found.append(LargeObject(None, bgr))
            continue
        # grown by int(4 * ref) 3x3 dilations on its box widened by that reach: the dilation's border
        # adds nothing, so these are the pixels the whole frame's dilation gives
        k = int(4 * ref)
        grow = (slice(max(0, y - k), y + h + k), slice(max(0, x - k), x + w + k))
        region = np.zeros(fg.shape, np.uint8)
        region[grow] = cv2.dilate((lab[grow] == i).view(np.uint8), np.ones((3, 3), np.uint8), iterations=k)
        if WIDE_WIDTHS > 0:
            region |= _wide_parts(dist, region, WIDE_WIDTHS * ref, ref, grow)
        fg[region > 0] = 0
        cut |= region
        if found is not None:
            found.append(LargeObject(region, bgr))
    return cut * 255


def _camera() -> TokyoCalibration:
    """A 640 x 360 camera 500 mm above the mat, tilted 30 degrees."""
    t = np.radians(30.0)
    look = np.array([0.0, np.sin(t), -np.cos(t)])
    right = np.array([1.0, 0.0, 0.0])
    down = np.cross(look, right)
    R = np.stack([right, down, look])
    K = np.array([[450.0, 0, 320], [0, 450.0, 180], [0, 0, 1]])
    return TokyoCalibration(PinholeCamera(K, R, -R @ (-500 * look), 640, 360))


def _scene(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A made-up view: a table, thin sticks, and one to three wide blobs (hands) at odd places; its
    piece mask and a table estimate."""
    rng = np.random.default_rng(seed)
    image = np.full((360, 640, 3), (90, 160, 190), np.uint8)
    mask = np.zeros((360, 640), np.uint8)
    for _ in range(6):
        p, q = rng.integers(0, [640, 360], 2), rng.integers(0, [640, 360], 2)
        cv2.line(image, (int(p[0]), int(p[1])), (int(q[0]), int(q[1])), (200, 200, 200), 9)
        cv2.line(mask, (int(p[0]), int(p[1])), (int(q[0]), int(q[1])), 255, 9)
    for _ in range(int(rng.integers(1, 4))):
        c = (int(rng.integers(31, 609)), int(rng.integers(31, 329)))
        axes = (int(rng.integers(25, 70)), int(rng.integers(25, 60)))
        colour = (60, 110, 200) if rng.random() < 0.7 else (90, 160, 190)  # skin, or the table's own
        cv2.ellipse(image, c, axes, float(rng.uniform(0, 180)), 0, 360, colour, -1)
        cv2.ellipse(mask, c, axes, float(rng.uniform(0, 180)), 0, 360, 255, -1)
    table = np.full_like(image, (90, 160, 190))
    return image, mask, table


@pytest.mark.parametrize("outline", [False, True])
def test_objects_as_the_whole_frames_labelling_finds_them(outline: bool) -> None:
    found_any = 0
    for seed in range(12):
        image, mask, table = _scene(seed)
        for calib in (None, _camera()):
            got_obs, want_obs = TokyoObservation(), TokyoObservation()
            got_fg, want_fg = mask.copy(), mask.copy()
            got_found: list[LargeObject] = []
            want_found: list[LargeObject] = []
            dist = distance_l2(mask)
            got = lo.large_objects(got_obs, got_fg, image, table, calib, got_found, dist.copy(), outline)
            want = _main_large_objects(want_obs, want_fg, image, table, calib, want_found, dist.copy(), outline)
            assert got_obs.warnings == want_obs.warnings
            assert np.array_equal(got, want) and np.array_equal(got_fg, want_fg)
            assert len(got_found) == len(want_found)
            for a, b in zip(got_found, want_found, strict=True):
                assert np.array_equal(a.bgr, b.bgr)
                assert (a.region is None) == (b.region is None)
                if a.region is not None:
                    assert np.array_equal(a.region, b.region)
            found_any += len(want_found)
    assert found_any >= 12


def test_centroids_moved_back_to_the_frame_exactly() -> None:
    rng = np.random.default_rng(5)
    for _ in range(40):
        m = np.zeros((300, 500), np.uint8)
        for _ in range(int(rng.integers(1, 12))):
            cv2.circle(m, (int(rng.integers(0, 500)), int(rng.integers(0, 300))), int(rng.integers(1, 60)), 1, -1)
        n, _, stats, centres = components(m)
        x0 = int(rng.integers(0, 20)) * 2
        y0 = int(rng.integers(0, 20)) * 2
        cut = np.zeros_like(m)
        cut[y0:, x0:] = m[y0:, x0:]
        n, _, stats, centres = components(cut)
        n2, _, stats2, centres2 = components(cut[y0:, x0:])
        assert n == n2
        for i in range(1, n):
            moved = lo._frame_centroid(centres2[i], int(stats2[i, 4]), x0, y0)
            assert moved.tobytes() == centres[i].astype(np.float64).tobytes()


def test_labels_the_mask_box_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """The deep parts are labelled on the mask's box, not on the whole frame."""
    image, mask, table = _scene(3)
    shapes: list[tuple[int, ...]] = []

    def spy(m: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
        shapes.append(m.shape)
        return components(m)

    monkeypatch.setattr(lo, "components", spy)
    small = np.zeros_like(mask)
    small[101:181, 203:301] = mask[101:181, 203:301]
    cv2.circle(small, (250, 140), 35, 255, -1)
    lo.large_objects(TokyoObservation(), small, image, table, None, [], None, False)
    assert shapes and all(s[0] < mask.shape[0] and s[1] < mask.shape[1] for s in shapes)
