"""The dice reader's per-pixel normalisation and cells' correlations made cheaper keep their results
(issue #24, branch dicefps5): `_prep_exact`'s last passes in one numba pass (vision/zones_jit.py) or,
without numba, OpenCV's passes with the spread's two floors as one, are the plain computation bit for
bit on the sheet views the reader really prepares (the bundled recording's, and the same frames with
black and white patches: tiny and saturated values); the empty sheet's refreshes compiled blend as
the NumPy loop does, and the recording reads the same with and without numba; `_nccs`'s windows gathered into kept buffers and
summed by cv2.reduce stay within 1e-6 of `_ncc` (NCC_GUARD is 1e-4). Results only, never times."""

from __future__ import annotations

import itertools

import cv2
import numpy as np
import pytest
from dice_readings import read_in_full

from referee_app.demo import bundled_demos
from referee_app.games.dice import DiceAdapter
from vision import zones, zones_jit

FRAMES = 9  # the learned frame, a hand, a roll, a die moved: full and partial reads


def plain_prep(bgr: np.ndarray, px_per_mm: float) -> np.ndarray:
    """`_prep(..., exact=True)` written plainly: grey, float, blur, the region mean and spread over
    41 px (at 2 px/mm), floored at 1 and then at 12."""
    grey = bgr if bgr.ndim == 2 else cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    g = cv2.GaussianBlur(grey.astype(np.float32), (0, 0), 0.4 * px_per_mm)
    win = 2 * round(10 * px_per_mm) + 1
    mean = cv2.blur(g, (win, win))
    sq = cv2.blur(g * g, (win, win))
    spread = np.maximum(np.sqrt(np.maximum(sq - mean * mean, np.float32(1.0))), np.float32(12.0))
    return (g - mean) / spread


@pytest.fixture(scope="module")
def prepared() -> list[tuple[np.ndarray, float, tuple[int, int, int, int] | None]]:
    """What the reader gives `_prep_roi` on the recording's first frames (view, px/mm, roi)."""
    demo = next(d for d in bundled_demos() if d.game == "highway-dice")
    seen: list[tuple[np.ndarray, float, tuple[int, int, int, int] | None]] = []
    real = zones._prep_roi

    def spy(bgr, px_per_mm, roi, exact=False):  # noqa: ANN001, ANN202
        seen.append((bgr.copy(), px_per_mm, roi))
        return real(bgr, px_per_mm, roi, exact)

    zones._prep_roi = spy
    try:
        adapter = DiceAdapter()
        for f in itertools.islice(demo.frames(realtime=False), FRAMES):
            adapter.read(f.image)
    finally:
        zones._prep_roi = real
    assert any(roi is None for _, _, roi in seen) and any(roi is not None for _, _, roi in seen)
    return seen


