"""`highway-referee teach dice FOLDER --first 3 --out my-dice.json`: learn a player's own dice from a few
labelled photos (realdata format: FOLDER/labels.json) into a dice profile, which `eval dice --profile`
and `serve --dice-profile` use. Nothing is written unless every teaching photo checks out."""

from __future__ import annotations

import argparse
from pathlib import Path

from referee_app.cli import CliError, CommandTree


def _setup(p: argparse.ArgumentParser) -> None:
    p.add_argument("folder", type=Path, metavar="FOLDER", help="folder with labels.json and its photos")
    p.add_argument("--out", type=Path, required=True, metavar="JSON", help="write the dice profile here")
    pick = p.add_mutually_exclusive_group()
    pick.add_argument("--first", type=int, default=3, metavar="N",
                      help="teach on the first N labelled photos in file-name order (default 3)")
    pick.add_argument("--photos", nargs="+", metavar="NAME", help="teach on these photos of the folder")
    p.add_argument("--crop-model", type=Path, default=None, metavar="ONNX",
                   help="the crop network to adapt (default: the shipped one)")


def _run(args: argparse.Namespace) -> int:
    from vision.dice.evaluate import load
    from vision.learned.crops import DEFAULT_CROP_MODEL
    from vision.learned.teach import teach
    from vision.types import VisionError

    if args.first < 1:
        raise CliError(f"--first {args.first}: teach on at least one photo")
    if args.out.is_dir():
        raise CliError(f"--out {args.out} is a folder: give a file name such as my-dice.json")
    crop_model = args.crop_model or DEFAULT_CROP_MODEL
    if not crop_model.is_file():
        raise CliError(f"--crop-model {crop_model}: no such file")
    try:
        labels = load(args.folder)
    except VisionError as exc:
        raise CliError(f"{args.folder}: {exc}; nothing was written") from exc
    by_name = {it.image: it for it in labels.items}
    if args.photos:
        unknown = [n for n in args.photos if n not in by_name]
        if unknown:
            raise CliError(f"{args.folder}: no labelled photo named {', '.join(unknown)}")
        items = [by_name[n] for n in args.photos]
    else:
        items = sorted(labels.items, key=lambda it: it.image)[:args.first]
        if len(items) < args.first:
            raise CliError(f"{args.folder}: --first {args.first} but only {len(items)} labelled photos")
    try:
        profile = teach(labels, items, crop_model)
    except VisionError as exc:
        raise CliError(f"{args.folder}: {exc}; nothing was written") from exc
    try:
        profile.save(args.out)
    except OSError as exc:
        raise CliError(f"cannot write {args.out}: {exc.strerror or exc}", 1) from exc
    faces = ", ".join(f"{v}: {n}" for v, n in sorted(profile.counts.items()))
    print(f"taught on {len(items)} photos of {args.folder}: dice per value {faces}")
    untaught = [str(v) for v in range(1, 7) if v not in profile.counts]
    if untaught:
        print(f"  values not shown on the teaching photos (the default reading stays): {', '.join(untaught)}")
    if profile.symbols:
        print("  faces with symbols: " + ", ".join(f"{v} ({s})" for v, s in sorted(profile.symbols.items())))
    print(f"  acceptance threshold for this set: {profile.keep}")
    print(f"wrote {args.out}")
    return 0


def register(cli: CommandTree) -> None:
    cli.group(("teach",), help="teach the referee a player's own pieces")
    cli.add(("teach", "dice"), _setup, _run,
            help="learn a dice set from a few labelled photos (a dice profile)")
