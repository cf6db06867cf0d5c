"""Bad scenes are reported as such: a hand, a loose stick, glare; and the printable mat is locatable."""

from __future__ import annotations

import cv2
import numpy as np

from datasets.tokyo.camera import camera_looking_at
from datasets.tokyo.render import render_tokyo_frame
from referee_app.cli import main
from vision.markers import dictionary
from vision.tokyo import read_tokyo

ROAD = {
    "supports": [
        {"id": 0, "x_mm": -50, "y_mm": 0, "height": 1, "junction": False},
        {"id": 1, "x_mm": 50, "y_mm": 0, "height": 2, "junction": False},
    ],
    "sticks": [{"a": 0, "b": 1, "color": "purple"}],
}
CAM = camera_looking_at((0, 0, 0), 520, 25, 10, 50, 800, 450)


def test_loose_stick_is_reported_not_read_as_a_road() -> None:
    scene = dict(ROAD, loose=[{"x_mm": 0, "y_mm": -90, "angle_deg": 10, "color": "orange"}])
    image, _ = render_tokyo_frame(scene, 3, camera=CAM, table="mat", hand=False, glare=False)
    obs = read_tokyo(image)
    roles = sorted(s.role for s in obs.sticks)
    assert roles == ["loose", "road"]
    assert any("loose" in w for w in obs.warnings)


def test_hand_is_reported_and_not_read_as_sticks() -> None:
    image, labels = render_tokyo_frame(ROAD, 4, camera=CAM, table="cloth", hand=True, glare=False)
    obs = read_tokyo(image, labels["calibration"])
    assert any("hand" in w for w in obs.warnings)
    assert len(obs.sticks) <= 1  # the road may be hidden by the hand, the fingers are no sticks


def test_glare_is_reported() -> None:
    image, _ = render_tokyo_frame(ROAD, 5, camera=CAM, table="wood", hand=False, glare=False)
    cv2.circle(image, (200, 120), 40, (255, 255, 255), -1)
    obs = read_tokyo(image)
    assert any("glare" in w for w in obs.warnings)


def test_print_mat_has_the_tokyo_markers(tmp_path) -> None:
    assert main(["print", "tokyo-mat", "--out", str(tmp_path), "--dpi", "40"]) == 0
    image = cv2.imread(str(tmp_path / "tokyo-mat.png"))
    _, ids, _ = cv2.aruco.ArucoDetector(dictionary()).detectMarkers(image)
    assert sorted(np.ravel(ids).tolist()) == [8, 9, 10, 11]
    assert (tmp_path / "tokyo-mat.svg").read_text().startswith("<svg")
    assert main(["print", "tokyo-mat", "--out", str(tmp_path), "--dpi", "5"]) == 2


def test_knocked_over_column_is_flagged() -> None:
    for angle in (0, 90):
        scene = dict(ROAD, fallen=[{"x_mm": 10, "y_mm": -70, "angle_deg": angle, "units": 3}])
        image, labels = render_tokyo_frame(scene, 2, camera=CAM, table="mat", hand=False, glare=False)
        obs = read_tokyo(image, labels["calibration"])
        assert any("knocked" in w for w in obs.warnings), obs.warnings
        # the two real columns are read with their heights, nothing confident at the fallen piece
        heights = sorted(s.height for s in obs.supports if s.confidence >= 0.5)
        assert heights == [1, 2]
