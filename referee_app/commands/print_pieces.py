"""`highway-referee print highway-grid|railroad-ink-sheet|railroad-ink-dice --out DIR`: printable sheets."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from referee_app.cli import CliError, CommandTree


def _setup(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, type=Path, help="folder to write the SVG and PNG files to")
    parser.add_argument("--dpi", type=float, default=300.0, help="PNG resolution (default 300)")


def _write(out: Path, files: dict[str, str | bytes], extra: dict[str, object] | None = None) -> int:
    try:
        out.mkdir(parents=True, exist_ok=True)
        for name, content in files.items():
            path = out / name
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
            print(path)
        if extra:
            for name, data in extra.items():
                path = out / name
                path.write_text(json.dumps(data, indent=2), encoding="utf-8")
                print(path)
    except OSError as exc:
        raise CliError(f"cannot write to {out}: {exc.strerror or exc}", 1) from exc
    return 0


def write_tiles(out: Path, stem: str, paper: str, pages: dict[str, tuple[str, bytes]],
                plan: dict[str, object]) -> int:
    """A tiled print: STEM-PAPER-rRcC.svg/.png per page and STEM-PAPER-tiles.json (the plan)."""
    files: dict[str, str | bytes] = {}
    for name, (svg, png) in pages.items():
        files[f"{stem}-{paper}-{name}.svg"] = svg
        files[f"{stem}-{paper}-{name}.png"] = png
    _write(out, files, {f"{stem}-{paper}-tiles.json": plan})
    rows, cols = max(int(n[1:].split("c")[0]) for n in pages), max(int(n.split("c")[1]) for n in pages)
    print(f"{len(pages)} {paper} pages ({rows} rows x {cols} columns): print each at 100 %, cut along the "
          "grey lines and tape the tiles edge to edge as each page's label says")
    return 0


def _check_dpi(args: argparse.Namespace) -> float:
    if not 30 <= args.dpi <= 1200:
        raise CliError(f"--dpi must be between 30 and 1200, got {args.dpi:g}")
    return args.dpi / 25.4


def _run_grid(args: argparse.Namespace) -> int:
    from drawing.grid_sheet import board_files
    from vision.tiles.geometry import board_geometry

    return _write(args.out, board_files(_check_dpi(args)), {"highway-grid-geometry.json": board_geometry()})


def _run_rri_sheet(args: argparse.Namespace) -> int:
    from drawing.rri_print import sheet_files
    from vision.sheets.geometry import sheet_geometry

    return _write(
        args.out, sheet_files(_check_dpi(args)), {"railroad-ink-sheet-geometry.json": sheet_geometry()}
    )


def _run_rri_dice(args: argparse.Namespace) -> int:
    from drawing.rri_print import dice_files

    return _write(args.out, dice_files(_check_dpi(args)))


def register(cli: CommandTree) -> None:
    cli.group(("print",), help="write printable sheets (SVG at real size, PNG)")
    cli.add(
        ("print", "highway-grid"),
        _setup,
        _run_grid,
        help="the 4x4 Highway board (with markers) and its 16 numbered pieces",
    )
    cli.add(
        ("print", "railroad-ink-sheet"),
        _setup,
        _run_rri_sheet,
        help="a Railroad Ink player sheet (7x7 squares, exits) with markers",
    )
    cli.add(
        ("print", "railroad-ink-dice"),
        _setup,
        _run_rri_dice,
        help="Railroad Ink dice faces (route, junction, expansions) to glue on blank dice",
    )
