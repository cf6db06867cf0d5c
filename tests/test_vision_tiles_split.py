"""The 4x4 reader's fast paths equal main's code (tests/grid_reference.py) exactly, on the bundled
recording's top views (hands, touching pieces, new light each scene) and on made-up masks.

Each fails on main, whose vision/tiles/ has none of the fast functions (split.py, percentiles,
piece_inks, split_grown)."""

from __future__ import annotations

import itertools
from functools import cache

import cv2
import grid_reference as ref
import numpy as np
import pytest

from referee_app.demo import bundled_demos
from vision.quantiles import percentiles
from vision.tiles import geometry as g
from vision.tiles import reader as R
from vision.tiles import split as S
from vision.tiles.patch import piece_inks, two_tone
from vision.tiles.rectify import TopView

FRAMES = (3, 4, 7, 11, 12, 19, 23, 30, 33, 34, 41, 45)  # hand frames and the scenes after them


@cache
def views() -> list[TopView]:
    demo = next(d for d in bundled_demos() if d.game == "highway-grid")
    frames = list(itertools.islice(demo.frames(realtime=False), max(FRAMES) + 1))
    cal = R.grid_view(frames[0].image)[1]
    return [R.grid_view(frames[i].image, cal)[0] for i in FRAMES]


def same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    pairs = np.unique(np.stack([a.ravel(), b.ravel()]), axis=1)
    return len(np.unique(pairs[0])) == pairs.shape[1] == len(np.unique(pairs[1]))


def assert_same_split(want: tuple[np.ndarray, np.ndarray], got: tuple[np.ndarray, np.ndarray]) -> None:
    (la, sa), (lb, sb) = want, got
    assert same_partition(la, lb)
    for k in np.unique(la[la > 0]):
        assert np.array_equal(sa[k], sb[lb[la == k][0]])


@pytest.mark.parametrize("fill", [False, True])
def test_split_touching_equals_the_whole_view_split(fill: bool) -> None:
    multi = 0
    for view in views():
        fg = ref.foreground(view.image, view.px_per_mm, fill_holes=fill)
        assert np.array_equal(fg, R.foreground(view.image, view.px_per_mm, fill_holes=fill))
        assert_same_split(ref.split_touching(fg, view.px_per_mm), S.split_touching(fg, view.px_per_mm))
        core = ref._core(fg, 5.0 * view.px_per_mm)
        multi += int(np.bincount(cv2.connectedComponents(core)[1].ravel()).size > 2)
    assert multi  # objects with several cores were there


def test_segment_cells_and_classification_equal_mains() -> None:
    pieces = 0
    for view in views():
        want, got = ref.segment_cells(view), R.segment_cells(view)
        for name in g.cell_names():
            a, b = want[name], got[name]
            assert type(a) is type(b), name
            if isinstance(a, R.CellReading):
                assert a == b
                continue
            pieces += 1
            assert a.region_mm == b.region_mm
            assert np.array_equal(a.crop, b.crop) and np.array_equal(a.blob, b.blob)
            assert a.ink is None and b.ink is None or np.array_equal(a.ink, b.ink) and a.ink.dtype == b.ink.dtype
            assert ref.two_tone(a.crop, a.blob, 4) == two_tone(b.crop, b.blob, 4)
            assert ref.classify_piece(a.crop, a.blob, view.px_per_mm, a.ink) == R.classify_piece(
                b.crop, b.blob, view.px_per_mm, b.inks)
    assert pieces > 40


def test_split_grown_equals_splitting_the_filled_mask() -> None:
    grown = 0
    for view in views():
        closed = R._closed_foreground(view.image)
        plain, filled = R._opened(closed, 3.0), R._opened(R._holes_filled(closed, 3.0), 3.0)
        grown += int(not np.array_equal(plain, filled))
        got = S.split_grown(filled, plain, S.split_touching(plain, 3.0), 3.0)
        assert_same_split(ref.split_touching(filled, 3.0), got)
    assert grown  # frames where filling holes changed objects were there


def test_split_grown_of_made_up_masks() -> None:
    """A square that grows into its neighbour (the pair must be split again) beside one untouched."""
    old = np.zeros((200, 300), np.uint8)
    old[20:100, 20:100] = 1
    old[20:100, 104:184] = 1
    old[120:190, 200:270] = 1
    new = old.copy()
    new[40:80, 100:104] = 1
    assert_same_split(ref.split_touching(new, 3.0), S.split_grown(new, old, S.split_touching(old, 3.0), 3.0))
    assert S.split_grown(old, old, (lab := S.split_touching(old, 3.0)), 3.0) is lab


@pytest.mark.parametrize("r", [1, 4, 9, 15, 22, 30])
def test_disc_erosion_and_dilation_equal_the_elliptic_element(r: int) -> None:
    rng = np.random.default_rng(r)
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    for _ in range(5):
        m = (rng.random((int(rng.integers(20, 160)), int(rng.integers(20, 160)))) < 0.97).astype(np.uint8)
        m[rng.random(m.shape) < 0.002] = 0
        assert np.array_equal(S.disc_erode(m, r), cv2.erode(m, disc))
        assert np.array_equal(S.disc_dilate(m, r), cv2.dilate(m, disc))


def test_percentiles_equal_numpys() -> None:
    rng = np.random.default_rng(7)
    for n in [1, 2, 3, 30, 31, 999, 5000]:
        for _ in range(20):
            v = rng.integers(int(rng.integers(0, 250)), 256, n).astype(np.uint8)
            want = np.percentile(v, [2, 50, 98])
            got = percentiles(v, [2, 50, 98])
            assert np.array_equal(want, got) and want.dtype == got.dtype
            f = rng.random(n) * 40
            assert np.percentile(f, 98) == percentiles(f, [98])[0]


def test_piece_inks_and_two_tone_equal_mains_on_the_recordings_pieces() -> None:
    n = 0
    for view in views():
        for seg in R.segment_cells(view).values():
            if isinstance(seg, R.CellReading):
                continue
            inks = piece_inks(seg.crop, seg.blob, 4)
            for keep_rim, ink in ((False, inks.clean), (True, inks.full)):
                want = ref.piece_ink(seg.crop, seg.blob, 4, keep_rim=keep_rim)
                assert want is None and ink is None or np.array_equal(want, ink)
            clean = ref.piece_ink(seg.crop, seg.blob, 4)
            assert ref.two_tone(seg.crop, seg.blob, 4, clean) == two_tone(seg.crop, seg.blob, 4, inks.clean,
                                                                        inks.face)
            n += 1
    assert n > 40
