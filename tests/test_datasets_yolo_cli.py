"""`highway-referee dataset yolo` and `train yolo` through the command line: sets written, clear errors."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from referee_app.cli import main


def test_dataset_yolo_each_kind(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for kind, scheme, n_classes in [("tiles", "piece", 1), ("route-dice", "die", 1), ("sticks", "boxes", 3),
                                    ("dice", "value", 6)]:
        out = tmp_path / kind
        rc = main(["dataset", "yolo", kind, "--out", str(out), "--n", "2", "--seed", "3", "--size", "256", "160",
                   "--scheme", scheme, "--val-fraction", "0.5", "--no-progress"])
        assert rc == 0
        m = json.loads((out / "manifest.json").read_text())
        assert m["images"] == {"train": 1, "val": 1} and len(m["names"]) == n_classes
        assert "kpt_shape" not in (out / "data.yaml").read_text()
        lines = [ln for f in (out / "labels").rglob("*.txt") for ln in f.read_text().splitlines()]
        assert lines and all(len(ln.split()) == 5 and 0 <= int(ln.split()[0]) < n_classes for ln in lines)
        assert f"train yolo --data {out / 'data.yaml'}" in capsys.readouterr().out


def test_dataset_yolo_default_scheme_of_sticks_is_pose(tmp_path: Path) -> None:
    assert main(["dataset", "yolo", "sticks", "--out", str(tmp_path), "--n", "1", "--size", "256", "160",
                 "--no-progress"]) == 0
    assert "kpt_shape: [2, 3]" in (tmp_path / "data.yaml").read_text()
    line = (tmp_path / "labels" / "train" / "sticks_0_00000.txt").read_text().splitlines()[0]
    assert len(line.split()) == 11


@pytest.mark.parametrize("argv, message", [
    (["--n", "0"], "--n must be between"),
    (["--val-fraction", "1"], "--val-fraction must be"),
    (["--size", "20", "20"], "--size must be 64..8192"),
    (["--seed", "-1"], "--seed must be >= 0"),
    (["--scheme", "faces"], "scheme for tiles must be one of piece, number"),
])
def test_dataset_yolo_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str],
                                    message: str) -> None:
    assert main(["dataset", "yolo", "tiles", "--out", str(tmp_path / "o"), "--no-progress", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "o").exists()


def test_dataset_yolo_refuses_foreign_folder_and_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    for kind in ("tiles", "dice"):
        assert main(["dataset", "yolo", kind, "--out", str(tmp_path), "--n", "1", "--no-progress"]) == 2
        assert "holds no YOLO set built here" in capsys.readouterr().err
    assert main(["dataset", "yolo", "tiles", "--out", str(tmp_path / "notes.txt"), "--n", "1"]) == 2
    assert "exists and is not a folder" in capsys.readouterr().err
    assert (tmp_path / "notes.txt").read_text() == "mine"
    assert main(["dataset", "yolo", "dice", "--out", str(tmp_path / "d"), "--scheme", "piece"]) == 2
    assert "--scheme for dice must be die or value" in capsys.readouterr().err


@pytest.fixture()
def pose_set(tmp_path: Path) -> Path:
    assert main(["dataset", "yolo", "sticks", "--out", str(tmp_path / "s"), "--n", "1", "--size", "128", "96",
                 "--no-progress"]) == 0
    return tmp_path / "s" / "data.yaml"


@pytest.mark.parametrize("argv, message", [
    ([], "--data DIR/data.yaml is required"),
    (["--data", "nowhere/data.yaml"], "--data nowhere/data.yaml: no such file"),
    (["--data", "POSE", "--model", "yolov8n.yaml"], "does not match"),
    (["--data", "POSE", "--imgsz", "100"], "--imgsz must be a multiple of 32"),
    (["--data", "POSE", "--epochs", "0"], "--epochs must be at least 1"),
    (["--data", "POSE", "--export", "model.pt"], "name the file NAME.onnx"),
])
def test_train_yolo_bad_arguments(pose_set: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                  argv: list[str], message: str) -> None:
    argv = [str(pose_set) if a == "POSE" else a for a in argv]
    assert main(["train", "yolo", "--name", "x", "--runs", str(tmp_path / "runs"), *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_train_yolo_without_the_extra_says_what_to_install(pose_set: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    if importlib.util.find_spec("ultralytics") is not None:
        pytest.skip("the train extra is installed here")
    assert main(["train", "yolo", "--data", str(pose_set), "--name", "x", "--runs", str(tmp_path / "r")]) == 3
    err = capsys.readouterr().err
    assert "pip install" in err and "ultralytics" in err
