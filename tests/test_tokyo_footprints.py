"""Build candidates' pixels kept over frames, and the hidden-road odds in fewer array calls, score
exactly as before (issue 24, branch tokyospd): `score_builds` keeps each candidate's footprint (its
outlines drawn, the known pieces left out) in the caller's `hulls` while the known pieces are the
same, so a still table's next frame and a knocked view's moved maps only sum pixels;
`hidden_column_llr` picks the usable roads' counts once and calls NumPy's clip and mean without
their Python wrappers. Every score is compared with the one drawn afresh, and with the one NumPy's
own sums give where vision.tokyo.score_jit's compiled pass runs (and with the odds computed by the
earlier formula), as floats, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest


def _plain_llr(roads, grey: np.ndarray, hidden: np.ndarray, win) -> float:
    """hidden_column_llr as it was written before (9b69a68..f7258f1): the reference."""
    from vision.tokyo.piece_evidence import LLR_SCALE
    from vision.tokyo.under_roads import (
        _VISIBLE,
        COLUMN_GREY,
        MIN_HIDDEN_PX,
        MIN_ROAD_PX,
        ROAD_GREY_FLOOR,
        ROAD_GREY_SLACK,
    )

    if np.count_nonzero(hidden) < MIN_HIDDEN_PX:
        return 0.0
    labels = roads.label[win][hidden]
    shares = np.clip(grey[hidden] / (2 * LLR_SCALE) + 0.5, 0.0, 1.0)
    n_lab = len(roads.count)
    k_in = np.bincount(labels, weights=shares, minlength=n_lab)
    n_in = np.bincount(labels, minlength=n_lab).astype(np.float64)
    own_n = roads.count - n_in
    usable = (n_in > 0) & (own_n >= MIN_ROAD_PX)
    usable[0] = False
    n = float(n_in[usable].sum())
    if n < MIN_HIDDEN_PX:
        return 0.0
    k = float(k_in[usable].sum())
    rate = (roads.grey_sum[usable] - k_in[usable]) / own_n[usable]
    q0 = float(np.clip((rate * n_in[usable]).sum() / n * ROAD_GREY_SLACK + ROAD_GREY_FLOOR, 0.0, 0.5))
    q = _VISIBLE * COLUMN_GREY + (1.0 - _VISIBLE) * q0
    ll = k * np.log(q) + (n - k) * np.log1p(-q)
    top = float(ll.max())
    mean_column = top + float(np.log(np.exp(ll - top).mean()))
    road = k * np.log(q0) + (n - k) * np.log1p(-q0)
    return mean_column - float(road)


def _same(a: float, b: float) -> bool:
    """The same float, bit for bit (NaN equal to NaN, +0.0 not to -0.0)."""
    return np.float64(a).tobytes() == np.float64(b).tobytes()


@pytest.fixture
def checked(monkeypatch) -> dict[str, int]:
    """Every score_builds call given `hulls` also scored with none (drawn afresh), and every
    hidden-road odds also by the reference formula; each pair must be the same floats. Counts the
    calls, the ones whose footprint was kept, and the odds compared."""
    import vision.tokyo.piece_evidence as pe
    import vision.tokyo.under_roads as ur

    seen = {"calls": 0, "kept": 0, "llr": 0}
    score, llr, draw = pe.score_builds, ur.hidden_column_llr, pe.footprint

    def both_llr(roads, grey, hidden, win):
        got = llr(roads, grey, hidden, win)
        assert _same(got, _plain_llr(roads, grey, hidden, win))
        seen["llr"] += 1
        return got

    def drawn(*args, **kw):
        seen["kept"] -= 1
        return draw(*args, **kw)

    def both(maps, calib, known, x, y, height, junctions, base_top, base_on_table=False, hulls=None,
             roads=None, yellow_known=None):
        got = score(maps, calib, known, x, y, height, junctions, base_top, base_on_table, hulls, roads,
                    yellow_known)
        if hulls is not None:
            seen["calls"] += 1
            seen["kept"] += 1
            fresh = score(maps, calib, known, x, y, height, junctions, base_top, base_on_table, None, roads,
                          yellow_known)
            seen["kept"] += 1  # the fresh drawing above is not a kept one
            # and the NumPy sums (vision.tokyo.score_jit's compiled pass off), the odds by the reference
            compiled, pe._compiled_sums = pe._compiled_sums, lambda: None
            try:
                plain = score(maps, calib, known, x, y, height, junctions, base_top, base_on_table, None,
                              roads, yellow_known)
            finally:
                pe._compiled_sums = compiled
            seen["kept"] += 1
            for g, f, p in zip(got, fresh, plain, strict=True):
                assert _same(g.total, f.total) and _same(g.column, f.column) and _same(g.road, f.road)
                assert _same(g.total, p.total) and _same(g.column, p.column) and _same(g.road, p.road)
        return got

    monkeypatch.setattr(ur, "hidden_column_llr", both_llr)
    monkeypatch.setattr(pe, "footprint", drawn)
    monkeypatch.setattr(pe, "score_builds", both)
    return seen


def test_seed116_knocked_frames_score_the_same_with_kept_footprints(tmp_path, checked) -> None:
    """Tuning seed 116 at 550/40, two cameras, camera 1 knocked before its ninth move (its maps moved
    by each residual shift round each place): a frame of the eighth move's scene, then two frames of
    the ninth's still scene, other pieces known. Every candidate scores as drawn afresh; the ninth
    move's second frame finds most footprints kept."""
    from test_tokyo_referee import play
    from tokyo_poses import calibrated_adapter, scene_shots

    from referee_app.commands.eval_match import make_setup, simulate
    from vision.sources import OtherView, PairedFrame

    sim = simulate("tokyo-highway", 116, make_setup("1280x720", 550, 40, fov=50.0, cameras=2))
    k = next(k for k, sc in enumerate(sim.scenes) if sc.checkpoint == 8)
    index, (first, second) = scene_shots(sim, k)  # every bump up to the ninth move's scene

    def shot(scene: int, at: int) -> PairedFrame:
        sc = sim.scenes[scene]
        pics = [p.expose(p.light(sim.draw(sc.content, p.pose), sc, scene), at) for p in (sim.photographer, *sim.others)]
        return PairedFrame(pics[0], 0.1 * at, "test", at, others=[OtherView(pics[1], "test:camera2")])

    adapter = calibrated_adapter(sim, tmp_path)
    before = next(j for j, sc in enumerate(sim.scenes) if sc.checkpoint == 7)
    adapter.watch(play(*(m.notation for m in sim.moves[:7] if m.legal)))
    adapter.read(shot(before, sum(sc.hold for sc in sim.scenes[:before])))
    adapter.watch(play(*(m.notation for m in sim.moves[:8] if m.legal)))
    calls = checked["calls"]
    adapter.read(PairedFrame(first, 0.0, "test", index, others=[OtherView(second, "test:camera2")]))
    assert adapter._track.drift is not None  # the knock was undone: moved maps were scored
    assert checked["calls"] - calls > 1000 and checked["llr"] > 100
    calls, kept = checked["calls"], checked["kept"]
    adapter.read(shot(k, index + 1))  # the sensor's noise differs, the pieces known do not
    assert checked["calls"] - calls > 1000
    assert checked["kept"] - kept > 0.8 * (checked["calls"] - calls)


