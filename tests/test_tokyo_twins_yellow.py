"""A junction and its plain twin split by their top unit's yellow (issue 19, branch tokyoq6,
referee_app.games.tokyo_builds._twins_by_yellow): a yellow pixel of a top unit counts at
JUNCTION_YELLOW_LLR for the junction against the plain column (no plain top pixel reads yellow), the
pair's summed belief is kept (no height or place moves against it), and a top no view sees leaves
both scores as they were (a top seen grey without yellow: tests/test_tokyo_bare_top.py)."""

from __future__ import annotations

import numpy as np
from tokyo_poses import looking_calibration


def _twins(yellow_top: bool, glare_top: bool = False) -> tuple[list[float], list[float], int]:
    from referee_app.games.tokyo_builds import TEMPERATURE, View, _scores_seen, _twins_by_yellow
    from vision.tokyo.piece_evidence import PieceMaps, footprint

    calib = looking_calibration(640, 360)
    shape = (calib.camera.height, calib.camera.width)
    base = np.array([-100.0, 60.0, 20.0])
    known = np.zeros(shape, np.uint8)
    fp = footprint(calib, known, 0.0, 60.0, 3, (False, True), base)
    assert fp.top is not None and fp.band_top is not None and fp.win is not None
    grey, road, yellow = (np.full(shape, -2.0, np.float32) for _ in range(3))
    grey[fp.win][fp.column] = 2.0  # a grey column under its road
    road[fp.win][fp.band] = 2.0
    if yellow_top:  # its top unit yellow: the free pixels and a sliver of the band over it
        grey[fp.win][fp.top] = -2.0
        yellow[fp.win][fp.top] = 2.0
        yellow[fp.win][fp.band_top] = 2.0
        road[fp.win][fp.band_top] = -2.0
    if glare_top:  # its top unit washed out: the maps say nothing there (no view sees the top)
        for m in (grey, road, yellow):
            m[fp.win][fp.top] = 0.0
    v = View(calib, PieceMaps(grey, road, yellow), known, {}, yellow_known=np.zeros(shape, bool))
    both, _ = _scores_seen([v], 0.0, 60.0, 3, (False, True), base)
    split = _twins_by_yellow([v], 0.0, 60.0, 3, base, list(both))
    assert TEMPERATURE > 0
    return list(both), split, int(fp.top.sum() + fp.band_top.sum())


def test_a_yellow_top_puts_the_junction_far_above_its_twin_and_keeps_the_pair() -> None:
    from referee_app.games.tokyo_builds import TEMPERATURE

    (plain, junction), (plain2, junction2), _ = _twins(yellow_top=True)
    t = TEMPERATURE
    assert np.isclose(np.logaddexp(plain / t, junction / t), np.logaddexp(plain2 / t, junction2 / t))
    assert junction2 - plain2 > junction - plain + 100.0  # main: the maps' own difference only


def test_a_top_no_view_sees_leaves_the_twins_as_the_maps_score_them() -> None:
    both, split, _ = _twins(yellow_top=False, glare_top=True)
    assert split == both  # no yellow, but no top pixel seen either: as scored
    # (a grey top that is seen: tests/test_tokyo_bare_top.py)


def test_seed_58s_junction_leads_its_plain_twin_on_its_sliver_of_yellow(tmp_path) -> None:
    """Tuning seed 58's sixth move at 550/40, two cameras: an h4 junction whose top shows camera 2 a
    sliver (12 yellow pixels of 33 free, 8 in the band over it; camera 1 none). First frame of the scene:
    the junction's share of the pair's belief over 0.8 (main: 0.62), the pair's sum as on main (0.82)."""
    from test_tokyo_referee import play
    from tokyo_poses import scene_shots, two_camera_move

    from vision.sources import OtherView, PairedFrame

    move = 6
    sim, state, adapter = two_camera_move(58, move, tmp_path)
    assert sim.moves[move].notation == "p1 s5 -> (-350,-170) h4 junction"
    scene = next(k for k, sc in enumerate(sim.scenes) if sc.checkpoint == move)
    index, (first, second) = scene_shots(sim, scene)
    adapter.watch(play(*(m.notation for m in sim.moves[:move] if m.legal)))
    adapter.read(PairedFrame(first, 0.0, "sim", index, others=[OtherView(second, "sim:camera2")]))
    belief = adapter._builds.belief
    junction = belief["(-350,-170) h4 junction from (-260,-120)"]
    plain = belief["(-350,-170) h4 from (-260,-120)"]
    assert junction / (junction + plain) > 0.8, (junction, plain)
    assert 0.75 < junction + plain < 0.9
