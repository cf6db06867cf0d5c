"""Camera placements the Tokyo Highway tests rebuild their simulated scenes with."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from datasets.match_sim.core import SecondCamera

# camera 2 at camera 1's height (550 mm), where these scenes were found; the simulator's default now
# stands it 200 mm higher (SecondCamera.RAISE_MM)
AT_550 = SecondCamera(150.0, 550.0)


def calibrated_adapter(sim: Any, tmp_path: Path) -> Any:
    """A Tokyo adapter given every camera's calibration of a simulated match, as `serve` loads them
    from files (camera 1 with the simulator's calibration options)."""
    from referee_app.games.tokyo import TokyoAdapter

    adapter = TokyoAdapter()
    for k, calib in enumerate([sim.extra["calibration"], *sim.extra["other_calibrations"]], 1):
        path = tmp_path / f"calibration{k}.json"
        path.write_text(json.dumps(calib))
        if k == 1:
            adapter.use_calibration(path, **sim.extra.get("calibration_options", {}))
        else:
            adapter.use_camera_calibration(k, path)
    return adapter


def take_bumps(sim: Any, last: int) -> int:
    """Camera 1's bumps of a simulated match's scenes up to and including scene `last`, taken as
    `sim.frames()` takes them; how many there were."""
    bumps = 0
    for sc in sim.scenes[:last + 1]:
        if sc.bump:
            sim.photographer.bump()
            bumps += 1
    return bumps


def scene_shots(sim: Any, scene: int) -> tuple[int, list[Any]]:
    """The first frame of a simulated match's scene from every camera, as `sim.frames()` draws it: camera
    1's bumps up to and including the scene taken, the scenes before it not drawn. Returns the frame's
    index as `eval match` numbers it and the pictures, camera 1's first."""
    take_bumps(sim, scene)
    index = sum(sc.hold for sc in sim.scenes[:scene])
    return index, _shots(sim, scene, index)


def _shots(sim: Any, scene: int, k: int) -> list[Any]:
    sc = sim.scenes[scene]
    return [p.expose(p.light(sim.draw(sc.content, p.pose), sc, scene), k) for p in (sim.photographer, *sim.others)]


def scene_frames(sim: Any, scene: int, skip: int = 0) -> Iterator[Any]:
    """Each frame of scene `scene` after its first `skip`, camera 2's picture beside camera 1's, as
    `eval match --cameras 2` hands them to the loop (camera 1's bumps up to the scene already taken:
    `take_bumps`)."""
    from vision.sources import OtherView, PairedFrame

    index = sum(sc.hold for sc in sim.scenes[:scene])
    for k in range(index + skip, index + sim.scenes[scene].hold):
        shots = _shots(sim, scene, k)
        yield PairedFrame(shots[0], 0.0, "sim", k, others=[OtherView(shots[1], "sim:camera2")])


def looking_calibration(width: int = 1280, height: int = 720, yaw: float = 30.0) -> Any:
    """A calibrated camera 718 mm from the table's middle, tilted 40 degrees, 50 degree lens: the
    still camera the Tokyo unit tests draw and score pieces with."""
    from datasets.tokyo.camera import camera_looking_at
    from vision.tokyo import TokyoCalibration
    from vision.tokyo.calibration import PieceSizes

    cam = camera_looking_at((0.0, 0.0, 0.0), 718.0, 40.0, yaw, 50.0, width, height)
    return TokyoCalibration(cam, PieceSizes())


def flat_maps(calib: Any, llr: float) -> Any:
    """Piece maps saying `llr` nats a pixel everywhere (-2: bare table; +2: pieces wherever one is drawn)."""
    import numpy as np

    from vision.tokyo.piece_evidence import PieceMaps

    shape = (calib.camera.height, calib.camera.width)
    return PieceMaps(*(np.full(shape, llr, np.float32) for _ in range(3)))


def still_frame_builds(sim: Any, adapter: Any, state: Any, move: int) -> tuple[list[Any], int]:
    """Every still frame of the scene that asks for move `move` (index into `sim.moves`), read in turn
    through `adapter` watching `state`, camera 2's picture beside camera 1's, as `eval match` reads
    them: the likeliest build after each frame as (x, y, height, junction), None where there is none,
    and how many of camera 1's bumps were taken on the way (the scenes up to this one)."""
    from referee_app.games.tokyo_builds import likeliest_build

    scene = next(k for k, sc in enumerate(sim.scenes) if sc.checkpoint == move)
    bumps = take_bumps(sim, scene)
    adapter.watch(state)
    read: list[Any] = []
    for frame in scene_frames(sim, scene):
        adapter.read(frame)
        best = likeliest_build(adapter._builds)
        read.append(None if best is None else (best.support.x, best.support.y, best.support.height,
                                               best.support.junction))
    return read, bumps


def two_camera_move(seed: int, move: int, tmp_path: Path) -> tuple[Any, Any, Any]:
    """A simulated Tokyo match at the standard two-camera set-up (1280x720, 550 mm, 40 degrees, 50
    degree lens, camera 2 where `eval match --cameras 2` puts it), the state before move `move` (index
    into `sim.moves`: the legal moves before it played) and an adapter given every calibration."""
    from test_tokyo_referee import play

    from referee_app.commands.eval_match import make_setup, simulate

    second = SecondCamera(SecondCamera.around_deg, None, None)
    sim = simulate("tokyo-highway", seed, make_setup("1280x720", 550, 40, fov=50.0, cameras=2, second=second))
    state = play(*(m.notation for m in sim.moves[:move] if m.legal))
    return sim, state, calibrated_adapter(sim, tmp_path)
