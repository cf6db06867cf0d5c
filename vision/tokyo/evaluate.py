"""Scoring the stick reader on a labelled folder (realdata format, "kind": "stick" + per-image crossings).

A detected stick matches a labelled one when the mean distance of their endpoints (either order) is
within `tol` (a fraction of the image diagonal); matching is greedy, closest first. A labelled crossing is
found when both its sticks are matched and the reader reports a crossing between those two; over/under is
scored on found crossings. Supports (when labelled) match by top point; heights must be exact.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.realdata import greedy_match, load_labels
from vision.tokyo.reader import read_tokyo
from vision.types import VisionError


def endpoint_distance(gt: np.ndarray, det: np.ndarray) -> np.ndarray:
    """Mean endpoint distance (order-free) of every labelled stick (N,2,2) to every detection (M,2,2)."""
    if len(gt) == 0 or len(det) == 0:
        return np.zeros((len(gt), len(det)))
    d1 = np.linalg.norm(gt[:, None, 0] - det[None, :, 0], axis=2) + np.linalg.norm(
        gt[:, None, 1] - det[None, :, 1], axis=2
    )
    d2 = np.linalg.norm(gt[:, None, 0] - det[None, :, 1], axis=2) + np.linalg.norm(
        gt[:, None, 1] - det[None, :, 0], axis=2
    )
    return np.minimum(d1, d2) / 2


def evaluate_folder(
    folder: Path | str, tol: float = 0.03, use_calibration: bool = True, limit: int | None = None
) -> dict[str, Any]:
    labels = load_labels(folder)
    n_gt = n_det = n_match = 0
    cross_gt = cross_found = over_ok = 0
    cross_det = cross_det_true = 0
    errs: list[float] = []
    diag_errs: list[float] = []
    h_total = h_exact = h_found = h_det = 0
    per_image = []
    for item in labels.items[:limit]:
        path = labels.path(item)
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise VisionError(f"{path}: cannot read this image")
        calib = item.extra.get("calibration") if use_calibration else None
        obs = read_tokyo(image, calib)
        gt_idx = [k for k, o in enumerate(item.objects) if o.kind == "stick" and o.endpoints]
        gt = np.array([item.objects[k].endpoints for k in gt_idx], np.float64).reshape(-1, 2, 2)
        det = np.array([s.endpoints for s in obs.sticks], np.float64).reshape(-1, 2, 2)
        diag = float(np.hypot(*image.shape[:2]))
        dist = endpoint_distance(gt, det)
        pairs = greedy_match(-dist, -tol * diag)
        gt_to_det = {gt_idx[i]: j for i, j in pairs}
        errs += [float(dist[i, j]) for i, j in pairs]
        diag_errs += [float(dist[i, j]) / diag for i, j in pairs]
        n_gt, n_det, n_match = n_gt + len(gt), n_det + len(det), n_match + len(pairs)
        det_cross = {frozenset((c.a, c.b)): c for c in obs.crossings}
        found_here = 0
        for c in item.crossings:
            if c.get("visible") is False:
                continue
            cross_gt += 1
            a, b = gt_to_det.get(c["a"]), gt_to_det.get(c["b"])
            if a is None or b is None or frozenset((a, b)) not in det_cross:
                continue
            cross_found += 1
            found_here += 1
            over_ok += int(det_cross[frozenset((a, b))].top == gt_to_det.get(c["top"]))
        det_to_gt = {j: gt_idx[i] for i, j in pairs}
        gt_pairs = {frozenset((c["a"], c["b"])) for c in item.crossings}
        for c in obs.crossings:
            cross_det += 1
            ga, gb = det_to_gt.get(c.a), det_to_gt.get(c.b)
            cross_det_true += int(ga is not None and gb is not None and frozenset((ga, gb)) in gt_pairs)
        sup = item.extra.get("supports") or []
        if sup:
            by_base = obs.calibrated and all("base_px" in s for s in sup)
            key = "base_px" if by_base else "top_px"
            g = np.array([s[key] for s in sup], np.float64)
            d = np.array([getattr(s, key) for s in obs.supports], np.float64).reshape(-1, 2)
            dd = np.linalg.norm(g[:, None] - d[None], axis=2)
            sp = greedy_match(-dd, -0.02 * diag)
            h_total += len(sup)
            h_found += len(sp)
            h_det += len(obs.supports)
            h_exact += sum(int(obs.supports[j].height == sup[i]["height"]) for i, j in sp)
        per_image.append(
            {
                "image": item.image,
                "sticks": len(gt),
                "detected": len(det),
                "matched": len(pairs),
                "crossings": len(item.crossings),
                "crossings_found": found_here,
                "warnings": obs.warnings,
            }
        )

    def ratio(a: int, b: int) -> float | None:
        return round(a / b, 4) if b else None

    out: dict[str, Any] = {
        "folder": str(folder),
        "images": len(per_image),
        "tolerance_of_diagonal": tol,
        "sticks": n_gt,
        "detections": n_det,
        "stick_recall": ratio(n_match, n_gt),
        "stick_precision": ratio(n_match, n_det),
        "endpoint_error_px": round(float(np.mean(errs)), 2) if errs else None,
        "endpoint_error_of_diagonal": round(float(np.mean(diag_errs)), 5) if diag_errs else None,
        "crossings": cross_gt,
        "crossing_recall": ratio(cross_found, cross_gt),
        "crossing_precision": ratio(cross_det_true, cross_det),
        "over_under_accuracy": ratio(over_ok, cross_found),
        "per_image": per_image,
    }
    if h_total:
        out.update(
            {
                "supports": h_total,
                "support_recall": ratio(h_found, h_total),
                "support_precision": ratio(h_found, h_det),
                "height_exact": ratio(h_exact, h_found),
                "height_exact_of_all": ratio(h_exact, h_total),
            }
        )
    return out
