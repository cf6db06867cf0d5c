"""Tokyo Highway's loop does less work per frame without reading anything differently (issue #24):
stick line fits remembered by their pixels (vision.tokyo.sticks.fit_memo), the build candidates'
outlines kept per camera over frames (read_builds' `outlines`), and array rewrites of the reader's
arithmetic that give the same values bit for bit (checked here against the plain formulas)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from test_tokyo_referee import STARTED, play
from test_tokyo_reuse import DEMO, paired, picture, seen

from referee_app.games.tokyo import TokyoAdapter, load_calibration


@pytest.fixture
def fits(monkeypatch) -> list[int]:
    """Count cv2.fitLine's runs."""
    calls: list[int] = []
    fit = cv2.fitLine

    def counted(*args, **kw):
        calls.append(1)
        return fit(*args, **kw)

    monkeypatch.setattr(cv2, "fitLine", counted)
    return calls


def test_a_stick_core_fitted_once_is_not_fitted_again_and_reads_the_same(fits):
    from collections import OrderedDict

    from vision.tokyo import read_tokyo
    from vision.tokyo.sticks import fit_memo

    calib = load_calibration(DEMO / "calibration.json")[0]
    image = picture("004.jpg")
    plain = read_tokyo(image, calib).to_dict()
    run = len(fits)
    assert run > 0
    memo: OrderedDict = OrderedDict()
    with fit_memo(memo):
        first = read_tokyo(image, calib).to_dict()
        assert 0 < len(fits) - run <= run  # the refit along a fitted line may keep the same pixels
        again = len(fits)
        second = read_tokyo(image, calib).to_dict()
    assert len(fits) == again  # every fit remembered
    assert first == plain and second == plain
    read_tokyo(image, calib)
    assert len(fits) > again  # outside the block nothing is remembered


def test_an_adapter_reading_a_table_again_fits_no_stick_again(fits):
    frame = paired(picture("004.jpg"), picture("camera2/004.jpg"))
    adapter = TokyoAdapter()
    first = adapter.read(frame)
    assert fits
    adapter.use_calibration(None)  # forgets the still pictures and readings, not the fits
    n = len(fits)
    again = adapter.read(frame)
    assert len(fits) == n and seen(again) == seen(first)


def test_build_outlines_kept_over_frames_are_not_projected_again_and_score_the_same(monkeypatch):
    import vision.tokyo.piece_evidence as pe

    projected: list[int] = []
    known: list[int] = []  # inside known_mask (the pieces standing, drawn each frame): not counted
    for name in ("stick_quad", "column_hull"):
        real = getattr(pe, name)

        def counted(*args, _real=real, **kw):
            if not known:
                projected.append(1)
            return _real(*args, **kw)

        monkeypatch.setattr(pe, name, counted)
    known_mask = pe.known_mask

    def drawing(*args, **kw):
        known.append(1)
        try:
            return known_mask(*args, **kw)
        finally:
            known.pop()

    monkeypatch.setattr(pe, "known_mask", drawing)
    frame = paired(picture("006.jpg"), picture("camera2/006.jpg"))
    adapter = TokyoAdapter()
    adapter.watch(play(*STARTED))
    one = adapter.read(frame)
    assert projected and one.beliefs
    n = len(projected)
    # the match asked about anew (an equal state, another object): the builds are scored again
    again = play(*STARTED)
    adapter.watch(again)
    two = adapter.read(frame)
    assert len(projected) == n  # every candidate's outline kept
    fresh = TokyoAdapter()
    fresh.watch(again)
    assert seen(two) == seen(fresh.read(frame)) == seen(one)


# -- the array rewrites give the plain formulas' values -------------------------------------------
def test_piece_masks_divide_as_the_broadcast_did():
    from vision.tokyo.channels import channel_max

    image = picture("022.jpg")
    f = cv2.GaussianBlur(image, (5, 5), 1.2).astype(np.float32) + 4
    got = cv2.add(cv2.GaussianBlur(image, (5, 5), 1.2), (4.0, 4.0, 4.0, 0.0), dtype=cv2.CV_32F)
    assert np.array_equal(got, f)
    sf = cv2.transform(f, np.ones((1, 3), np.float32))
    plain = f / sf[..., None]
    merged = f / cv2.merge((sf, sf, sf))
    assert np.array_equal(plain.view(np.uint32), merged.view(np.uint32))
    assert np.array_equal(channel_max(plain), channel_max(merged))


def test_distinct_lines_and_resumes_match_their_plain_loops():
    from vision.tokyo.sticks import _distinct_lines, _resumes

    rng = np.random.default_rng(3)
    lines = np.stack([rng.uniform(-800, 1500, 3000), rng.uniform(0, np.pi, 3000)], 1).astype(np.float32)
    rho_tol, theta_tol = 0.6 * 4.5, np.radians(1.5)
    taken: set[tuple[int, int]] = set()
    keep = []
    for k, (rho, theta) in enumerate(lines):
        ri, ti = int(np.floor(rho / rho_tol)), int(np.floor(theta / theta_tol))
        if any((ri + a, ti + b) in taken for a in (-1, 0, 1) for b in (-1, 0, 1)):
            continue
        taken.add((ri, ti))
        keep.append(k)
    assert np.array_equal(_distinct_lines(lines, rho_tol, theta_tol), lines[keep])

    def plain(good, on_fg, start, gap, need):
        for k in range(start, min(start + gap, len(good) - need)):
            if good[k:k + need].mean() >= 0.8:
                return k if k == start or on_fg[start:k].mean() >= 0.8 else None
        return None

    for seed in range(200):
        r = np.random.default_rng(seed)
        good, on_fg = r.random(60) < r.random(), r.random(60) < r.random()
        start, gap, need = int(r.integers(0, 30)), int(r.integers(1, 30)), int(r.integers(1, 10))
        assert _resumes(good, on_fg, start, gap, need) == plain(good, on_fg, start, gap, need)
