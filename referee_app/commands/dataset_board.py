"""`highway-referee dataset board --out DIR --tilt DEG --height MM --size W H --seed S`: labelled renders
of the printed dice-road board with dice on it, each die labelled with its cell (what `eval board`
scores; docs/formats/realdata.md)."""

from __future__ import annotations

import argparse
from pathlib import Path

from referee_app.cli import CliError, CommandTree


def _setup(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", type=Path, required=True, help="folder to write (created)")
    p.add_argument("--seed", type=int, default=0, help="same seed, same photos")
    p.add_argument("--tilt", type=float, default=15.0, help="camera tilt from straight down, degrees (0-60)")
    p.add_argument("--height", type=float, default=850.0, help="camera height over the board, mm (250-3000)")
    p.add_argument("--size", type=int, nargs=2, default=(1920, 1080), metavar=("W", "H"),
                   help="image size in pixels (default 1920 1080)")
    p.add_argument("--setups", type=int, default=2, help="camera set-ups (poses, tables), default 2")
    p.add_argument("--photos", type=int, default=3, help="photos with dice per set-up (default 3)")
    p.add_argument("--dice", type=int, default=8, help="dice on board cells per photo (default 8)")


def _run(args: argparse.Namespace) -> int:
    import cv2
    import numpy as np

    from datasets.board_photos import write_board_photos
    from drawing.dice_board import printable_board
    from engine.dice_road import load_board

    checks = [(0 <= args.tilt <= 60, f"--tilt must be 0..60 degrees, got {args.tilt}"),
              (250 <= args.height <= 3000, f"--height must be 250..3000 mm, got {args.height}"),
              (all(64 <= v <= 8192 for v in args.size),
               f"--size must be 64..8192 px each way, got {args.size}"),
              (1 <= args.setups <= 1000, f"--setups must be 1..1000, got {args.setups}"),
              (1 <= args.photos <= 1000, f"--photos must be 1..1000, got {args.photos}"),
              (0 <= args.dice <= 60, f"--dice must be 0..60, got {args.dice}"),
              (args.seed >= 0, f"--seed must be >= 0, got {args.seed}")]
    for ok, message in checks:
        if not ok:
            raise CliError(message)
    board = load_board()
    _svg, png, _meta = printable_board(board, dpi=100)
    sheet = cv2.cvtColor(cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
    try:
        data = write_board_photos(args.out, board, sheet, args.seed, tuple(args.size), args.tilt, args.height,
                                  args.setups, args.photos, args.dice)
    except OSError as exc:
        raise CliError(f"cannot write to {args.out}: {exc.strerror or exc}", 1) from exc
    n = sum(len(it["objects"]) for it in data["items"])
    print(f"wrote {len(data['items'])} photos ({args.setups} empty boards) with {n} dice to {args.out}")
    return 0


def register(cli: CommandTree) -> None:
    cli.add(("dataset", "board"), _setup, _run,
            help="renders of the dice-road board with dice on it, each die labelled with its cell")
