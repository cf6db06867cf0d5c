"""`highway-referee eval dice FOLDER... --json OUT [--draw-misses DIR]`: score the dice reader on
folders of labelled photos (realdata format: FOLDER/labels.json)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from referee_app.cli import CliError, CommandTree


def _setup(p: argparse.ArgumentParser) -> None:
    p.add_argument("folders", nargs="+", type=Path, metavar="FOLDER", help="folder with labels.json")
    p.add_argument("--json", type=Path, help="write the report as JSON here")
    p.add_argument("--draw-misses", type=Path, metavar="DIR",
                   help="draw missed, false and misread dice onto copies of the images in DIR")
    p.add_argument("--include-training", action="store_true",
                   help="also score photos the shipped models were trained on (inflated numbers)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--lenient", dest="lenient", action="store_const", const=True,
                      help="labels are incomplete: detections where no die is labelled are not counted wrong")
    mode.add_argument("--strict", dest="lenient", action="store_const", const=False,
                      help="count every unmatched detection as wrong")
    p.add_argument("--reader", choices=("crops", "classical"), default="crops",
                   help="crops (default, what the referee uses): learned box proposals read by the learned "
                        "crop network; classical: the numpy window detector and value networks")
    p.add_argument("--models", type=Path, default=None, metavar="DIR",
                   help="classical reader: dice model folder (default: the shipped vision/dice/models)")
    p.add_argument("--crop-model", type=Path, action="append", default=None, metavar="ONNX",
                   help="crops reader: this crop network instead of the shipped one (its card NAME.json "
                        "lists the photos it trained on, which are left out). Given more than once: "
                        "cross-validation, each photo is scored by the first listed model that did not "
                        "train on it")
    p.add_argument("--profile", type=Path, metavar="JSON",
                   help="crops reader: adapt it with this dice profile (`teach dice`); the photos it was "
                        "taught on are left out")
    p.add_argument("--scales", choices=("whole", "any"), default="whole",
                   help="crops reader: whole (default): the whole frame, read once; any: read again at "
                        "the scale that brings the dice to the detector's trained size when they are far "
                        "from it (dice at any share of the frame; slower where it rereads)")
    p.add_argument("--die-px", type=float, nargs=2, metavar=("MIN", "MAX"), default=(20.0, 72.0),
                   help="die sizes (box side, pixels) to look for (default 20 72)")


def _run(args: argparse.Namespace) -> int:
    from vision.dice.detector import MODELS
    from vision.dice.evaluate import box_convention, evaluate, format_report, load, trained_photos, write_json
    from vision.dice.reader import DiceReader
    from vision.types import VisionError

    models = args.models or MODELS
    if not models.is_dir():
        raise CliError(f"--models {models}: no such folder")
    if (args.crop_model or args.profile) and args.reader != "crops":
        raise CliError("--crop-model and --profile go with --reader crops")
    if args.profile and args.crop_model and len(args.crop_model) > 1:
        raise CliError("--profile goes with at most one --crop-model")
    # (reader, photos it trained on per folder): one pair, or one per --crop-model for cross-validation
    trained = {} if args.include_training else trained_photos(models)
    try:
        if args.profile:
            readers = [_profile_reader(args.profile, args.crop_model, models, trained, args.include_training,
                                       args.scales == "any")]
        elif args.reader == "classical":
            readers = [(DiceReader(models, die_px=tuple(args.die_px)).read, trained)]
        elif not args.crop_model:
            from vision.learned.reader import LearnedDiceReader

            readers = [(LearnedDiceReader(mode="crops", any_scale=args.scales == "any").read, trained)]
        else:
            readers = [_crop_reader(m, models, args.include_training, args.scales == "any")
                       for m in args.crop_model]
    except VisionError as exc:
        raise CliError(str(exc)) from exc
    reports = []
    printout: list[str] = []  # printed after the JSON is written (a reader like `head` may stop early)
    for folder in args.folders:
        try:
            labels = load(folder)
            box_convention(labels.meta)  # an unknown convention is refused before anything is read
        except VisionError as exc:
            raise CliError(f"{folder}: {exc}") from exc
        draw = args.draw_misses / folder.resolve().name if args.draw_misses and len(args.folders) > 1 \
            else args.draw_misses
        scored: set[str] = set()
        for k, (read, skips) in enumerate(readers):
            skip = skips.get(folder.resolve().name, set()) | scored
            try:
                report = evaluate(labels, read, args.lenient, skip, draw)
            except OSError as exc:
                raise CliError(f"cannot write drawings to {draw}: {exc.strerror or exc}", 1) from exc
            report["reader"] = args.reader
            if args.profile:
                report["profile"] = str(args.profile)
                printout.append(f"dice profile: {args.profile} (the photos it was taught on are left out)")
            if args.reader == "crops":
                report["scales"] = args.scales
            if args.crop_model:
                report["crop_model"] = str(args.crop_model[k])
                printout.append(f"crop model: {args.crop_model[k]}")
            printout += [f"reader: {args.reader}", format_report(report)]
            scored |= {i["image"] for i in report["images"]}
            reports.append(report)
    result = reports[0] if len(reports) == 1 else dict(_pool(reports), reader=args.reader)
    if args.json:
        try:
            write_json(args.json, result)
        except OSError as exc:
            raise CliError(f"cannot write {args.json}: {exc.strerror or exc}", 1) from exc
        printout.append(f"wrote {args.json}")
    print("\n".join(printout))
    return 0


def _crop_reader(model: Path, classical: Path, include_training: bool,
                 any_scale: bool = False) -> tuple[Callable[[Any], Any], dict[str, set[str]]]:
    """The crops reader with crop network MODEL, and the photos to leave out for it: those its card
    lists plus those the other shipped models (box detector, classical reader) trained on: not those of the
    shipped crop network, which MODEL replaces."""
    import json

    from vision.dice.evaluate import trained_photos
    from vision.learned.card_photos import photos_by_set
    from vision.learned.crops import DEFAULT_CROP_MODEL
    from vision.learned.reader import LearnedDiceReader

    if not model.is_file():
        raise CliError(f"--crop-model {model}: no such file")
    skips: dict[str, set[str]] = {}
    if not include_training:
        skips = trained_photos(classical, without=[DEFAULT_CROP_MODEL.with_suffix(".json")])
        card = model.with_suffix(".json")
        try:
            meta = json.loads(card.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise CliError(f"--crop-model {model}: its card {card.name} is missing or unreadable, so the "
                           "photos it trained on are unknown (give --include-training to score all)") from exc
        for folder, photos in photos_by_set(meta).items():
            skips.setdefault(folder, set()).update(photos)
    return LearnedDiceReader(mode="crops", crop_model=model, any_scale=any_scale).read, skips


def _profile_reader(path: Path, crop_models: list[Path] | None, classical: Path,
                    trained: dict[str, set[str]], include_training: bool,
                    any_scale: bool = False) -> tuple[Callable[[Any], Any], dict[str, set[str]]]:
    """The crops reader adapted by a taught profile; its teaching photos are left out (always: they are
    what it learned from)."""
    from vision.learned.profile import load_profile
    from vision.learned.reader import LearnedDiceReader

    profile = load_profile(path)
    if crop_models:
        _read, skips = _crop_reader(crop_models[0], classical, include_training)
        read = LearnedDiceReader(mode="crops", crop_model=crop_models[0], profile=profile,
                                 any_scale=any_scale).read
    else:
        read = LearnedDiceReader(mode="crops", profile=profile, any_scale=any_scale).read
        skips = {k: set(v) for k, v in trained.items()}
    taught = profile.taught_on
    skips.setdefault(str(taught.get("folder", "")), set()).update(taught.get("photos") or [])
    return read, skips


def _pool(reports: list[dict]) -> dict:
    """Totals over several folders, with each folder's report kept under "folders", and totals per
    box convention (folders matched by IoU and by centre are also reported apart)."""

    out = _totals(reports)
    out["folders"] = reports
    def convention(r: dict) -> str:
        return r.get("box_convention", "whole_die")

    keys = ("n_labelled", "n_detected", "matched", "recall", "precision", "value_accuracy", "end_to_end")
    out["by_convention"] = {
        c: {k: v for k, v in _totals([r for r in reports if convention(r) == c]).items() if k in keys}
        for c in sorted({convention(r) for r in reports})}
    return out


def _totals(reports: list[dict]) -> dict:
    from vision.dice.evaluate import confident_values

    def tot(k: str) -> int:
        return sum(r[k] for r in reports)

    n_lab, tp = tot("n_labelled"), tot("matched")
    fp = sum(i["false_pos"] for r in reports for i in r["images"])
    v_n = sum(sum(i["value_total"] for i in r["images"]) for r in reports)
    v_ok = sum(sum(i["value_correct"] for i in r["images"]) for r in reports)
    matrix = [[sum(r["confusion"]["matrix"][a][b] for r in reports) for b in range(6)] for a in range(6)]
    reads = [v for r in reports for v in r.get("value_reads", [])]
    return {"n_labelled": n_lab, "n_detected": tot("n_detected"), "matched": tp,
            "recall": tp / n_lab if n_lab else None, "precision": tp / (tp + fp) if tp + fp else None,
            "value_accuracy": v_ok / v_n if v_n else None, "end_to_end": v_ok / n_lab if n_lab else None,
            "confusion": {"labels": [1, 2, 3, 4, 5, 6], "matrix": matrix},
            "confident_values": confident_values([(t, p) for t, p, _ in reads], [c for _, _, c in reads]),
            "images": [dict(i, folder=r["folder"]) for r in reports for i in r["images"]]}


def register(cli: CommandTree) -> None:
    cli.group(("eval",), help="score a reader on labelled photos")
    cli.add(("eval", "dice"), _setup, _run, help="score the dice reader on folders in the realdata format")
