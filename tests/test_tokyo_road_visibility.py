"""A road band's evidence weighed by how well the match's own roads show in the same picture
(vision.tokyo.road_visibility, issue 19, branch tokyo61): natural roads at the mat's chromaticity made
every new road's band count about -1500 nats against its build on tuning seed 73."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vision.tokyo.piece_evidence import LLR_SCALE, PieceMaps


def _calib():
    from datasets.tokyo.camera import camera_looking_at
    from vision.tokyo import TokyoCalibration
    from vision.tokyo.calibration import PieceSizes
    from vision.tokyo.piece_evidence import scaled

    cam = camera_looking_at((0.0, 0.0, 0.0), 718.0, 40.0, 30.0, 50.0, 1280, 720)
    return scaled(TokyoCalibration(cam, PieceSizes()), 0.5)


def _scene(road_share: float):
    """Half-size maps of a table with one standing road (the match's) and one new road beside it,
    both showing road colour on `road_share` of their pixels (in stripes across the picture),
    the table none; (maps, the standing road's pixels as under_roads draws them, the known pieces'
    mask, the new road's quad)."""
    import cv2

    from vision.tokyo.piece_evidence import known_mask, stick_axis, stick_quad
    from vision.tokyo.under_roads import road_pixels

    calib = _calib()
    h, w = calib.camera.height, calib.camera.width
    road = np.full((h, w), -LLR_SCALE, np.float32)
    unit = calib.sizes.unit_mm
    old = stick_axis(calib, np.array([-150.0, -60.0, unit]), np.array([-60.0, -60.0, 2 * unit]))
    new = stick_axis(calib, np.array([-150.0, 40.0, unit]), np.array([-60.0, 40.0, 2 * unit]))
    on = np.zeros((h, w), np.uint8)
    for a, b in (old, new):
        cv2.fillConvexPoly(on, stick_quad(calib, a, b), 1)
    shows = (np.arange(w)[None, :] % 20) < int(20 * road_share)
    road[(on > 0) & shows] = LLR_SCALE
    maps = PieceMaps(np.full((h, w), -LLR_SCALE, np.float32), road, np.full((h, w), -LLR_SCALE, np.float32))
    columns = [(-150.0, -60.0, unit), (-60.0, -60.0, 2 * unit)]
    known = known_mask(calib, (h, w), columns, [old])
    roads = road_pixels(calib, maps.grey, columns, [old]).label
    return maps, roads, known, stick_quad(calib, *new)


def _band(maps: PieceMaps, quad) -> float:
    import cv2

    mask = cv2.fillConvexPoly(np.zeros(maps.road.shape, np.uint8), quad, 1) > 0
    return float(maps.road[mask].sum())


def test_roads_that_barely_show_make_a_bare_band_weak_evidence() -> None:
    """The match's road shows road colour on a fifth of its pixels, as the new one does: the new
    road's band, about -2 nats a pixel as mapped, now counts at most a few tenths of a nat a pixel
    against it, and its coloured pixels still for it."""
    from vision.tokyo.road_visibility import road_rates, with_road_visibility

    maps, roads, known, quad = _scene(0.2)
    p_road, p_table = road_rates(maps, roads, known)
    assert 0.1 < p_road < 0.3 and p_table < 0.01
    weighed = with_road_visibility(maps, roads, known)
    n = int(np.count_nonzero(_band_mask(maps, quad)))
    assert _band(maps, quad) < -1.0 * n  # as mapped: strongly against the road that stands there
    assert _band(weighed, quad) > 0.0  # weighed: its coloured fifth outweighs the rest
    assert float(weighed.road.min()) >= -0.3  # a bare pixel says little


def _band_mask(maps: PieceMaps, quad) -> np.ndarray:
    import cv2

    return cv2.fillConvexPoly(np.zeros(maps.road.shape, np.uint8), quad, 1) > 0


def test_roads_that_show_leave_the_maps_as_they_are() -> None:
    from vision.tokyo.road_visibility import with_road_visibility

    maps, roads, known, _ = _scene(0.95)
    assert with_road_visibility(maps, roads, known) is maps


def test_no_standing_road_leaves_the_maps_as_they_are() -> None:
    from vision.tokyo.road_visibility import with_road_visibility

    maps, _, known, _ = _scene(0.2)
    assert with_road_visibility(maps, None, known) is maps


def test_weights_keep_their_signs() -> None:
    """A road showing less road colour than the table does says nothing either way; one showing it
    always is the map's own ±2."""
    from vision.tokyo.road_visibility import weighed

    assert weighed(0.001, 0.05) == (0.0, 0.0)
    assert weighed(0.999, 0.001) == (LLR_SCALE, -LLR_SCALE)
    pos, neg = weighed(0.2, 0.005)
    assert pos == LLR_SCALE and math.isclose(neg, math.log(0.8 / 0.995))


@pytest.fixture(scope="module")
def seed73():
    """Tuning seed 73 of `eval match tokyo-highway --cameras 2` (550 mm / 40 degrees, camera 2 at
    its default 200 mm higher): purple's `s3 -> (-230,0) h3` from (-260,-60), after camera 1 was
    knocked; the match's natural roads barely differ from the mat in colour in either picture."""
    from datasets.match_sim import Setup
    from datasets.match_sim.tokyo import simulate

    sim = simulate(73, Setup(1280, 720, 550.0, 40.0, fov_deg=50.0, cameras=2))
    assert sim.moves[4].notation == "p1 s3 -> (-230,0) h3"
    k = next(k for k, sc in enumerate(sim.scenes) if sc.checkpoint == 4)
    for scene in sim.scenes[:k + 1]:
        if scene.bump:
            sim.photographer.bump()

    def still(ph):
        return ph.expose(ph.light(sim.draw(sim.scenes[k].content, ph.pose), sim.scenes[k], k), 5 * k)

    return sim, still(sim.photographer), still(sim.others[0])


def test_seed73_build_over_faint_roads_leads(seed73) -> None:
    """Both cameras show the new h3 column's grey (+350 nats); its road's band, as faint as every road
    of the match, counted about -1900 against it and the frame read "no build" at 1.0 (main). Weighed
    by the match's own roads, the build played leads."""
    from test_tokyo_referee import play

    from referee_app.games.tokyo import TokyoAdapter
    from vision.beliefs import EMPTY, REST
    from vision.sources import OtherView, PairedFrame

    sim, first, second = seed73
    adapter = TokyoAdapter()
    adapter.use_calibration(sim.extra["calibration"], step_mm=10.0)
    adapter.use_camera_calibration(2, sim.extra["other_calibrations"][0])
    adapter.watch(play(*(m.notation for m in sim.moves[:4])))
    adapter.read(PairedFrame(first, 0.0, "test", 0, others=[OtherView(second, "test:camera2")]))
    belief = adapter._builds.belief
    truth = "(-230,0) h3 from (-260,-60)"
    assert max((k for k in belief if k is not REST), key=belief.get) == truth
    assert belief[truth] > belief[EMPTY]
