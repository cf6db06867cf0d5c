"""Blobs left once the sticks are taken out (column sides, cars, fallen pieces) and, for a column that
carries no road, its height from its whole silhouette.

With a calibrated camera each candidate height predicts the column's silhouette (the convex hull of its
projected base and top circles); positions around the blob are tried and the height whose silhouette
best overlaps the blob (IoU, stick bands ignored) wins; the margin over the runner-up is the confidence.
Columns carrying roads are read from the road ends instead (vision.tokyo.columns).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.tokyo.calibration import TokyoCalibration
from vision.tokyo.colours import colour_name
from vision.tokyo.labels import components
from vision.tokyo.piece_evidence import column_hull, column_hulls
from vision.tokyo.pixels import mask_box, nonzero_yx


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
    # opened and labelled on the box of what is left, grown by the opening's reach (outside it all is
    # table either way), its corner on an even row and column (the labelling works in 2 x 2 blocks:
    # so aligned, the labels come in the whole frame's order); the stats are moved back to the frame
    box = mask_box(rest, k // 2 + 1, 2)
    if box is None:
        return []
    y0 = box[0].start // 2 * 2
    box = (slice(y0, box[0].stop), box[1])
    x0 = box[1].start
    opened = cv2.morphologyEx(rest[box], cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    n, lab, stats, _ = components(opened)
    blobs = []
    for i in range(1, n):
        x, y, w, h, area = stats[i]
        if area < 0.2 * np.pi * hw * hw:
            continue
        m = lab[y : y + h, x : x + w] == i
        x, y = x + x0, y + y0
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
    # piece_evidence.column_hull writes the same points (x + r cos, y + r sin of the same angles, at
    # 0 then h units) with its ring kept
    return column_hull(calib, x, y, 0.0, h * calib.sizes.unit_mm, n)


def _column_hulls(
    calib: TokyoCalibration, xs: np.ndarray, ys: np.ndarray, h: int, n: int = 16
) -> list[np.ndarray]:
    """`_column_hull` at each (xs[k], ys[k]), projected in one stacked call (fit_height asks for 450
    outlines a blob): piece_evidence.column_hulls."""
    return column_hulls(calib, xs, ys, 0.0, h * calib.sizes.unit_mm, n)


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
    roi8, care8 = roi.view(np.uint8), care.view(np.uint8)
    ys, xs = nonzero_yx(roi)
    cen = np.array([[xs.mean() + ox, ys.mean() + oy]])
    scores = []
    for h in range(1, max_height + 1):
        guess = calib.camera.ray_to_plane(cen, h * calib.sizes.unit_mm / 2)[0]
        best = (-1.0, 0.0, 0.0)
        for step in (4.0, 1.5):
            cx, cy = (guess[0], guess[1]) if best[0] < 0 else (best[1], best[2])
            offs = np.arange(-2, 3) * step
            px, py = cx + np.repeat(offs, 5), cy + np.tile(offs, 5)  # dx outer, dy inner, as before
            for k, hull in enumerate(_column_hulls(calib, px, py, h)):
                inter, inside = _hull_counts(hull, ox, oy, roi8, care8)
                iou = inter / max(area + inside - inter, 1)
                if lines:  # the sticks resting here pass over the column's top centre
                    z = h * calib.sizes.unit_mm + calib.sizes.stick_thickness_mm / 2
                    top = calib.camera.project(np.array([[px[k], py[k], z]]))[0][0]
                    iou -= 0.15 * float(np.mean([min(_line_dist(top, a, b), 3 * hw) / hw for a, b in lines]))
                if iou > best[0]:
                    best = (iou, px[k], py[k])
        scores.append((best[0], h, best[1], best[2]))
    scores.sort(reverse=True)
    iou, h, x, y = scores[0]
    margin = iou - scores[1][0] if len(scores) > 1 else iou
    conf = float(np.clip(margin * 10, 0, 1) * np.clip(iou * 1.4, 0, 1))
    return h, conf, float(x), float(y), float(iou)


def _hull_counts(hull: np.ndarray, ox: int, oy: int, roi8: np.ndarray, care8: np.ndarray) -> tuple[int, int]:
    """(pixels in roi8, pixels in care8) of the filled outline `hull` (frame pixels) within the window
    at (ox, oy) the size of the masks. Drawn into the outline's own box cut to the window, not into a
    window-sized mask: the window's edges clip it as before (the box's own edges cut nothing), and
    filling moved by whole pixels sets the same pixels moved (fixed-point arithmetic), so the counts
    are the window's; a blob's window is ten to thirty times an outline's box."""
    x, y, w, h = cv2.boundingRect(hull)
    x0, y0 = max(x - ox, 0), max(y - oy, 0)
    x1, y1 = min(x - ox + w, roi8.shape[1]), min(y - oy + h, roi8.shape[0])
    if x1 <= x0 or y1 <= y0:
        return 0, 0
    pm = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(pm, hull - np.array([ox + x0, oy + y0], np.int32), 1)
    return (
        np.count_nonzero(pm & roi8[y0:y1, x0:x1]),
        np.count_nonzero(pm & care8[y0:y1, x0:x1]),
    )


def _line_dist(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    d = b - a
    n = np.array([-d[1], d[0]]) / max(float(np.linalg.norm(d)), 1e-9)
    return abs(float(np.dot(p - a, n)))
