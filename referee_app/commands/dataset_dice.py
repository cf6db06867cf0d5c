"""`highway-referee dataset dice --out DIR --n N --seed S`: synthetic dice photos with exact labels
(realdata labels.json + YOLO)."""

from __future__ import annotations

import argparse
from pathlib import Path

from referee_app.cli import CliError, CommandTree


def _setup(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", type=Path, required=True, help="folder to write (created)")
    p.add_argument("--n", type=int, default=20, help="number of scenes (default 20)")
    p.add_argument("--seed", type=int, default=0, help="same seed, same scenes")
    p.add_argument("--size", type=int, nargs=2, default=(1280, 720), metavar=("W", "H"),
                   help="image size in pixels (default 1280 720)")


def _run(args: argparse.Namespace) -> int:
    from datasets.dice.scenes import write_dataset

    if not 1 <= args.n <= 100000:
        raise CliError(f"--n must be between 1 and 100000, got {args.n}")
    w, h = args.size
    if not (64 <= w <= 8192 and 64 <= h <= 8192):
        raise CliError(f"--size must be 64..8192 pixels each way, got {w} {h}")
    if args.seed < 0:
        raise CliError(f"--seed must be >= 0, got {args.seed}")
    try:
        data = write_dataset(args.out, args.n, args.seed, (w, h))
    except OSError as exc:
        raise CliError(f"cannot write to {args.out}: {exc.strerror or exc}", 1) from exc
    n_dice = sum(len(it["objects"]) for it in data["items"])
    print(f"wrote {args.n} scenes with {n_dice} dice to {args.out} (labels.json, labels/*.txt, data.yaml)")
    return 0


def register(cli: CommandTree) -> None:
    cli.group(("dataset",), help="generate synthetic labelled data")
    cli.add(("dataset", "dice"), _setup, _run, help="synthetic dice scenes with exact labels")
