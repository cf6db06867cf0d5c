"""A new column's grey that shows only in a known road's drift margin is still a place to try
(referee_app/games/tokyo_builds.py `build_spots`, vision/tokyo/piece_evidence.py `grey_known_mask`)."""

from __future__ import annotations

import numpy as np
import pytest
from test_tokyo_referee import play

from referee_app.games.tokyo import TokyoAdapter
from vision.sources import OtherView, PairedFrame


def _camera():
    from datasets.tokyo.camera import camera_looking_at
    from vision.tokyo import TokyoCalibration
    from vision.tokyo.calibration import PieceSizes
    from vision.tokyo.piece_evidence import scaled

    cam = camera_looking_at((0.0, 0.0, 0.0), 718.0, 40.0, 30.0, 50.0, 1280, 720)
    return scaled(TokyoCalibration(cam, PieceSizes()), 0.5)


def test_a_road_explains_grey_only_at_its_edges_and_a_column_within_the_drift_margin() -> None:
    """A road is brown: drawn a few pixels off it shows brown there, never grey, so its grey margin
    is a pixel; a column's grey keeps the drift margin known_mask grows every piece by."""
    from vision.tokyo.piece_evidence import grey_known_mask, known_mask, stick_axis

    calib = _camera()
    shape = (calib.camera.height, calib.camera.width)
    road = [stick_axis(calib, np.array([-60.0, 0.0, 0.0]), np.array([60.0, 0.0, 0.0]), True, True)]
    grown, grey = known_mask(calib, shape, [], road), grey_known_mask(calib, shape, [], road)
    assert grey.sum() < grown.sum()
    assert np.all(grown[grey > 0] > 0)  # narrower, inside it
    column = [(0.0, 80.0, 30.0)]
    assert np.array_equal(grey_known_mask(calib, shape, column, []), known_mask(calib, shape, column, []))


@pytest.fixture(scope="module")
def seed59():
    """Tuning seed 59 of `eval match tokyo-highway --cameras 2` at 550 mm / 40 degrees, the default
    second camera (200 mm above camera 1): the tenth move's scene, both cameras' first frame."""
    from datasets.match_sim import Setup
    from datasets.match_sim.tokyo import simulate

    sim = simulate(59, Setup(1280, 720, 550.0, 40.0, fov_deg=50.0, cameras=2))
    move = 9
    assert sim.moves[move].notation == "p2 s4 -> (80,10) h2"
    scene = next(k for k, sc in enumerate(sim.scenes) if sc.checkpoint == move)
    index = 0  # the frames before it counted and camera 1's bumps taken, as sim.frames() draws them
    for sc in sim.scenes[:scene]:
        if sc.bump:
            sim.photographer.bump()
        index += sc.hold
    sc = sim.scenes[scene]
    if sc.bump:
        sim.photographer.bump()
    shots = [p.expose(p.light(sim.draw(sc.content, p.pose), sc, scene), index)
             for p in (sim.photographer, *sim.others)]
    return sim, [m.notation for m in sim.moves[:move] if m.legal], shots, index


def test_a_short_column_beside_a_known_road_is_tried_where_it_stands(seed59) -> None:
    """Green's h2 column at (80,10), its own road lying over it, beside the road from its base to the
    h5 column at (110,0). Camera 1's reader sees neither the column nor its road (its only new column
    reading, (111,19), is a piece of the h5 column); the column's sides show grey in camera 1 only
    inside the known road's three-pixel drift margin, and in camera 2 not at all (in the road's
    shadow). Before, no place within a grid step of it was tried and the frame read no build (0.89);
    the grey beside the road is now a place, and the build leads."""
    from referee_app.games.tokyo_builds import likeliest_build

    sim, notes, shots, index = seed59
    adapter = TokyoAdapter()
    adapter.use_calibration(sim.extra["calibration"], **sim.extra.get("calibration_options", {}))
    adapter.use_camera_calibration(2, sim.extra["other_calibrations"][0])
    adapter.watch(play(*notes))
    adapter.read(PairedFrame(shots[0], 0.0, "sim", index, others=[OtherView(shots[1], "sim:camera2")]))
    best = likeliest_build(adapter._builds)
    assert best is not None
    assert (best.support.x, best.support.y, best.support.height) == (80.0, 10.0, 2), best
    column = sum(p for k, p in adapter._builds.belief.items() if isinstance(k, str) and k.startswith("(80,10) h2"))
    assert column > 0.8
