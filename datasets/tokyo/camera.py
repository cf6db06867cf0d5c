"""The renderer's camera placement: a pinhole camera (vision.tokyo.calibration.PinholeCamera) put at a
distance, tilt and yaw around a target point on the table."""

from __future__ import annotations

import numpy as np

from vision.tokyo.calibration import PinholeCamera


def _rot_x(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]], np.float64)


def _rot_z(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], np.float64)


# Camera axes (as world columns) of a camera looking straight down: image x = world x, image y = -world y.
_TOP_DOWN = np.array([[1, 0, 0], [0, -1, 0], [0, 0, -1]], np.float64).T


def camera_looking_at(
    target: tuple[float, float, float],
    distance: float,
    tilt_deg: float,
    yaw_deg: float,
    fov_deg: float,
    width: int,
    height: int,
) -> PinholeCamera:
    """A camera `distance` mm from `target`, tilted `tilt_deg` from vertical, turned `yaw_deg` about the
    vertical axis, with horizontal field of view `fov_deg`."""
    cam_to_world = _rot_z(np.radians(yaw_deg)) @ _rot_x(np.radians(tilt_deg)) @ _TOP_DOWN
    centre = np.asarray(target, np.float64) - distance * cam_to_world[:, 2]
    R = cam_to_world.T
    f = (width / 2) / np.tan(np.radians(fov_deg) / 2)
    K = np.array([[f, 0, width / 2], [0, f, height / 2], [0, 0, 1]], np.float64)
    return PinholeCamera(K, R, -R @ centre, width, height)
