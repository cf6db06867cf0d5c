"""Places along the standing roads where a column shows (issue 19, branch tokyomiss5,
referee_app/games/tokyo_builds.py `road_column_spots`, vision/tokyo/under_roads.py `column_evidence`):
where no place found holds a build, a one-unit column is scored at each grid point along each road,
column against bare road and table, summed over the views, and the points where it wins are tried.
Tuning seed 25's third move at 550/40, two cameras: purple's illegal h2 put under its own start road
showed as a few grey pixels either side of the road in camera 1 and a blob of 19-39 pixels (30 asked)
in camera 2; tried in one frame of five, the move was missed."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
from test_tokyo_referee import STARTED, play
from tokyo_poses import (
    flat_maps,
    looking_calibration,
    still_frame_builds,
    two_camera_move,
)


def _view(state: Any, grey_at: tuple[float, float] | None = None) -> tuple[Any, Any, Any, Any]:
    from referee_app.games.tokyo_builds import known_pieces
    from vision.tokyo.piece_evidence import column_hull, known_mask
    from vision.tokyo.under_roads import road_pixels

    calib = looking_calibration(640, 360)
    maps = flat_maps(calib, -2.0)
    if grey_at is not None:  # a column's first unit, grey, where the road is drawn over it
        hull = column_hull(calib, grey_at[0], grey_at[1], 0.0, calib.sizes.unit_mm)
        paint = np.zeros(maps.grey.shape, np.uint8)
        cv2.fillConvexPoly(paint, hull, 1)
        maps.grey[paint > 0] = 2.0
    columns, sticks = known_pieces(state, calib)
    known = known_mask(calib, maps.grey.shape, columns, sticks)
    return calib, maps, known, road_pixels(calib, maps.grey, columns, sticks)


def test_a_column_under_a_road_is_found_along_it_and_bare_roads_give_no_place() -> None:
    from referee_app.games.tokyo_builds import road_column_spots

    state = play(*STARTED)
    assert road_column_spots(state, [_view(state)], 10.0) == []
    spots = road_column_spots(state, [_view(state, (-150.0, -130.0))], 10.0)
    assert spots and spots[0] == (-150.0, -130.0)
    assert all(x == -150.0 for x, _ in spots)  # only along the road the grey lies on


def test_tuning_seed_25s_third_move_is_scored_in_every_still_frame(tmp_path) -> None:
    """Seed 25 at 550/40, two cameras, the third move: purple's illegal (-150,-130) h2 under its own
    start road, its five still frames read in turn: the build played leads in each (main: in the last
    only, "no build" before)."""
    move = 2
    sim, state, adapter = two_camera_move(25, move, tmp_path)
    assert sim.moves[move].notation == "p1 s1 -> (-150,-130) h2" and not sim.moves[move].legal
    read, _ = still_frame_builds(sim, adapter, state, move)
    assert read == [(-150.0, -130.0, 2, False)] * 5, read
