"""`highway-referee print dice-tray --out DIR`: the printable dice tray (SVG at real size + PNG)."""

from __future__ import annotations

import argparse
from pathlib import Path

from referee_app.cli import CliError, CommandTree


def _setup(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, type=Path, help="folder to write dice-tray.svg and .png")
    parser.add_argument("--dpi", type=float, default=300.0, help="PNG resolution (default 300)")


def _run(args: argparse.Namespace) -> int:
    from drawing.dice_tray import tray_files

    if not 30 <= args.dpi <= 1200:
        raise CliError(f"--dpi must be between 30 and 1200, got {args.dpi:g}")
    try:
        args.out.mkdir(parents=True, exist_ok=True)
        svg, png = tray_files(args.dpi / 25.4)
        (args.out / "dice-tray.svg").write_text(svg, encoding="utf-8")
        (args.out / "dice-tray.png").write_bytes(png)
    except OSError as exc:
        raise CliError(f"cannot write to {args.out}: {exc.strerror or exc}", 1) from exc
    print(f"wrote {args.out / 'dice-tray.svg'} (297x210 mm, print at 100%) and {args.out / 'dice-tray.png'}")
    return 0


def register(cli: CommandTree) -> None:
    cli.group(("print",), help="write printable sheets (SVG at real size + PNG)")
    cli.add(("print", "dice-tray"), _setup, _run, help="the dice tray sheet with its corner markers")
