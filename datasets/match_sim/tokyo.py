"""A simulated Tokyo Highway match, filmed by one calibrated camera: the two start roads of the
bundled recording, then builds chosen by the seeded players from the engine's sampled candidates
(positions on the referee's 10 mm grid), now and then one the rules forbid (shown, judged, taken
back). Shadows, glare, hands and one camera bump (the calibration is not redone: a real bump).

With `setup.cameras == 2` a second camera films the same scenes from another side of the table
(`setup.second_camera`: by default 150 degrees around from the first, as the bundled recording's
second camera, 200 mm above the first, at its tilt), aimed at the same point, with its own exact
calibration, lamp, lens and sensor noise; the bump knocks the first camera only. The first camera's
frames are the very ones a one-camera match gets.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from datasets.match_sim.core import Photographer, Script, Setup, SimMatch, TrueMove

GAME = "tokyo-highway"
ILLEGAL_SHARE = 0.15  # of builds that break a rule
FRAMES_NEEDED = 3
TARGET_MM = (0.0, -15.0, 0.0)  # where the camera looks: the middle of the structure's usual spread
STEP_MM = 10.0  # positions sit on this grid: the adapter reports positions to it
SECOND_SEED = 1_000_003  # added to a match's seed for the second camera's light and noise
# the two start roads of the bundled recording (referee_app.demo_tokyo)
STARTS = ("purple start (-150,-60) table (-150,-170)", "green start (150,-60) table (150,-170)")


def _snapped(action: Any, step: float) -> Any:
    from engine.tokyo import Build

    if not isinstance(action, Build) or action.support is None:
        return None
    s = action.support
    x, y = round(s.x / step) * step, round(s.y / step) * step
    return replace(action, support=replace(s, x=float(x), y=float(y)))


def _pick_build(state: Any, rng: np.random.Generator, legal: bool, step: float) -> Any:
    """A seeded build to a new support, snapped to the grid, that the engine judges legal (or not)."""
    from engine import EngineError

    options = []
    for candidate in state.candidate_actions():
        action = _snapped(candidate, step)
        if action is None:
            continue
        try:
            if state.judge(action).legal == legal:
                options.append(action)
        except EngineError:
            continue
    return options[int(rng.integers(len(options)))] if options else None


def camera(setup: Setup, yaw_deg: float, tilt_extra: float = 0.0) -> Any:
    """The first camera, `yaw_deg` around the table; a bump tilts it by `tilt_extra` about the point
    it looks at (its distance stays the set-up's)."""
    return _camera_at(setup, setup.height_mm, setup.tilt_deg, yaw_deg, tilt_extra)


def second_camera(setup: Setup, first_yaw_deg: float) -> Any:
    """The second camera of a two-camera set-up, placed as `setup.second_camera` says."""
    second = setup.second_camera
    height = second.height_over(setup.height_mm)
    tilt = setup.tilt_deg if second.tilt_deg is None else second.tilt_deg
    return _camera_at(setup, height, tilt, first_yaw_deg + second.around_deg)


def _camera_at(setup: Setup, height_mm: float, tilt_deg: float, yaw_deg: float,
               tilt_extra: float = 0.0) -> Any:
    """A camera `height_mm` above the table, tilted `tilt_deg` (and `tilt_extra` more, at the same
    distance), aimed at TARGET_MM from `yaw_deg`."""
    from datasets.tokyo.camera import camera_looking_at

    distance = height_mm / np.cos(np.radians(tilt_deg))
    return camera_looking_at(TARGET_MM, distance, tilt_deg + tilt_extra, yaw_deg, setup.fov_deg, setup.width,
                             setup.height)


def simulate(seed: int, setup: Setup, turns: int = 8) -> SimMatch:
    """Two start roads and up to `turns` builds, scripted from `seed`."""
    import engine
    from datasets.tokyo.state_scene import scene_from_state, seen_action, with_build
    from engine.tokyo import Skip, TokyoState
    from vision.tokyo import PieceSizes, TokyoCalibration

    game = engine.get_game(GAME)
    rng = np.random.default_rng([seed, 1])
    yaw = float(rng.uniform(-20, 20))
    cam = camera(setup, yaw)

    def bump(_pose: Any, bump_rng: np.random.Generator) -> Any:
        return camera(setup, yaw + bump_rng.uniform(0.8, 1.5), bump_rng.uniform(-0.8, 0.8))

    photographer = Photographer(setup, cam, seed, bumper=bump)
    moves: list[TrueMove] = []
    film = Script(setup, rng, FRAMES_NEEDED)
    scenes, add, hand = film.scenes, film.still, film.hand
    state: TokyoState = game.new_state()
    bump_at = int(rng.integers(2, max(3, turns)))

    add(scene_from_state(state), "empty table")
    script = [seen_action(state, what) for what in STARTS]
    for turn in range(len(script) + turns):
        if state.is_terminal():
            break
        before = scene_from_state(state)
        if turn < len(script):
            action, scripted = script[turn], False
        else:
            scripted = bool(rng.random() < ILLEGAL_SHARE)
            action = _pick_build(state, rng, legal=not scripted, step=STEP_MM)
            if action is None and scripted:
                scripted, action = False, _pick_build(state, rng, legal=True, step=STEP_MM)
            if action is None:
                action = Skip(state.to_move)
            else:
                action = seen_action(state, action.notation())
        verdict = state.judge(action)
        moves.append(TrueMove(action.notation(), verdict.legal, verdict.rule, scripted))
        hand(before, f"hand building {action.notation()}")
        if verdict.legal:
            state = state.apply(action, verdict)
            add(scene_from_state(state), f"after {action.notation()}", len(moves) - 1)
        else:
            add(with_build(before, state, action), f"illegal {action.notation()}: {verdict.rule}",
                len(moves) - 1)
            state = state.apply(action, verdict)
            hand(before, "taking the wrong build back")
            add(before, "wrong build taken back")
        if turn == bump_at:
            scenes[-1].bump = True

    def draw(scene: dict[str, Any], pose: Any) -> np.ndarray:
        from datasets.tokyo.render import render_tokyo_frame

        image, _labels = render_tokyo_frame(scene, seed, camera=pose, table="mat", hand=False, glare=False)
        return image

    calibration = TokyoCalibration(cam, PieceSizes()).to_dict()
    calibration["position_step_mm"] = STEP_MM
    others, calibrations = [], []
    if setup.cameras == 2:
        cam2 = second_camera(setup, yaw)
        # its own lamp, lens and noise: seeded apart from the first camera's streams
        others.append(Photographer(setup, cam2, seed + SECOND_SEED))
        calibrations.append(TokyoCalibration(cam2, PieceSizes()).to_dict())
    return SimMatch(GAME, ["Ann (purple)", "Bo (green)"], moves, scenes, photographer, draw,
                    extra={"frames_needed": FRAMES_NEEDED, "calibration": calibration,
                           "calibration_options": {"step_mm": STEP_MM}, "other_calibrations": calibrations},
                    others=others)
