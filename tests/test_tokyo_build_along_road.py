"""With several cameras, the reader's place for a new column along its own road is a guess (where it
takes the stick's overhang to end), as for a start column: both views' pixels place the column
(referee_app/games/tokyo_builds.py `_build_placement`)."""

from __future__ import annotations

import math

import pytest
from tokyo_poses import AT_550, calibrated_adapter, scene_shots


def test_along_its_road_a_step_costs_little_with_two_views_and_across_it_as_before() -> None:
    from referee_app.games.tokyo_builds import TEMPERATURE, _build_placement, _placement

    road = (0.0, -110.0)  # from the base towards the new column
    along, across = _build_placement(0.0, -10.0, 4.0, road, 2), _build_placement(10.0, 0.0, 4.0, road, 2)
    assert -along < 0.5 * TEMPERATURE < -across
    assert across == pytest.approx(_placement(10.0, 0.0, 4.0))
    assert _build_placement(0.0, -10.0, 4.0, road, 1) == _placement(0.0, -10.0, 4.0)  # one view: as read


def test_tuning_seed_50s_column_at_its_road_end_is_read_where_it_stands(tmp_path) -> None:
    """Seed 50 at 550/40, two cameras, the eighth move: green's h2 column at (60,-120) at the end of a
    road from (60,-10). The reader put it 11 mm short along the road; both views' pixels put it where
    it stands by some 400 nats, and the 4 mm prior on the read place took as much back (a question)."""
    from test_tokyo_referee import play

    from referee_app.commands.eval_match import make_setup, simulate
    from referee_app.games.tokyo_builds import likeliest_build
    from vision.sources import OtherView, PairedFrame

    sim = simulate("tokyo-highway", 50, make_setup("1280x720", 550, 40, fov=50.0, cameras=2, second=AT_550))
    move = 7
    assert sim.moves[move].notation == "p2 s4 -> (60,-120) h2"
    state = play(*(m.notation for m in sim.moves[:move] if m.legal))
    adapter = calibrated_adapter(sim, tmp_path)
    scene = next(k for k, sc in enumerate(sim.scenes) if sc.checkpoint == move)
    adapter.watch(state)
    index, shots = scene_shots(sim, scene)
    adapter.read(PairedFrame(shots[0], 0.0, "sim", index, others=[OtherView(shots[1], "sim:camera2")]))
    best = likeliest_build(adapter._builds)
    assert best is not None
    assert (best.support.x, best.support.y, best.support.height) == (60.0, -120.0, 2), best
    assert math.isclose(best.support.y, -120.0)
