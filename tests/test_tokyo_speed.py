"""Tokyo Highway's loop does less work per frame without reading anything differently (issue #24):
stick line fits remembered by their pixels (vision.tokyo.sticks.fit_memo), the build candidates'
outlines kept per camera over frames (read_builds' `outlines`), and array rewrites of the reader's
arithmetic that give the same values bit for bit (checked here against the plain formulas); work
done at once instead of piece by piece (the rod-width floor's samples, a candidate plain and as a
junction, a column's body at every height) and a Hough line dropped before its run search when it
cannot hold a new stick, each giving what the piece-by-piece code gave."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from test_tokyo_referee import STARTED, play
from test_tokyo_reuse import DEMO, paired, picture, seen

from referee_app.games.tokyo import TokyoAdapter, load_calibration


@pytest.fixture
def fits(monkeypatch) -> list[int]:
    """Count the robust line fits run (vision.tokyo.line_fit: compiled, or cv2.fitLine without numba)."""
    from vision.tokyo import line_fit

    calls: list[int] = []
    fit = line_fit.huber_fit

    def counted(*args, **kw):
        calls.append(1)
        return fit(*args, **kw)

    monkeypatch.setattr(line_fit, "huber_fit", counted)
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
    import vision.tokyo.under_roads as ur

    # the standing pieces drawn each frame (known_mask) and the standing roads' pixels (under_roads,
    # patched on the module the builds reader calls it from, imported before this test or not)
    for module, name in ((pe, "known_mask"), (ur, "road_pixels")):
        real = getattr(module, name)

        def drawing(*args, _real=real, **kw):
            known.append(1)
            try:
                return _real(*args, **kw)
            finally:
                known.pop()

        monkeypatch.setattr(module, name, drawing)
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
    assert np.array_equal(_distinct_lines(lines, rho_tol, theta_tol), _distinct_reference(lines, rho_tol, theta_tol))

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


# -- issue 24, item 2 (third round): work done at once gives the piece-by-piece values ------------
@pytest.fixture(scope="module")
def calib():
    return load_calibration(DEMO / "calibration.json")[0]


def test_local_scales_at_many_points_equal_local_scale_at_each(calib):
    rng = np.random.default_rng(3)
    points = np.c_[rng.uniform(-300, 300, (40, 2)), rng.uniform(0, 90, 40)]
    ups, cols, rods = calib.local_scales(points)
    for k, p in enumerate(points):
        up, col, rod = calib.local_scale(p)
        assert np.array_equal(ups[k], up) and cols[k] == col and rods[k] == rod


def test_rod_half_width_floor_is_the_median_of_each_samples_width(calib):
    from vision.tokyo.foreground import BRIGHT, pieces_masks
    from vision.tokyo.large_objects import FLOOR_SHARE, rod_half_width_floor

    for name in ("004.jpg", "012.jpg"):
        (fg,), _ = pieces_masks(cv2.imread(str(DEMO / name)), (BRIGHT,))
        ys, xs = np.nonzero(fg)
        pick = np.linspace(0, len(xs) - 1, min(64, len(xs))).astype(int)
        widths = []
        for k in pick:  # one sample at a time, as the reader took them
            point = calib.camera.ray_to_plane(np.array([[xs[k], ys[k]]], np.float64), 15.0)[0]
            widths.append(calib.local_scale(point)[2])
        assert rod_half_width_floor(calib, fg) == FLOOR_SHARE * float(np.median(widths))
    assert rod_half_width_floor(calib, np.zeros((720, 1280), np.uint8)) == 0.0


def _distinct_reference(lines: np.ndarray, rho_tol: float, theta_tol: float) -> np.ndarray:
    """Each peak tested against the nine cells round it (the reader's former walk)."""
    taken: set[tuple[int, int]] = set()
    keep = []
    for k, (rho, theta) in enumerate(lines):
        ri, ti = int(np.floor(rho / rho_tol)), int(np.floor(theta / theta_tol))
        if any((ri + a, ti + b) in taken for a in (-1, 0, 1) for b in (-1, 0, 1)):
            continue
        taken.add((ri, ti))
        keep.append(k)
    return np.asarray(lines, np.float32).reshape(-1, 2)[keep]


def test_distinct_lines_keeps_the_peaks_the_cell_walk_keeps_in_clusters():
    from vision.tokyo.sticks import _distinct_lines

    rng = np.random.default_rng(5)
    for n in (1, 50, 3000):
        lines = np.c_[rng.uniform(-800, 1500, n), rng.uniform(0, np.pi, n)].astype(np.float32)
        # clusters: many peaks in one and neighbouring cells, as a wide rod gives
        lines[: n // 2, 0] = np.round(lines[: n // 2, 0] / 40) * 40 + rng.uniform(-3, 3, n // 2)
        got = _distinct_lines(lines, 2.4, np.radians(1.5))
        assert np.array_equal(got, _distinct_reference(lines, 2.4, np.radians(1.5)))


def test_a_candidate_scored_plain_and_as_a_junction_at_once_scores_as_scored_apart(calib):
    from vision.tokyo.piece_evidence import piece_maps, scaled, score_build, score_builds

    small = scaled(calib, 0.5)
    image = cv2.imread(str(DEMO / "012.jpg"))
    maps = piece_maps(cv2.resize(image, (small.camera.width, small.camera.height), interpolation=cv2.INTER_AREA))
    known = np.zeros(maps.grey.shape, np.uint8)
    known[150:200, 250:330] = 1  # some pixels left out, as pieces the match holds are
    base = np.array([0.0, 0.0, 30.0])
    tried = 0
    # across the mat and past its edges (outlines clipped by the frame, or outside it)
    for x in np.arange(-420, 421, 70.0):
        for y in np.arange(-300, 301, 60.0):
            for h in (2, 5, 8):
                for table in (False, True):
                    both = score_builds(maps, small, known, x, y, h, (False, True), base, table, {})
                    apart = [score_build(maps, small, known, x, y, h, j, base, table, {}) for j in (False, True)]
                    assert both == apart
                    tried += 1
    assert tried > 500


def _run_on_line_reference(pts, claimed, fg, base, u, hw, min_len, found=None):
    """The run search along one line with no early way out (the reader's before issue 24's third round)."""
    from vision.tokyo.sticks import SHARED_RUN_NEW, _along_taken, _best_run, _fit_line, _one_colour, _sample

    n = np.array([-u[1], u[0]], np.float32)
    band = np.abs(pts @ n - float(base @ n)) <= max(1.5, hw * 0.6)

    def on_fg(t0, step, k):
        ts = t0 + np.arange(k * 4) * step / 4
        return (_sample(fg, base[None] + ts[:, None] * u[None]) > 0).reshape(k, 4).mean(1)

    whole = np.nonzero(band)[0]
    if len(whole) < min_len * 0.5 * hw:
        return None
    for sel in (whole, None):
        if sel is None:
            sel = np.nonzero(band & ~claimed)[0]
        if len(sel) < min_len * 0.5 * hw:
            continue
        t = pts[sel] @ u - float(base @ u)
        span = _best_run(t, hw, 3.0 * 2 * hw, min_len, on_fg)
        if span is None:
            continue
        run = sel[(t >= span[0]) & (t <= span[1])]
        fresh, need = int((~claimed[run]).sum()), min_len * 0.5 * hw
        if fresh < SHARED_RUN_NEW * need:
            continue
        if (claimed[run].mean() > 0.5 or fresh < need) and (
            found is None
            or _along_taken(pts[run], u, found[0], hw)
            or not _one_colour(found[1][run[~claimed[run]]], found[1][run[claimed[run]]])
        ):
            continue
        vx, vy, x0, y0 = _fit_line(pts[run])
        return np.array([x0, y0], np.float32), np.array([vx, vy], np.float32), run
    return None


def test_lines_along_found_sticks_are_dropped_before_the_run_search_with_the_same_sticks(calib, monkeypatch):
    import vision.tokyo.sticks as sticks
    from vision.tokyo import read_tokyo

    searched: list[int] = []
    best_run = sticks._best_run

    def counted(*args, **kw):
        searched.append(1)
        return best_run(*args, **kw)

    monkeypatch.setattr(sticks, "_best_run", counted)
    real = sticks._run_on_line
    compared = []

    def checked(*args, **kw):
        got = real(*args, **kw)
        before = len(searched)
        # the reference's own run searches not counted; `cols` (the compiled band counts) is speed only
        want = _run_on_line_reference(*args[:8], **{k: v for k, v in kw.items() if k != "cols"})
        del searched[before:]
        assert (got is None) == (want is None)
        if got is not None:
            assert all(np.array_equal(a, b) for a, b in zip(got, want, strict=True))
        compared.append(got is None)
        return got

    monkeypatch.setattr(sticks, "_run_on_line", checked)
    read_tokyo(cv2.imread(str(DEMO / "028.jpg")), calib)  # the match's last scene: the busiest table
    assert len(compared) > 100 and sum(compared) > 0.8 * len(compared)
    assert len(searched) < 0.3 * len(compared)  # main searched a run along nearly every line


def _body_scores_reference(calib, fg, care, xy, height_mm):
    """A column body's share of piece at one height (fit_columns' former call per height)."""
    r = calib.sizes.column_diameter_mm / 2
    zs = np.linspace(0.25, 0.85, 6) * height_mm
    offs = np.array([[0.0, 0.0], [0.5 * r, 0.0], [-0.5 * r, 0.0], [0.0, 0.5 * r], [0.0, -0.5 * r]])
    pts = np.broadcast_to(xy[:, None, None, :] + offs[None, None, :, :], (len(xy), len(zs), len(offs), 2))
    z = np.broadcast_to(zs[None, :, None, None], (len(xy), len(zs), len(offs), 1))
    uv, _ = calib.camera.project(np.concatenate([pts, z], -1).reshape(-1, 3))
    H, W = fg.shape
    xi = np.clip(np.round(uv[:, 0]).astype(int), 0, W - 1)
    yi = np.clip(np.round(uv[:, 1]).astype(int), 0, H - 1)
    ok = care[yi, xi].reshape(len(xy), -1)
    piece = (fg[yi, xi] > 0).reshape(len(xy), -1) & ok
    cnt = ok.sum(1)
    return np.where(cnt > 0, piece.sum(1) / np.maximum(cnt, 1), 1.0)


def test_column_bodies_at_every_height_at_once_score_as_one_height_at_a_time(calib):
    from vision.tokyo.columns import _body_scores_all
    from vision.tokyo.foreground import BRIGHT, pieces_masks

    (fg,), _ = pieces_masks(cv2.imread(str(DEMO / "028.jpg")), (BRIGHT,))
    care = np.ones(fg.shape, bool)
    care[:, 600:700] = False  # pixels under roads say nothing
    rng = np.random.default_rng(7)
    hs = np.arange(1, 10)
    for n in (1, 3, 7):
        xy = rng.uniform(-250, 250, (len(hs), n, 2))
        got = _body_scores_all(calib, fg, care, xy, hs * calib.sizes.unit_mm)
        for k, h in enumerate(hs):
            assert np.array_equal(got[k], _body_scores_reference(calib, fg, care, xy[k], h * calib.sizes.unit_mm))
