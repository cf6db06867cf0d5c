"""read_tokyo on controlled renders, bad input, and `eval sticks` through the CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest

from datasets.tokyo.camera import camera_looking_at
from datasets.tokyo.render import render_tokyo_frame
from referee_app.cli import main
from vision.tokyo import read_tokyo
from vision.tokyo.colours import colour_name
from vision.tokyo.evaluate import endpoint_distance
from vision.types import VisionError

CROSS = {
    "supports": [
        {"id": 0, "x_mm": -55, "y_mm": 0, "height": 1, "junction": False},
        {"id": 1, "x_mm": 55, "y_mm": 0, "height": 1, "junction": False},
        {"id": 2, "x_mm": 0, "y_mm": -55, "height": 3, "junction": False},
        {"id": 3, "x_mm": 0, "y_mm": 55, "height": 3, "junction": True},
    ],
    "sticks": [{"a": 0, "b": 1, "color": "red"}, {"a": 2, "b": 3, "color": "blue"}],
    "cars": [{"stick": 0, "t": 0.25, "color": "green"}],
}


@pytest.fixture(scope="module")
def cross_frame():
    cam = camera_looking_at((0, 0, 0), 450, 25, 30, 50, 960, 540)
    return render_tokyo_frame(CROSS, 1, camera=cam, table="cloth", hand=False, glare=False)


def test_reads_two_crossing_sticks_and_the_one_on_top(cross_frame) -> None:
    image, lab = cross_frame
    obs = read_tokyo(image, lab["calibration"])
    colours = sorted(s.color for s in obs.sticks)
    assert colours == ["blue", "red"]
    assert len(obs.crossings) == 1
    top = obs.sticks[obs.crossings[0].top]
    assert top.color == "blue" and obs.crossings[0].confidence > 0.5
    gt = np.array([o["endpoints"] for o in lab["objects"] if o["kind"] == "stick"])
    det = np.array([s.endpoints for s in obs.sticks])
    err = endpoint_distance(gt, det).min(1)
    # the target is 1 % of the diagonal on average; ends resting on a column can overrun onto it
    assert (err < 0.02 * np.hypot(*image.shape[:2])).all()
    assert any(c.color == "green" for c in obs.cars)
    assert any(s.junction for s in obs.supports)


def test_uncalibrated_reading_has_no_heights(cross_frame) -> None:
    obs = read_tokyo(cross_frame[0], None)
    assert not obs.calibrated and all(s.height is None for s in obs.supports)
    assert all(s.endpoints_mm is None for s in obs.sticks)


def test_bad_input_is_a_vision_error() -> None:
    with pytest.raises(VisionError):
        read_tokyo(np.zeros((10, 10), np.uint8))
    with pytest.raises(VisionError, match="calibration"):
        read_tokyo(np.zeros((64, 64, 3), np.uint8), {"camera": {"K": [1, 2]}})


def test_empty_table_reads_nothing() -> None:
    rng = np.random.default_rng(0)
    table = np.clip(rng.normal(120, 3, (270, 480, 3)), 0, 255).astype(np.uint8)
    obs = read_tokyo(table)
    assert obs.sticks == [] and obs.crossings == []


def test_colour_names() -> None:
    assert colour_name((40, 40, 200)) == "red"
    assert colour_name((200, 80, 40)) == "blue"
    assert colour_name((150, 150, 150)) == "grey"


def test_eval_sticks_cli_on_shipped_sample(repo_dir, tmp_path, capsys) -> None:
    out = tmp_path / "m.json"
    folder = repo_dir / "datasets" / "samples" / "tokyo"
    assert main(["eval", "sticks", str(folder), "--json", str(out), "--limit", "2"]) == 0
    res = json.loads(out.read_text())
    for key in ("stick_recall", "stick_precision", "crossing_recall", "over_under_accuracy", "height_exact"):
        assert key in res
    assert 0 <= res["stick_recall"] <= 1 and res["sticks"] > 0
    assert "stick_recall" in capsys.readouterr().out


def test_eval_sticks_cli_bad_folder(tmp_path, capsys) -> None:
    assert main(["eval", "sticks", str(tmp_path / "nope")]) == 2
    assert "not a folder" in capsys.readouterr().err
    assert main(["eval", "sticks", str(tmp_path)]) == 1
    assert "labels.json" in capsys.readouterr().err
