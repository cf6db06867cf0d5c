"""`highway-referee eval route-dice FOLDER --json OUT`: score the Railroad Ink dice reader on a labelled
folder (realdata format, objects of kind "route-die" whose value is the face name). Dice labelled
"leaning": true are not scored for their face; the report says how many of them were refused."""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from referee_app.cli import CliError, CommandTree
from referee_app.commands.eval_tiles import _setup, evaluate_detections, finish, load_set
from vision.realdata import LabelledImage, greedy_match, iou_matrix
from vision.types import Detections


def _run(args: argparse.Namespace) -> int:
    from vision.route_dice.faces import ALIASES, FACES
    from vision.route_dice.reader import dice_detections, read_dice

    if not 0 < args.min_iou <= 1:
        raise CliError(f"--min-iou must be in (0, 1], got {args.min_iou}")
    labelled = load_set(args.folder)
    for item in labelled.items:
        for obj in item.objects:
            if obj.kind == "route-die":
                obj.value = ALIASES.get(obj.value, obj.value)
                if obj.value not in FACES and not obj.extra.get("leaning"):
                    raise CliError(
                        f"{labelled.folder / 'labels.json'}: {item.image}: unknown face {obj.value!r}; "
                        f"known: {', '.join(FACES)}"
                    )
    leaning = {"leaning": 0, "refused": 0}

    def read(image: np.ndarray, item: LabelledImage) -> tuple[Detections, dict[str, Any]]:
        readings, view = read_dice(image)
        det = dice_detections(readings, view)
        lean = [o for o in item.objects if o.kind == "route-die" and o.extra.get("leaning")]
        if lean:
            pairs = greedy_match(iou_matrix(np.array([o.bbox for o in lean]), det.xyxy), 0.3)
            matched = {i: j for i, j in pairs}
            for i in range(len(lean)):
                leaning["leaning"] += 1
                j = matched.get(i)
                leaning["refused"] += int(j is None or det.values[j] < 0)
            # leaning dice are not scored for their face: drop them and what was seen of them
            item.objects = [o for o in item.objects if not o.extra.get("leaning")]
            keep = [j for j in range(len(det)) if j not in matched.values()]
            det = det[keep] if keep else Detections.empty("route-die")
        return det, {}

    report = evaluate_detections(labelled, "route-die", list(FACES), read, lambda v: FACES[v], args.min_iou)
    report["reader"] = "route-dice"
    report["leaning"] = leaning
    if leaning["leaning"]:
        print(f"leaning dice refused: {leaning['refused']}/{leaning['leaning']}")
    return finish(report, args, "route-dice")


def register(cli: CommandTree) -> None:
    cli.add(
        ("eval", "route-dice"),
        _setup,
        _run,
        help="Railroad Ink dice faces (kind route-die): recall, precision, value accuracy",
    )
