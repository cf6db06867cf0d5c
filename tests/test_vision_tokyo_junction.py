"""A junction (yellow top unit) is told by the side of the column's top unit, so a yellow road resting
on a grey column is no junction, and the road ends covering the junction's top do not hide it."""

from __future__ import annotations

import numpy as np
import pytest

from datasets.tokyo.camera import camera_looking_at
from datasets.tokyo.render import render_tokyo_frame
from vision.tokyo import read_tokyo

SCENE = {
    "supports": [
        {"id": 0, "x_mm": -120, "y_mm": -10, "height": 2, "junction": False},
        {"id": 1, "x_mm": -20, "y_mm": 30, "height": 3, "junction": True},
        {"id": 2, "x_mm": 80, "y_mm": -20, "height": 4, "junction": False},
        {"id": 3, "x_mm": -30, "y_mm": 130, "height": 1, "junction": False},
    ],
    "sticks": [
        {"a": 0, "b": 1, "color": "yellow"},
        {"a": 1, "b": 2, "color": "blue"},
        {"a": 1, "b": 3, "color": "yellow"},
    ],
}


@pytest.mark.parametrize("tilt, yaw", [(30, 20), (30, 320)])
def test_junction_read_from_its_top_unit(tilt: float, yaw: float) -> None:
    cam = camera_looking_at((0, 0, 0), 640, tilt, yaw, 52, 1280, 720)
    image, lab = render_tokyo_frame(SCENE, 3, camera=cam, table="cloth", hand=False, glare=False)
    obs = read_tokyo(image, lab["calibration"])
    read = {}
    for s in lab["supports"]:
        near = min(obs.supports, key=lambda r: np.hypot(*(np.array(r.base_px) - s["base_px"])))
        assert np.hypot(*(np.array(near.base_px) - s["base_px"])) < 25
        read[s["id"]] = near.junction
    assert read == {0: False, 1: True, 2: False, 3: False}
