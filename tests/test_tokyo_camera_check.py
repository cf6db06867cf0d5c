"""`camera check --game tokyo-highway`: the camera's pose from the printed mat, and the one-camera
envelope as measured with `eval match` (referee_app/tokyo_camera_check.py, issue 19)."""

from __future__ import annotations

import json

import cv2
import numpy as np

from referee_app.cli import main
from tests.test_tokyo_referee import mat_photo


def _photo(tmp_path, height_mm: float, tilt_deg: float, yaw_deg: float = 10.0):
    from datasets.tokyo.camera import camera_looking_at

    camera = camera_looking_at((0.0, -15.0, 0.0), height_mm / np.cos(np.radians(tilt_deg)), tilt_deg, yaw_deg,
                               50.0, 1280, 720)
    path = tmp_path / f"mat_{height_mm:g}_{tilt_deg:g}.png"
    cv2.imwrite(str(path), mat_photo(camera))
    return path, camera


def test_camera_check_reads_a_tokyo_cameras_pose_and_says_one_camera_is_outside_the_envelope(tmp_path, capsys):
    from referee_app.tokyo_camera_check import MEASURED

    photo, camera = _photo(tmp_path, 550.0, 40.0)
    out = tmp_path / "check.json"
    assert main(["camera", "check", "--image", str(photo), "--game", "tokyo-highway", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    report = json.loads(out.read_text())
    assert report["localised"] and report["markers_found"] == sorted(report["markers_found"])
    assert abs(report["camera_height_mm"] - float(camera.centre[2])) < 15.0
    assert abs(report["tilt_deg"] - 40.0) < 1.5
    assert report["inside_envelope"] is False
    assert report["reasons"][0].startswith("one camera: no set-up measured meets the targets")
    assert any("--camera2" in a for a in report["advice"])
    assert MEASURED, "the measured one-camera set-ups are filled in"
    near = report["nearest_measured"]
    assert (near["height_mm"], near["tilt_deg"]) == (550.0, 40.0)
    assert "inside_envelope: false" in printed and "tilt 40" in printed


def test_a_photo_without_the_mat_gets_a_clear_answer(tmp_path, capsys):
    photo = tmp_path / "wall.jpg"
    cv2.imwrite(str(photo), np.full((480, 640, 3), 130, np.uint8))
    out = tmp_path / "c.json"
    assert main(["camera", "check", "--image", str(photo), "--game", "tokyo-highway", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["localised"] is False and report["inside_envelope"] is False
    assert report["markers_found"] == [] and "mat was not found" in capsys.readouterr().out


def test_the_envelope_follows_the_measured_table():
    from referee_app.tokyo_camera_check import Measured, assess

    good = Measured(700.0, 20.0, "x", 100, 100, 2, 0, 0, "c0ffee")
    poor = Measured(550.0, 40.0, "x", 100, 90, 20, 5, 5, "c0ffee")
    inside = assess(710.0, 22.0, (good, poor))
    assert inside["inside_envelope"] is True and not inside["advice"]
    assert assess(560.0, 38.0, (good, poor))["inside_envelope"] is False
    far = assess(1500.0, 5.0, (good, poor))
    assert far["inside_envelope"] is False and "outside the measured ones" in far["reasons"][-1]
    none = assess(550.0, 40.0, (poor,))
    assert none["inside_envelope"] is False and none["reasons"][0].startswith("one camera")
