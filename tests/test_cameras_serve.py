"""Three cameras in the live Tokyo referee through the user's path: `highway-referee serve --frames A
--camera2 B --camera-extra C --calibration-extra FILE ...` on the bundled recorded match's pictures
(camera 2's pictures stand in for camera 3 as well: the point is the plumbing and the fallbacks),
and the options' errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from referee_app import events
from referee_app.cli import load_commands, main
from referee_app.commands.serve import build_referee
from referee_app.demo import DEMO_ROOT
from referee_app.games import get_adapter

DEMO = DEMO_ROOT / "tokyo-highway"
SCENES = ["000.jpg", "002.jpg"]  # the empty table, then purple's start road
HOLD = 3  # a camera loop settles after 3 equal frames
START = "purple start (-150,-60) table (-150,-170)"


def folder(root: Path, name: str, pictures: Path, scenes: list[str]) -> Path:
    """`pictures`' scenes, each held for HOLD files, as a folder a camera could have recorded."""
    out = root / name
    out.mkdir()
    for k, scene in enumerate(scenes):
        for j in range(HOLD):
            shutil.copy(pictures / scene, out / f"{k * HOLD + j:03d}.jpg")
    return out


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("three_cameras")
    folder(root, "a", DEMO, SCENES)
    folder(root, "b", DEMO / "camera2", SCENES)
    folder(root, "c", DEMO / "camera2", SCENES)
    folder(root, "c_short", DEMO / "camera2", SCENES[:1])  # camera 3 stops after the empty table
    return root


@pytest.fixture
def adapter(monkeypatch):
    """`serve` configures the shared Tokyo adapter: leave it as the other tests expect it."""
    for k in ("", "2", "3"):
        monkeypatch.delenv(f"HIGHWAY_TOKYO_CALIBRATION{k}", raising=False)
    shared = get_adapter("tokyo-highway")
    yield shared
    shared.use_calibration(None)
    for camera in (2, 3):
        shared.use_camera_calibration(camera, None)
    shared.take_notices()
    shared.take_view_images()


def referee(data: Path, *options: str):
    """Serve a Tokyo match on the folders as a user would and run its loop to the end;
    -> (loop, the match log's records)."""
    args = load_commands().build().parse_args(
        ["serve", "--game", "tokyo-highway", "--players", "Ann,Bo", "--data", str(data), *options])
    hub, loops = build_referee(args)
    loop = loops[0]
    loop.run()
    hub.bus.drain()
    log = next((data / "matches").glob("*.jsonl"))
    return loop, [json.loads(line) for line in log.read_text().splitlines()]


def three(recorded: Path, third: str = "c", calibrate_third: bool = True) -> list[str]:
    return ["--frames", str(recorded / "a"), "--calibration", str(DEMO / "calibration.json"),
            "--camera2", str(recorded / "b"), "--calibration2", str(DEMO / "calibration2.json"),
            "--camera-extra", str(recorded / third),
            *(["--calibration-extra", str(DEMO / "calibration2.json")] if calibrate_third else [])]


def camera_events(records: list[dict]) -> list[dict]:
    return [r for r in records if r["type"] == "event" and r["kind"] == events.CAMERA]


def moves(records: list[dict]) -> list[str]:
    return [r["notation"] for r in records if r["type"] == "action"]


def test_three_calibrated_cameras_are_read_together_and_every_camera_has_a_picture(recorded, adapter, tmp_path):
    loop, records = referee(tmp_path, *three(recorded))
    assert moves(records) == [START]
    assert camera_events(records) == []  # every camera read as configured: nothing to say
    assert loop.stats.frames == 2 * HOLD and loop.stats.errors == 0 and loop.stats.unreadable == 0
    cams = loop.cameras()
    assert [c["camera"] for c in cams] == [1, 2, 3]
    assert all(c["has_picture"] and c["annotated"] and c["frame"] == 2 * HOLD - 1 for c in cams)
    # camera 2's picture is its own frame with what that view read drawn on it
    picture = cv2.imdecode(np.frombuffer(loop.camera_jpeg(2), np.uint8), cv2.IMREAD_COLOR)
    plain = cv2.imread(str(DEMO / "camera2" / SCENES[-1]))
    first = cv2.imread(str(DEMO / SCENES[-1]))
    assert picture.shape == plain.shape
    drawn = np.abs(picture.astype(int) - plain.astype(int)).max(axis=2) > 80
    assert 50 < drawn.sum() < 0.05 * drawn.size  # marks, not another picture
    if first.shape == plain.shape:  # camera 2's view, not camera 1's
        assert np.abs(picture.astype(int) - plain.astype(int)).mean() < \
            np.abs(picture.astype(int) - first.astype(int)).mean() / 2
    with pytest.raises(KeyError):
        loop.camera_jpeg(4)


def test_a_shorter_third_folder_drops_to_two_views_and_says_so_once(recorded, adapter, tmp_path):
    loop, records = referee(tmp_path, *three(recorded, "c_short"))
    said = camera_events(records)
    assert [(e["status"], e["views"], e["cameras"]) for e in said] == [("two-views", 2, [1, 2])]
    assert "camera 3 gave no image" in said[0]["message"] and "has only 3 images" in said[0]["message"]
    assert said[0]["message"].endswith("reading cameras 1 and 2")
    assert moves(records) == [START]
    third = loop.cameras()[2]
    # the page keeps camera 3's last picture and says why it is not current
    assert third["has_picture"] and third["frame"] == HOLD - 1 and "has only 3 images" in third["note"]


