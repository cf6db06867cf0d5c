"""Scoring the stick reader on a labelled folder (realdata format, "kind": "stick" + per-image crossings).

A detected stick matches a labelled one when the mean distance of their endpoints (either order) is
within `tol` (a fraction of the image diagonal); matching is greedy, closest first. A labelled crossing is
found when both its sticks are matched and the reader reports a crossing between those two; over/under is
scored on found crossings. Supports (when labelled) match by top point; heights must be exact.

Images showing one table from several cameras carry the same `view_of` key (and support ids shared
across the views): each group is then also read as a whole (`vision.tokyo.stereo.fuse_views`) and
scored once per labelled column (`*_views` numbers) next to the per-image one-view numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.realdata import greedy_match, load_labels
from vision.tokyo.calibration import TokyoCalibration
from vision.tokyo.observation import TokyoObservation
from vision.tokyo.reader import read_tokyo
from vision.tokyo.stereo import fuse_views
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
    # view groups: key -> [(image name, observation, calibration, {support index: labelled support})]
    groups: dict[str, list[_View]] = {}
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
        if item.extra.get("view_of") is not None:
            matched = {j: sup[i] for i, j in sp} if sup else {}
            view = _View(item.image, obs, calib, list(sup), matched)
            groups.setdefault(str(item.extra["view_of"]), []).append(view)
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
    if groups:
        out.update(_score_views(groups) if use_calibration else {"views": "not scored without calibration"})
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


@dataclass
class _View:
    """One image of a view group, as read and matched one view at a time."""

    image: str
    obs: TokyoObservation
    calibration: Any
    supports: list[dict[str, Any]]  # labelled
    matched: dict[int, dict[str, Any]]  # support index in obs -> the labelled support it matched


def _score_views(groups: dict[str, list[_View]]) -> dict[str, Any]:
    """Each group read as one table: a labelled column (by id, over all its views) is found when some
    view's support matched it; its height is that fused column's. A fused column that no labelled
    column claims (or claims again) is a false one."""
    total = found = exact = columns = from_views = 0
    for key, views in groups.items():
        for v in views:
            if v.calibration is None:
                raise VisionError(
                    f"{v.image} (view_of {key!r}): no calibration; several views need every camera"
                )
            if any("id" not in s for s in v.supports):
                raise VisionError(f"{v.image} (view_of {key!r}): supports need an 'id' shared by the views")
        calibs = [
            TokyoCalibration.from_dict(v.calibration) if isinstance(v.calibration, dict) else v.calibration
            for v in views
        ]
        fused = fuse_views([v.obs for v in views], calibs)
        labelled = {s["id"]: s for v in views for s in v.supports}
        total += len(labelled)
        claimed: set[Any] = set()
        for col in fused.columns:
            columns += 1
            ids = [views[u].matched[k]["id"] for u, k in enumerate(col.supports) if k in views[u].matched]
            new = [i for i in ids if i not in claimed]
            if not new:
                continue
            claimed.add(new[0])
            found += 1
            exact += int(col.height == labelled[new[0]]["height"])
            from_views += int(col.source == "views")

    def ratio(a: int, b: int) -> float | None:
        return round(a / b, 4) if b else None

    return {
        "view_groups": len(groups),
        "views_per_group": round(sum(len(v) for v in groups.values()) / max(len(groups), 1), 2),
        "supports_views": total,
        "support_recall_views": ratio(found, total),
        "support_precision_views": ratio(found, columns),
        "height_exact_views": ratio(exact, found),
        "height_exact_views_of_all": ratio(exact, total),
        "heights_from_views": ratio(from_views, found),
    }
