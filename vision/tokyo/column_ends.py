"""Stick ends that ran on down the side of the column they rest on.

A grey road resting on a grey column, seen with the column hanging below the end in the image, is one
band of the same colour from the road down to the column's base: the end walk (vision.tokyo.sticks)
cannot tell where the road stops. The column is wider than the road (the set's sizes, through the
camera), so along such an end the band's width shows it: from the column's base up to its top the band
is a column wide, above it a road wide. The end is put back where a road ending on that top would end.
"""

from __future__ import annotations

import numpy as np

from vision.tokyo.calibration import PinholeCamera, TokyoCalibration
from vision.tokyo.sticks import RawStick, _sample

ALONG_COS = np.cos(np.radians(25))  # the end runs along the image of the vertical within this angle
OVERHANG_MM = 10.0  # where a road's end lies beyond its column's centre (the set's 6-15 mm, middle)


def trim_column_runs(raw: list[RawStick], dist: np.ndarray, calib: TokyoCalibration) -> int:
    """Move every end that runs on down a column back onto the column's top; `dist` is the distance
    transform of the pieces mask (a band's half-width on its axis). Returns how many ends moved."""
    moved = 0
    for s in raw:
        for k in (0, 1):
            new = _trimmed_end(s, k, dist, calib)
            if new is not None:
                if k == 0:
                    s.p0 = new
                else:
                    s.p1 = new
                moved += 1
    return moved


def _trimmed_end(s: RawStick, k: int, dist: np.ndarray, calib: TokyoCalibration) -> np.ndarray | None:
    cam = calib.camera
    end, other = (s.p0, s.p1) if k == 0 else (s.p1, s.p0)
    length = s.length
    if length < 1e-6:
        return None
    u = (other - end) / length  # inwards
    # the end would be the column's base: the image of the vertical there, and the sizes at that depth
    foot = cam.ray_to_plane(end[None].astype(np.float64), 0.0)[0]
    up, col_hw, rod_hw = calib.local_scale(foot)
    unit_px = float(np.linalg.norm(up))
    if unit_px < 3.0 or float(np.dot(u, up)) < ALONG_COS * unit_px:
        return None  # no column body can lie along this end (or a unit is too short to tell)
    # the band's half-width along the axis from the end inwards, over as far as the tallest column
    reach = min(int(9 * unit_px + 2 * col_hw), int(0.6 * length))
    ts = np.arange(0, reach, 1.0)
    width = _band_width(dist, end, u, ts)
    # the road's own width (blur included), measured on the far half of the stick, clear of this end's
    # column, and half a column's extra width
    far_ts = np.arange(0.55 * length, 0.9 * length, 1.0)
    road = float(np.median(_band_width(dist, end, u, far_ts)))
    wide = (width > road + 0.5 * (col_hw - rod_hw)) & (width < road + 1.5 * (col_hw - rod_hw) + 2.0)
    # the column body: a wide stretch from the end (past the rounded foot of the mask) inwards, a few
    # narrow samples allowed (seams)
    first = np.nonzero(wide[: int(2 * col_hw) + 1])[0]
    if len(first) == 0:
        return None
    body = wide[first[0] :]
    share = np.cumsum(body) / np.arange(1, len(body) + 1)
    full = np.nonzero(share >= 0.8)[0]
    if len(full) == 0:
        return None
    last = int(full[-1])
    while last > 0 and not body[last]:
        last -= 1
    cut = float(first[0] + last)
    # a body of at least two units above the top ellipse: shorter ones the height fit already copes with
    if cut < 2 * unit_px + 2 * col_hw:
        return None
    # the band narrows to the road past the far rim of the column's top; the road's end lies beyond the
    # top's centre by its overhang, on the base's side
    top_far = end + u * cut
    back = (calib.sizes.column_diameter_mm / 2 + OVERHANG_MM) * _px_per_mm_along(cam, foot, u)
    return (top_far - u * back).astype(np.float32)


def _band_width(dist: np.ndarray, p: np.ndarray, u: np.ndarray, ts: np.ndarray) -> np.ndarray:
    """Half-width of the pieces band at p + t u for each t: the distance transform's peak within two
    pixels across the line."""
    n = np.array([-u[1], u[0]])
    return np.max([_sample(dist, p[None] + ts[:, None] * u[None] + o * n[None]) for o in range(-2, 3)], 0)


def _px_per_mm_along(cam: PinholeCamera, foot: np.ndarray, u: np.ndarray) -> float:
    """Pixels per millimetre of a horizontal length near `foot` that shows along image direction u."""
    uv, _ = cam.project(np.array([foot, foot + [1.0, 0.0, 0.0], foot + [0.0, 1.0, 0.0]]))
    J = np.stack([uv[1] - uv[0], uv[2] - uv[0]], 1)  # pixels per mm of x and of y
    try:
        d = np.linalg.solve(J, u)  # the table direction (mm) that shows as one pixel along u
    except np.linalg.LinAlgError:
        return 1.0
    return 1.0 / max(float(np.linalg.norm(d)), 1e-9)
