"""New columns' places kept over the frames of one state of the match (issue 19, branch tokyo119,
referee_app/games/tokyo_builds.py `KeptPlaces`): a place found in one frame, where some build beat "no
build", is tried again in the frames that follow though their noise hides the grey blob that found it.
Tuning seed 119's third move at 550/40, two cameras: a junction column under its own start road, found
only by a blob of grey on that road a few pixels over the size asked in two frames and under it in the
next three; those three tried no place, said "no build", and the move was missed (not even asked)."""

from __future__ import annotations

import numpy as np
from test_tokyo_referee import STARTED, play
from tokyo_poses import (
    flat_maps,
    looking_calibration,
    still_frame_builds,
    two_camera_move,
)


def test_a_kept_place_is_tried_where_nothing_is_found_now_and_forgotten_in_another_state() -> None:
    from referee_app.games.tokyo_builds import KeptPlaces, build_spots

    calib = looking_calibration(640, 360)
    state = play(*STARTED)
    maps = flat_maps(calib, -2.0)
    known = np.zeros(maps.grey.shape, np.uint8)
    kept = KeptPlaces()
    kept.of(state).append((-150.0, -130.0, 8.0))
    assert build_spots(state, calib, maps, known, {}, frozenset(), kept=kept.of(state)) == [(-150.0, -130.0, 8.0)]
    # a place read now within a column's width of it is tried instead (its grid covers the same places)
    observation = {"supports": [{"x_mm": -148.0, "y_mm": -127.0, "height": 3}]}
    spots = build_spots(state, calib, maps, known, observation, frozenset(), kept=kept.of(state))
    assert [(x, y) for x, y, _ in spots] == [(-148.0, -127.0)]
    assert kept.of(play(*STARTED, "purple s1 -> (-150,50) h2")) == []


def test_a_place_is_kept_only_where_a_build_beat_no_build() -> None:
    from referee_app.games.tokyo_builds import KeptPlaces, read_builds

    calib = looking_calibration(640, 360)
    state = play(*STARTED)
    observation = {"supports": [{"x_mm": -150.0, "y_mm": 50.0, "height": 2}]}
    kept = KeptPlaces()
    read_builds(state, calib, flat_maps(calib, -2.0), observation, 10.0, kept=kept)
    assert kept.of(state) == []  # the table there: no build beat "no build"
    grey = read_builds(state, calib, flat_maps(calib, 2.0), observation, 10.0, kept=kept)
    # the place kept is where the best build round the place read put its column (on maps grey
    # everywhere, a grid step nearer the base at (-150,-60)), with the place's spread; not the place read
    assert grey is not None
    assert [p for p in kept.of(state) if p[2] == 4.0] == [(-150.0, 40.0, 4.0)]
    # the next frame finds nothing (no reading, bare maps): the kept place is scored all the same
    belief = read_builds(state, calib, flat_maps(calib, -2.0), {}, 10.0, kept=kept)
    assert belief is not None and len(belief.belief) > 2
    assert (-150.0, 40.0, 4.0) not in kept.of(state)  # it no longer holds: dropped


def test_tuning_seed_119s_third_move_is_scored_in_every_still_frame(tmp_path) -> None:
    """Seed 119 at 550/40, two cameras (camera 2 at the default 750 mm), the third move: purple's
    illegal (-150,-130) h3 junction under its own start road, its five still frames read in turn. The
    build played leads in every one (main: frames 17-19 tried no place, "no build")."""
    move = 2
    sim, state, adapter = two_camera_move(119, move, tmp_path)
    assert sim.moves[move].notation == "p1 s1 -> (-150,-130) h3 junction" and not sim.moves[move].legal
    read, bumps = still_frame_builds(sim, adapter, state, move)
    assert bumps == 0
    assert set(read) == {(-150.0, -130.0, 3, True)}, read


def test_tuning_seed_13s_fifth_move_keeps_the_place_its_evidence_found(tmp_path) -> None:
    """Seed 13 at 550/40, two cameras, the fifth move: green's illegal (120,-120) h2, its column hidden
    under its own road's end in both pictures. The only place found is a grey sliver on the column's
    side, put back on the table 15 mm from the column (its lowest pixels are the column's middle, not
    its foot), so the grid round it tries y -110..-90, not -120; one frame's blob lies a few mm nearer
    and tries it, and the build played leads there by 480 nats. Kept from that frame at the best
    build's place (not the blob's), it leads every later frame too (main: one frame of five)."""
    move = 4
    sim, state, adapter = two_camera_move(13, move, tmp_path)
    assert sim.moves[move].notation == "p2 s2 -> (120,-120) h2" and not sim.moves[move].legal
    read, _ = still_frame_builds(sim, adapter, state, move)
    assert read[1:] == [(120.0, -120.0, 2, False)] * 4, read
