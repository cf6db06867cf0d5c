"""Tokyo Highway builds scored against the engine's table (referee_app/games/tokyo_builds.py,
vision/tokyo/piece_evidence.py): a natural road on the yellow printed mat, which the reader's own
masks do not separate from the mat, is still refereed; a knocked camera is brought back to its
calibration from the pieces already standing."""

from __future__ import annotations

import numpy as np
import pytest

import engine
from referee_app import demo_tokyo as dt
from referee_app.games.tokyo import TokyoAdapter
from referee_app.games.tokyo_builds import camera_drift
from vision.types import Frame

GAME = engine.get_game("tokyo-highway")
STARTED = ("purple start (-150,-60) table (-150,-170)", "green start (150,-60) table (150,-170)")
BUILD = "purple s1 -> (-60,-10) h2"
YELLOW_SEED = 1  # render_tokyo_frame's seed 1 draws the yellow mat (checked below)


def play(*moves: str):
    state = GAME.new_state()
    for move in moves:
        action = dt.seen_action(state, move)
        state = state.apply(action, state.judge(action))
    return state


def shot(scene, camera, seed: int = YELLOW_SEED) -> np.ndarray:
    from datasets.tokyo.render import render_tokyo_frame

    return render_tokyo_frame(scene, seed, camera=camera, table="mat", hand=False, glare=False)[0]


@pytest.fixture(scope="module")
def yellow():
    """The start roads, then purple's first road, on the yellow mat (natural wooden roads)."""
    from vision.tokyo import PieceSizes, TokyoCalibration

    camera = dt.demo_camera()
    started = play(*STARTED)
    build = dt.seen_action(started, BUILD)
    frames = {"started": shot(dt.scene_from_state(started), camera),
              "build": shot(dt.scene_from_state(started.apply(build, started.judge(build))), camera)}
    b, g, r = np.median(frames["started"][:80, :80].reshape(-1, 3), 0)
    assert r > g > b + 40, "the yellow mat"
    return frames, TokyoCalibration(camera, PieceSizes())


def test_a_natural_road_on_the_yellow_mat_is_refereed_through_the_loop(yellow, tmp_path):
    from referee_app.hub import Hub
    from referee_app.loop import RefereeLoop
    from referee_app.store import MatchStore

    frames, calib = yellow
    adapter = TokyoAdapter()
    adapter.use_calibration(calib, step_mm=10.0)
    hub = Hub(MatchStore(tmp_path))
    session = hub.create_match("tokyo-highway", ["Ann", "Bo"], {})
    for move in STARTED:  # typed: the start roads are not what this test is about
        session.submit(GAME.parse_action(move), source="manual", confidence=1.0)
    script = ["started", "started", "build", "build", "build"]
    stream = [Frame(frames[k], float(i), "test", i) for i, k in enumerate(script)]
    loop = RefereeLoop(hub, session, adapter, stream, frames_needed=2, publish_video=False)
    loop.run()
    hub.bus.drain()
    got = [(p.action.notation(), p.source, p.verdict.legal) for p in session.played]
    assert got[-1] == (BUILD, "vision", True)


def test_a_knocked_camera_is_brought_back_to_its_calibration():
    import cv2

    from vision.tokyo import PieceSizes, PinholeCamera, TokyoCalibration
    from vision.tokyo.piece_evidence import piece_maps

    cam = dt.demo_camera()
    calib = TokyoCalibration(cam, PieceSizes())
    turn, _ = cv2.Rodrigues(np.radians([0.7, -0.5, 0.4]))  # the camera turned about itself, as knocked
    knocked = PinholeCamera(cam.K, turn @ cam.R, -(turn @ cam.R) @ cam.centre, cam.width, cam.height)
    state = play(*STARTED, BUILD)
    image = shot(dt.scene_from_state(state), knocked, seed=21)
    drift = camera_drift(state, calib, piece_maps(image))
    assert drift is not None
    # each column's top where the calibration puts it, moved by the drift, lands where it shows
    tops = np.array([[s.x, s.y, s.height * 10.0] for s in state.supports])
    there, _ = calib.camera.project(tops)
    seen, _ = knocked.project(tops)
    moved = there @ drift[:, :2].T + drift[:, 2]
    assert np.abs(seen - there).max() > 8  # the knock moved them by more than a road's half width
    assert np.abs(seen - moved).max() < 4


def test_a_view_with_nothing_to_align_on_is_left_as_it_is():
    from vision.tokyo import PieceSizes, TokyoCalibration
    from vision.tokyo.piece_evidence import piece_maps

    calib = TokyoCalibration(dt.demo_camera(), PieceSizes())
    image = shot(dt.scene_from_state(GAME.new_state()), dt.demo_camera(), seed=21)
    assert camera_drift(GAME.new_state(), calib, piece_maps(image)) is None
