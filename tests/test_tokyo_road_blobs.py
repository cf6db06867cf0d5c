"""A new road no reading found, found by its colour (issue 19, branch tokyomiss6,
vision/tokyo/road_blobs.py `road_blob_ends`, referee_app/games/tokyo_builds.py `road_blob_spots`):
where no place found holds a build, a blob of road colour off the standing pieces that leaves a
standing column's top is a new road, and its far end, put back at each height, gives the places its
column is tried at. Tuning seed 59's tenth move at 550/40, two cameras: green's (80,10) h2 beside and
under the standing road from its base; no view read its road, its grey lay inside the standing road's
mask, no place was tried and the move was missed."""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np
from test_tokyo_referee import STARTED, play
from tokyo_poses import flat_maps, looking_calibration, still_frame_builds, two_camera_move


def _view(state: Any, road_to: tuple[float, float, float] | None = None) -> tuple[Any, Any, Any, Any]:
    """A still camera's maps of `state`'s table, bare, or with a new road's band painted (road colour)
    from green's start column's top to `road_to` (x, y, top z in mm)."""
    from referee_app.games.tokyo_builds import known_pieces
    from vision.tokyo.piece_evidence import known_mask, stick_axis, stick_quad

    calib = looking_calibration(640, 360)
    maps = flat_maps(calib, -2.0)
    columns, sticks = known_pieces(state, calib)
    known = known_mask(calib, maps.grey.shape, columns, sticks)
    if road_to is not None:
        base = state.support(2)
        a, b = stick_axis(calib, np.array([base.x, base.y, base.height * calib.sizes.unit_mm]),
                          np.array(road_to), False, False)
        paint = np.zeros(maps.road.shape, np.uint8)
        cv2.fillConvexPoly(paint, stick_quad(calib, a, b), 1)
        maps.road[paint > 0] = 2.0
    return calib, maps, known, None


def test_a_new_roads_far_end_gives_its_column_and_a_bare_table_none() -> None:
    from referee_app.games.tokyo_builds import road_blob_spots

    state = play(*STARTED)
    assert road_blob_spots(state, [_view(state)]) == []
    # green's start column (150,-60) h1; a road from its top to a column at (150,10) h2
    spots = road_blob_spots(state, [_view(state, (150.0, 10.0, 20.0))])
    assert spots and {b for _, _, b, _ in spots} == {2}  # tried from the road's own base only
    # the column built is among the builds tried: a place whose grid (a step round its nearest grid
    # point, read_builds') holds it, put back at its height or a unit either side
    assert any(abs(round(x / 10) * 10 - 150) <= 10 and abs(round(y / 10) * 10 - 10) <= 10 and abs(h - 2) <= 1
               for x, y, _, h in spots), spots
    assert min(math.hypot(x - 150.0, y - 10.0) for x, y, _, _ in spots) < 15.0, spots
    # one place per height a road from the base could rest on, none at the base
    assert all(math.hypot(x - 150.0, y + 60.0) >= 22.5 for x, y, _, _ in spots)


def test_road_colour_that_leaves_no_column_gives_no_place() -> None:
    from vision.tokyo.road_blobs import road_blob_ends

    state = play(*STARTED)
    calib, maps, known, _ = _view(state)
    maps.road[300:330, 20:60] = 2.0  # a brown patch in a corner, far from every column's top
    tops = [(s.x, s.y, s.height * calib.sizes.unit_mm) for s in state.supports]
    assert road_blob_ends(maps, calib, known, tops) == []


def test_tuning_seed_59s_tenth_move_is_tried_and_leads_in_every_still_frame(tmp_path) -> None:
    """Seed 59 at 550/40, two cameras, the tenth move: green's (80,10) h2 from (80,-60), its five still
    frames read in turn: the build played leads in each (main 6474478: no build in any)."""
    move = 9
    sim, state, adapter = two_camera_move(59, move, tmp_path)
    assert sim.moves[move].notation == "p2 s4 -> (80,10) h2" and sim.moves[move].legal
    read, _ = still_frame_builds(sim, adapter, state, move)
    assert read == [(80.0, 10.0, 2, False)] * 5, read
