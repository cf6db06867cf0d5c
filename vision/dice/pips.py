"""Counting pips classically: inside a die crop, pips are the blobs that differ from the face colour
and lie within the face, away from its edge (pips on the visible side faces sit at the edge and are
squashed). Used as a second opinion beside the value network."""

from __future__ import annotations

import cv2
import numpy as np

SIZE = 64


def count_pips(crop_bgr: np.ndarray) -> tuple[int, float, list[tuple[float, float, float]]]:
    """(pip count 0..9, quality 0..1, blobs as (x, y, area) in crop pixels) for a SIZE x SIZE crop."""
    lab = cv2.cvtColor(crop_bgr, cv2.COLOR_BGR2Lab).astype(np.float32)
    c, q = SIZE // 2, SIZE // 4
    centre = lab[c - q:c + q, c - q:c + q].reshape(-1, 3)
    face = np.median(centre, axis=0)
    near = centre[np.linalg.norm(centre - face, axis=1) < 30]
    if len(near) > 10:
        face = np.median(near, axis=0)
    diff = lab - face
    dist = np.sqrt(diff[..., 0] ** 2 + 0.7 * (diff[..., 1] ** 2 + diff[..., 2] ** 2))
    # the face: face-coloured pixels connected to the centre, holes (pips) filled by the convex hull
    face_mask = (dist < max(22.0, 0.35 * float(np.percentile(dist, 90)))).astype(np.uint8)
    n, lab_cc, stats, _ = cv2.connectedComponentsWithStats(face_mask, connectivity=4)
    if n <= 1:
        return 0, 0.0, []
    centre_ids = lab_cc[c - q:c + q, c - q:c + q].ravel()
    centre_ids = centre_ids[centre_ids > 0]
    main = np.bincount(centre_ids).argmax() if len(centre_ids) else 1 + int(stats[1:, 4].argmax())
    ys, xs = np.nonzero(lab_cc == main)
    hull = cv2.convexHull(np.stack([xs, ys], 1).astype(np.int32))
    region = np.zeros((SIZE, SIZE), np.uint8)
    cv2.fillConvexPoly(region, hull, 1)
    inner = cv2.erode(region, np.ones((5, 5), np.uint8))
    thr = max(30.0, 0.45 * float(np.percentile(dist[region > 0], 98)) if region.any() else 30.0)
    pip_mask = ((dist > thr) & (inner > 0)).astype(np.uint8)
    pip_mask = cv2.morphologyEx(pip_mask, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    n, _, stats, cents = cv2.connectedComponentsWithStats(pip_mask, connectivity=8)
    face_area = float(region.sum())
    blobs = []
    for k in range(1, n):
        x, y, w, h, area = stats[k]
        if area < 0.004 * face_area or area > 0.12 * face_area:
            continue
        if max(w, h) > 2.6 * min(w, h) + 1:
            continue  # a streak (edge, reflection), not a round pip
        fill = area / float(w * h)
        if fill < 0.4:
            continue
        blobs.append((float(cents[k][0]), float(cents[k][1]), float(area)))
    if not blobs:
        return 0, 0.0, []
    areas = np.array([b[2] for b in blobs])
    med = float(np.median(areas))
    blobs = [b for b in blobs if 0.35 * med <= b[2] <= 2.8 * med]
    quality = float(np.clip(1.0 - np.std([b[2] for b in blobs]) / (med + 1e-6), 0, 1))
    return len(blobs), quality, blobs
