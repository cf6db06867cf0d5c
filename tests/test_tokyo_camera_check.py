"""`camera check --game tokyo-highway`: the camera's pose from the printed mat, and the one-camera
envelope as measured with `eval match` (referee_app/tokyo_camera_check.py, issue 19)."""

from __future__ import annotations

import json

import cv2
import numpy as np
import test_page_table

from referee_app.cli import main
from tests.still_camera import StillCamera
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


# -- the page's route and serve's check (the paths a user takes) ---------------------------------------


class MatCamera(StillCamera):
    """Camera 1 sees `view` (a rendered mat photo); `opened` counts opens."""


def test_the_pages_check_route_knows_tokyo_and_refuses_bad_games_and_mats_before_the_camera(tmp_path):
    from referee_app.hub import Hub
    from referee_app.store import MatchStore
    from referee_app.web.app import create_app

    _path, camera = _photo(tmp_path, 550.0, 40.0)
    MatCamera.view, MatCamera.opened = mat_photo(camera), 0
    app = create_app(Hub(MatchStore(tmp_path / "data")))
    app.config["camera_opener"] = MatCamera
    client = app.test_client()
    assert "tokyo-highway" in client.get("/api/setup/cameras").get_json()["games"]  # the panel's game list
    for query in ("game=tokyo-highway", "game=tokyo-highway&mat=a3"):
        answer = client.get(f"/api/setup/cameras/1/check?{query}")
        assert answer.status_code == 200, answer.get_json()
        report = answer.get_json()
        assert report["localised"] and report["game"] == "tokyo-highway" and report["source"] == "camera 1"
        assert abs(report["camera_height_mm"] - float(camera.centre[2])) < 15.0 and abs(report["tilt_deg"] - 40) < 1.5
        assert report["inside_envelope"] is False and report["cameras"] == 1
        assert report["reasons"][0].startswith("one camera: no set-up measured meets the targets")
        assert any("--camera2" in a for a in report["advice"])
    # an A2 mat read as A2: the same photo, so the camera seems farther (the mat's size sets the scale)
    a2 = client.get("/api/setup/cameras/1/check?game=tokyo-highway&mat=a2").get_json()
    assert a2["camera_height_mm"] > 1.3 * report["camera_height_mm"]
    opened = MatCamera.opened
    hostile = ["game=chess", "game=" + "x" * 5000, "game=tokyo-highway&mat=a9", "game=tokyo-highway&mat=",
               "game=tokyo-highway&mat=%E2%91%A2", "game=tokyo-highway&mat=" + "a" * 5000,
               "game=highway-dice&mat=a3", "game=tokyo-highway&mat=../../etc"]
    for query in hostile:
        answer = client.get(f"/api/setup/cameras/1/check?{query}")
        body = answer.get_json()
        assert answer.status_code == 400 and len(body["error"]) < 300, (query, body)
    assert "mat is the printed mat's size: one of a3, a4, a2 (got 'a9')" in client.get(
        "/api/setup/cameras/1/check?game=tokyo-highway&mat=a9").get_json()["error"]
    assert MatCamera.opened == opened  # every refusal came before the camera opened


def _calibrated(tmp_path, name: str, camera, mat: str = "a3") -> tuple[str, str]:
    """Two frames of the empty printed `mat` as `camera` sees it, and its calibration file (`tokyo
    calibrate`'s)."""
    from drawing.tokyo_mat import MAT_SIZES
    from vision.tokyo import PieceSizes, TokyoCalibration

    frames = tmp_path / name
    frames.mkdir()
    for k in range(2):
        cv2.imwrite(str(frames / f"{k:03d}.png"), mat_photo(camera, MAT_SIZES[mat]))
    calibration = tmp_path / f"{name}.json"
    calibration.write_text(json.dumps(TokyoCalibration(camera, PieceSizes()).to_dict()))
    return str(frames), str(calibration)


def _serve(tmp_path, *extra: str, close: bool = True, mat: str = "a3"):
    """`serve --frames ... --calibration ...` of the printed `mat` seen from 550 mm / 40 degrees, as a user
    runs it."""
    from referee_app.cli import load_commands
    from referee_app.commands.serve import build_referee

    _path, camera = _photo(tmp_path, 550.0, 40.0)
    frames, calibration = _calibrated(tmp_path, "cam1", camera, mat)
    args = load_commands().build().parse_args(
        ["serve", "--frames", frames, "--calibration", calibration, "--game", "tokyo-highway", "--port", "0",
         "--data", str(tmp_path / "data"), *extra])
    hub, loops = build_referee(args)
    loop = loops[0]
    loop.run()
    loop.on_frame.__self__.thread.join(60)
    if close:
        hub.bus.close()
    return loop, camera


def test_a_tokyo_match_served_with_one_camera_says_add_a_second(tmp_path):
    loop, camera = _serve(tmp_path)
    check = loop.cameras()[0]["check"]
    assert check["state"] == "done", check
    report = check["report"]
    assert report["localised"] and report["cameras"] == 1 and report["inside_envelope"] is False
    assert abs(report["tilt_deg"] - 40.0) < 1.5
    assert check["message"].startswith("outside the envelope: one camera: no set-up measured meets the targets")
    assert check["message"].endswith("serve --camera2 N --calibration2 FILE")