def test_a_third_camera_without_calibration_is_left_out_and_its_environment_file_is_used(
        recorded, adapter, tmp_path, monkeypatch):
    loop, records = referee(tmp_path / "none", *three(recorded, calibrate_third=False))
    said = camera_events(records)
    assert [(e["status"], e["views"]) for e in said] == [("two-views", 2)]
    assert "camera 3 has no calibration" in said[0]["message"]
    assert "HIGHWAY_TOKYO_CALIBRATION3" in said[0]["message"] and "--calibration-extra" in said[0]["message"]
    assert moves(records) == [START]
    assert loop.cameras()[2]["has_picture"] and not loop.cameras()[2]["annotated"]  # the plain frame
    monkeypatch.setenv("HIGHWAY_TOKYO_CALIBRATION3", str(DEMO / "calibration2.json"))
    loop, records = referee(tmp_path / "env", *three(recorded, calibrate_third=False))
    assert camera_events(records) == [] and moves(records) == [START]
    assert loop.cameras()[2]["annotated"]


def test_serve_rejects_extra_camera_options_that_cannot_work(recorded, adapter, tmp_path, capsys):
    base = ["serve", "--port", "0", "--data", str(tmp_path), "--game", "tokyo-highway"]
    first = ["--frames", str(recorded / "a")]
    cal = str(DEMO / "calibration2.json")

    def refused(*options: str, code: int = 2) -> str:
        assert main([*base, *options]) == code
        return capsys.readouterr().err

    err = refused(*first, "--calibration-extra", cal)
    assert "--calibration-extra is an extra camera's calibration: give --camera-extra too" in err
    err = refused(*first, "--camera-extra", str(recorded / "b"), "--calibration-extra", cal,
                  "--calibration-extra", cal)
    assert "2 --calibration-extra for 1 --camera-extra" in err
    assert "go with a first source" in refused("--camera-extra", str(recorded / "b"))
    err = refused(*first, "--game", "highway-grid", "--camera-extra", str(recorded / "b"))
    assert "highway-grid's reader uses one camera: --camera-extra is for tokyo-highway" in err
    err = refused(*first, "--camera2", str(recorded / "b"), "--camera-extra", str(tmp_path / "nope"), code=1)
    assert "cannot open camera 3 (--camera-extra)" in err and "nope" in err
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    err = refused(*first, "--camera-extra", str(recorded / "b"), "--calibration-extra", str(bad), code=1)
    assert "cannot use the calibration of camera 2 (--calibration-extra)" in err and "bad.json" in err


def test_serve_refuses_an_extra_camera_index_that_does_not_open(recorded, adapter, tmp_path, capsys,
                                                                 monkeypatch):
    import vision.sources as sources

    class NoDevice:
        def __init__(self, target) -> None:
            self.target = target

        def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
            return False

        def release(self) -> None:
            pass

    real = sources.CaptureSource.__init__

    def no_device(self, target, opener=None, **kwargs):  # every camera index: no such device
        real(self, target, opener=NoDevice, **kwargs)

    monkeypatch.setattr(sources.CaptureSource, "__init__", no_device)
    assert main(["serve", "--port", "0", "--data", str(tmp_path), "--game", "tokyo-highway",
                 "--frames", str(recorded / "a"), "--camera-extra", "7"]) == 1
    err = capsys.readouterr().err
    assert "cannot open camera 2 (--camera-extra) '7'" in err and "did not open" in err


def test_views_that_cannot_be_read_together_fall_back_to_camera_one_and_come_back(monkeypatch):
    import vision.tokyo
    from referee_app.games.tokyo import TokyoAdapter
    from vision.sources import OtherView, PairedFrame

    tokyo = TokyoAdapter()
    tokyo.use_calibration(DEMO / "calibration.json")
    for camera in (2, 3):
        tokyo.use_camera_calibration(camera, DEMO / "calibration2.json")

    def seen(k: int):
        first, other = cv2.imread(str(DEMO / SCENES[k])), cv2.imread(str(DEMO / "camera2" / SCENES[k]))
        views = [OtherView(other, "folder:b"), OtherView(other.copy(), "folder:c")]
        return tokyo.read(PairedFrame(first, float(k), "folder:a", k, others=views))

    real = vision.tokyo.read_tokyo_views

    def broken(images, calibrations, **options):
        raise RuntimeError("no common view")

    monkeypatch.setattr(vision.tokyo, "read_tokyo_views", broken)
    alone = seen(0)
    assert tokyo.take_notices() == [("one-view", "the 3 views could not be read together (no common view): "
                                     "reading camera 1 alone", {"views": 1, "cameras": [1]})]  # said once
    assert tokyo.take_view_images() == {}  # no other view was read: the page shows their plain frames
    monkeypatch.setattr(vision.tokyo, "read_tokyo_views", real)
    together = seen(1)  # the next scene (a still scene's failed reading is kept: it would fail again)
    assert tokyo.take_notices() == [("several-views", "cameras 2 and 3 are back: column heights from "
                                     "cameras 1, 2 and 3", {"views": 3, "cameras": [1, 2, 3]})]
    assert sorted(tokyo.take_view_images()) == [2, 3]
    assert (alone.items["supports"], together.items["supports"]) == (0, 1)
