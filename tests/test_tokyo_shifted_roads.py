"""A knocked camera's maps moved by a residual shift score a column under a standing road against that
road's grey share measured on the same moved maps (referee_app.games.tokyo_builds._moved, issue 19,
branch tokyo116). Measured on the unmoved maps, the share could come out negative where the moved
maps show more grey, the bare road's odds of grey were zero, and the candidate scored +inf in that
shift and NaN in the mixture: tuning seed 116's ninth move at 550/40, two cameras (an illegal h5
junction, camera 1 knocked before it) lost the build played from its belief and was missed."""

from __future__ import annotations

import math
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def seed116_move8(tmp_path_factory):
    """Tuning seed 116 of `eval match tokyo-highway --cameras 2` (550 mm / 40 degrees, the default
    second camera): the first still frame of green's illegal `s6 -> (60,-50) h5 junction` from the
    five-unit junction at (60,-120), beside the three-unit junction at (60,-10)."""
    from tokyo_poses import calibrated_adapter, scene_shots

    from referee_app.commands.eval_match import make_setup, simulate

    sim = simulate("tokyo-highway", 116, make_setup("1280x720", 550, 40, fov=50.0, cameras=2))
    move = sim.moves[8]
    assert move.notation == "p2 s6 -> (60,-50) h5 junction" and not move.legal
    k = next(k for k, sc in enumerate(sim.scenes) if sc.checkpoint == 8)
    assert any(sc.bump for sc in sim.scenes[:k])
    index, shots = scene_shots(sim, k)
    adapter = calibrated_adapter(sim, Path(tmp_path_factory.mktemp("seed116")))
    return sim, adapter, index, shots


def test_seed116_the_illegal_build_is_scored_and_leads_after_the_knock(seed116_move8) -> None:
    """Main: the h5 junction built (and every h4-h8 candidate from its base) scored NaN in camera 1
    under one of the shifts; the belief led with h4 junction and h3. Now every candidate's score is
    a number and the build played leads."""
    from test_tokyo_referee import play

    from vision.beliefs import REST
    from vision.sources import OtherView, PairedFrame

    sim, adapter, index, (first, second) = seed116_move8
    adapter.watch(play(*(m.notation for m in sim.moves[:8] if m.legal)))
    adapter.read(PairedFrame(first, 0.0, "test", index, others=[OtherView(second, "test:camera2")]))
    assert adapter._track.drift is not None  # camera 1's knock was found and undone
    belief = adapter._builds.belief
    assert all(math.isfinite(p) for p in belief.values())
    assert max((k for k in belief if k is not REST), key=belief.get) == "(60,-50) h5 junction from (60,-120)"


def test_a_moved_views_roads_are_measured_on_the_moved_maps() -> None:
    """`_moved` gives the moved maps and the roads' grey re-measured on them: the same sums as
    under_roads.road_pixels on the moved grey map, so no hidden pixels can show more grey than their
    road holds in all."""
    import numpy as np
    from tokyo_poses import looking_calibration

    from referee_app.games.tokyo_builds import View, _moved
    from vision.tokyo.local_shift import shifted
    from vision.tokyo.piece_evidence import LLR_SCALE, PieceMaps, known_mask, stick_axis
    from vision.tokyo.under_roads import road_pixels

    calib = looking_calibration(640, 360)
    columns = [(0.0, 0.0, 20.0), (80.0, 0.0, 20.0)]
    sticks = [stick_axis(calib, np.array([0.0, 0.0, 20.0]), np.array([80.0, 0.0, 20.0]))]
    shape = (calib.camera.height, calib.camera.width)
    rng = np.random.default_rng(0)
    grey = np.where(rng.random(shape) < 0.3, LLR_SCALE, -LLR_SCALE).astype(np.float32)
    maps = PieceMaps(grey, grey.copy(), grey.copy())
    known = known_mask(calib, shape, columns, sticks)
    v = View(calib, maps, known, {}, road_pixels(calib, grey, columns, sticks), known,
             pieces=(columns, sticks))
    assert _moved(v, 0, 0) == (v.maps, v.roads)
    moved, roads = _moved(v, 3, -2)
    want = road_pixels(calib, shifted(maps, 3, -2).grey, columns, sticks)
    assert np.array_equal(moved.grey, shifted(maps, 3, -2).grey)
    assert np.array_equal(roads.label, want.label) and np.allclose(roads.grey_sum, want.grey_sum)
