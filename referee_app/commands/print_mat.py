"""`highway-referee print tokyo-highway --out DIR`: the Tokyo Highway play mat (SVG at real size + PNG).

Named after its game like the other sheets; `print tokyo-mat` (its first name) still works.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from referee_app.cli import CliError, CommandTree


def _setup(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", required=True, type=Path, help="folder for tokyo-mat.svg, .png and .json")
    p.add_argument("--size", default="a3", choices=("a4", "a3", "a2"), help="paper size (default a3)")
    p.add_argument(
        "--tint",
        default="blue",
        choices=("blue", "green", "yellow"),
        help="background tint: grey pieces must stand out from it (default blue)",
    )
    p.add_argument("--dpi", type=float, default=150.0, help="PNG resolution (default 150)")
    p.add_argument("--paper", choices=("a4", "letter"), default=None,
                   help="split the mat into tiles to tape together, one per A4 or Letter page")


def _run(args: argparse.Namespace) -> int:
    from drawing.canvas import draw_both
    from drawing.tokyo_mat import MAT_SIZES, draw_mat

    if not 30 <= args.dpi <= 600:
        raise CliError(f"--dpi must be between 30 and 600, got {args.dpi:g}")
    w, h = MAT_SIZES[args.size]
    centres: dict[int, tuple[float, float]] = {}

    def draw(canvas) -> None:
        centres.update(draw_mat(canvas, w, h, args.tint))

    if args.paper:
        return _print_tiles(args, w, h, draw)

    svg, png = draw_both(w, h, draw, scale=args.dpi / 25.4)
    info = {
        "sheet": "tokyo-highway",
        "size_mm": [w, h],
        "markers_mm": {str(k): [round(v[0], 3), round(v[1], 3)] for k, v in centres.items()},
    }
    try:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "tokyo-mat.svg").write_text(svg, encoding="utf-8")
        (args.out / "tokyo-mat.png").write_bytes(png)
        (args.out / "tokyo-mat.json").write_text(json.dumps(info, indent=2), encoding="utf-8")
    except OSError as exc:
        raise CliError(f"cannot write to {args.out}: {exc.strerror or exc}", 1) from exc
    print(
        f"wrote {args.out / 'tokyo-mat.svg'} ({w:g}x{h:g} mm, print at 100%), .png and .json (marker centres)"
    )
    return 0


def _print_tiles(args: argparse.Namespace, w: float, h: float, draw) -> int:
    from drawing.paper import plan_json, plan_tiles, tile_pages
    from drawing.tokyo_mat import MAT_MARKER_MARGIN_MM, MAT_MARKER_MM
    from referee_app.commands.print_pieces import write_tiles
    from vision.localise import SheetSpec

    # no markers inside the tiles: the mat's middle is the playing area, and the Tokyo calibration is
    # made from the mat's four corner markers (docs/formats/printing-tiles.md)
    corners = SheetSpec("tokyo-highway", w, h, MAT_MARKER_MM, MAT_MARKER_MARGIN_MM).marker_centres()
    plan = plan_tiles("tokyo-highway", w, h, (), corners, MAT_MARKER_MM, tile_markers=False)
    pages = tile_pages(plan, args.paper, draw, f"Tokyo Highway mat ({args.size})", args.dpi / 25.4)
    return write_tiles(args.out, f"tokyo-mat-{args.size}", args.paper, pages, plan_json(plan, args.paper))


def register(cli: CommandTree) -> None:
    cli.group(("print",), help="write printable sheets (SVG at real size + PNG)")
    cli.add(("print", "tokyo-highway"), _setup, _run,
            help="the Tokyo Highway play mat with its corner markers")
    cli.add(("print", "tokyo-mat"), _setup, _run, help="the same as `print tokyo-highway` (its older name)")
