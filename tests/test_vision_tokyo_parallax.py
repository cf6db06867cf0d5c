"""Plane parallax (vision.tokyo.parallax): a road stick of exactly the table's colour stands out from the
other calibrated views warped onto views[0] by the table plane, where the colour-based piece mask takes
it for table; a shadow on the table, which every view sees in one place on the plane, does not."""

from __future__ import annotations

import cv2
import numpy as np
from tokyo_views_scene import SIZES, H, W, calibs, stick, z

from vision.tokyo import TokyoCalibration, TokyoObservation
from vision.tokyo.parallax import parallax_mask, table_map
from vision.tokyo.stick_fusion import MASK_SCALE, evidence, fuse_sticks, pieces

TABLE_BGR = np.array([150.0, 175.0, 195.0])
STICK = ((-40.0, -20.0, z(2)), (60.0, 30.0, z(2)))  # a road stick resting on two 2-unit columns
SHADOW = ((-90.0, 60.0), (-20.0, 60.0), (-20.0, 100.0), (-90.0, 100.0))  # a dark patch on the table, mm


def _texture(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The table's brightness at world (x, y): a 30 mm checker of +-18 % (grain the colour mask must
    not call pieces) and a shadow cast on it, at 35 %."""
    checker = np.where((np.floor(x / 30) + np.floor(y / 30)) % 2 == 0, 1.18, 0.82)
    (x0, y0), _, (x1, y1), _ = SHADOW
    shadow = (x > x0) & (x < x1) & (y > y0) & (y < y1)
    return np.where(shadow, 0.35, checker)


def _view(calib: TokyoCalibration, gain: float) -> np.ndarray:
    """The table as `calib` sees it (every pixel back-projected onto the plane z = 0), then the stick,
    filled with the table's mean colour; `gain`: this camera's exposure."""
    uu, vv = np.meshgrid(np.arange(W, dtype=np.float64), np.arange(H, dtype=np.float64))
    xyz = calib.camera.ray_to_plane(np.stack([uu.ravel(), vv.ravel()], 1), 0.0)
    bright = _texture(xyz[:, 0], xyz[:, 1]).reshape(H, W)
    img = bright[..., None] * TABLE_BGR * gain
    a, b = (np.array(p) for p in STICK)
    d = (b - a)[:2] / np.linalg.norm((b - a)[:2])
    side = np.array([-d[1], d[0], 0.0]) * SIZES.stick_width_mm / 2
    up = np.array([0, 0, SIZES.stick_thickness_mm / 2])
    corners = np.array([p + s * side + u * up for p in (a, b) for s in (-1, 1) for u in (-1, 1)])
    uv, _ = calib.camera.project(corners)
    hull = cv2.convexHull(np.round(uv).astype(np.int32))
    cv2.fillConvexPoly(img, hull, tuple(float(c) * gain for c in TABLE_BGR))
    return np.clip(img, 0, 255).astype(np.uint8)


def _scene() -> tuple[list[np.ndarray], list[TokyoCalibration]]:
    cals = calibs((0.0, 120.0, 240.0))
    return [_view(c, g) for c, g in zip(cals, (1.0, 0.9, 1.08), strict=True)], cals


def _in_first(calib: TokyoCalibration, pts: tuple) -> np.ndarray:
    return calib.camera.project(np.array(pts, np.float64))[0]


def test_table_map_takes_table_points_between_views() -> None:
    a, b = calibs((0.0, 120.0))
    pts = np.array([[-100.0, -50.0, 0.0], [80.0, 20.0, 0.0], [10.0, 90.0, 0.0]])
    ua, ub = a.camera.project(pts)[0], b.camera.project(pts)[0]
    mapped = cv2.perspectiveTransform(ua[None], table_map(a.camera, b.camera))[0]
    assert np.abs(mapped - ub).max() < 1e-6


def test_stick_of_table_colour_found_by_parallax_not_by_colour() -> None:
    images, cals = _scene()
    par = parallax_mask(images, cals)
    assert par.shape == pieces(images[0]).shape
    uv = _in_first(cals[0], STICK)
    assert evidence(par, uv, MASK_SCALE) > 0.6
    assert evidence(pieces(images[0]), uv, MASK_SCALE) < 0.1  # the colour mask takes it for table


def test_shadow_on_the_table_is_no_parallax() -> None:
    images, cals = _scene()
    par = parallax_mask(images, cals)
    (x0, y0), _, (x1, y1), _ = SHADOW
    inner = [(x0 + 8, y0 + 8, 0.0), (x1 - 8, y0 + 8, 0.0), (x1 - 8, y1 - 8, 0.0), (x0 + 8, y1 - 8, 0.0)]
    poly = np.round(_in_first(cals[0], inner) * MASK_SCALE).astype(np.int32)
    inside = np.zeros_like(par)
    cv2.fillConvexPoly(inside, poly, 255)
    assert inside.any()
    assert np.mean(par[inside > 0] > 0) < 0.02
    # and the bare checkered table away from the stick and the shadow shows no parallax either
    far = np.round(_in_first(cals[0], [(100.0, -100.0, 0.0)])[0] * MASK_SCALE).astype(int)
    patch = par[far[1] - 10 : far[1] + 10, far[0] - 10 : far[0] + 10]
    assert patch.size and np.mean(patch > 0) < 0.02


def test_stick_two_other_views_read_is_added_on_parallax() -> None:
    """views 1 and 2 read the stick, views[0] shows no colour along it: only its parallax adds it."""
    images, cals = _scene()
    a, b = STICK

    def readings() -> list[TokyoObservation]:
        obs = [TokyoObservation(calibrated=True) for _ in cals]
        for o, c in zip(obs[1:], cals[1:], strict=True):
            o.sticks.append(stick(c, a, b, (None, None)))
        return obs

    obs = readings()
    links, _ = fuse_sticks(obs, cals, [], images)
    assert not obs[0].sticks and not [ln for ln in links if ln.status == "added"]
    obs = readings()
    links, _ = fuse_sticks(obs, cals, [], images, parallax=parallax_mask(images, cals))
    assert [ln.status for ln in links] == ["added"] and len(obs[0].sticks) == 1
    assert np.abs(np.array(obs[0].sticks[0].endpoints) - _in_first(cals[0], STICK)).max() < 1.0
