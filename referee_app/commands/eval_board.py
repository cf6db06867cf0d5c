"""`highway-referee eval board FOLDER --game GAME --json OUT`: score the board reader on labelled photos of
a printed sheet with pieces on it (realdata format; each object names the `cell`, `pool:N` or `tray`
it stands in; docs/formats/realdata.md).

Every labelled slot counts once: a cell or pool holding one die, the tray holding its dice (right when
the values read are the values there). A photo whose item names an `empty` photo of the same set-up
is read after that one, as the referee reads a match that starts on an empty board; a photo without
is read against the printed drawing alone.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path
from typing import Any

from referee_app.cli import CliError, CommandTree
from referee_app.commands.eval_tiles import load_image, load_set, write_report

GAMES = ("highway-dice",)
CONFIDENT = 0.6  # the referee loop judges readings at least this sure (confirm_below)


def _truth(item: Any, where: str) -> dict[str, Any]:
    """Slot key (as the reader names it) -> the value there (tray: sorted tuple of values)."""
    slots: dict[str, Any] = {}
    tray: list[int] = []
    for k, obj in enumerate(item.objects):
        cell = obj.extra.get("cell")
        if obj.kind != "die" or not isinstance(cell, str) or not isinstance(obj.value, int):
            raise CliError(f"{where}: {item.image}: object {k} needs kind 'die', an integer value and a "
                           "'cell' (a board cell id, 'pool:N' or 'tray')")
        if cell == "tray":
            tray.append(obj.value)
            continue
        key = cell if cell.startswith("pool:") else f"cell:{cell}"
        if key in slots:
            raise CliError(f"{where}: {item.image}: two dice labelled on {cell}")
        slots[key] = obj.value
    if tray:
        slots["tray"] = tuple(sorted(tray))
    return slots


def _value(key: str, read: Any) -> Any:
    if key.startswith("cell:"):
        return read[0]  # (value, colour index)
    return tuple(sorted(read)) if key == "tray" else read


def _zone_kind(key: str) -> str:
    return key.split(":")[0]


def _new_reader(args: argparse.Namespace, learn_empty: bool) -> Any:
    from referee_app.games.dice import BoardDiceReader

    # both value readers on every die, reported side by side
    reader = BoardDiceReader(geometry=args.geometry, value_order=args.values, learn_empty=learn_empty,
                             read_both=True, reuse=False)  # photos, each read on its own
    args.values = reader.value_order
    return reader


def _run(args: argparse.Namespace) -> int:
    if args.game not in GAMES:
        raise CliError(f"eval board knows the boards of: {', '.join(GAMES)} (got {args.game!r})")
    labelled = load_set(args.folder)
    where = str(labelled.folder / "labels.json")
    totals = Counter()
    by_zone: dict[str, Counter] = {}
    value_readers = {name: Counter() for name in ("pips", "learned")}
    per_image = []
    readers: dict[str, Any] = {}
    cpu = 0.0
    for item in labelled.items:
        truth = _truth(item, where)
        empty = item.extra.get("empty")
        t0 = time.process_time()
        if isinstance(empty, str):
            reader = readers.get(empty)
            if reader is None:
                reader = readers[empty] = _new_reader(args, learn_empty=True)
                reader.read(load_image(labelled, _item_named(labelled, empty, where)))
        else:
            reader = _new_reader(args, learn_empty=False)
        obs = reader.read(load_image(labelled, item))
        cpu += time.process_time() - t0
        localised = reader.localiser.calibration is not None
        totals["not_localised"] += int(not localised)
        seen = {k: v for k, v in obs.items.items()}
        row: dict[str, Any] = {"image": item.image, "slots": len(truth), "right": 0, "wrong": [],
                               "missed": [], "false": []}
        for key, want in truth.items():
            zone = by_zone.setdefault(_zone_kind(key), Counter())
            zone["cells"] += 1
            totals["cells"] += 1
            if key not in seen:
                totals["missed"] += 1
                zone["missed"] += 1
                row["missed"].append(key)
                continue
            got = _value(key, seen[key])
            if got == want:
                totals["cells_right"] += 1
                zone["cells_right"] += 1
                row["right"] += 1
            else:
                conf = float(obs.confidence.get(key, 1.0))
                totals["wrong"] += 1
                zone["wrong"] += 1
                totals["confident_wrong"] += int(conf >= CONFIDENT)
                zone["confident_wrong"] += int(conf >= CONFIDENT)
                row["wrong"].append({"slot": key, "want": want, "read": got, "confidence": round(conf, 3)})
        for key in seen:
            if key not in truth:
                totals["false"] += 1
                by_zone.setdefault(_zone_kind(key), Counter())["false"] += 1
                row["false"].append(key)
        _score_value_readers(reader, truth, value_readers)
        per_image.append(row)
    cells = totals["cells"]
    report: dict[str, Any] = {
        "folder": str(labelled.folder), "game": args.game, "geometry": args.geometry, "values": args.values,
        "images": len(labelled.items), "not_localised": totals["not_localised"],
        "cells": cells, "cells_right": totals["cells_right"],
        "cell_accuracy": round(totals["cells_right"] / cells, 4) if cells else None,
        "confident_wrong": totals["confident_wrong"], "wrong": totals["wrong"], "missed": totals["missed"],
        "false": totals["false"],
        "by_zone": {k: dict(v) | {"cell_accuracy": _ratio(v["cells_right"], v["cells"])}
                    for k, v in sorted(by_zone.items())},
        "value_readers": {k: {"read": v["read"], "right": v["right"],
                              "accuracy": _ratio(v["right"], v["read"])} for k, v in value_readers.items()},
        "cpu_seconds_per_image": round(cpu / max(1, len(labelled.items)), 3),
        "per_image": per_image,
    }
    acc = report["cell_accuracy"]
    shown = "-" if acc is None else f"{acc:.3f}"
    print(f"eval board {args.game} ({args.geometry}, values {args.values}): "
          f"{report['cells_right']}/{cells} slots right ({shown}), "
          f"confident wrong {report['confident_wrong']}, "
          f"missed {report['missed']}, false {report['false']}, "
          f"not localised {report['not_localised']} of {report['images']} photos")
    for name, v in report["value_readers"].items():
        if v["read"]:
            print(f"  value reader {name}: {v['right']}/{v['read']} dice on cells right")
    write_report(args.json, report)
    return 0


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None


def _item_named(labelled: Any, name: str, where: str) -> Any:
    for item in labelled.items:
        if item.image == name:
            return item
    raise CliError(f"{where}: 'empty' names {name!r}, which is not an item of the folder")


def _score_value_readers(reader: Any, truth: dict[str, Any], counts: dict[str, Counter]) -> None:
    """Each value reader's own answer for the dice found on cells, against the labelled value."""
    reading = getattr(reader, "last_reading", None)
    if reading is None:
        return
    for key, dice in reading.dice.items():
        if not key.startswith("cell:") or key not in truth or len(dice) != 1:
            continue
        for name, reading in dice[0].readings.items():
            counts[name]["read"] += 1
            counts[name]["right"] += int(reading[0] == truth[key])


def _setup(p: argparse.ArgumentParser) -> None:
    p.add_argument("folder", type=Path, help="folder with labels.json (realdata format with cells)")
    p.add_argument("--game", required=True, help=f"whose board: {', '.join(GAMES)}")
    p.add_argument("--json", type=Path, help="write the report here")
    p.add_argument("--geometry", choices=("3d", "flat"), default="3d",
                   help="3d: read dice where the camera's pose puts them (default); flat: the old fixed "
                        "3 px/mm top view")
    p.add_argument("--values", choices=("pips", "learned"),
                   help="which value reader speaks first, the other is the fallback (default: learned "
                        "with --geometry 3d, pips with flat)")


def register(cli: CommandTree) -> None:
    cli.add(("eval", "board"), _setup, _run,
            help="the board reader on labelled photos of a sheet with pieces: per-cell accuracy")
