"""The Tokyo Highway renderer: deterministic, labels in the realdata format, crossings consistent."""

from __future__ import annotations

import json

import numpy as np
import pytest

from datasets.tokyo.camera import camera_looking_at
from datasets.tokyo.render import render_tokyo_frame
from datasets.tokyo.scene import random_scene, resolve_rods
from referee_app.cli import main
from vision.realdata import load_labels
from vision.tokyo.calibration import PieceSizes

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


def test_same_seed_same_image_and_labels() -> None:
    scene = random_scene(np.random.default_rng(5), n_sticks=6)
    a, la = render_tokyo_frame(scene, 5, width=640, height=360)
    b, lb = render_tokyo_frame(scene, 5, width=640, height=360)
    c, _ = render_tokyo_frame(scene, 6, width=640, height=360)
    assert np.array_equal(a, b) and la == lb
    assert not np.array_equal(a, c)


def test_higher_stick_is_on_top_at_the_crossing() -> None:
    cam = camera_looking_at((0, 0, 0), 450, 25, 30, 50, 640, 360)
    _, lab = render_tokyo_frame(CROSS, 1, camera=cam, table="cloth", hand=False, glare=False)
    assert len(lab["crossings"]) == 1
    c = lab["crossings"][0]
    assert (
        {c["a"], c["b"]} == {0, 1} and c["top"] == 1 and c["plan"]
    )  # the blue stick rests on 3-high columns
    heights = sorted(s["height"] for s in lab["supports"])
    assert heights == [1, 1, 3, 3]
    # a support's labelled top pixel is the projection of its top centre
    top = np.array(lab["supports"][3]["top_px"])
    uv, _ = cam.project(np.array([[0, 55, 3 * PieceSizes().unit_mm]]))
    assert np.allclose(top, uv[0], atol=0.01)


def test_sticks_rest_on_support_tops_and_have_the_set_length() -> None:
    sizes = PieceSizes()
    rods = resolve_rods(CROSS, sizes)
    for rod in rods:
        assert np.linalg.norm(rod.p1 - rod.p0) == pytest.approx(sizes.stick_length_mm)
    assert rods[1].p0[2] == pytest.approx(3 * sizes.unit_mm + sizes.stick_thickness_mm / 2)


def test_unknown_support_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown support id 9"):
        resolve_rods({"supports": [], "sticks": [{"a": 9, "b": 8}]}, PieceSizes())


def test_dataset_command_writes_realdata_labels(tmp_path) -> None:
    assert (
        main(
            [
                "dataset",
                "tokyo",
                "--out",
                str(tmp_path),
                "--n",
                "2",
                "--seed",
                "3",
                "--width",
                "480",
                "--height",
                "270",
            ]
        )
        == 0
    )
    labels = load_labels(tmp_path)
    assert len(labels.items) == 2
    for item in labels.items:
        sticks = [o for o in item.objects if o.kind == "stick"]
        assert sticks and all(o.endpoints is not None for o in sticks)
        for c in item.crossings:
            assert c["top"] in (c["a"], c["b"])
            assert item.objects[c["a"]].kind == "stick"
        assert item.extra["supports"] and "calibration" in item.extra
    raw = json.loads((tmp_path / "labels.json").read_text())
    assert raw["items"][0]["image"].endswith(".jpg")


def test_dataset_command_rejects_bad_count(capsys) -> None:
    assert main(["dataset", "tokyo", "--out", "/tmp/never", "--n", "0"]) != 0
    assert "--n must be" in capsys.readouterr().err


def test_shipped_sample_is_small_and_loadable(repo_dir) -> None:
    folder = repo_dir / "datasets" / "samples" / "tokyo"
    size = sum(p.stat().st_size for p in folder.iterdir())
    assert size <= 2_000_000
    assert len(load_labels(folder).items) >= 3
