"""A junction and a plain column of the same place, height and road differ only in the top unit: the
pair's difference is held to what its few pixels can say, per view (branch tokyojx, issue 19)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from referee_app.games.tokyo_builds import TEMPERATURE, View, _scores_seen
from vision.tokyo.piece_evidence import LLR_SCALE, PieceMaps, score_builds

BASE = np.array([0.0, 60.0, 30.0])  # a two-unit support's top 60 mm off: the road's other end
PLACE = (0.0, -20.0)
HEIGHT = 3


def _calib(yaw: float):
    from datasets.tokyo.camera import camera_looking_at
    from vision.tokyo import PieceSizes, TokyoCalibration
    from vision.tokyo.piece_evidence import scaled

    cam = camera_looking_at((0.0, -15.0, 0.0), 718.0, 40.0, yaw, 50.0, 1280, 720)
    return scaled(TokyoCalibration(cam, PieceSizes()), 0.5)  # the half-size maps builds are scored on


def _view(calib, yellow_llr: float) -> View:
    """A picture that is sure grey plastic everywhere (a plain column's top, seen clearly), its yellow
    map `yellow_llr` a pixel."""
    shape = (calib.camera.height, calib.camera.width)
    grey = np.full(shape, LLR_SCALE, np.float32)
    maps = PieceMaps(grey, np.zeros(shape, np.float32), np.full(shape, yellow_llr, np.float32))
    return View(calib, maps, np.zeros(shape, np.uint8), {})


def _raw(view: View) -> tuple[float, float, int]:
    """The pair's scores as the maps give them, and the top unit's pixels: each sure one way in these
    pictures, so each scored 2 * LLR_SCALE apart (a pixel's grey and its yellow)."""
    got = score_builds(view.maps, view.calib, view.known, *PLACE, HEIGHT, (False, True), BASE)
    return got[0].total, got[1].total, round(abs(got[0].total - got[1].total) / (2 * LLR_SCALE))


def test_a_top_unit_of_few_pixels_says_one_sure_pixel_each_of_junction_against_plain():
    """Every top pixel sure grey and sure not yellow: the maps score each 4 nats for the plain column
    (+2 grey, -2 yellow, one pixel's hue and saturation counted twice); the pair now differs by
    LLR_SCALE a pixel, the plain column (the better) keeping its score. Fails on the old code (4)."""
    view = _view(_calib(10.0), -LLR_SCALE)
    plain, junction, apart = _raw(view)
    assert 10 < apart < 200  # a top unit's ring at half size
    assert plain > junction
    (p, j), seen = _scores_seen([view], *PLACE, HEIGHT, (False, True), BASE)
    assert seen == 1
    assert p == plain
    assert p - j == pytest.approx(LLR_SCALE * apart, rel=1e-4)


def test_two_views_of_a_thin_top_leave_the_pair_short_of_a_confident_verdict():
    """Two cameras each clearly seeing a plain top of a few dozen pixels: the old sum (four nats a
    pixel in each) put the plain column at 0.9 or more of the pair; now each view says one sure
    pixel's worth per pixel, and a top unit this thin leaves the pair below 0.9."""
    views = [_view(_calib(10.0), -LLR_SCALE), _view(_calib(160.0), -LLR_SCALE)]
    raw = [_raw(v) for v in views]
    old = sum(p - j for p, j, _ in raw)
    (p, j), _ = _scores_seen(views, *PLACE, HEIGHT, (False, True), BASE)
    assert p - j == pytest.approx(sum(LLR_SCALE * a for _, _, a in raw), rel=1e-4)

    def share(d: float) -> float:
        return 1.0 / (1.0 + math.exp(-d / TEMPERATURE))

    # the two cameras' tops here: 45 and 62 free pixels at half size, as on tuning seeds 51 and 58
    assert sum(a for _, _, a in raw) < 120
    assert share(old) >= 0.9 > share(p - j)


def _yellow_view(calib) -> View:
    """A picture that is sure junction yellow everywhere: not grey, not a road."""
    view = _view(calib, LLR_SCALE)
    view.maps.grey[:] = -LLR_SCALE
    view.maps.road[:] = -LLR_SCALE
    return view


def test_views_that_disagree_are_each_held_to_their_own_pixels():
    """One view's yellow top against the other's grey: each view's lead is held to its own pixels
    and the two are summed (neither view's many-nat lead outweighs the other's by double counting)."""
    grey_top = _view(_calib(10.0), -LLR_SCALE)
    yellow = _yellow_view(_calib(160.0))
    a1, a2 = _raw(grey_top)[2], _raw(_view(_calib(160.0), -LLR_SCALE))[2]
    band = score_builds(yellow.maps, yellow.calib, yellow.known, *PLACE, HEIGHT, (False, True), BASE)[0].yellow_band
    (p, j), _ = _scores_seen([grey_top, yellow], *PLACE, HEIGHT, (False, True), BASE)
    assert j - p == pytest.approx(LLR_SCALE * (a2 + band - a1), rel=1e-4, abs=1e-3)


def test_a_junctions_yellow_in_its_own_road_band_is_its_evidence():
    """The road resting on a junction hides most of its top; the yellow showing in the road's own
    band over the top unit now counts for the junction (a pixel there is road or yellow, the likelier
    taken) and may lead by those pixels too. Fails on the old code (the band scored as road alike)."""
    view = _yellow_view(_calib(10.0))
    got = score_builds(view.maps, view.calib, view.known, *PLACE, HEIGHT, (False, True), BASE)
    top, band = got[0].apart, got[0].yellow_band
    assert top > 0 and band > 0
    assert got[1].road == got[0].road  # the road's own score is the road's
    assert got[1].total - got[0].total == pytest.approx(2 * LLR_SCALE * top + 2 * LLR_SCALE * band, rel=1e-4)
    (p, j), _ = _scores_seen([view], *PLACE, HEIGHT, (False, True), BASE)
    assert j - p == pytest.approx(LLR_SCALE * (top + band), rel=1e-4)
    # a picture of sure grey: nothing in the band speaks for the plain column
    grey = _view(_calib(10.0), -LLR_SCALE)
    plain, junction, apart = _raw(grey)
    assert apart == top and plain - junction == pytest.approx(2 * LLR_SCALE * top, rel=1e-4)


def test_a_candidate_tried_plain_only_scores_as_before():
    view = _view(_calib(10.0), -LLR_SCALE)
    got = score_builds(view.maps, view.calib, view.known, *PLACE, 1, (False,), BASE)
    (p,), _ = _scores_seen([view], *PLACE, 1, (False,), BASE)
    assert p == got[0].total and got[0].apart == 0
