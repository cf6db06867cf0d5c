"""Where a new column may stand, found from its road: a band of road evidence that no piece of the
match explains, leaving a column the match knows.

A column built behind its own road (the camera looking along the road) shows the reader only a
sliver of grey on each side, too little for it or for the grey blobs of piece_evidence.grey_spots;
the road itself shows well. A road rests on two column tops and overhangs them equally (the stick is
longer than the span), so its far end, a known base and a height fix where the new column stands:
with F the far end of the stick's axis and B the base's top, the axis runs along u = (F - B) / |F - B|
and the new top is T = B + (2 |F - B| - L) u. F lies on the pixel's ray; for each height the point of
the ray whose T stands at that height is the place tried. Vision knows no rules: the caller says which
columns stand (the bases) and which pixels the known pieces cover.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.tokyo.calibration import TokyoCalibration
from vision.tokyo.piece_evidence import PieceMaps

ROAD_SPOT_PX = 60  # unexplained road pixels (half size) a blob needs: a road is about 9 px wide there
NEAR_BASE_PX = 40  # how far from the base's top the blob's near end may lie (its overhang, hidden parts)
ALONG_DEG = 25.0  # how far the blob's direction may turn from the base-to-far-end direction


def road_blobs(maps: PieceMaps, known: np.ndarray,
               min_px: int = ROAD_SPOT_PX) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each blob of road evidence no known piece covers: its two ends (pixels) along its main axis."""
    mask = ((maps.road > 0) & (known == 0)).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    # the new column's own body (or a crossing) cuts its road in two: bridge a gap of a few pixels
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    out = []
    for k in range(1, n):
        if stats[k, cv2.CC_STAT_AREA] < min_px:
            continue
        x0, y0, w, h = (int(v) for v in stats[k, :4])
        ys, xs = np.nonzero(labels[y0:y0 + h, x0:x0 + w] == k)
        pts = np.stack([xs + x0, ys + y0], 1).astype(np.float64)
        mean = pts.mean(0)
        _, vecs = np.linalg.eigh(np.cov((pts - mean).T))
        axis = vecs[:, -1]
        t = (pts - mean) @ axis
        if t.max() - t.min() < 3 * max(1.0, float(np.sqrt(len(pts) / max(t.max() - t.min(), 1.0)))):
            continue  # not elongated: a blot, not a road
        out.append((mean + axis * t.min(), mean + axis * t.max()))
    return out


def tops_from_road(calib: TokyoCalibration, far_px: np.ndarray, base_top: np.ndarray,
                   heights: range) -> list[tuple[int, float, float]]:
    """(height, x, y) of the new column whose road, resting on `base_top` (mm) and on its top at that
    height, ends at the pixel `far_px`; heights with no such place (the stick would not reach) left out."""
    s = calib.sizes
    half_t = s.stick_thickness_mm / 2
    cam = calib.camera
    b = np.asarray(base_top, np.float64) + [0.0, 0.0, half_t]
    # points of the far end's ray from the table up to above the tallest column
    lo, hi = cam.ray_to_plane(np.array([far_px], np.float64), 0.0)[0], \
        cam.ray_to_plane(np.array([far_px], np.float64), (max(heights) + 2) * s.unit_mm)[0]
    f = lo[None, :] + np.linspace(0.0, 1.0, 400)[:, None] * (hi - lo)[None, :]
    d = f - b
    dist = np.linalg.norm(d, axis=1)
    span = 2 * dist - s.stick_length_mm
    u = d / np.maximum(dist, 1e-9)[:, None]
    top = b + span[:, None] * u
    ok = span > 1.5 * s.column_diameter_mm
    out = []
    for h in heights:
        g = top[:, 2] - (h * s.unit_mm + half_t)
        cross = np.nonzero(ok[:-1] & ok[1:] & (np.sign(g[:-1]) != np.sign(g[1:])))[0]
        if len(cross) == 0:
            continue
        i = int(cross[0])
        w = g[i] / (g[i] - g[i + 1])
        p = top[i] + w * (top[i + 1] - top[i])
        out.append((h, float(p[0]), float(p[1])))
    return out


def road_spots(calib: TokyoCalibration, maps: PieceMaps, known: np.ndarray,
               bases: list[tuple[int, np.ndarray]], heights: range) -> list[tuple[int, int, float, float]]:
    """(base id, height, x, y): where a new column may stand, from each unexplained road blob whose
    near end lies at a base's top (`bases`: id and top in mm) and which runs away from it."""
    out = []
    if not bases:
        return out
    tops_px = calib.camera.project(np.array([t for _, t in bases], np.float64))[0]
    cos_lim = np.cos(np.radians(ALONG_DEG))
    for e0, e1 in road_blobs(maps, known):
        for (sid, top), tp in zip(bases, tops_px, strict=True):
            near, far = (e0, e1) if np.linalg.norm(e0 - tp) <= np.linalg.norm(e1 - tp) else (e1, e0)
            if np.linalg.norm(near - tp) > NEAR_BASE_PX:
                continue
            run, away = far - near, far - tp
            if float(run @ away) < cos_lim * np.linalg.norm(run) * np.linalg.norm(away):
                continue
            out += [(sid, h, x, y) for h, x, y in tops_from_road(calib, far, top, heights)]
    return out
