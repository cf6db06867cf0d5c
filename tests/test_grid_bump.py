"""A bumped camera over the 4x4 board: the adapter re-localises from the markers, so a piece put
down after the bump is judged on its own cell (through the referee loop, as `serve` runs it)."""

from __future__ import annotations

import cv2
import numpy as np

from datasets.camera import Pose, SheetObject, render_sheet
from datasets.match_sim.core import Setup, camera_pose
from datasets.tiles.scenes import board_rgb, printed_piece
from referee_app.games.grid import GridAdapter
from referee_app.hub import Hub
from referee_app.loop import RefereeLoop
from referee_app.store import MatchStore
from vision.tiles import geometry as g
from vision.types import Frame

SETUP = Setup(1280, 720, 450.0, 10.0)


def _bumped(pose: Pose) -> Pose:
    """The camera knocked: turned 1.5 degrees and moved 15 mm (under half a 36 mm cell)."""
    turn, _ = cv2.Rodrigues(np.array([0.3, -0.2, 0.93]) / np.linalg.norm([0.3, -0.2, 0.93]) * np.radians(1.5))
    return Pose(pose.K.copy(), turn @ pose.R, pose.C + np.array([15.0, -6.0, 0.0]), pose.out_size,
                pose.light_dir.copy())


def _frame(pose: Pose, board: dict[str, int]) -> np.ndarray:
    objects = [SheetObject(printed_piece(n), g.cell_centre_mm(c), (g.PIECE_MM, g.PIECE_MM), 10.0, 2.0,
                           (190, 200, 205)) for c, n in board.items()]
    image, _ = render_sheet(board_rgb(), g.SHEET_MM, pose, objects=objects, effects=0.0)
    return image


def test_a_piece_placed_after_a_camera_bump_is_judged_on_its_cell(tmp_path):
    pose = camera_pose(SETUP, g.SHEET_MM, np.random.default_rng(7))
    moved = _bumped(pose)
    before = _frame(pose, {"b2": 5})
    after = _frame(moved, {"b2": 5, "c3": 12})
    images = [_frame(pose, {})] * 3 + [before] * 3 + [after] * 3
    hub = Hub(MatchStore(tmp_path))
    session = hub.create_match("highway-grid", ["A", "B"])
    loop = RefereeLoop(hub, session, GridAdapter(), (Frame(im, 0.0, "test", i) for i, im in enumerate(images)),
                       frames_needed=3, publish_video=False)
    loop.run()
    hub.bus.drain()
    assert [p.action.notation() for p in session.played] == ["5@b2", "12@c3"]


def test_the_adapter_keeps_its_calibration_while_the_board_stays_put():
    pose = camera_pose(SETUP, g.SHEET_MM, np.random.default_rng(7))
    adapter = GridAdapter()
    adapter.read(_frame(pose, {}))
    first = adapter.localiser.calibration
    assert adapter.read(_frame(pose, {"a1": 3})).items == {"a1": 3}
    assert adapter.localiser.calibration is first  # same warp: unchanged cells keep their reading
    assert adapter.read(_frame(_bumped(pose), {"a1": 3})).items == {"a1": 3}
    assert adapter.localiser.calibration is not first
