"""Several views of one rendered Tokyo Highway scene: the same table, light and pieces seen by cameras
from the renderer's distribution, each at least `min_yaw_deg` of yaw away from the others, so that
they look at the structure from different sides (a column base hidden in one view shows in another,
and two rays through a column top fix its height)."""

from __future__ import annotations

from typing import Any

import numpy as np

from datasets.tokyo.render import _sample_camera, render_tokyo_frame, scene_points
from vision.tokyo.calibration import PieceSizes, PinholeCamera


def camera_yaw_deg(cam: PinholeCamera) -> float:
    """The yaw of a camera about the vertical (datasets.tokyo.camera convention), from where its
    optical axis points on the table plane."""
    axis = cam.R[2]  # the camera's z axis in world coordinates
    return float(np.degrees(np.arctan2(-axis[0], axis[1])) % 360)


def _yaw_gap(a: float, b: float) -> float:
    d = abs(a - b) % 360
    return min(d, 360 - d)


def render_tokyo_views(
    scene: dict[str, Any],
    seed: int,
    n_views: int = 2,
    min_yaw_deg: float = 60.0,
    width: int = 1280,
    height: int = 720,
    sizes: PieceSizes | None = None,
) -> list[tuple[np.ndarray, dict[str, Any]]]:
    """[(image, labels)] per view. View 0 is exactly `render_tokyo_frame(scene, seed)`; view v draws
    its camera from its own stream (seed, v), yaw at least `min_yaw_deg` from every earlier view's."""
    if n_views < 1:
        raise ValueError(f"n_views must be at least 1, got {n_views}")
    if n_views * min_yaw_deg > 360:
        raise ValueError(f"{n_views} views cannot all be {min_yaw_deg} degrees of yaw apart")
    sizes = sizes or PieceSizes()
    first = render_tokyo_frame(scene, seed, width=width, height=height, sizes=sizes)
    out = [first]
    yaws = [camera_yaw_deg(PinholeCamera.from_dict(first[1]["calibration"]["camera"]))]
    pts = scene_points(scene, sizes)
    for v in range(1, n_views):
        rng = np.random.default_rng([seed, v])
        for _ in range(200):  # rejection: the free arcs between earlier views' yaws
            yaw = float(rng.uniform(0, 360))
            if all(_yaw_gap(yaw, y) >= min_yaw_deg for y in yaws):
                break
        cam = _sample_camera(rng, pts, width, height, yaw_deg=(yaw, yaw))
        yaws.append(camera_yaw_deg(cam))
        out.append(render_tokyo_frame(scene, seed, width=width, height=height, sizes=sizes, view_camera=cam))
    return out
