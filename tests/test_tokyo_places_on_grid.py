"""Places a new column is tried around are one place only where they try the same candidates: the
same grid point nearest both (referee_app.games.tokyo_builds._tries_same, issue 19, branch tokyo116).
A place a few mm from another across a half grid step tries other columns; left out as "within a
column's width", the column built could be tried in no frame after the first (tuning seed 68's
ninth move at 550/40, two cameras: committed a grid step short and a unit low, at 0.72)."""

from __future__ import annotations

import numpy as np
from test_tokyo_referee import STARTED, play
from tokyo_poses import calibrated_adapter, flat_maps, looking_calibration, still_frame_builds


def test_a_kept_place_across_a_half_step_from_a_found_one_is_tried_too() -> None:
    """A place kept from an earlier frame 9 mm from the one found now, nearest another grid point
    (-190 against -180 on a 10 mm grid), is among the places; on the same grid point it is not."""
    from referee_app.games.tokyo_builds import build_spots

    calib = looking_calibration(640, 360)
    state = play(*STARTED)
    maps = flat_maps(calib, -2.0)
    known = np.zeros(maps.grey.shape, np.uint8)
    seen = {"supports": [{"x_mm": 88.6, "y_mm": -184.9, "height": 3}]}
    across = (89.7, -194.1, 8.0)
    spots = build_spots(state, calib, maps, known, seen, frozenset(), kept=[across], step=10.0)
    assert across in spots
    same = (89.7, -182.0, 8.0)
    assert same not in build_spots(state, calib, maps, known, seen, frozenset(), kept=[same], step=10.0)


def test_tuning_seed_68s_ninth_move_is_tried_where_it_stands_in_every_still_frame(tmp_path) -> None:
    """Seed 68 at 550/40, two cameras (the default second camera), green's `s4 -> (90,-200) h4
    junction` from (90,-90), camera 1 knocked before: its five still frames read in turn through one
    adapter. The build played leads in every frame (main: the first only; from the second the road's
    end put the place at (88.6,-184.9), the grey blob and the kept place nearer -200 were left out as
    within a column's width of it, and (90,-190) h3 junction led at 0.73-0.76)."""
    from referee_app.commands.eval_match import make_setup, simulate

    move = 8
    sim = simulate("tokyo-highway", 68, make_setup("1280x720", 550, 40, fov=50.0, cameras=2))
    assert sim.moves[move].notation == "p2 s4 -> (90,-200) h4 junction" and sim.moves[move].legal
    state = play(*(m.notation for m in sim.moves[:move] if m.legal))
    adapter = calibrated_adapter(sim, tmp_path)
    read, _ = still_frame_builds(sim, adapter, state, move)
    assert adapter._track.drift is not None  # camera 1's knock found
    assert set(read) == {(90.0, -200.0, 4, True)}, read
