"""The seeded camera model: projection agrees with the rendered image and seeds reproduce."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from datasets.camera import SheetObject, project, random_pose, render_sheet
from drawing.canvas import RasterCanvas
from vision.markers import dictionary, draw_corner_markers


def _sheet() -> tuple[np.ndarray, dict[int, tuple[float, float]]]:
    canvas = RasterCanvas(297, 210, 3)
    centres = draw_corner_markers(canvas, "dice-tray", 297, 210)
    return canvas.image[..., ::-1].copy(), centres


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_marker_centres_project_where_they_are_seen(seed: int) -> None:
    sheet, centres = _sheet()
    rng = np.random.default_rng(seed)
    pose = random_pose(rng, (297, 210), tilt_deg=(0, 25))
    img, _ = render_sheet(sheet, (297, 210), pose, rng=rng, effects=0.3)
    assert img.shape == (720, 1280, 3) and img.dtype == np.uint8
    corners, ids, _ = cv2.aruco.ArucoDetector(dictionary()).detectMarkers(img)
    assert ids is not None and len(ids) >= 3
    for k, mid in enumerate(ids.ravel()):
        seen = corners[k][0].mean(0)
        expected = project(pose, [centres[int(mid)]])[0]
        assert np.linalg.norm(seen - expected) < 2.0


def test_same_seed_same_image_and_object_box_inside_frame() -> None:
    sheet, _ = _sheet()
    top = np.full((32, 32, 4), 255, np.uint8)
    outs = []
    for _ in range(2):
        rng = np.random.default_rng(7)
        pose = random_pose(rng, (297, 210))
        outs.append(render_sheet(sheet, (297, 210), pose, rng=rng,
                                 objects=[SheetObject(top, (150, 105), (16, 16), 20, 16)]))
    assert np.array_equal(outs[0][0], outs[1][0])
    x0, y0, x1, y1 = outs[0][1][0]
    assert 0 < x0 < x1 < 1280 and 0 < y0 < y1 < 720
    # a raised object's box is larger than its footprint alone
    assert (x1 - x0) > 5


def test_point_behind_camera_is_an_error() -> None:
    pose = random_pose(np.random.default_rng(0), (100, 100))
    with pytest.raises(ValueError, match="behind the camera"):
        project(pose, [[50, 50, 5000]])
