"""The build candidates' outlines (vision/tokyo/piece_evidence.py `column_hull`, `stick_quad`) made with
less NumPy array building give main's points and polygons bit for bit."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.tokyo import piece_evidence as pe
from vision.tokyo.calibration import PinholeCamera, TokyoCalibration


def _main_column_hull(calib: TokyoCalibration, x: float, y: float, z0: float, z1: float,
                      n: int = 16) -> np.ndarray:  # main's code, for comparison
    r = calib.sizes.column_diameter_mm / 2
    ang = np.linspace(0, 2 * np.pi, n, endpoint=False)
    ring = np.stack([x + r * np.cos(ang), y + r * np.sin(ang)], 1)
    pts = np.vstack([np.c_[ring, np.full(n, z0)], np.c_[ring, np.full(n, z1)]])
    uv, _ = calib.camera.project(pts)
    return cv2.convexHull(np.round(uv).astype(np.int32))


def _main_stick_quad(calib: TokyoCalibration, p0: np.ndarray, p1: np.ndarray) -> np.ndarray:  # main's code
    s = calib.sizes
    p0, p1 = np.asarray(p0, np.float64), np.asarray(p1, np.float64)
    u = (p1 - p0) / max(float(np.linalg.norm(p1 - p0)), 1e-9)
    side = np.cross([0.0, 0.0, 1.0], u)
    side = side / max(float(np.linalg.norm(side)), 1e-9) * s.stick_width_mm / 2
    up = np.array([0.0, 0.0, s.stick_thickness_mm])
    pts = [p + sb * side + z for p in (p0, p1) for sb in (-1, 1) for z in (0 * up, up)]
    uv, _ = calib.camera.project(np.array(pts))
    return cv2.convexHull(np.round(uv).astype(np.int32))


def _camera(tilt_deg: float, yaw_deg: float) -> TokyoCalibration:
    """A 1280 x 720 camera 600 mm from the mat's middle, tilted and turned."""
    t, a = np.radians(tilt_deg), np.radians(yaw_deg)
    look = np.array([np.sin(t) * np.sin(a), np.sin(t) * np.cos(a), -np.cos(t)])
    eye = -600 * look
    right = np.cross(look, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    down = np.cross(look, right)
    R = np.stack([right, down, look])
    K = np.array([[900.0, 0, 640], [0, 900.0, 360], [0, 0, 1]])
    return TokyoCalibration(PinholeCamera(K, R, -R @ eye, 1280, 720))


@pytest.fixture
def projected(monkeypatch: pytest.MonkeyPatch) -> list[np.ndarray]:
    """Every point set projected, in order."""
    seen: list[np.ndarray] = []
    real = PinholeCamera.project

    def spy(self: PinholeCamera, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        seen.append(np.array(pts, np.float64))
        return real(self, pts)

    monkeypatch.setattr(PinholeCamera, "project", spy)
    return seen


@pytest.mark.parametrize("tilt, yaw", [(25.0, 0.0), (40.0, 130.0)])
def test_outlines_equal_mains(tilt: float, yaw: float, projected: list[np.ndarray]) -> None:
    rng = np.random.default_rng(int(tilt))
    for calib in (_camera(tilt, yaw), pe.scaled(_camera(tilt, yaw), 0.5)):
        for trial in range(400):
            x, y = (float(v) for v in rng.uniform(-250, 250, 2))
            if trial % 3 == 0:
                x, y = round(x / 10) * 10.0, round(y / 10) * 10.0  # the position grid
            z0, z1 = (0.0, float(rng.integers(1, 9) * 10)) if trial % 2 else (float(rng.integers(0, 8) * 10),
                                                                              float(rng.integers(1, 9) * 10))
            projected.clear()
            want = _main_column_hull(calib, x, y, z0, z1)
            got = pe.column_hull(calib, x, y, z0, z1)
            assert projected[0].tobytes() == projected[1].tobytes()
            assert np.array_equal(want, got)
            p0 = np.array([x, y, z1])
            p1 = p0 + np.r_[rng.uniform(-120, 120, 2), rng.integers(-3, 4) * 10.0]
            if trial % 7 == 0:
                p1 = p0 + [100.0, 0.0, 0.0]  # along x: zero terms in the side vector
            if trial % 11 == 0:
                p1 = p0 + [0.0, 0.0, 20.0]  # straight up: the side vector is zero
            if trial % 13 == 0:
                p0[0], p1[0] = -0.0, 0.0  # signed zeros
            projected.clear()
            want = _main_stick_quad(calib, p0, p1)
            got = pe.stick_quad(calib, p0, p1)
            assert projected[0].tobytes() == projected[1].tobytes()
            assert np.array_equal(want, got)


def test_ring_offsets_made_once() -> None:
    """A column's ring offsets are made once per radius and count, shared read-only by every outline."""
    calib = _camera(30.0, 0.0)
    pe.column_hull(calib, 0.0, 0.0, 0.0, 10.0)
    first = pe._ring(calib.sizes.column_diameter_mm / 2, 16)
    pe.column_hull(calib, 50.0, 20.0, 0.0, 30.0)
    again = pe._ring(calib.sizes.column_diameter_mm / 2, 16)
    assert first[0] is again[0] and first[1] is again[1]
    assert not first[0].flags.writeable
