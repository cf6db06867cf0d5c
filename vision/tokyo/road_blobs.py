"""Where a new road shows that no reading found: a blob of road colour no known piece explains,
leaving a standing column's top.

The reader finds a new road from its stick's lines; where the road meets standing pieces in the
picture (it runs beside or under a standing road, its column hidden by it) the lines may be lost to a
longer stick read across them, and the new column's grey may lie wholly in the standing pieces' mask
(tuning seed 59's tenth move at 550/40, two cameras: no view read the new road or its column, no grey
spot was found, the build was never tried and was missed). Its road's own colour still shows off the
standing pieces: there a blob of several hundred road pixels (half size) starts at its base's top and
ends at the new column's top. The blob's far end, put back at each height a column's top may have,
gives the places the build is tried at (referee_app.games.tokyo_builds.road_blob_spots).
"""

from __future__ import annotations

import numpy as np

from vision.tokyo.calibration import TokyoCalibration
from vision.tokyo.labels import blobs_off
from vision.tokyo.piece_evidence import PieceMaps

# road pixels (half size) a blob needs to be a new road: a road band off the standing pieces shows
# 400-700 at 550 mm where half of it lies over them; a standing road's rim past its grown mask, a
# few dozen
ROAD_BLOB_PX = 150
BASE_NEAR = 2.0  # a blob leaves a column's top when it comes within this many top diameters of it
BASE_NEAR_PX = 4.0  # plus the known mask's growth round the top (half-size pixels)
# a blob whose far end lies this close to the picture's edge (half-size pixels) is a road running out of
# the picture, not a road's end: tuning seed 5's sixth move at 550/40, one camera, s4 -> (370,-60) h3
# with its column out of view, put "s4 -> (300,-50) h1" at the edge in place of the out-of-view notice
EDGE_PX = 3.0


def road_blob_ends(maps: PieceMaps, calib: TokyoCalibration, known: np.ndarray,
                   tops: list[tuple[float, float, float]],
                   min_px: int = ROAD_BLOB_PX) -> list[tuple[int, tuple[float, float]]]:
    """For each blob of road colour off the known pieces (`known`) of at least `min_px` pixels that
    starts at one of the standing columns' `tops` (x, y, z mm): (that top's index, the blob's pixel
    farthest from the top's image). A blob near no top is no road built from a column."""
    if not tops:
        return []
    cam = calib.camera
    t = np.asarray(tops, np.float64)
    uv, depth = cam.project(t)
    rim, _ = cam.project(t + np.array([calib.sizes.column_diameter_mm / 2, 0.0, 0.0]))
    near_px = BASE_NEAR * 2 * np.hypot(*(rim - uv).T) + BASE_NEAR_PX
    h, w = known.shape[:2]
    out = []
    for xs, ys in blobs_off(maps.road, known, min_px):
        px = np.stack([xs + 0.5, ys + 0.5], 1)
        dist = np.hypot(px[:, None, 0] - uv[None, :, 0], px[:, None, 1] - uv[None, :, 1])
        gap = dist.min(0) - near_px
        j = int(np.argmin(gap))
        if gap[j] > 0 or depth[j] <= 0:
            continue
        far = px[int(np.argmax(dist[:, j]))]
        if not (EDGE_PX <= far[0] <= w - EDGE_PX and EDGE_PX <= far[1] <= h - EDGE_PX):
            continue  # the road runs out of the picture: its end, and its column, are not in view
        out.append((j, (float(far[0]), float(far[1]))))
    return out
