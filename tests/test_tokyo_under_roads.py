"""A new column under a standing road: its pixels there are scored column against bare road
(vision.tokyo.under_roads), and a place is tried where a road shows more grey than its own share."""

from __future__ import annotations

import numpy as np
import pytest
from tokyo_poses import AT_550

from datasets.match_sim.core import SecondCamera


def _roads(share_elsewhere: float, hidden_share: float) -> tuple[object, np.ndarray, np.ndarray]:
    """One road of 400 pixels in a 20x20 window; its top 80 pixels are where the column would stand,
    showing `hidden_share` grey, the rest `share_elsewhere` (as grey-map log-ratios, +-2 nats)."""
    from vision.tokyo.under_roads import RoadPixels

    label = np.ones((20, 20), np.int32)
    grey = np.full((20, 20), -2.0, np.float32)
    hidden = np.zeros((20, 20), bool)
    hidden[:4] = True
    flat = grey.ravel()
    flat[:int(80 * hidden_share)] = 2.0  # the hidden rows come first in raster order
    rest = np.arange(80, 400)
    flat[rest[:int(320 * share_elsewhere)]] = 2.0
    share = (grey / 4 + 0.5).ravel()
    roads = RoadPixels(label, np.array([0.0, float(share.sum())]), np.array([0.0, 400.0]))
    return roads, grey, hidden


def test_grey_beyond_the_roads_own_share_is_evidence_for_a_column() -> None:
    from vision.tokyo.under_roads import hidden_column_llr

    win = (slice(0, 20), slice(0, 20))
    roads, grey, hidden = _roads(0.05, 0.6)
    assert hidden_column_llr(roads, grey, hidden, win) > 30.0


def test_grey_the_road_itself_shows_is_no_column() -> None:
    from vision.tokyo.under_roads import hidden_column_llr

    # a pale road: as grey where the column would stand as everywhere else on it
    win = (slice(0, 20), slice(0, 20))
    roads, grey, hidden = _roads(0.4, 0.4)
    assert hidden_column_llr(roads, grey, hidden, win) < 0.0
    roads, grey, hidden = _roads(0.05, 0.05)
    assert hidden_column_llr(roads, grey, hidden, win) < 0.0


def test_too_few_hidden_pixels_say_nothing() -> None:
    from vision.tokyo.under_roads import hidden_column_llr

    roads, grey, hidden = _roads(0.05, 0.6)
    few = np.zeros_like(hidden)
    few[0, :5] = True
    assert hidden_column_llr(roads, grey, few, (slice(0, 20), slice(0, 20))) == 0.0


def _frame_beliefs(seed: int, move: int, after: bool = False) -> tuple[object, str]:
    """The build belief of the simulated match `seed` (two cameras at 550 mm / 40 degrees) on the last
    still frame of `move` (1-based), read against the match before it (or after it, `after`), and
    the key of the move played."""
    import cv2

    import engine
    from datasets.match_sim import tokyo as sim_tokyo
    from datasets.match_sim.core import Setup
    from datasets.tokyo.state_scene import seen_action
    from referee_app.games import tokyo_builds
    from vision.tokyo import TokyoCalibration
    from vision.tokyo.piece_evidence import piece_maps, scaled

    sim = sim_tokyo.simulate(seed, Setup(1280, 720, 550, 40.0, fov_deg=50.0, cameras=2, second=AT_550))
    state = engine.get_game("tokyo-highway").new_state()
    for m in sim.moves[:move - 1]:
        action = seen_action(state, m.notation)
        state = state.apply(action, state.judge(action))
    truth = seen_action(state, sim.moves[move - 1].notation)
    key = tokyo_builds.pieces_key(state, truth)
    if after:
        state = state.apply(truth, state.judge(truth))
    k = next(i for i, s in enumerate(sim.scenes) if s.checkpoint == move - 1)
    scene = sim.scenes[k]
    calibrations = [sim.extra["calibration"], *sim.extra["other_calibrations"]]
    views = []
    for data, photographer in zip(calibrations, [sim.photographer, *sim.others], strict=True):
        image = photographer.expose(photographer.light(sim.draw(scene.content, photographer.pose), scene, k), 0)
        small = scaled(TokyoCalibration.from_dict(data), 0.5)
        size = (small.camera.width, small.camera.height)
        views.append((small, piece_maps(cv2.resize(image, size, interpolation=cv2.INTER_AREA)), {}))
    (small, maps, outlines), others = views[0], views[1:]
    return tokyo_builds.read_builds(state, small, maps, {}, 10.0, frozenset(), outlines, others), key


@pytest.mark.parametrize("seed", [25, 50])
def test_a_column_under_its_own_start_road_is_read(seed: int) -> None:
    """Tuning seeds 25 and 50: an illegal column put under a start road (h2 at (-150,-130), (150,-130)).
    Its grey shows only where the road is drawn, so on main no place was tried (no build)."""
    from referee_app.games.tokyo_builds import likeliest_build, pieces_key

    move = {25: 3, 50: 5}[seed]
    builds, key = _frame_beliefs(seed, move)
    assert builds is not None
    best = likeliest_build(builds)
    assert best is not None and pieces_key(builds.state, best) == key


def test_a_still_table_after_a_build_reads_no_build() -> None:
    """Tuning seed 41's last build read against the match that holds it: nothing new, though its
    roads' long edges show thin pale lines (no place is tried there)."""
    from referee_app.games.tokyo_builds import saw_no_build

    builds, _ = _frame_beliefs(41, 10, after=True)
    assert saw_no_build(builds)


def test_a_column_at_camera_1s_edge_that_camera_2_holds_whole_is_not_said() -> None:
    """Two cameras 150 degrees apart, the second 200 mm higher: a new column at (340,-60) is cut by
    camera 1's frame and whole in camera 2's, so it is read there and no edge notice is raised; one at
    (420,-60) is cut by both and is said. On main the notice looked at camera 1 alone."""
    from datasets.match_sim import tokyo as sim_tokyo
    from datasets.match_sim.core import Setup
    from engine.tokyo import Build, NewSupport
    from referee_app.games.tokyo import TokyoAdapter
    from vision.tokyo import PieceSizes, TokyoCalibration

    setup = Setup(1280, 720, 550, 40, fov_deg=50.0, cameras=2, second=SecondCamera(150.0, 750.0))
    calibs = [TokyoCalibration(sim_tokyo.camera(setup, 0.0), PieceSizes()),
              TokyoCalibration(sim_tokyo.second_camera(setup, 0.0), PieceSizes())]
    adapter = TokyoAdapter()
    state = object()
    adapter._say_at_edge(state, calibs, Build(1, NewSupport(340.0, -60.0, 3, False)))
    assert adapter.take_notices() == []
    adapter._say_at_edge(state, calibs, Build(1, NewSupport(420.0, -60.0, 3, False)))
    notices = adapter.take_notices()
    assert len(notices) == 1 and "every camera's view" in notices[0][1]
