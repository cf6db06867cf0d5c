"""The scale at which a camera's picture is turned into piece maps (piece_evidence.piece_maps).

Camera 1's maps are made at a fixed fraction of its picture (the referee's half size). A second camera
set further back (higher at the same tilt) sees every piece smaller, and at the same fraction its
pieces shrink towards the maps' own blur: a column ten pixels wide, a unit of height four. Its
evidence then falls by far more than its pixel count (tuning seed 39's fourth move, camera 2 at 750
mm against 550 at tilt 40: the true build's nats 265 against 827, its margin over one unit lower 26
against 205, though the column covers only about half as many pixels), and close builds became
questions. Its maps are made at the scale that gives a millimetre on the mat as many pixels as in
camera 1's maps, up to its full picture.
"""

from __future__ import annotations

import numpy as np

from vision.tokyo.calibration import TokyoCalibration

SCALE_STEP = 1 / 16  # scales are rounded to this: cameras within a few % of camera 1's share its size
MAT_CENTRE_MM = (0.0, 0.0, 0.0)


def pixels_per_mm(calib: TokyoCalibration, at: tuple[float, float, float] = MAT_CENTRE_MM) -> float | None:
    """The picture's pixels per millimetre on the mat at `at` (the mean of two 10 mm steps along the
    mat's axes); None when the point is behind the camera."""
    x, y, z = at
    uv, depth = calib.camera.project(np.array([[x, y, z], [x + 10.0, y, z], [x, y + 10.0, z]]))
    if (depth <= 0).any():
        return None
    return float(np.linalg.norm(uv[1] - uv[0]) + np.linalg.norm(uv[2] - uv[0])) / 20.0


def map_scale(calib: TokyoCalibration, first: TokyoCalibration, first_scale: float) -> float:
    """The fraction of `calib`'s picture its piece maps are made at, when `first` (camera 1) is mapped at
    `first_scale`: the same pixels per millimetre at the mat's centre, never below `first_scale` nor
    above 1, rounded to SCALE_STEP."""
    own, ref = pixels_per_mm(calib), pixels_per_mm(first)
    if own is None or ref is None or own <= 0.0:
        return first_scale
    wanted = round(first_scale * ref / own / SCALE_STEP) * SCALE_STEP
    return float(min(1.0, max(first_scale, wanted)))
