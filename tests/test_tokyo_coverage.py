"""Which part of the Tokyo Highway play area calibrated cameras see (vision/tokyo/coverage.py), and
`camera check --game tokyo-highway --calibration2 FILE`, which reports it."""

from __future__ import annotations

import json

import pytest

from referee_app.cli import main
from tests.test_tokyo_camera_check import _photo


def _camera(target_x: float, distance: float, tilt: float, yaw: float):
    from datasets.tokyo.camera import camera_looking_at

    return camera_looking_at((target_x, -20.0, 0.0), distance, tilt, yaw, 50.0, 1280, 720)


def test_a_camera_over_the_right_half_leaves_the_left_side_uncovered_and_says_so():
    from vision.tokyo.coverage import coverage_report

    report = coverage_report([_camera(420.0, 900.0, 0.0, 0.0)])  # straight down over x = 420 mm
    assert 0.4 < report["share_none"] < 0.7 and report["share_two_or_more"] == 0.0
    assert report["share_none"] + report["share_one"] == pytest.approx(1.0, abs=1e-3)
    assert report["uncovered_side"] == "left"
    assert "on its left side" in report["text"]
    assert all(r["x_mm"][1] <= 30.0 for r in report["uncovered"])  # nothing right of the middle
    assert {"the near left corner", "the left edge", "the far left corner"} <= {r["where"] for r in report["uncovered"]}
    assert report["advice"] and all("camera 1" in a and "no camera's picture" in a for a in report["advice"])


def test_two_facing_cameras_cover_the_whole_play_area():
    from vision.tokyo.coverage import coverage_report

    report = coverage_report([_camera(0.0, 900.0, 30.0, 0.0), _camera(0.0, 900.0, 30.0, 180.0)])
    assert report["cameras"] == 2 and report["share_none"] == 0.0 and report["share_two_or_more"] > 0.9
    assert report["uncovered"] == [] and report["advice"] == [] and report["uncovered_side"] is None
    assert report["text"].startswith("every part of the play area")


def test_a_column_top_out_of_the_picture_counts_as_not_seen():
    """A camera whose picture holds the table's spot but not a tall column's top there does not see it."""
    from vision.tokyo.coverage import coverage_report

    low = _camera(0.0, 380.0, 0.0, 0.0)  # straight down, low: the tops spread outward off the picture
    flat = coverage_report([low], top_units=0)["share_one"]
    tall = coverage_report([low], top_units=7)["share_one"]
    assert tall < flat


def _calibration_file(tmp_path, name: str, camera) -> str:
    from vision.tokyo import PieceSizes, TokyoCalibration

    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(TokyoCalibration(camera, PieceSizes()).to_dict()))
    return str(path)


def test_camera_check_with_a_second_calibration_reports_the_coverage_of_both(tmp_path, capsys):
    from vision.tokyo.coverage import coverage_report

    photo, camera1 = _photo(tmp_path, 550.0, 40.0, yaw_deg=0.0)
    camera2 = _camera(0.0, 550.0 / 0.766, 40.0, 150.0)  # the default second camera: 150 degrees around
    cal2 = _calibration_file(tmp_path, "cal2", camera2)
    out = tmp_path / "check.json"
    assert main(["camera", "check", "--image", str(photo), "--game", "tokyo-highway", "--calibration2", cal2,
                 "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    report = json.loads(out.read_text())
    coverage = report["coverage"]
    assert report["cameras"] == 2 and coverage["cameras"] == 2 and report["inside_envelope"] is None
    expected = coverage_report([camera1, camera2])  # the true cameras; camera 1's is fitted to the photo
    assert coverage["share_none"] == pytest.approx(expected["share_none"], abs=0.02)
    assert coverage["share_two_or_more"] == pytest.approx(expected["share_two_or_more"], abs=0.02)
    assert 0.0 < coverage["share_none"] < 0.2  # the far corners, as measured on simulated matches
    assert any(r.startswith("coverage: ") for r in report["reasons"])
    assert coverage["advice"] and coverage["advice"][0] in report["advice"]  # the page lists the advice
    assert "coverage: " in printed and "no camera's picture" in printed
    # one camera: the coverage of camera 1 alone, beside the one-camera verdict
    assert main(["camera", "check", "--image", str(photo), "--game", "tokyo-highway", "--json", str(out)]) == 0
    alone = json.loads(out.read_text())
    assert alone["coverage"]["cameras"] == 1 and alone["inside_envelope"] is False
    assert alone["coverage"]["share_none"] > coverage["share_none"]


def test_a_bad_or_missing_second_calibration_is_refused_and_nothing_is_written(tmp_path, capsys):
    photo, _camera1 = _photo(tmp_path, 550.0, 40.0)
    bad = tmp_path / "bad.json"
    bad.write_text('{"camera": {"K": [1, 2]}}')
    notjson = tmp_path / "notjson.json"
    notjson.write_text("camera 2, roughly over there")
    out = tmp_path / "out" / "check.json"
    cases = [(tmp_path / "missing.json", "cannot read the Tokyo calibration"), (bad, "malformed"),
             (notjson, "is not JSON")]
    for path, said in cases:
        code = main(["camera", "check", "--image", str(photo), "--game", "tokyo-highway",
                     "--calibration2", str(path), "--json", str(out)])
        captured = capsys.readouterr()
        assert code == 2 and said in captured.err and "--calibration2" in captured.err, captured.err
        assert captured.out == "" and not out.exists() and not out.parent.exists()
    good = _calibration_file(tmp_path, "good", _camera(0.0, 700.0, 30.0, 150.0))
    assert main(["camera", "check", "--image", str(photo), "--game", "highway-dice", "--calibration2", good,
                 "--json", str(out)]) == 2
    assert "goes with --game tokyo-highway" in capsys.readouterr().err and not out.exists()


def test_serve_with_an_uncalibrated_second_camera_says_the_coverage_was_not_checked(tmp_path, monkeypatch):
    from tests.test_tokyo_camera_check import _calibrated, _serve

    monkeypatch.delenv("HIGHWAY_TOKYO_CALIBRATION2", raising=False)
    frames2, _calibration2 = _calibrated(tmp_path, "cam2", _camera(0.0, 700.0, 30.0, 160.0))
    loop, _camera1 = _serve(tmp_path, "--camera2", frames2)  # no --calibration2
    check = loop.cameras()[0]["check"]
    assert check["state"] == "done", check
    report = check["report"]
    assert report["cameras"] == 2 and report["coverage"] is None
    assert "coverage: not checked - no calibration of camera 2 here" in " ".join(report["reasons"])
