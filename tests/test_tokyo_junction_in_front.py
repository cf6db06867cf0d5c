"""A junction's top unit in front of a standing piece: its yellow where the known pieces are drawn
(issue 19, branch tokyojx2, vision.tokyo.piece_evidence.junction_in_front). The build scores leave the
known pieces' (grown) pixels out whatever stands nearer the camera; tuning seed 8's seventh move at
550/40, two cameras (an illegal h3 junction): camera 2 shows 68 yellow pixels of its top, 79 of its
82 top pixels lie in the known pieces' mask, 3 were scored, and the pixels alone left the junction
asked against its plain twin (the reader's witness had decided it)."""

from __future__ import annotations

import numpy as np
from tokyo_poses import looking_calibration


def _scores(yellow: float, grey: float, in_known: bool, standing_junction: bool = False):
    from vision.tokyo.piece_evidence import PieceMaps, footprint, footprint_scores

    calib = looking_calibration(640, 360)
    shape = (calib.camera.height, calib.camera.width)
    maps = PieceMaps(np.full(shape, grey, np.float32), np.full(shape, -2.0, np.float32),
                     np.full(shape, yellow, np.float32))
    known = np.zeros(shape, np.uint8)
    base = np.array([-100.0, 60.0, 10.0])
    fp = footprint(calib, known, 0.0, 60.0, 3, (False, True), base)
    assert fp.top is not None and fp.win is not None
    top = int(fp.top.sum())
    if in_known:  # a standing road drawn over the whole top unit (the new column in front of it)
        known[fp.win][fp.top] = 1
        fp = footprint(calib, known, 0.0, 60.0, 3, (False, True), base)
    yellow_known = np.zeros(shape, bool)
    if standing_junction:
        yellow_known[:] = True
    plain, junction = footprint_scores(maps, fp, (False, True), yellow_known=yellow_known)
    return top, plain.total, junction.total


def test_yellow_in_the_known_mask_speaks_for_the_junction() -> None:
    top, plain, junction = _scores(yellow=2.0, grey=-2.0, in_known=True)
    assert junction - plain == 2.0 * top > 0  # main: 0, the pixels left out for both twins


def test_grey_in_the_known_mask_says_nothing() -> None:
    """The standing piece may be what shows there: no grey counted for the plain column either."""
    _, plain, junction = _scores(yellow=-2.0, grey=2.0, in_known=True)
    assert junction == plain


def test_a_standing_junctions_top_is_no_evidence() -> None:
    _, plain, junction = _scores(yellow=2.0, grey=-2.0, in_known=True, standing_junction=True)
    assert junction == plain


def test_seed_8s_illegal_junction_leads_its_plain_twin_on_its_pixels(tmp_path) -> None:
    """The pixels alone (BuildBelief.pixels: no reader's witness) put the junction well above its
    plain twin: 251 nats over the two views; main: 102 (camera 2 scored 3 of its top's pixels)."""
    from test_tokyo_referee import play
    from tokyo_poses import calibrated_adapter, scene_shots

    from referee_app.commands.eval_match import make_setup, simulate
    from vision.sources import OtherView, PairedFrame

    move = 6
    sim = simulate("tokyo-highway", 8, make_setup("1280x720", 550, 40, fov=50.0, cameras=2))
    assert sim.moves[move].notation == "p1 s5 -> (-190,-50) h3 junction" and not sim.moves[move].legal
    scene = next(k for k, sc in enumerate(sim.scenes) if sc.checkpoint == move)
    index, (first, second) = scene_shots(sim, scene)
    adapter = calibrated_adapter(sim, tmp_path)
    adapter.watch(play(*(m.notation for m in sim.moves[:move] if m.legal)))
    adapter.read(PairedFrame(first, 0.0, "sim", index, others=[OtherView(second, "sim:camera2")]))
    px = adapter._builds.pixels
    lead = px["(-190,-50) h3 junction from (-220,10)"] - px["(-190,-50) h3 from (-220,10)"]
    assert lead > 150.0, lead
