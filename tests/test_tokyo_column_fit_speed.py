"""The column fits' arithmetic, quicker (issue #24, fifth round): the camera's projection adds and
divides a column at a time on many points (`_plus_row`), and the base rings read the piece and care
masks from one byte per pixel (`_looks`), by flat index. Every value is the plain formulas' (copied
here from before the change), bit for bit."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from referee_app.demo import DEMO_ROOT
from referee_app.games.tokyo import load_calibration
from vision.tokyo.calibration import _BY_COLUMN, _plus_row
from vision.tokyo.columns import _base_scores, _looks
from vision.tokyo.foreground import BRIGHT, pieces_masks

DEMO = DEMO_ROOT / "tokyo-highway"


@pytest.fixture(scope="module")
def calib():
    return load_calibration(DEMO / "calibration.json")[0]


def _project_plain(cam, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    pc = np.asarray(pts, np.float64).reshape(-1, 3) @ cam.R.T + cam.t
    z = np.maximum(pc[:, 2], 1e-6)
    return (pc[:, :2] / z[:, None]) @ cam.K[:2, :2].T + cam.K[:2, 2], pc[:, 2]


def _base_scores_plain(calib, fg: np.ndarray, care: np.ndarray, xy: np.ndarray) -> np.ndarray:
    r = calib.sizes.column_diameter_mm / 2
    eye = calib.camera.centre
    ang = np.linspace(0, 2 * np.pi, 96, endpoint=False)
    ring = np.stack([np.cos(ang), np.sin(ang)], 1)
    ring = ring[ring @ (eye[:2] - xy.mean(0)) > 0]
    H, W = fg.shape
    fracs = []
    for radii, z, want in (((0.8 * r, 0.95 * r), 2.0, True), ((r + 2.5, r + 4.0, r + 5.5), 0.0, False)):
        offs = np.vstack([ring * q for q in radii])
        pts = xy[:, None, :] + offs[None]
        n, m = pts.shape[:2]
        xyz = np.c_[pts.reshape(-1, 2), np.full(n * m, z)]
        uv, _ = _project_plain(calib.camera, xyz)
        xi = np.clip(np.round(uv[:, 0]).astype(int), 0, W - 1)
        yi = np.clip(np.round(uv[:, 1]).astype(int), 0, H - 1)
        ok = care[yi, xi].reshape(n, m)
        good = ((fg[yi, xi] > 0) == want).reshape(n, m) & ok
        cnt = ok.sum(1)
        fracs.append(np.where(cnt > 0, good.sum(1) / np.maximum(cnt, 1), 0.5))
    return (fracs[0] + fracs[1]) / 2


@pytest.mark.parametrize("n", [0, 1, 5, _BY_COLUMN - 1, _BY_COLUMN, 1000, 45_000])
def test_projection_equals_the_plain_formula(calib, n: int) -> None:
    rng = np.random.default_rng(n)
    pts = rng.uniform(-300, 300, (n, 3))
    pts[:, 2] = rng.uniform(0, 100, n)
    uv, depth = calib.camera.project(pts)
    want_uv, want_depth = _project_plain(calib.camera, pts)
    assert np.array_equal(uv, want_uv) and np.array_equal(depth, want_depth)
    assert np.array_equal(calib.camera.to_camera(pts), pts @ calib.camera.R.T + calib.camera.t)


def test_plus_row_adds_the_row_to_every_row() -> None:
    rng = np.random.default_rng(3)
    for n in (3, _BY_COLUMN, 5000):
        a = rng.normal(size=(n, 3))
        want = a + np.array([0.1, -2.0, 1e-9])
        assert np.array_equal(_plus_row(a.copy(), np.array([0.1, -2.0, 1e-9])), want)


def test_base_scores_equal_the_plain_ones_on_a_recorded_frame(calib) -> None:
    image = cv2.imread(str(DEMO / "028.jpg"))
    (fg,), _ = pieces_masks(image, (BRIGHT,))
    care = np.ones(fg.shape, bool)
    care[:, 600:700] = False  # pixels under roads say nothing
    rng = np.random.default_rng(11)
    for n in (1, 45, 315):
        xy = rng.uniform(-250, 250, (n, 2))
        want = _base_scores_plain(calib, fg, care, xy)
        assert np.array_equal(_base_scores(calib, fg, care, xy), want)
        assert np.array_equal(_base_scores(calib, fg, care, xy, _looks(fg, care)), want)


def test_looks_codes_piece_and_care() -> None:
    fg = np.array([[0, 255, 0, 7]], np.uint8)
    care = np.array([[True, True, False, False]])
    assert _looks(fg, care).tolist() == [[2, 3, 0, 1]]
    assert _looks(fg, care.astype(np.uint8) * 255).tolist() == [[2, 3, 0, 1]]  # any non-zero cares
