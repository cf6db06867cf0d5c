"""A seen top unit without one yellow pixel is evidence against the junction twin (issue 19, branch
tokyoq8, referee_app.games.tokyo_builds._twins_by_yellow): where a view shows BARE_TOP_PX or more of
a junction candidate's free top pixels and none of them (nor of its road's band over the top) reads
yellow, the junction falls BARE_TOP_LLR units of belief below its plain twin, the pair's summed belief
kept. A plain build whose top lies in its road's shade read road-coloured, so the maps' per-pixel
scores barely split the twins and plain builds were asked about (tuning seeds 16, 86, 91, 96)."""

from __future__ import annotations

import numpy as np
from tokyo_poses import looking_calibration


def _grey_top(seen: bool) -> tuple[list[float], list[float]]:
    from referee_app.games.tokyo_builds import View, _scores_seen, _twins_by_yellow
    from vision.tokyo.piece_evidence import PieceMaps, footprint

    calib = looking_calibration(640, 360)
    shape = (calib.camera.height, calib.camera.width)
    base = np.array([-100.0, 60.0, 20.0])
    known = np.zeros(shape, np.uint8)
    fp = footprint(calib, known, 0.0, 60.0, 3, (False, True), base)
    assert fp.top is not None and fp.win is not None and fp.top.sum() >= 20
    grey, road, yellow = (np.full(shape, -2.0, np.float32) for _ in range(3))
    grey[fp.win][fp.column] = 2.0
    road[fp.win][fp.band] = 2.0
    # the top unit in its road's shade: road-coloured, as tuning seed 91's sixth move shows it
    grey[fp.win][fp.top] = -1.0
    road[fp.win][fp.top] = 2.0
    if not seen:  # fewer free top pixels than BARE_TOP_PX in the picture: the rest washed out
        keep = np.flatnonzero(fp.top.ravel())[:5]
        washed = fp.top.copy().ravel()
        washed[keep] = False
        for m in (grey, road, yellow):
            m[fp.win][washed.reshape(fp.top.shape)] = 0.0
    v = View(calib, PieceMaps(grey, road, yellow), known, {}, yellow_known=np.zeros(shape, bool))
    both, _ = _scores_seen([v], 0.0, 60.0, 3, (False, True), base)
    return list(both), _twins_by_yellow([v], 0.0, 60.0, 3, base, list(both))


def test_a_seen_top_without_yellow_puts_the_plain_twin_ahead_and_keeps_the_pair() -> None:
    from referee_app.games.tokyo_builds import BARE_TOP_LLR, TEMPERATURE

    (plain, junction), (plain2, junction2) = _grey_top(seen=True)
    t = TEMPERATURE
    assert np.isclose(np.logaddexp(plain / t, junction / t), np.logaddexp(plain2 / t, junction2 / t))
    # main: the maps' own difference only (the split unchanged)
    assert np.isclose((plain2 - junction2) - (plain - junction), t * BARE_TOP_LLR)


def test_a_top_too_little_seen_leaves_the_twins_as_scored() -> None:
    both, split = _grey_top(seen=False)
    assert split == both


def test_seed_91s_plain_h3_is_not_split_with_its_junction_twin(tmp_path) -> None:
    """Tuning seed 91's sixth move at 550/40, two cameras: a plain h3 whose top camera 1 does not see
    and camera 2 sees as 30 free pixels and 116 in its road's band over it, road-coloured, none yellow.
    First still frame: the plain column over 0.9 of the pair's belief (main: 0.57 plain, 0.42 its
    junction twin, and the move asked)."""
    from test_tokyo_referee import play
    from tokyo_poses import scene_shots, two_camera_move

    from vision.sources import OtherView, PairedFrame

    move = 5
    sim, state, adapter = two_camera_move(91, move, tmp_path)
    assert sim.moves[move].notation == "p1 s3 -> (-330,-160) h3"
    scene = next(k for k, sc in enumerate(sim.scenes) if sc.checkpoint == move)
    index, (first, second) = scene_shots(sim, scene)
    adapter.watch(play(*(m.notation for m in sim.moves[:move] if m.legal)))
    adapter.read(PairedFrame(first, 0.0, "sim", index, others=[OtherView(second, "sim:camera2")]))
    belief = adapter._builds.belief
    plain = belief["(-330,-160) h3 from (-240,-110)"]
    junction = belief["(-330,-160) h3 junction from (-240,-110)"]
    assert plain / (plain + junction) > 0.9, (plain, junction)
    assert plain + junction > 0.9
