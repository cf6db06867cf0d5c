"""A new column under one of the match's roads (issue 19, branch tokyo2c): the build scoring left every
known piece's pixels out, so a column put under a start road (an illegal build the simulated players
make: tuning seeds 25, 31, 36 and 40 at 550 mm / 40 degrees, two cameras) showed a tenth of its outline
and was missed, or read as a piece lying on the table. With several views the grey plastic under the
match's roads counts for the column (`hidden_grey`) and is looked for as a place; one view is as it was."""

from __future__ import annotations

import numpy as np
import pytest
from test_tokyo_referee import play

from referee_app.games.tokyo import TokyoAdapter
from referee_app.games.tokyo_builds import _views, likeliest_build
from vision.sources import OtherView, PairedFrame


@pytest.fixture(scope="module")
def seed25():
    """Tuning seed 25's third move, purple's illegal p1 s1 -> (-150,-130) h2: a column put under its
    own start road ((-150,-60) to the table at (-150,-170)), filmed by both cameras."""
    from datasets.match_sim import Setup
    from datasets.match_sim.tokyo import simulate

    sim = simulate(25, Setup(1280, 720, 550.0, 40.0, fov_deg=50.0, cameras=2))
    assert sim.moves[2].notation == "p1 s1 -> (-150,-130) h2" and not sim.moves[2].legal
    k = next(k for k, sc in enumerate(sim.scenes) if sc.checkpoint == 2)

    def still(ph):
        return ph.expose(ph.light(sim.draw(sim.scenes[k].content, ph.pose), sim.scenes[k], k), 10 * k)

    return sim, play(*(m.notation for m in sim.moves[:2])), still(sim.photographer), still(sim.others[0])


def test_two_views_read_a_column_put_under_a_start_road(seed25):
    """Main's code tried no place there (the reader saw no column, and grey under the road's pixels
    was no unexplained grey) and read "no build"."""
    sim, before, first, second = seed25
    adapter = TokyoAdapter()
    adapter.use_calibration(sim.extra["calibration"], step_mm=10.0)
    adapter.use_camera_calibration(2, sim.extra["other_calibrations"][0])
    adapter.watch(before)
    adapter.read(PairedFrame(first, 0.0, "test", 0, others=[OtherView(second, "test:camera2")]))
    assert likeliest_build(adapter._builds).notation() == "purple s1 -> (-150,-130) h2"


def test_grey_under_a_known_road_counts_only_for_plastic_and_only_its_positive_part():
    from datasets.match_sim import Setup
    from datasets.match_sim.tokyo import simulate
    from vision.tokyo import TokyoCalibration
    from vision.tokyo.piece_evidence import PieceMaps, column_hull, hidden_grey, scaled

    sim = simulate(25, Setup(1280, 720, 550.0, 40.0, fov_deg=50.0, cameras=2), turns=1)
    small = scaled(TokyoCalibration.from_dict(sim.extra["calibration"]), 0.5)
    import cv2

    body = np.zeros((360, 640), np.uint8)
    cv2.fillConvexPoly(body, column_hull(small, -150.0, -130.0, 0.0, 2 * small.sizes.unit_mm), 1)
    n = int(body.sum())
    behind = np.ones((360, 640), np.uint8)
    zero = np.zeros((360, 640), np.float32)
    grey = PieceMaps(np.full((360, 640), 2.0, np.float32), zero, zero)
    road = PieceMaps(np.full((360, 640), -2.0, np.float32), zero, zero)
    assert hidden_grey(grey, small, behind, -150.0, -130.0, 2) == [pytest.approx(2.0 * n)]
    assert hidden_grey(road, small, behind, -150.0, -130.0, 2) == [0.0]  # a road in front says nothing
    assert hidden_grey(grey, small, behind * 0, -150.0, -130.0, 2) == [0.0]  # nothing hidden there
    plain, junction = hidden_grey(grey, small, behind, -150.0, -130.0, 2, (False, True))
    assert junction < plain  # a junction's top unit is yellow, not grey


def test_one_view_keeps_no_hidden_evidence(seed25):
    """One camera's scores stay the very floats they were: no `behind` mask, no grey under roads."""
    import cv2

    from vision.tokyo import TokyoCalibration
    from vision.tokyo.piece_evidence import piece_maps, scaled

    sim, before, first, second = seed25
    small = scaled(TokyoCalibration.from_dict(sim.extra["calibration"]), 0.5)
    small2 = scaled(TokyoCalibration.from_dict(sim.extra["other_calibrations"][0]), 0.5)
    maps = piece_maps(cv2.resize(first, (640, 360), interpolation=cv2.INTER_AREA))
    maps2 = piece_maps(cv2.resize(second, (640, 360), interpolation=cv2.INTER_AREA))
    assert _views(before, small, maps, {}, [])[0].behind is None
    both = _views(before, small, maps, {}, [(small2, maps2, None)])
    assert all(v.behind is not None and v.behind.any() for v in both)


@pytest.fixture(scope="module")
def seed40():
    """Tuning seed 40's first move, purple's start road, filmed by both cameras: camera 1's picture
    holds the lamp's halo, which its reader takes for a hand or large object in every frame."""
    from datasets.match_sim import Setup
    from datasets.match_sim.tokyo import simulate

    sim = simulate(40, Setup(1280, 720, 550.0, 40.0, fov_deg=50.0, cameras=2), turns=1)
    assert sim.moves[0].notation == "purple start (-150,-60) table (-150,-170)"
    k = next(k for k, sc in enumerate(sim.scenes) if sc.checkpoint == 0)

    def still(ph):
        return ph.expose(ph.light(sim.draw(sim.scenes[k].content, ph.pose), sim.scenes[k], k), 10 * k)

    return sim, still(sim.photographer), still(sim.others[0])


def test_a_hand_only_camera_1_sees_leaves_the_builds_to_the_clear_camera(seed40):
    """Main's code blocked the frame (and every frame of the match: all ten moves missed)."""
    from vision.types import Frame

    sim, first, second = seed40
    adapter = TokyoAdapter()
    adapter.use_calibration(sim.extra["calibration"], step_mm=10.0)
    adapter.use_camera_calibration(2, sim.extra["other_calibrations"][0])
    adapter.watch(play())
    out = adapter.read(PairedFrame(first, 0.0, "test", 0, others=[OtherView(second, "test:camera2")]))
    assert out.blocked is None
    assert likeliest_build(adapter._builds).notation() == "purple start (-150,-60) table (-150,-170)"
    alone = TokyoAdapter()  # one camera: the frame stays blocked, as it was
    alone.use_calibration(sim.extra["calibration"], step_mm=10.0)
    alone.watch(play())
    assert alone.read(Frame(first, 0.0, "test", 0)).blocked is not None
