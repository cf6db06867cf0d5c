"""`highway-referee camera list | preview | check` and `eval board` / `dataset board` through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee_app.cli import main


@pytest.fixture(scope="module")
def tilted(tmp_path_factory) -> Path:
    """A small labelled folder: one set-up at 30 degrees from 850 mm, 1280x720, an empty view + 2 photos."""
    out = tmp_path_factory.mktemp("board30")
    assert main(["dataset", "board", "--out", str(out), "--tilt", "30", "--height", "850", "--size", "1280", "720",
                 "--seed", "901", "--setups", "1", "--photos", "2"]) == 0
    return out


def test_camera_check_measures_a_photo_and_says_it_can_referee(tilted, tmp_path, capsys):
    report_path = tmp_path / "check.json"
    assert main(["camera", "check", "--image", str(tilted / "s0_00.jpg"), "--game", "highway-dice",
                 "--json", str(report_path)]) == 0
    printed = capsys.readouterr().out
    report = json.loads(report_path.read_text())
    truth = json.loads((tilted / "labels.json").read_text())["items"][1]["camera"]
    assert report["markers_found"] == [0, 1, 2, 3] and report["localised"]
    assert abs(report["tilt_deg"] - truth["tilt_deg"]) < 1.5
    assert abs(report["camera_height_mm"] - truth["height_mm"]) < 40
    assert report["focal_source"] == "markers"
    assert 0.5 < report["px_per_mm"]["min"] <= report["px_per_mm"]["median"] <= report["px_per_mm"]["max"] < 4
    assert report["smallest_die_face_px"] > 10 and report["sharpness"]["edge_blur_mm"] is not None
    assert set(report["exposure"]["thirds"]) == {"left", "middle", "right"}
    assert isinstance(report["inside_envelope"], bool)
    assert report["inside_envelope"] == (not report["reasons"])
    assert "inside_envelope:" in printed and "tilt:" in printed


def check_empty_board(tmp_path: Path, tilt: int, height: int, size: tuple[int, int], seed: int) -> dict:
    """`camera check --json` of a rendered empty board seen from the camera given."""
    folder = tmp_path / "board"
    assert main(["dataset", "board", "--out", str(folder), "--tilt", str(tilt), "--height", str(height),
                 "--size", str(size[0]), str(size[1]), "--seed", str(seed), "--setups", "1", "--photos", "1",
                 "--dice", "0"]) == 0
    assert main(["camera", "check", "--image", str(folder / "s0_empty.jpg"), "--game", "highway-dice",
                 "--json", str(tmp_path / "c.json")]) == 0
    return json.loads((tmp_path / "c.json").read_text())


def test_camera_check_says_what_to_change_for_a_steep_low_camera(tmp_path, capsys):
    report = check_empty_board(tmp_path, 50, 500, (1280, 720), 3)
    assert report["inside_envelope"] is False
    assert any("degrees from straight down" in r for r in report["reasons"])
    assert any(a.startswith("raise the camera about") and a.split()[5] == "cm," for a in report["advice"])


def test_a_photo_without_markers_gets_a_clear_answer(tmp_path, capsys):
    photo = tmp_path / "wall.jpg"
    cv2.imwrite(str(photo), np.full((480, 640, 3), 130, np.uint8))
    assert main(["camera", "check", "--image", str(photo), "--game", "highway-dice",
                 "--json", str(tmp_path / "c.json")]) == 0
    out = capsys.readouterr().out
    report = json.loads((tmp_path / "c.json").read_text())
    assert report["localised"] is False and report["inside_envelope"] is False
    assert report["markers_found"] == [] and report["markers_missing"] == [0, 1, 2, 3]
    assert "was not found" in out and "four corner markers" in out


def test_camera_check_refuses_bad_input_before_opening_anything(tmp_path, capsys):
    bad = tmp_path / "x.jpg"
    bad.write_text("not an image")
    assert main(["camera", "check", "--image", str(bad), "--game", "highway-dice"]) == 2
    assert "not a decodable image" in capsys.readouterr().err
    assert main(["camera", "check", "--image", str(bad), "--game", "chess"]) == 2
    assert "knows the boards of" in capsys.readouterr().err
    assert main(["camera", "check", "--game", "highway-dice"]) == 2
    assert "exactly one of --camera" in capsys.readouterr().err


class FakeCapture:
    """Camera 1 exists (a 640x480 grey picture); every other index does not open."""

    def __init__(self, index):
        self.index = index

    def isOpened(self):
        return self.index == 1

    def read(self):
        return (True, np.full((480, 640, 3), 90, np.uint8)) if self.index == 1 else (False, None)

    def release(self):
        pass


def test_camera_list_and_preview(monkeypatch, tmp_path, capsys):
    import referee_app.camera_setup as cam

    monkeypatch.setattr(cam, "_opener", lambda: FakeCapture)
    assert main(["camera", "list"]) == 0
    assert capsys.readouterr().out.strip() == "camera 1: 640x480"
    snap = tmp_path / "snap.jpg"
    assert main(["camera", "preview", "1", "--out", str(snap)]) == 0
    assert cv2.imread(str(snap)).shape == (480, 640, 3)
    assert main(["camera", "preview", "5", "--out", str(tmp_path / "none.jpg")]) == 1
    assert "camera 5: no such camera" in capsys.readouterr().err
    assert not (tmp_path / "none.jpg").exists()
    assert main(["camera", "check", "--camera", "1", "--game", "highway-dice"]) == 0
    assert "was not found" in capsys.readouterr().out


def test_eval_board_scores_cells_and_the_3d_reader_beats_the_flat_one_at_30_degrees(tilted, tmp_path, capsys):
    runs = {}
    for geometry in ("3d", "flat"):
        out = tmp_path / f"{geometry}.json"
        assert main(["eval", "board", str(tilted), "--game", "highway-dice", "--geometry", geometry,
                     "--json", str(out)]) == 0
        runs[geometry] = json.loads(out.read_text())
    new, old = runs["3d"], runs["flat"]
    for key in ("cells", "cells_right", "cell_accuracy", "confident_wrong", "missed", "false"):
        assert key in new
    assert new["cells"] == old["cells"] >= 18
    assert new["cells_right"] == new["cells"] * new["cell_accuracy"] or abs(
        new["cells_right"] / new["cells"] - new["cell_accuracy"]) < 1e-3
    assert new["cell_accuracy"] >= 0.9 and new["confident_wrong"] < old["confident_wrong"]
    assert new["cell_accuracy"] > old["cell_accuracy"]
    assert set(new["value_readers"]) == {"pips", "learned"}


def test_eval_board_refuses_labels_without_cells(tmp_path, capsys):
    (tmp_path / "labels.json").write_text(json.dumps({"items": [
        {"image": "a.jpg", "width": 10, "height": 10,
         "objects": [{"kind": "die", "value": 3, "bbox": [0, 0, 5, 5]}]}]}))
    assert main(["eval", "board", str(tmp_path), "--game", "highway-dice"]) == 2
    assert "needs kind 'die', an integer value and a 'cell'" in capsys.readouterr().err


def test_the_page_lists_previews_and_checks_a_camera(tmp_path, tilted):
    from referee_app.hub import Hub
    from referee_app.store import MatchStore
    from referee_app.web.app import create_app

    photo = cv2.imread(str(tilted / "s0_00.jpg"))

    class BoardCamera(FakeCapture):
        def read(self):
            return (True, photo.copy()) if self.index == 1 else (False, None)

    app = create_app(Hub(MatchStore(tmp_path / "data")))
    app.config["camera_opener"] = BoardCamera  # a stand-in camera driver: camera 1 sees the board
    c2 = app.test_client()
    assert c2.get("/api/setup/cameras").get_json() == {"cameras": [{"index": 1, "width": 1280, "height": 720}],
                                                       "games": ["highway-dice", "tokyo-highway"]}
    snap = c2.get("/api/setup/cameras/1/preview.jpg")
    assert snap.status_code == 200 and snap.mimetype == "image/jpeg"
    assert cv2.imdecode(np.frombuffer(snap.data, np.uint8), cv2.IMREAD_COLOR).shape == (720, 1280, 3)
    missing = c2.get("/api/setup/cameras/4/preview.jpg")
    assert missing.status_code == 404 and "camera 4" in missing.get_json()["error"]
    report = c2.get("/api/setup/cameras/1/check?game=highway-dice").get_json()
    assert report["localised"] and report["markers_found"] == [0, 1, 2, 3] and "inside_envelope" in report
    assert c2.get("/api/setup/cameras/1/check?game=chess").status_code == 400
    assert c2.get("/api/setup/cameras/x/check?game=highway-dice").status_code == 404


def test_a_reflection_over_the_left_third_is_named(tilted, tmp_path):
    import cv2 as cv

    from referee_app.camera_setup import run_check

    photo = cv.imread(str(tilted / "s0_empty.jpg"))
    assert run_check(photo, "highway-dice")["exposure"]["thirds"]["left"]["glare"] < 0.05
    spot = np.zeros(photo.shape[:2], np.float32)
    cv.circle(spot, (330, 360), 150, 1.0, -1)  # a lamp's reflection on the board's left part
    glared = np.clip(photo + 255 * cv.GaussianBlur(spot, (0, 0), 15)[..., None], 0, 255).astype(np.uint8)
    report = run_check(glared, "highway-dice")
    assert not report["inside_envelope"]
    assert any("glare on the left third" in r for r in report["reasons"])
    assert any("no light reflects off its left third" in a for a in report["advice"])


def test_a_camera_too_coarse_for_the_a2_board_is_told_the_resolution_it_needs(tmp_path):
    report = check_empty_board(tmp_path, 15, 850, (640, 360), 4)
    assert report["inside_envelope"] is False
    assert any("or better is needed for the A2 board (now 640x360)" in a for a in report["advice"])