def test_a_footprint_kept_for_other_known_pieces_is_not_used() -> None:
    """The same candidate, the same `hulls`, a known piece now drawn across its column: its pixels
    are drawn again, and the score is the fresh one (kept, the old pixels would count)."""
    import cv2
    from tokyo_poses import looking_calibration

    from vision.tokyo.piece_evidence import LLR_SCALE, PieceMaps, column_hull, score_builds

    calib = looking_calibration(640, 360)
    shape = (calib.camera.height, calib.camera.width)
    rng = np.random.default_rng(1)
    grey = np.where(rng.random(shape) < 0.4, LLR_SCALE, -LLR_SCALE).astype(np.float32)
    maps = PieceMaps(grey, grey[::-1].copy(), grey[:, ::-1].copy())
    base = np.array([0.0, 0.0, 20.0])
    bare = np.zeros(shape, np.uint8)
    hulls: dict = {}
    first = score_builds(maps, calib, bare, 60.0, 20.0, 2, (False, True), base, hulls=hulls)
    assert first == score_builds(maps, calib, bare, 60.0, 20.0, 2, (False, True), base)
    covered = bare.copy()
    cv2.fillConvexPoly(covered, column_hull(calib, 60.0, 20.0, 0.0, 10.0), 1)
    fresh = score_builds(maps, calib, covered, 60.0, 20.0, 2, (False, True), base)
    assert fresh != first
    assert score_builds(maps, calib, covered, 60.0, 20.0, 2, (False, True), base, hulls=hulls) == fresh
    # an equal mask (another array) finds the footprints kept for the first
    assert score_builds(maps, calib, bare.copy(), 60.0, 20.0, 2, (False, True), base, hulls=hulls) == first