def patched(view: np.ndarray) -> np.ndarray:
    """The view with a black patch (the blur's tails there are tiny floats) and a white one."""
    out = view.copy()
    h, w = out.shape[:2]
    out[h // 4:h // 4 + 60, w // 3:w // 3 + 90] = 0
    out[h // 2:h // 2 + 40, w // 2:w // 2 + 70] = 255
    return out


def bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint32)


@pytest.mark.parametrize("compiled", [True, False], ids=["numba", "opencv"])
def test_prep_is_the_plain_computation_bit_for_bit(prepared, compiled: bool,  # noqa: ANN001
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    if compiled:
        if zones_jit.tail() is None:
            pytest.skip("numba is not installed")
    else:
        monkeypatch.setitem(zones_jit._loaded, "kernels", {})  # as without numba
    for view, px, roi in prepared:
        for v in (view, patched(view)):
            assert np.array_equal(bits(zones._prep(v, px, exact=True)), bits(plain_prep(v, px)))
            got = zones._prep_roi(v, px, roi, exact=True)
            if roi is None:
                assert np.array_equal(bits(got), bits(plain_prep(v, px)))
            else:  # a part: the plain computation on that part, zero elsewhere
                x0, y0, x1, y1 = roi
                want = np.zeros(v.shape[:2], np.float32)
                want[y0:y1, x0:x1] = plain_prep(v[y0:y1, x0:x1], px)
                assert np.array_equal(bits(got), bits(want))


def test_prep_at_other_resolutions_and_in_colour() -> None:
    rng = np.random.default_rng(7)
    bgr = cv2.GaussianBlur(rng.integers(0, 256, (170, 260, 3), dtype=np.uint8), (0, 0), 1.5)
    bgr[20:50, 30:90] = 0
    for px in (2.0, 2.5, 3.0):
        assert np.array_equal(bits(zones._prep(bgr, px, exact=True)), bits(plain_prep(bgr, px)))


def test_the_compiled_loops_can_be_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(zones_jit, "_loaded", {})
    monkeypatch.setenv(zones_jit.PURE_ENV, "1")
    assert zones_jit.tail() is None and zones_jit.refresh() is None


def test_refreshes_blend_as_numpy_does_where_windows_overlap_and_dice_are_held() -> None:
    blend = zones_jit.refresh()
    if blend is None:
        pytest.skip("numba is not installed")
    rng = np.random.default_rng(11)
    ref = rng.normal(size=(90, 120)).astype(np.float32) * np.float32(3.0)
    obs = rng.normal(size=(90, 120)).astype(np.float32) * np.float32(3.0)
    held = np.zeros((90, 120), bool)
    held[30:50, 40:70] = True
    windows = [(0, 0, 52, 52), (44, 0, 96, 52), (40, 30, 120, 90), (0, 44, 52, 90), (10, 10, 11, 11)]
    want = ref.copy()
    for x0, y0, x1, y1 in windows:  # _apply_refreshes's NumPy loop: one window after another
        r = want[y0:y1, x0:x1]
        d = (obs[y0:y1, x0:x1] - r) * np.float32(0.25)
        np.add(r, d, out=r, where=~held[y0:y1, x0:x1])
    blend(ref, obs, held, np.array(windows, np.intp))
    assert np.array_equal(bits(ref), bits(want))


def test_the_recording_reads_the_same_with_and_without_the_compiled_loops(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every reading and the learned empty sheet (bytes) after each of the first 13 frames."""
    if not zones_jit._kernels():
        pytest.skip("numba is not installed")
    demo = next(d for d in bundled_demos() if d.game == "highway-dice")
    frames = [f.image for f in itertools.islice(demo.frames(realtime=False), 13)]
    compiled = read_in_full(frames)
    monkeypatch.setitem(zones_jit._loaded, "kernels", {})
    assert read_in_full(frames) == compiled


def test_cells_correlations_are_ncc_within_far_less_than_the_guard(prepared) -> None:  # noqa: ANN001
    view, px, _ = next(p for p in prepared if p[2] is None)
    a = zones._prep(view, px, exact=True)
    b = zones._prep(patched(view), px, exact=True)
    h, w = a.shape
    windows = {f"w{i}": (x, y, x + 52, y + 52) for i, (x, y) in
               enumerate(itertools.product(range(0, w - 52, 97), range(0, h - 52, 61)))}
    windows["edge"] = (w - 30, h - 40, w, h)  # another size: its own batch
    windows["flat"] = (0, 0, 0, 10)  # empty: left out
    for f64 in (False, True):
        near = zones._nccs(a, b, windows, f64_products=f64)
        assert "flat" not in near and len(near) == len(windows) - 1
        for name, v in near.items():
            x0, y0, x1, y1 = windows[name]
            wa, wb = a[y0:y1, x0:x1], b[y0:y1, x0:x1]
            ca, cb = wa - wa.mean(dtype=np.float64), wb - wb.mean(dtype=np.float64)
            den = np.sqrt((ca * ca).sum() * (cb * cb).sum())
            if np.isnan(v):  # flat (a black patch): left to _ncc
                assert den < 2e-3
                continue
            assert abs(v - zones._ncc(wa, wb)) < 1e-6  # _ncc's own float32 sums: ~1e-7
            if f64:  # the float64 products: the correlation in float64, to the last few bits
                assert abs(v - (ca * cb).sum() / den) < 1e-9


def test_gathered_windows_are_the_stacked_slices() -> None:
    view = np.arange(60 * 80, dtype=np.float32).reshape(60, 80)
    boxes = [(0, 0, 10, 8), (70, 52, 80, 60), (33, 17, 43, 25)]
    want = np.stack([view[y0:y1, x0:x1] for x0, y0, x1, y1 in boxes]).reshape(3, -1)
    assert np.array_equal(zones._gathered(view, boxes, "test_a"), want)
    fewer = zones._gathered(view, boxes[:1], "test_a")  # the kept buffer, another shape
    assert np.array_equal(fewer, want[:1])