def test_serve_mat_gives_the_setup_check_the_printed_mats_size(tmp_path):
    """An A4 mat measured as A3 put the camera about 1.4 times too high; with --mat a4 the height is
    right."""
    loop, camera = _serve(tmp_path, "--mat", "a4", mat="a4")
    check = loop.cameras()[0]["check"]
    assert check["state"] == "done", check
    report = check["report"]
    assert report["localised"] and report["mat"] == "a4"
    assert abs(report["camera_height_mm"] - float(camera.centre[2])) < 15.0
    assert abs(report["tilt_deg"] - 40.0) < 1.5


def test_serve_refuses_a_bad_mat_or_one_nothing_uses_before_anything_starts(tmp_path, capsys):
    import argparse

    import pytest

    from referee_app.cli import CliError, load_commands
    from referee_app.commands.serve import build_referee

    frames = tmp_path / "frames"
    frames.mkdir()
    data = tmp_path / "data"
    parser = load_commands().build()
    with pytest.raises(SystemExit) as exc:  # the command line's own refusal, with the choices
        parser.parse_args(["serve", "--frames", str(frames), "--game", "tokyo-highway", "--mat", "a5"])
    assert exc.value.code == 2 and "a4" in capsys.readouterr().err
    base = ["serve", "--data", str(data), "--port", "0"]
    cases = [
        (["--frames", str(frames), "--game", "highway-dice", "--mat", "a4"], "highway-dice has no printed mat"),
        (["--demo", "--mat", "a2"], "give --camera, --video, --frames or --stream"),
    ]
    for extra, said in cases:
        with pytest.raises(CliError, match=said):
            build_referee(parser.parse_args(base + extra))
    args = argparse.Namespace(**{**vars(parser.parse_args(base + ["--frames", str(frames)])),
                                 "game": "tokyo-highway", "mat": "a9"})  # built without argparse
    with pytest.raises(CliError, match="one of a3, a4, a2"):
        build_referee(args)
    assert not data.exists()  # refused before the match store (or any source) was opened


def test_a_tokyo_match_served_with_two_cameras_reports_camera_1_no_invented_verdict_and_coverage(tmp_path):
    from datasets.tokyo.camera import camera_looking_at

    second = camera_looking_at((0.0, 15.0, 0.0), 700.0, 30.0, 160.0, 50.0, 1280, 720)
    frames2, calibration2 = _calibrated(tmp_path, "cam2", second)
    loop, camera = _serve(tmp_path, "--camera2", frames2, "--calibration2", calibration2)
    check = loop.cameras()[0]["check"]
    assert check["state"] == "done", check
    report = check["report"]
    assert report["localised"] and report["cameras"] == 2 and report["inside_envelope"] is None
    assert abs(report["camera_height_mm"] - float(camera.centre[2])) < 15.0  # camera 1's pose
    assert report["nearest_measured"] is None  # no one-camera figures
    assert "docs/benchmarks/referee-accuracy.md" in report["reasons"][0]
    assert check["message"].startswith("no measured verdict: 2 cameras: the set-up documented")
    # the play area's coverage by both cameras (serve --calibration2): the only advice given
    coverage = report["coverage"]
    assert coverage["cameras"] == 2 and report["advice"] == coverage["advice"]
    assert 0.0 < coverage["share_none"] < coverage["share_one"] + coverage["share_two_or_more"]
    assert "coverage: " in check["message"]


browser = test_page_table.browser  # the same headless Chromium fixture (skips without Chromium)


def test_the_page_shows_a_one_camera_tokyo_match_and_the_panels_check_outside_the_envelope(tmp_path, browser):
    """Headless Chromium on a real waitress server: the live view of a Tokyo match served with one
    camera shows its check's verdict, and the Camera set-up panel checks a camera for tokyo-highway."""
    from waitress_server import serving

    from referee_app.web.app import create_app

    loop, camera = _serve(tmp_path, close=False)
    MatCamera.view = mat_photo(camera)
    app = create_app(loop.hub, stream_seconds=5)
    app.config["camera_opener"] = MatCamera
    try:
        with serving(app, threads=4, drain=4) as port:
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            page = context.new_page()
            page.goto(f"http://127.0.0.1:{port}/?match={loop.session.match_id}")
            page.wait_for_selector("#match-check.warn[data-inside=false]", timeout=15000)
            head = page.inner_text("#match-check .head")
            assert "outside the envelope: one camera" in head and "--camera2" in head
            page.click("#setup-btn")
            page.wait_for_function("document.getElementById('setup-preview').naturalWidth > 0", timeout=15000)
            page.select_option("#setup-game", "tokyo-highway")
            page.click("#setup-check")
            page.wait_for_selector("#setup-verdict[data-inside=false]", timeout=30000)
            text = page.inner_text("#setup-verdict")
            assert "outside the envelope" in text and "4 of 4" in text and "Distance to the mat" in text
            assert any("--camera2" in a for a in page.locator("#setup-verdict .advice li").all_inner_texts())
            context.close()
    finally:
        loop.hub.bus.close()
