"""`highway-referee eval tiles FOLDER --json OUT`: score the numbered-piece reader on a labelled folder
(realdata format, objects of kind "tile"). Items that carry a "cells" truth (the synthetic board
scenes) are also scored per cell, including how often a fault was refused as it should be.

`evaluate_detections` is shared with `eval route-dice`; `load_set`, `load_image` and `write_report`
also serve `eval sheets`.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee_app.cli import CliError, CommandTree
from vision.realdata import (
    LabelledImage,
    LabelledSet,
    confusion_matrix,
    format_confusion,
    greedy_match,
    iou_matrix,
    load_labels,
)
from vision.types import Detections, VisionError

NONE = "none"  # predicted value when the reader found the object but could not read it


def load_set(folder: Path) -> LabelledSet:
    if not folder.is_dir():
        raise CliError(f"{folder}: no such folder", 2)
    try:
        return load_labels(folder)
    except VisionError as exc:
        raise CliError(str(exc), 2) from exc


def load_image(labelled: LabelledSet, item: LabelledImage) -> np.ndarray:
    path = labelled.path(item)
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise CliError(f"{path}: missing or not an image (listed in {labelled.folder / 'labels.json'})", 2)
    return image


def write_report(path: Path | None, report: dict[str, Any]) -> None:
    """Write the report as JSON to `path` (the --json option) when one is given."""
    if path:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(report, indent=2), encoding="utf-8")
        except OSError as exc:
            raise CliError(f"cannot write {path}: {exc.strerror or exc}", 1) from exc


def evaluate_detections(
    labelled: LabelledSet,
    kind: str,
    labels: list[Any],
    read: Callable[[np.ndarray, LabelledImage], tuple[Detections, dict[str, Any]]],
    value_of: Callable[[int], Any],
    min_iou: float = 0.5,
) -> dict[str, Any]:
    """Greedy IoU matching of `read`'s detections against the labelled objects of `kind`.
    `read` returns the detections and any extra per-image facts to fold into the report."""
    n_true = n_det = n_match = n_value = 0
    pairs: list[tuple[Any, Any]] = []
    errors: list[str] = []
    extras: list[dict[str, Any]] = []
    seconds = 0.0
    for item in labelled.items:
        image = load_image(labelled, item)
        t0 = time.perf_counter()
        try:
            det, extra = read(image, item)
        except VisionError as exc:
            errors.append(f"{item.image}: {exc}")
            det, extra = Detections.empty(kind), {}
        seconds += time.perf_counter() - t0
        truth = [o for o in item.objects if o.kind == kind]  # after `read`, which may set some aside
        extras.append(extra)
        n_true += len(truth)
        n_det += len(det)
        iou = iou_matrix(np.array([o.bbox for o in truth]).reshape(-1, 4), det.xyxy)
        for i, j in greedy_match(iou, min_iou):
            n_match += 1
            pred = value_of(int(det.values[j])) if det.values[j] >= 0 else NONE
            pairs.append((truth[i].value, pred))
            n_value += int(pred == truth[i].value)
    all_labels = [*labels, NONE]
    matrix = confusion_matrix(pairs, all_labels)
    return {
        "folder": str(labelled.folder),
        "images": len(labelled.items),
        "objects": n_true,
        "detections": n_det,
        "matched": n_match,
        "recall": round(n_match / n_true, 4) if n_true else None,
        "precision": round(n_match / n_det, 4) if n_det else None,
        "value_accuracy": round(n_value / n_match, 4) if n_match else None,
        "confusion": {"labels": all_labels, "matrix": matrix, "rows": "true", "columns": "predicted"},
        "seconds_per_image": round(seconds / max(1, len(labelled.items)), 4),
        "errors": errors,
        "_extras": extras,
    }


def cell_scores(extras: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Per-cell accuracy over items that carry a cell truth ("any" cells skipped)."""
    total = correct = confident_wrong = refused = faults = faults_refused = 0
    for extra in extras:
        for cell, (truth, status, number) in extra.get("cells", {}).items():
            if truth == "any":
                continue
            total += 1
            if truth == "unreadable":
                faults += 1
                ok = status == "unreadable"
                faults_refused += int(ok)
            elif truth is None:
                ok = status == "empty"
            else:
                ok = status == "piece" and number == truth
                refused += int(status == "unreadable")
            correct += int(ok)
            confident_wrong += int(not ok and status != "unreadable")
            _ = cell
    if not total:
        return None
    return {
        "cells": total,
        "cell_accuracy": round(correct / total, 4),
        "confident_wrong": confident_wrong,
        "refused_readable": refused,
        "faults": faults,
        "faults_refused": faults_refused,
    }


def finish(report: dict[str, Any], args: argparse.Namespace, title: str) -> int:
    extras = report.pop("_extras")
    cells = cell_scores(extras)
    if cells:
        report["per_cell"] = cells
    write_report(args.json, report)  # first, so the file is there even when the printout's reader stops early
    print(
        f"{title}: {report['images']} images, {report['objects']} objects, {report['detections']} detections"
    )
    print(
        f"recall {report['recall']}  precision {report['precision']}  "
        f"value_accuracy {report['value_accuracy']}"
    )
    if cells:
        print(
            f"per cell: accuracy {cells['cell_accuracy']} over {cells['cells']} cells, "
            f"{cells['confident_wrong']} confidently wrong, {cells['faults_refused']}/{cells['faults']} "
            "faults refused"
        )
    for e in report["errors"][:5]:
        print(f"  could not read {e}")
    labels = report["confusion"]["labels"]
    print(format_confusion(report["confusion"]["matrix"], labels))
    return 0


def _setup(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", type=Path, help="folder with labels.json and the images it lists")
    parser.add_argument("--json", type=Path, help="also write the report as JSON to this file")
    parser.add_argument("--min-iou", type=float, default=0.5, help="box overlap that counts as found (0.5)")


def _run(args: argparse.Namespace) -> int:
    from vision.localise import LocaliseError
    from vision.tiles.reader import loose_tiles, read_grid_cells, tiles_from_reading

    if not 0 < args.min_iou <= 1:
        raise CliError(f"--min-iou must be in (0, 1], got {args.min_iou}")
    labelled = load_set(args.folder)

    def read(image: np.ndarray, item: LabelledImage) -> tuple[Detections, dict[str, Any]]:
        try:
            reading = read_grid_cells(image)
        except LocaliseError:  # no printed board in view: tokens on a plain surface
            return loose_tiles(image), {}
        extra: dict[str, Any] = {}
        truth = item.extra.get("cells")
        if isinstance(truth, dict):
            extra["cells"] = {
                name: (truth.get(name, "any"), c.status, c.number) for name, c in reading.cells.items()
            }
        return tiles_from_reading(reading), extra

    report = evaluate_detections(labelled, "tile", list(range(1, 17)), read, int, args.min_iou)
    report["reader"] = "tiles"
    return finish(report, args, "tiles")


def register(cli: CommandTree) -> None:
    cli.group(("eval",), help="score a reader on a labelled folder (realdata format)")
    cli.add(
        ("eval", "tiles"), _setup, _run, help="numbered pieces (kind tile): recall, precision, value accuracy"
    )
