"""A new column's place from the far end of its road (issue 19, branch tokyomiss3): the reader places
a column under a lone road end by a guess of the stick's overhang, 4-16 mm; the set's stick length and
the base's top give it (referee_app/games/tokyo_builds.py `road_end_spots`)."""

from __future__ import annotations

import math

import numpy as np
from test_tokyo_referee import STARTED, play
from tokyo_poses import flat_maps, looking_calibration, scene_shots, two_camera_move


def _stick(a, b):
    return {"endpoints_mm": (a, b), "color": "natural"}


def test_a_column_read_short_along_its_road_is_also_tried_where_the_road_ends() -> None:
    """Purple's start column (-150,-60) h1, a new road from its top to an h2 column at (-150,50) (span
    110 mm: the 114 mm stick overhangs each top by about 2 mm). The reader put the column 19 mm short
    along the road (its overhang guess) and read the road's far end where the stick ends: a place
    within a few mm of the column is among the build spots (main: only the read place, whose grid of
    places tried stops a step short)."""
    from referee_app.games.tokyo_builds import build_spots

    calib = looking_calibration(640, 360)
    state = play(*STARTED)
    unit = calib.sizes.unit_mm
    top_z = 1 * unit + calib.sizes.stick_thickness_mm / 2
    observation = {"supports": [{"x_mm": -150.0, "y_mm": 31.0, "height": 2}],
                   "sticks": [_stick((-150.0, -62.0, top_z), (-150.0, 52.0, 2 * unit + 1.5))]}
    maps = flat_maps(calib, 0.0)
    spots = build_spots(state, calib, maps, np.zeros(maps.grey.shape, np.uint8), observation, frozenset())
    assert min(math.hypot(x + 150.0, y - 50.0) for x, y, _ in spots) < 3.0, spots


def test_roads_of_the_match_and_start_roads_give_no_place() -> None:
    """A stick between two known columns (a road of the match), one whose far end lies on the table
    (a start road), and one that leaves no known column give no road-end place."""
    from referee_app.games.tokyo_builds import road_end_spots

    calib = looking_calibration(640, 360)
    state = play(*STARTED, "purple s1 -> (-150,50) h2")
    observation = {"sticks": [_stick((-150.0, -62.0, 11.5), (-150.0, 52.0, 21.5)),
                              _stick((150.0, -62.0, 11.5), (150.0, -170.0, 1.5)),
                              _stick((0.0, 0.0, 11.5), (0.0, 100.0, 21.5))]}
    assert road_end_spots(state, observation, calib.sizes) == []


def test_tuning_seed_56s_tenth_move_is_read_where_the_column_stands(tmp_path) -> None:
    """Seed 56 at 550/40, two cameras (camera 2 at the simulator's default, 750 mm), the tenth move:
    green's h3 column at (260,160) at the end of a road from (260,50), camera 1 knocked. The reader
    put the column at (257.5,141.3) and the road's far end at (260.3,160.8); both views' pixels put the
    column at 160 by over 100 nats, but the places tried stopped at 150, committed at 0.85."""
    from vision.sources import OtherView, PairedFrame

    move = 9
    sim, state, adapter = two_camera_move(56, move, tmp_path)
    assert sim.moves[move].notation == "p2 s8 -> (260,160) h3"
    scene = next(k for k, sc in enumerate(sim.scenes) if sc.checkpoint == move)
    adapter.watch(state)
    index, shots = scene_shots(sim, scene)
    adapter.read(PairedFrame(shots[0], 0.0, "sim", index, others=[OtherView(shots[1], "sim:camera2")]))
    belief = adapter._builds.belief
    truth, short = "(260,160) h3 from (260,50)", "(260,150) h3 from (260,50)"
    assert max((k for k in belief if isinstance(k, str)), key=belief.get) == truth
    assert math.log(belief[truth] / belief.get(short, 1e-9)) > 1.0
