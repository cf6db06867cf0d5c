"""The reader's whole-table reading witnesses for a build only where that build's own pixels speak for
it (issue 19, branch tokyoq2): tuning seed 12 at 550/40, two cameras, asked on the scene where an
illegal build had been taken back and nothing was built (its reading of grey beside s1 turned the
pixels' "no build" round)."""

from __future__ import annotations

import pytest
from test_tokyo_referee import play
from tokyo_poses import calibrated_adapter, scene_shots


def _belief(pixels: float, views: int = 2):
    from engine.tokyo import Build, NewSupport
    from referee_app.games.tokyo_builds import BuildBelief
    from vision.beliefs import EMPTY, REST

    state = play("purple start (-150,-60) table (-150,-170)", "green start (150,-60) table (150,-170)")
    action = Build(1, NewSupport(-150.0, 40.0, 2), player="purple")
    key = "(-150,40) h2 from (-150,-60)"
    builds = BuildBelief({key: 0.4, EMPTY: 0.5, REST: 1e-4}, {key: action}, state, views=views,
                         pixels={key: pixels})
    return builds, key, action


def test_a_build_whose_pixels_favour_the_bare_table_is_not_witnessed() -> None:
    from referee_app.games.tokyo_builds import fuse_reading
    from vision.beliefs import EMPTY

    builds, key, action = _belief(-11.0)
    fuse_reading(builds, action, 0.9)
    assert builds.belief[key] == 0.4 and builds.belief[EMPTY] == 0.5  # untouched
    builds, key, action = _belief(5.0)  # some pixel speaks for it: witnessed as before
    fuse_reading(builds, action, 0.9)
    assert builds.belief[key] > builds.belief[EMPTY]
    builds, key, action = _belief(-11.0, views=1)  # one camera: witnessed as before
    fuse_reading(builds, action, 0.9)
    assert builds.belief[key] > builds.belief[EMPTY]


@pytest.fixture(scope="module")
def seed12():
    """Tuning seed 12 of `eval match tokyo-highway --cameras 2` (550 mm / 40 degrees): the scene after
    green's illegal sixth move was taken back, its first frame from both cameras, and the match then."""
    from datasets.match_sim import Setup
    from datasets.match_sim.tokyo import simulate

    sim = simulate(12, Setup(1280, 720, 550.0, 40.0, fov_deg=50.0, cameras=2))
    assert sim.moves[5].notation == "p2 s4 -> (170,-110) h3" and not sim.moves[5].legal
    k = next(k for k, sc in enumerate(sim.scenes) if sc.checkpoint == 5) + 1
    while sim.scenes[k].hand:
        k += 1
    assert sim.scenes[k].note == "wrong build taken back"
    _, (first, second) = scene_shots(sim, k)
    return sim, play(*(m.notation for m in sim.moves[:5])), first, second


def test_seed12_nothing_built_after_the_take_back_reads_no_build(seed12, tmp_path) -> None:
    """Main: the reader's reading `s3 -> (-150,-80) h1` (its road wholly in the standing road s3 -> s1,
    its column -11 nats in the two views) was multiplied past "no build"."""
    from referee_app.games.tokyo_builds import saw_no_build
    from vision.sources import OtherView, PairedFrame

    sim, state, first, second = seed12
    adapter = calibrated_adapter(sim, tmp_path)
    adapter.watch(state)
    adapter.read(PairedFrame(first, 0.0, "test", 0, others=[OtherView(second, "test:camera2")]))
    assert adapter._builds is not None  # a place was tried
    assert saw_no_build(adapter._builds)
    assert adapter._builds.views == 2  # scored in both views
