"""The camera's pose from the printed board's markers, on renders at known poses, and where dice show
in perspective (vision.pose, vision.board3d)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from datasets.board_photos import camera_at
from datasets.camera import project, render_sheet
from engine.dice_road import load_board
from vision.board3d import face_view, smallest_face_px, to_sheet_plane, top_offset_mm
from vision.localise import SheetSpec, localise
from vision.pose import CameraPose, PoseTracker, assumed_focal_px, estimate_pose

BOARD = load_board()
MM = (float(BOARD.width), float(BOARD.height))


@pytest.fixture(scope="module")
def sheet() -> np.ndarray:
    from drawing.dice_board import printable_board

    _svg, png, _ = printable_board(BOARD, dpi=80)
    return cv2.cvtColor(cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)


def spec() -> SheetSpec:
    from drawing.dice_board import MARKER_MARGIN, MARKER_SIZE

    return SheetSpec("highway-dice", *MM, MARKER_SIZE, MARKER_MARGIN)


def shoot(sheet: np.ndarray, tilt: float, height: float, seed: int, size=(1280, 720)):
    pose = camera_at(np.random.default_rng(seed), MM, size, tilt, height)
    image, _ = render_sheet(sheet, MM, pose, rng=np.random.default_rng(seed), effects=0.4)
    return pose, image


@pytest.mark.parametrize("tilt,height,seed", [(15, 850, 1), (30, 850, 2), (30, 500, 3), (22, 650, 4)])
def test_tilt_height_and_focal_length_are_recovered_from_the_markers(sheet, tilt, height, seed):
    truth, image = shoot(sheet, tilt, height, seed)
    pose = estimate_pose(localise(image, spec()))
    assert pose.focal_source == "markers"
    assert abs(pose.tilt_deg - tilt) < 1.0
    assert abs(pose.height_mm - height) < 0.03 * height
    assert abs(pose.focal_px - truth.K[0, 0]) < 0.04 * truth.K[0, 0]
    assert np.linalg.norm(pose.centre_mm[:2] - truth.C[:2]) < 0.04 * height


def test_straight_down_the_focal_length_is_assumed_or_given(sheet):
    truth, image = shoot(sheet, 0, 700, 5)
    calib = localise(image, spec())
    assumed = estimate_pose(calib)
    assert assumed.focal_source == "assumed" and assumed.focal_px == pytest.approx(assumed_focal_px((1280, 720)))
    assert assumed.tilt_deg < 1.5
    given = estimate_pose(calib, focal_px=float(truth.K[0, 0]))
    assert given.focal_source == "given" and abs(given.height_mm - 700) < 0.03 * 700


def test_frames_pool_their_focal_equations_and_a_new_camera_mode_starts_over(sheet):
    tracker = PoseTracker()
    for seed in (6, 7):  # one camera, two placements
        _t, image = shoot(sheet, 25, 800, seed)
        pose = tracker.update(localise(image, spec()))
    assert pose.focal_source == "frames" and len(tracker._rows) == 2
    _t, image = shoot(sheet, 25, 800, 8, size=(960, 540))
    assert tracker.update(localise(image, spec())).focal_source == "markers"


def test_a_die_top_is_placed_where_the_camera_shows_it(sheet):
    truth, image = shoot(sheet, 30, 600, 9)
    pose = estimate_pose(localise(image, spec()))
    cell = BOARD.cells["W01"]
    top = np.array([[cell.x, cell.y, 16.0]])
    # the camera's truth: where the die's top centre lands in the image, seen on the sheet plane
    seen = cv2.perspectiveTransform(project(truth, top).reshape(1, 1, 2),
                                    np.linalg.inv(truth.homography())).reshape(2)
    assert np.linalg.norm(to_sheet_plane(pose, top)[0] - seen) < 0.6
    offset = top_offset_mm(pose, (cell.x, cell.y), 16.0)
    assert np.linalg.norm(offset) > 5  # far from the point under the camera: well off its cell
    # on the top-face view the same point is on its cell
    view = face_view(image, pose, MM, 2.0)
    back = view.from_sheet_view(to_sheet_plane(pose, top) * 2.0)[0] / 2.0
    assert np.linalg.norm(back - [cell.x, cell.y]) < 0.3
    assert 10 < smallest_face_px(pose, np.array([[cell.x, cell.y]])) < 60


def test_pose_file_round_trip_and_bad_input(tmp_path):
    from vision.types import VisionError

    pose = CameraPose(np.diag([900.0, 900.0, 1.0]), np.eye(3), np.array([-300.0, -200.0, 800.0]), (1280, 720))
    back = CameraPose.load(pose.save(tmp_path / "tables" / "kitchen_pose.json"))
    assert back.focal_px == 900.0 and back.image_size == (1280, 720)
    with pytest.raises(VisionError, match="no such camera pose file"):
        CameraPose.load(tmp_path / "none.json")
    assert back.height_mm == pytest.approx(800.0) and back.tilt_deg == pytest.approx(0.0)
    with pytest.raises(VisionError, match="not a valid camera pose"):
        CameraPose.from_json({"K": [[1, 0], [0, 1]], "R": np.eye(3).tolist(), "t": [0, 0, 1], "image_size": [1, 1]})
