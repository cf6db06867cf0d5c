"""Supports, cars and distractor blobs: what stays of the foreground after an opening wider than a rod.

Height (column units) needs a calibrated camera: for each candidate height the column's silhouette (the
convex hull of its projected base and top circles) is predicted at positions around the blob, and the
height whose silhouette best overlaps the blob (IoU) wins. A taller stack reaches further from its base in
the image, so with any tilt the heights separate; the margin between best and second best is the
confidence.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.tokyo.calibration import TokyoCalibration
from vision.tokyo.colours import colour_name


@dataclass
class Blob:
    mask: np.ndarray  # full-image uint8 mask of this blob
    bbox: tuple[int, int, int, int]  # x0 y0 x1 y1
    area: int
    bgr: np.ndarray
    colour: str
    top_bgr: np.ndarray
    column_fraction: float  # share of grey or yellow pixels (column paint) in the blob
    yellow_fraction: float  # share of junction-yellow pixels


def find_blobs(image: np.ndarray, fg: np.ndarray, hw: float, rods: np.ndarray) -> list[Blob]:
    """Foreground left once the detected sticks' bands are taken out: columns (their sides show
    beside and below the stick ends they carry), cars, hands, fallen pieces."""
    k = max(3, int(0.5 * hw)) | 1
    rest = cv2.bitwise_and(fg, cv2.bitwise_not(rods))
    opened = cv2.morphologyEx(rest, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    n, lab, stats, _ = cv2.connectedComponentsWithStats(opened)
    blobs = []
    for i in range(1, n):
        x, y, w, h, area = stats[i]
        if area < 0.2 * np.pi * hw * hw:
            continue
        m = lab[y : y + h, x : x + w] == i
        pix = image[y : y + h, x : x + w][m].astype(np.float32)
        bgr = np.median(pix, 0)
        # the top end of a stack (smallest image y is not always the top; use the brightest quarter)
        lum = pix.sum(1)
        top = np.median(pix[lum >= np.percentile(lum, 75)], 0)
        full = np.zeros(fg.shape, np.uint8)
        full[y : y + h, x : x + w][m] = 255
        hsv = cv2.cvtColor(pix.astype(np.uint8).reshape(-1, 1, 3), cv2.COLOR_BGR2HSV).reshape(-1, 3)
        yellow = (hsv[:, 0] >= 18) & (hsv[:, 0] <= 34) & (hsv[:, 1] >= 90)
        column = (hsv[:, 1] < 60) | yellow
        blobs.append(
            Blob(
                full,
                (int(x), int(y), int(x + w), int(y + h)),
                int(area),
                bgr,
                colour_name(bgr),
                top,
                float(column.mean()),
                float(yellow.mean()),
            )
        )
    return blobs


def _column_hull(calib: TokyoCalibration, x: float, y: float, h: int, n: int = 16) -> np.ndarray:
    s = calib.sizes
    ang = np.linspace(0, 2 * np.pi, n, endpoint=False)
    r = s.column_diameter_mm / 2
    ring = np.stack([x + r * np.cos(ang), y + r * np.sin(ang)], 1)
    pts = np.vstack([np.c_[ring, np.zeros(n)], np.c_[ring, np.full(n, h * s.unit_mm)]])
    uv, _ = calib.camera.project(pts)
    return cv2.convexHull(np.round(uv).astype(np.int32))


def fit_height(
    calib: TokyoCalibration,
    blob_mask: np.ndarray,
    bbox: tuple[int, int, int, int],
    ignore: np.ndarray | None = None,
    max_height: int = 9,
    lines: list[tuple[np.ndarray, np.ndarray]] | None = None,
    hw: float = 5.0,
) -> tuple[int, float, float, float, float]:
    """(height, confidence, x_mm, y_mm, iou) of the column that best explains the blob. Pixels in
    `ignore` (the bands of detected sticks, which rest on column tops and would make every column
    look taller) count for neither side."""
    x0, y0, x1, y1 = bbox
    pad = 40
    ox, oy = max(0, x0 - pad), max(0, y0 - pad)
    roi = blob_mask[oy : y1 + pad, ox : x1 + pad] > 0
    care = np.ones(roi.shape, bool) if ignore is None else ignore[oy : y1 + pad, ox : x1 + pad] == 0
    roi &= care
    area = roi.sum()
    ys, xs = np.nonzero(roi)
    cen = np.array([[xs.mean() + ox, ys.mean() + oy]])
    scores = []
    for h in range(1, max_height + 1):
        guess = calib.camera.ray_to_plane(cen, h * calib.sizes.unit_mm / 2)[0]
        best = (-1.0, 0.0, 0.0)
        for step in (4.0, 1.5):
            cx, cy = (guess[0], guess[1]) if best[0] < 0 else (best[1], best[2])
            for dx in np.arange(-2, 3) * step:
                for dy in np.arange(-2, 3) * step:
                    hull = _column_hull(calib, cx + dx, cy + dy, h) - [ox, oy]
                    pm = np.zeros(roi.shape, np.uint8)
                    cv2.fillConvexPoly(pm, hull, 1)
                    inter = np.count_nonzero(pm[roi])
                    iou = inter / max(area + np.count_nonzero(pm[care]) - inter, 1)
                    if lines:  # the sticks resting here pass over the column's top centre
                        top = calib.camera.project(
                            np.array(
                                [
                                    [
                                        cx + dx,
                                        cy + dy,
                                        h * calib.sizes.unit_mm + calib.sizes.stick_thickness_mm / 2,
                                    ]
                                ]
                            )
                        )[0][0]
                        iou -= 0.15 * float(
                            np.mean([min(_line_dist(top, a, b), 3 * hw) / hw for a, b in lines])
                        )
                    if iou > best[0]:
                        best = (iou, cx + dx, cy + dy)
        scores.append((best[0], h, best[1], best[2]))
    scores.sort(reverse=True)
    iou, h, x, y = scores[0]
    margin = iou - scores[1][0] if len(scores) > 1 else iou
    conf = float(np.clip(margin * 10, 0, 1) * np.clip(iou * 1.4, 0, 1))
    return h, conf, float(x), float(y), float(iou)


def _line_dist(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    d = b - a
    n = np.array([-d[1], d[0]]) / max(float(np.linalg.norm(d)), 1e-9)
    return abs(float(np.dot(p - a, n)))


def height_from_stick(
    calib: TokyoCalibration, x: float, y: float, p0: np.ndarray, p1: np.ndarray
) -> tuple[float, float] | None:
    """Height (column units, not rounded) at which the stick's image axis p0-p1 meets the vertical line
    above table point (x, y), and a weight (sine of the angle between the two image lines): a stick end
    rests on the column top, so its axis passes right above the column's centre."""
    s = calib.sizes
    zs = np.array([0.0, 10 * s.unit_mm])
    uv, _ = calib.camera.project(np.array([[x, y, zs[0]], [x, y, zs[1]]]))
    v0, v1 = uv
    d1, d2 = v1 - v0, p1 - p0
    den = float(d1[0] * d2[1] - d1[1] * d2[0])
    n1, n2 = np.linalg.norm(d1), np.linalg.norm(d2)
    if n1 < 1e-6 or n2 < 1e-6:
        return None
    weight = abs(den) / (n1 * n2)
    if weight < 0.25:
        return None
    w = p0 - v0
    a = float(w[0] * d2[1] - w[1] * d2[0]) / den  # fraction along the vertical image segment
    z = zs[0] + a * (zs[1] - zs[0])  # projection is not affine in z, refined below
    for _ in range(3):  # refine: the image of the vertical is a line, but z is not linear along it
        uvz, _ = calib.camera.project(np.array([[x, y, z]]))
        q = uvz[0]
        # move z so that q lands on the stick line: use the local derivative
        uvz2, _ = calib.camera.project(np.array([[x, y, z + 1.0]]))
        dq = uvz2[0] - q
        nrm = np.array([-d2[1], d2[0]]) / n2
        off = float(np.dot(q - p0, nrm))
        rate = float(np.dot(dq, nrm))
        if abs(rate) < 1e-9:
            break
        z -= off / rate
    return (z - s.stick_thickness_mm / 2) / s.unit_mm, weight
