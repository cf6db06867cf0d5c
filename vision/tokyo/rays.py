"""Rays from calibrated cameras: where two of them pass closest, and the point nearest to several."""

from __future__ import annotations

from typing import Any

import numpy as np

SAME_CAMERA_MM = 5.0  # camera centres this close: one camera given twice
SAME_PIXELS_PX = 3.0  # ... whose readings of one thing lie this close in its image


def same_camera(cam_a: Any, cam_b: Any) -> bool:
    """Whether two calibrated cameras are one given twice (centres within SAME_CAMERA_MM): their rays
    through one point are one ray, so they cannot triangulate; they see the same pixels instead."""
    return float(np.linalg.norm(np.subtract(cam_a.centre, cam_b.centre))) < SAME_CAMERA_MM


def pixel_pairs(points_a: Any, points_b: Any) -> list[tuple[int, int, float]]:
    """One-to-one pairs (i, j, distance) of readings of one camera given twice: (N, K, 2) and (M, K, 2)
    pixel points (K per reading, compared in order and, for K = 2, reversed) within SAME_PIXELS_PX."""
    a = np.asarray(points_a, np.float64)
    b = np.asarray(points_b, np.float64)
    cands = []
    for i in range(len(a)):
        for j in range(len(b)):
            d = ends_apart(a[i], b[j])
            if d < SAME_PIXELS_PX:
                cands.append((d, i, j))
    return greedy_pairs(cands)


def ends_apart(p: np.ndarray, q: np.ndarray) -> float:
    """How far apart two readings' points (K, 2) lie: the worst point, compared in order and, for K = 2
    (a segment's ends), reversed, the better order."""
    d = float(np.linalg.norm(p - q, axis=-1).max())
    if len(p) == 2:
        d = min(d, float(np.linalg.norm(p - q[::-1], axis=-1).max()))
    return d


def pixel_rays(camera: Any, uv: Any) -> list[tuple[np.ndarray, np.ndarray]]:
    """(camera centre, unit direction) of the ray through each image point (N, 2) of a PinholeCamera."""
    c = camera.centre
    far = camera.ray_to_plane(np.asarray(uv, np.float64).reshape(-1, 2), 0.0)
    return [(c, (f - c) / max(float(np.linalg.norm(f - c)), 1e-12)) for f in far]


def closest_points(
    c0: np.ndarray, d0: np.ndarray, c1: np.ndarray, d1: np.ndarray
) -> tuple[np.ndarray, float, float, float]:
    """Midpoint of the closest approach of rays c0 + s d0 and c1 + t d1, their distance there, s and t
    (d unit vectors). Parallel rays give an infinite distance."""
    w = c0 - c1
    b = float(d0 @ d1)
    den = 1.0 - b * b
    if den < 1e-9:
        return (c0 + c1) / 2, float("inf"), 0.0, 0.0
    dw0, dw1 = float(d0 @ w), float(d1 @ w)
    s = (b * dw1 - dw0) / den
    t = (dw1 - b * dw0) / den
    p0, p1 = c0 + s * d0, c1 + t * d1
    return (p0 + p1) / 2, float(np.linalg.norm(p0 - p1)), s, t


def triangulate(centres: np.ndarray, dirs: np.ndarray) -> tuple[np.ndarray, float]:
    """Least-squares point nearest to every ray (centres, unit dirs: (N,3)) and twice its largest
    distance to one of them (for two rays: their distance)."""
    A = np.zeros((3, 3))
    rhs = np.zeros(3)
    for c, d in zip(centres, dirs, strict=True):
        m = np.eye(3) - np.outer(d, d)
        A += m
        rhs += m @ c
    p = np.linalg.solve(A, rhs)
    miss = [
        np.linalg.norm((np.eye(3) - np.outer(d, d)) @ (p - c)) for c, d in zip(centres, dirs, strict=True)
    ]
    return p, 2.0 * float(max(miss))


def greedy_pairs(candidates: list[tuple[float, int, int]]) -> list[tuple[int, int, float]]:
    """One-to-one matching of (cost, i, j) candidates, cheapest first: (i, j, cost) for each pair
    kept, every i and every j used once."""
    used_i: set[int] = set()
    used_j: set[int] = set()
    out = []
    for cost, i, j in sorted(candidates):
        if i not in used_i and j not in used_j:
            used_i.add(i)
            used_j.add(j)
            out.append((i, j, cost))
    return out


def join_pairs(
    n_views: int, pairs: dict[tuple[int, int], list[tuple[int, int, float]]]
) -> list[list[int | None]]:
    """Tracks across views from pairwise matches ((view a, view b) -> [(item in a, item in b, cost)]):
    each track holds an item index per view (None where that view has none), matches joined view pair
    by view pair in order, never two items of one view in one track (a conflicting match is left out)."""
    tracks: list[list[int | None]] = []
    where: dict[tuple[int, int], int] = {}
    for (va, vb), matches in sorted(pairs.items()):
        for i, j, _ in matches:
            ka, kb = where.get((va, i)), where.get((vb, j))
            if ka is None and kb is None:
                track: list[int | None] = [None] * n_views
                track[va], track[vb] = i, j
                tracks.append(track)
                where[(va, i)] = where[(vb, j)] = len(tracks) - 1
            elif ka is not None and kb is None and tracks[ka][vb] is None:
                tracks[ka][vb] = j
                where[(vb, j)] = ka
            elif kb is not None and ka is None and tracks[kb][va] is None:
                tracks[kb][va] = i
                where[(va, i)] = kb
    return tracks
