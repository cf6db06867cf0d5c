"""`highway-referee dataset tokyo --out DIR --n N --seed S`: rendered Tokyo Highway scenes with labels."""

from __future__ import annotations

import argparse
from pathlib import Path

from referee_app.cli import CliError, CommandTree


def _setup(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", required=True, help="output folder (created)")
    p.add_argument("--n", type=int, default=20, help="number of images (default 20)")
    p.add_argument("--seed", type=int, default=0, help="seed: the same seed gives the same images")
    p.add_argument("--width", type=int, default=1280)
    p.add_argument("--height", type=int, default=720)
    p.add_argument("--sticks", type=int, default=None, help="sticks per scene (default: random 4..16)")
    p.add_argument(
        "--kind",
        choices=("tokyo", "pickup"),
        default="tokyo",
        help="tokyo: highways on supports with cars; pickup: a heap of loose pick-up sticks (many crossings)",
    )
    p.add_argument(
        "--views",
        type=int,
        default=1,
        help="cameras per scene (default 1); 2-4 render each scene from cameras at least 60 degrees of "
        "yaw apart, items grouped by 'view_of'",
    )


def _run(args: argparse.Namespace) -> int:
    if args.n < 1 or args.n > 100000:
        raise CliError(f"--n must be between 1 and 100000, got {args.n}")
    if args.width < 64 or args.height < 64:
        raise CliError("--width and --height must be at least 64 pixels")
    if not 1 <= args.views <= 4:
        raise CliError(f"--views must be between 1 and 4, got {args.views}")
    from datasets.tokyo.dataset import write_dataset

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise CliError(f"{out}: exists and is not a folder")
    try:
        doc = write_dataset(
            out,
            args.n,
            args.seed,
            args.width,
            args.height,
            n_sticks=args.sticks,
            kind=args.kind,
            views=args.views,
        )
    except OSError as exc:
        raise CliError(f"cannot write to {out}: {exc.strerror or exc}", 1) from exc
    n_sticks = sum(1 for it in doc["items"] for o in it["objects"] if o["kind"] == "stick")
    groups = f" ({args.n} scenes x {args.views} views)" if args.views > 1 else ""
    print(f"wrote {len(doc['items'])} images{groups} ({n_sticks} sticks) and labels.json to {out}")
    return 0


def register(cli: CommandTree) -> None:
    cli.group(("dataset",), help="generate synthetic labelled datasets")
    cli.add(("dataset", "tokyo"), _setup, _run, help="render Tokyo Highway scenes with exact labels")
