"""What the sheet reader's learned side and station classifiers see, and that they tell railways,
highways and stations apart on drawn squares at the camera's blur, including blur along the line."""

from __future__ import annotations

import cv2
import numpy as np

from datasets.sheets.draw import Hand, draw_square
from vision.sheets.features import CENTRE_SHAPE, SIDE_SHAPE, centre_patch, darkness, side_patch, smoothed
from vision.sheets.reader import classify_square

PPM = 5.0


def test_side_patch_runs_outwards_along_its_own_side() -> None:
    dark = np.zeros((200, 200), np.float32)
    centre = np.array([100.0, 100.0])
    dark[100:150, 99:102] = 1.0  # a line from the centre southwards
    patches = {s: side_patch(smoothed(dark, PPM)[0], centre, s, PPM).reshape(SIDE_SHAPE) for s in "NESW"}
    assert patches["S"].sum() > 10 and all(patches[s].sum() == 0 for s in "NEW")
    assert int(np.argmax(patches["S"].sum(0))) == SIDE_SHAPE[1] // 2  # centred across the strip
    dark[:] = 0
    dark[99:102, 40:100] = 1.0  # the same line going west
    assert side_patch(smoothed(dark, PPM)[0], centre, "W", PPM).reshape(SIDE_SHAPE).sum() > 10
    assert side_patch(smoothed(dark, PPM)[0], centre, "E", PPM).sum() < 0.01
    box = np.zeros_like(dark)
    box[85:115, 85:115] = 1.0
    assert centre_patch(smoothed(box, PPM)[1], centre, PPM).reshape(CENTRE_SHAPE).mean() > 0.4


def drawn_square(sides: str, station: bool, blur: tuple[int, int] | None, seed: int) -> np.ndarray:
    """Darkness of one hand-drawn 20 mm square at PPM, with a motion blur kernel (length px, angle)."""
    rng = np.random.default_rng(seed)
    img = np.full((round(40 * PPM), round(40 * PPM), 3), 245, np.uint8)
    hand = Hand(highway_mm=2.0, rail_mm=0.6, tie_mm=4.0, tie_gap_mm=2.9, wobble_mm=0.2, ink=(25, 30, 40))
    draw_square(img, (10.0, 10.0), 20.0, PPM, sides, station, False, None, hand, rng)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float32)
    if blur:
        k = np.zeros((blur[0], blur[0]), np.float32)
        k[blur[0] // 2, :] = 1.0
        k = cv2.warpAffine(
            k, cv2.getRotationMatrix2D(((blur[0] - 1) / 2, (blur[0] - 1) / 2), blur[1], 1.0), k.shape
        )
        gray = cv2.filter2D(gray, -1, k / k.sum())
    return darkness(gray / 245.0)


def test_classifiers_read_drawn_squares_even_with_blur_along_the_railway() -> None:
    centre = np.array([20.0 * PPM, 20.0 * PPM])
    cases = [("R-R-", False), ("H-H-", False), ("HRRR", True), ("--HR", True), ("RRRR", False)]
    for k, (sides, station) in enumerate(cases):
        for blur in (None, (7, 90)):  # 90 degrees: the blur runs along the N-S railway, smearing its ties
            got, got_station, confs = classify_square(drawn_square(sides, station, blur, k), centre, PPM)
            assert (got, got_station) == (sides, station), (sides, station, blur, got, got_station)
            assert len(confs) == 5 and min(confs) > 0.5


def test_all_patches_at_once_are_the_patches_one_by_one() -> None:
    """`side_patches` / `centre_patches` (one remap) sample what `side_patch` / `centre_patch` (one
    warp each) do: the same values at whole-pixel centres (the reader's: a square's corner plus half
    its even side), and within float rounding anywhere, the view's edges included."""
    from vision.sheets.features import SIDES, centre_patches, side_patches

    rng = np.random.default_rng(8)
    dark = cv2.GaussianBlur(rng.random((300, 260)).astype(np.float32), (0, 0), 2.0)
    side_src, centre_src = smoothed(dark, PPM)
    grid = np.array([[x + 35.0, y + 35.0] for y in range(0, 280, 70) for x in range(0, 260, 70)])
    anywhere = rng.uniform(-20, 300, (25, 2))
    for centres, tol in ((grid, 0.0), (grid + 0.5, 1e-5), (anywhere, 1e-5)):
        want = np.stack([side_patch(side_src, c, s, PPM) for c in centres for s in SIDES])
        assert np.allclose(side_patches(side_src, centres, PPM), want, rtol=0, atol=tol)
        want = np.stack([centre_patch(centre_src, c, PPM) for c in centres])
        assert np.allclose(centre_patches(centre_src, centres, PPM), want, rtol=0, atol=tol)
    assert side_patches(side_src, np.zeros((0, 2)), PPM).shape == (0, SIDE_SHAPE[0] * SIDE_SHAPE[1])
