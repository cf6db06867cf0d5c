"""`highway-referee dataset yolo KIND --out DIR --n N --seed S`: a YOLO training set (images, labels,
data.yaml, manifest.json) of rendered scenes for one detector; see docs/formats/yolo-sets.md."""

from __future__ import annotations

import argparse
from pathlib import Path

from referee_app.cli import CliError, CommandTree

KINDS = ("tiles", "route-dice", "sticks", "dice")


def _setup(p: argparse.ArgumentParser) -> None:
    p.add_argument("kind", choices=KINDS, help="tiles: numbered pieces; route-dice: Railroad Ink dice; "
                   "sticks: Tokyo sticks (pose) and pieces; dice: Highway dice (the `train dice` builder)")
    p.add_argument("--out", type=Path, required=True, help="folder to write (new, empty, or an earlier set)")
    p.add_argument("--n", type=int, default=100, help="rendered scenes (default 100)")
    p.add_argument("--seed", type=int, default=0, help="same seed, same scenes and bytes (default 0)")
    p.add_argument("--val-fraction", type=float, default=0.2,
                   help="share of the scenes (the last ones) held for validation (default 0.2)")
    p.add_argument("--scheme", help="class scheme: tiles piece|number, route-dice face|die, "
                   "sticks stick|pieces|boxes, dice die|value (default: the first)")
    p.add_argument("--size", type=int, nargs=2, metavar=("W", "H"),
                   help="image size in pixels (default 1280 720; dice 960 540)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def _build_dice(args: argparse.Namespace) -> str:
    from datasets.yolo.dice import DiceSetSpec, build_dice_set
    from datasets.yolo.scenes import prepare_folder

    spec = DiceSetSpec(real_folder=None, renders=args.n, val_fraction=args.val_fraction,
                       render_size=tuple(args.size or (960, 540)), seed=args.seed,
                       scheme=args.scheme or "die")
    spec.check()
    prepare_folder(args.out)  # refuses a foreign non-empty folder before the builder empties it
    m = build_dice_set(args.out, spec, show_progress=not args.no_progress)
    return f"{m['images']} images, {m['boxes']} boxes, classes {m['names']}"


def _run(args: argparse.Namespace) -> int:
    from datasets.yolo.scenes import SceneSetSpec, build_scene_set

    if args.seed < 0:
        raise CliError(f"--seed must be >= 0, got {args.seed}")
    if not 1 <= args.n <= 1_000_000:
        raise CliError(f"--n must be between 1 and 1000000, got {args.n}")
    if not 0.0 <= args.val_fraction < 1.0:
        raise CliError(f"--val-fraction must be at least 0 and below 1, got {args.val_fraction}")
    if args.size is not None and not all(64 <= v <= 8192 for v in args.size):
        raise CliError(f"--size must be 64..8192 pixels each way, got {args.size[0]} {args.size[1]}")
    try:
        if args.kind == "dice":
            if args.scheme not in (None, "die", "value"):
                raise CliError(f"--scheme for dice must be die or value, got {args.scheme!r}")
            summary = _build_dice(args)
        else:
            spec = SceneSetSpec(args.kind, n=args.n, seed=args.seed, val_fraction=args.val_fraction,
                                scheme=args.scheme, size=tuple(args.size or (1280, 720)))
            m = build_scene_set(args.out, spec, show_progress=not args.no_progress)
            lost = ", ".join(f"{k} {v}" for k, v in m["dropped"].items()) or "none"
            summary = (f"{m['images']} images, {m['boxes']} boxes, scheme {m['scheme']} "
                       f"({len(m['names'])} classes{', pose' if m['pose'] else ''}); dropped: {lost}")
    except ValueError as exc:
        raise CliError(f"dataset yolo {args.kind}: {exc}") from exc
    except OSError as exc:
        raise CliError(f"cannot write to {args.out}: {exc.strerror or exc}", 1) from exc
    print(f"{args.out}: {summary}; train with: highway-referee train yolo --data {args.out / 'data.yaml'}")
    return 0


def register(cli: CommandTree) -> None:
    cli.group(("dataset",), help="generate synthetic labelled data")
    cli.add(("dataset", "yolo"), _setup, _run,
            help="YOLO training set of rendered scenes (tiles, route-dice, sticks, dice)")
