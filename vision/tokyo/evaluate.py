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


def ratio(a: int, b: int) -> float | None:
    """a / b to 4 places, None when there is nothing to count."""
    return round(a / b, 4) if b else None


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


@dataclass
class _StickScore:
    """One image's sticks and crossings against its labels."""

    sticks: int
    detected: int
    matched: int
    crossings: int
    crossings_found: int
    over_under_ok: int
    pairs: list[tuple[int, int]]  # (labelled stick index among sticks, detection)
    dist: np.ndarray
    stick_objects: list[int]  # the labelled sticks' indices among the image's objects


def score_sticks(item: Any, obs: TokyoObservation, diag: float, tol: float) -> _StickScore:
    """Sticks matched by endpoints within `tol` of the diagonal; a labelled (visible) crossing is found
    when both its sticks are matched and the reading has a crossing between them."""
    gt_idx = [k for k, o in enumerate(item.objects) if o.kind == "stick" and o.endpoints]
    gt = np.array([item.objects[k].endpoints for k in gt_idx], np.float64).reshape(-1, 2, 2)
    det = np.array([s.endpoints for s in obs.sticks], np.float64).reshape(-1, 2, 2)
    dist = endpoint_distance(gt, det)
    pairs = greedy_match(-dist, -tol * diag)
    gt_to_det = {gt_idx[i]: j for i, j in pairs}
    det_cross = {frozenset((c.a, c.b)): c for c in obs.crossings}
    total = found = ok = 0
    for c in item.crossings:
        if c.get("visible") is False:
            continue
        total += 1
        a, b = gt_to_det.get(c["a"]), gt_to_det.get(c["b"])
        if a is None or b is None or frozenset((a, b)) not in det_cross:
            continue
        found += 1
        ok += int(det_cross[frozenset((a, b))].top == gt_to_det.get(c["top"]))
    return _StickScore(len(gt), len(det), len(pairs), total, found, ok, pairs, dist, gt_idx)


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
    j_total = j_ok = 0
    per_image = []
    # view groups: key -> [(image name, observation, calibration, {support index: labelled support})]
    groups: dict[str, list[_View]] = {}
    for item in labels.items[:limit]:
        path = labels.path(item)
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise VisionError(f"{path}: cannot read this image")
        calib = item.extra.get("calibration") if use_calibration else None
        if isinstance(calib, dict):  # parsed once: a view group's fusion uses it again
            calib = TokyoCalibration.from_dict(calib)
        obs = read_tokyo(image, calib)
        diag = float(np.hypot(*image.shape[:2]))
        sc = score_sticks(item, obs, diag, tol)
        pairs, dist, gt_idx = sc.pairs, sc.dist, sc.stick_objects
        errs += [float(dist[i, j]) for i, j in pairs]
        diag_errs += [float(dist[i, j]) / diag for i, j in pairs]
        n_gt, n_det, n_match = n_gt + sc.sticks, n_det + sc.detected, n_match + sc.matched
        cross_gt, cross_found, over_ok = (
            cross_gt + sc.crossings,
            cross_found + sc.crossings_found,
            over_ok + sc.over_under_ok,
        )
        found_here = sc.crossings_found
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
            flags = [(obs.supports[j].junction, sup[i]["junction"]) for i, j in sp if "junction" in sup[i]]
            j_total, j_ok = j_total + len(flags), j_ok + sum(int(a == b) for a, b in flags)
        if item.extra.get("view_of") is not None:
            matched = {j: sup[i] for i, j in sp} if sup else {}
            # the one-view score is kept: the fusion changes the reading in place
            number = int(item.extra.get("view", 0))
            view = _View(item.image, obs, calib, list(sup), matched, item, path, number, sc)
            groups.setdefault(str(item.extra["view_of"]), []).append(view)
        per_image.append(
            {
                "image": item.image,
                "sticks": sc.sticks,
                "detected": sc.detected,
                "matched": sc.matched,
                "crossings": len(item.crossings),
                "crossings_found": found_here,
                "warnings": obs.warnings,
            }
        )

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
        out.update(
            _score_views(groups, tol) if use_calibration else {"views": "not scored without calibration"}
        )
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
    if j_total:
        out["junction_accuracy"] = ratio(j_ok, j_total)
    return out


@dataclass
class _View:
    """One image of a view group, as read and matched one view at a time."""

    image: str
    obs: TokyoObservation
    calibration: TokyoCalibration | None
    supports: list[dict[str, Any]]  # labelled
    matched: dict[int, dict[str, Any]]  # support index in obs -> the labelled support it matched
    item: Any  # the labelled image
    path: Path
    view: int
    one_view: _StickScore  # this view's own reading, scored before the fusion


def _score_views(groups: dict[str, list[_View]], tol: float) -> dict[str, Any]:
    """Each group read as one table: a labelled column (by id, over all its views) is found when some
    view's support matched it; its height and junction flag are that fused column's. A fused column
    that no labelled column claims (or claims again) is a false one. The sticks are scored on the
    group's first view (lowest `view`), whose reading carries the fused sticks, against its labels,
    next to that view's own one-view reading."""
    total = found = exact = columns = from_views = junction_ok = junction_n = 0
    one = [0] * 6  # sticks, detected, matched, crossings, found, over/under right: first views, one view
    two = [0] * 6  # the same after the fusion
    for key, views in groups.items():
        views = sorted(views, key=lambda v: v.view)
        for v in views:
            if v.calibration is None:
                raise VisionError(
                    f"{v.image} (view_of {key!r}): no calibration; several views need every camera"
                )
            if any("id" not in s for s in v.supports):
                raise VisionError(f"{v.image} (view_of {key!r}): supports need an 'id' shared by the views")
        calibs = [v.calibration for v in views]
        images = [cv2.imread(str(v.path), cv2.IMREAD_COLOR) for v in views]
        fused = fuse_views([v.obs for v in views], calibs, images)
        first = views[0]
        diag = float(np.hypot(*images[0].shape[:2]))
        after = score_sticks(first.item, first.obs, diag, tol)
        for acc, sc in ((one, first.one_view), (two, after)):
            vals = (sc.sticks, sc.detected, sc.matched, sc.crossings, sc.crossings_found, sc.over_under_ok)
            for k, val in enumerate(vals):
                acc[k] += val
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
            if "junction" in labelled[new[0]]:
                junction_n += 1
                junction_ok += int(col.junction == labelled[new[0]]["junction"])

    return {
        "view_groups": len(groups),
        "views_per_group": round(sum(len(v) for v in groups.values()) / max(len(groups), 1), 2),
        "supports_views": total,
        "support_recall_views": ratio(found, total),
        "support_precision_views": ratio(found, columns),
        "height_exact_views": ratio(exact, found),
        "height_exact_views_of_all": ratio(exact, total),
        "heights_from_views": ratio(from_views, found),
        "junction_accuracy_views": ratio(junction_ok, junction_n),
        # sticks on each group's first view: one view (its own reading) -> views (the fused reading)
        "sticks_first_view": one[0],
        "stick_recall_first_view": ratio(one[2], one[0]),
        "stick_precision_first_view": ratio(one[2], one[1]),
        "stick_recall_views": ratio(two[2], two[0]),
        "stick_precision_views": ratio(two[2], two[1]),
        "crossing_recall_first_view": ratio(one[4], one[3]),
        "crossing_recall_views": ratio(two[4], two[3]),
        "over_under_accuracy_first_view": ratio(one[5], one[4]),
        "over_under_accuracy_views": ratio(two[5], two[4]),
    }
