"""`highway-referee eval sticks FOLDER --json OUT`: score the stick / crossing reader on labelled images."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from referee_app.cli import CliError, CommandTree


def _setup(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "folder",
        help="folder with images and a labels.json (realdata format, kind 'stick'); images sharing a "
        "'view_of' key are also scored as one table seen by two or more cameras (*_views numbers; sticks on "
        "each group's first view, against its one-view reading: *_first_view)",
    )
    p.add_argument("--json", dest="json_out", help="write the metrics to this JSON file")
    p.add_argument(
        "--tol",
        type=float,
        default=0.03,
        help="endpoint match tolerance as a fraction of the image diagonal (default 0.03)",
    )
    p.add_argument(
        "--no-calibration",
        action="store_true",
        help="ignore per-image calibration in the labels (read as an uncalibrated camera)",
    )
    p.add_argument("--limit", type=int, default=None, help="score only the first N images")


def _run(args: argparse.Namespace) -> int:
    from vision.tokyo.evaluate import evaluate_folder
    from vision.types import VisionError

    folder = Path(args.folder)
    if not folder.is_dir():
        raise CliError(f"{folder}: not a folder", 2)
    if not 0 < args.tol < 1:
        raise CliError(f"--tol must be between 0 and 1, got {args.tol}", 2)
    try:
        res = evaluate_folder(folder, tol=args.tol, use_calibration=not args.no_calibration, limit=args.limit)
    except VisionError as exc:
        raise CliError(str(exc), 1) from exc
    keys = (
        "images",
        "sticks",
        "stick_recall",
        "stick_precision",
        "endpoint_error_px",
        "endpoint_error_of_diagonal",
        "crossings",
        "crossing_recall",
        "crossing_precision",
        "over_under_accuracy",
        "supports",
        "support_recall",
        "support_precision",
        "height_exact",
        "junction_accuracy",
        # view groups (images with a shared view_of): one table read from several calibrated cameras
        "view_groups",
        "views_per_group",
        "support_recall_views",
        "support_precision_views",
        "height_exact_views",
        "heights_from_views",
        "junction_accuracy_views",
        "stick_recall_first_view",
        "stick_recall_views",
        "stick_precision_first_view",
        "stick_precision_views",
        "crossing_recall_first_view",
        "crossing_recall_views",
        "over_under_accuracy_first_view",
        "over_under_accuracy_views",
        "views",
    )
    if args.json_out:  # first, so the file is there even when the printout's reader stops early
        try:
            Path(args.json_out).write_text(json.dumps(res, indent=2), encoding="utf-8")
        except OSError as exc:
            raise CliError(f"cannot write {args.json_out}: {exc.strerror or exc}", 1) from exc
    for k in keys:
        if k in res:
            print(f"{k:<31} {res[k]}")
    return 0


def register(cli: CommandTree) -> None:
    cli.group(("eval",), help="score a reader on a labelled folder")
    cli.add(
        ("eval", "sticks"),
        _setup,
        _run,
        help="score the stick reader: stick recall/precision, crossings, over/under, heights",
    )
