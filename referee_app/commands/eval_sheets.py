"""`highway-referee eval sheets FOLDER --json OUT`: per-square accuracy of the Railroad Ink sheet reader
on a labelled folder whose items carry "squares" truth (see datasets/sheets/generate.py).

Scores: routes (sides + overpass + station all right), round numbers (read right / read at all /
read wrong), all together, and how many covered squares were refused."""

from __future__ import annotations

import argparse
import time
from typing import Any

from referee_app.cli import CliError, CommandTree
from referee_app.commands.eval_tiles import load_image, load_set, write_report
from vision.types import VisionError


def _setup(parser: argparse.ArgumentParser) -> None:
    from pathlib import Path

    parser.add_argument("folder", type=Path, help="folder with labels.json (items with 'squares') and images")
    parser.add_argument("--json", type=Path, help="also write the report as JSON to this file")


def score(
    truth: dict[str, Any],
    readings: dict[str, Any],
    tally: dict[str, int],
    side_pairs: dict[str, dict[str, int]],
) -> None:
    for name, t in truth.items():
        if t == "any":
            continue
        r = readings.get(name)
        if t == "unreadable":
            tally["covered"] += 1
            tally["covered_refused"] += int(r is None or r.status == "unreadable")
            continue
        tally["squares"] += 1
        if r is None or r.status == "unreadable":
            tally["refused"] += 1
            continue
        routes = r.sides == t["sides"] and r.overpass == t["overpass"] and r.station == t["station"]
        tally["routes_ok"] += int(routes)
        for a, b in zip(t["sides"], r.sides, strict=True):
            side_pairs[a][b] += 1
        if t["round"] is not None:
            tally["rounds"] += 1
            tally["rounds_read"] += int(r.round_number is not None)
            tally["rounds_ok"] += int(r.round_number == t["round"])
        tally["rounds_wrong"] += int(r.round_number is not None and r.round_number != t["round"])
        tally["all_ok"] += int(routes and r.round_number == t["round"])


def _run(args: argparse.Namespace) -> int:
    from vision.sheets.reader import read_sheet

    labelled = load_set(args.folder)
    tally = {
        k: 0
        for k in (
            "squares",
            "routes_ok",
            "all_ok",
            "refused",
            "rounds",
            "rounds_read",
            "rounds_ok",
            "rounds_wrong",
            "covered",
            "covered_refused",
        )
    }
    side_pairs = {a: {b: 0 for b in "HR-"} for a in "HR-"}
    errors: list[str] = []
    seconds = 0.0
    for item in labelled.items:
        truth = item.extra.get("squares")
        if not isinstance(truth, dict):
            raise CliError(f"{labelled.folder / 'labels.json'}: {item.image} has no 'squares' truth")
        image = load_image(labelled, item)
        t0 = time.perf_counter()
        try:
            readings = read_sheet(image)
        except VisionError as exc:
            errors.append(f"{item.image}: {exc}")
            readings = {}
        seconds += time.perf_counter() - t0
        score(truth, readings, tally, side_pairs)

    def ratio(a: str, b: str) -> float | None:
        return round(tally[a] / tally[b], 4) if tally[b] else None

    report = {
        "reader": "sheets",
        "folder": str(labelled.folder),
        "images": len(labelled.items),
        **tally,
        "square_accuracy": ratio("routes_ok", "squares"),
        "square_accuracy_with_round": ratio("all_ok", "squares"),
        "round_read_rate": ratio("rounds_read", "rounds"),
        "round_accuracy": ratio("rounds_ok", "rounds"),
        "covered_refused_rate": ratio("covered_refused", "covered"),
        "side_confusion": {
            "labels": ["H", "R", "-"],
            "rows": "true",
            "columns": "predicted",
            "matrix": [[side_pairs[a][b] for b in "HR-"] for a in "HR-"],
        },
        "seconds_per_image": round(seconds / max(1, len(labelled.items)), 4),
        "errors": errors,
    }
    write_report(args.json, report)  # first, so the file is there even when the printout's reader stops early
    print(f"sheets: {report['images']} images, {tally['squares']} squares")
    print(
        f"per square: routes {report['square_accuracy']}  "
        f"with round number {report['square_accuracy_with_round']}"
        f"  refused {tally['refused']}"
    )
    print(
        f"round numbers: read {report['round_read_rate']}  right {report['round_accuracy']}  "
        f"wrong {tally['rounds_wrong']}"
    )
    print(f"covered squares refused: {tally['covered_refused']}/{tally['covered']}")
    print("sides true\\pred   H     R     -")
    for a in "HR-":
        print(f"           {a}  " + "".join(f"{side_pairs[a][b]:6d}" for b in "HR-"))
    for e in errors[:5]:
        print(f"  could not read {e}")
    return 0


def register(cli: CommandTree) -> None:
    cli.add(
        ("eval", "sheets"), _setup, _run, help="Railroad Ink sheets: per-square accuracy of routes and rounds"
    )
