"""A second camera set further back has its piece maps made at camera 1's pixels per millimetre
(vision.tokyo.map_scale; TokyoAdapter._half): at the same half size its pieces shrank towards the
maps' blur and close builds became questions (docs/benchmarks/referee-accuracy.md, "A higher
camera 2")."""

from __future__ import annotations

import pytest

from datasets.match_sim.core import SecondCamera, Setup
from datasets.match_sim.tokyo import camera, second_camera
from referee_app.games.tokyo import HALF, TokyoAdapter
from vision.tokyo import PieceSizes, TokyoCalibration
from vision.tokyo.map_scale import map_scale, pixels_per_mm


def _pair(height2: float | None, yaw: float = 5.0) -> tuple[TokyoCalibration, TokyoCalibration]:
    setup = Setup(width=1280, height=720, height_mm=550.0, tilt_deg=40.0, fov_deg=50.0, cameras=2,
                  second=SecondCamera(150.0, height2, None))
    return (TokyoCalibration(camera(setup, yaw), PieceSizes()),
            TokyoCalibration(second_camera(setup, yaw), PieceSizes()))


@pytest.mark.parametrize("height2", [750.0, None])  # None: the default, 200 mm above camera 1
def test_a_higher_second_camera_is_mapped_at_camera_ones_pixels_per_mm(height2: float | None) -> None:
    first, second = _pair(height2)
    adapter = TokyoAdapter()
    small1 = adapter._half(1, first)
    small2 = adapter._half(2, second, first)
    ref, own = pixels_per_mm(small1), pixels_per_mm(small2)
    assert ref is not None and own is not None
    # at half size it had about three quarters of camera 1's pixels per mm; now within a scale step
    assert own == pytest.approx(ref, rel=0.06)
    assert small2.camera.width > first.camera.width * HALF


@pytest.mark.parametrize("yaw", [-20.0, -7.0, 0.0, 12.0, 20.0])
def test_a_second_camera_at_camera_ones_height_keeps_half_size(yaw: float) -> None:
    first, second = _pair(550.0, yaw)
    assert map_scale(second, first, HALF) == HALF


def test_a_closer_camera_is_never_mapped_coarser_than_half_nor_past_its_picture() -> None:
    first, second = _pair(300.0)
    assert map_scale(second, first, HALF) == HALF
    far_first, _ = _pair(None)
    _, far = _pair(3000.0)
    assert map_scale(far, far_first, HALF) == 1.0