def test_hidden_road_odds_equal_the_earlier_formula_on_random_roads() -> None:
    """hidden_column_llr against the reference on random roads, greys and hidden masks (roads
    with too few pixels of their own, a share driven below zero, masks too small)."""
    from vision.tokyo.under_roads import RoadPixels, hidden_column_llr

    rng = np.random.default_rng(7)
    for trial in range(300):
        h, w = 30, 40
        label = rng.integers(0, 4, (h, w)).astype(np.uint16)
        count = np.bincount(label.ravel(), minlength=4).astype(np.float64)
        count[1:] += rng.integers(-60, 200, 3)
        grey_sum = rng.random(4) * count * (1.5 if trial % 5 == 0 else 0.5)
        grey_sum[0] = 0.0
        roads = RoadPixels(label, grey_sum, count)
        grey = (rng.normal(0.0, 2.0, (h, w)) - (3.0 if trial % 7 == 0 else 0.0)).astype(np.float32)
        hidden = (rng.random((h, w)) < rng.choice([0.005, 0.05, 0.3])) & (label > 0)
        win = (slice(0, h), slice(0, w))
        assert _same(hidden_column_llr(roads, grey, hidden, win), _plain_llr(roads, grey, hidden, win))


def test_the_readers_column_outlines_are_the_points_it_stacked_before() -> None:
    """supports._column_hull (fit_height's 450 outlines a blob) now writes its points through
    piece_evidence.column_hull: the very polygons its own stacking gave, for NumPy and Python
    coordinates and every height."""
    import cv2
    from tokyo_poses import looking_calibration

    from vision.tokyo.supports import _column_hull

    def stacked(calib, x, y, h, n=16):  # the body before (9b69a68..f7258f1)
        s = calib.sizes
        ang = np.linspace(0, 2 * np.pi, n, endpoint=False)
        r = s.column_diameter_mm / 2
        ring = np.stack([x + r * np.cos(ang), y + r * np.sin(ang)], 1)
        pts = np.vstack([np.c_[ring, np.zeros(n)], np.c_[ring, np.full(n, h * s.unit_mm)]])
        uv, _ = calib.camera.project(pts)
        return cv2.convexHull(np.round(uv).astype(np.int32))

    calib = looking_calibration(640, 360)
    rng = np.random.default_rng(3)
    for _ in range(400):
        x, y = rng.uniform(-300, 300, 2)
        for px, py in ((x, y), (float(x), float(y)), (x + np.arange(-2, 3)[1] * 1.5, y)):
            h = int(rng.integers(1, 10))
            assert np.array_equal(_column_hull(calib, px, py, h), stacked(calib, px, py, h))


def test_the_compiled_line_fit_holds_no_compiled_function_in_its_closure() -> None:
    """numba's cache keys a closure by the pickled bytes of its cells; a compiled function's pickle
    differs in every process, so the robust line fit, which held the weighted fit in a cell, missed
    its cache and was compiled again at every start (about 4 CPU seconds of each `eval match`, and a
    new copy in the cache each time). It now finds it as a module global."""
    pytest.importorskip("numba")
    from numba.core.dispatcher import Dispatcher

    from vision.tokyo import line_fit

    fit = line_fit.load()
    if fit is None:
        pytest.skip("the plain OpenCV fit runs (HIGHWAY_REFEREE_PURE_TOKYO set)")
    cells = [c.cell_contents for c in fit.py_func.__closure__ or ()]
    assert not any(isinstance(c, Dispatcher) for c in cells)
    assert isinstance(line_fit._refit, Dispatcher)
