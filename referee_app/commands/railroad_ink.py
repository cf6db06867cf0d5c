"""`highway-referee railroad-ink ...`: score, check and draw Railroad Ink sheets in the neutral format."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from engine.core import EngineError
from referee_app.cli import CliError, CommandTree
from referee_app.commands.input_files import refuse_match_log

GROUP = "railroad-ink"


def _load(path: str):
    from engine.railroad_ink.sheetfile import load_sheet

    refuse_match_log(Path(path), "a sheet file",
                     f"`highway-referee log replay {path}` re-judges that match and shows its outcome; "
                     "score and check read one player's sheet file (docs/formats/railroad-ink-sheet.md), "
                     "e.g. one written by `highway-referee railroad-ink random --out sheet.json`.")
    try:
        return load_sheet(path)
    except EngineError as exc:
        raise CliError(str(exc), 2) from None


def _expansions(args: argparse.Namespace, from_file: tuple[str, ...]) -> tuple[str, ...]:
    from engine.railroad_ink.tiles import check_expansions

    if args.expansions is None:
        return from_file
    try:
        return check_expansions(args.expansions)
    except EngineError as exc:
        raise CliError(f"--expansions: {exc}", 2) from None


def _setup_score(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="sheet in the neutral JSON format (docs/formats/railroad-ink-sheet.md)")
    p.add_argument("--longest", choices=("trail", "path"), default="trail",
                   help="longest-route reading: trail = a walk that never reuses a connection (the seed's "
                        "'a square may count twice', default); path = distinct squares on a simple path")
    p.add_argument("--expansions", default=None,
                   help="comma-separated expansions to score (default: the file's 'expansions')")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _run_score(args: argparse.Namespace) -> int:
    from engine.railroad_ink.scoring import score_sheet

    sf = _load(args.file)
    score = score_sheet(sf.sheet, args.longest, _expansions(args, sf.expansions), trace=True)
    out = score.to_json()
    if args.json:
        print(json.dumps(out))
        return 0
    rows = [("networks (exits " + "+".join(map(str, out["network_exit_counts"])) + ")", out["exit_points"]),
            ("longest highway", out["longest_highway"]), ("longest railway", out["longest_railway"]),
            ("centre squares", out["center_squares"])]
    rows += [(f"{name} expansion", pts) for name, pts in out["expansion"].items()]
    rows += [("errors", -out["errors"]), ("total", out["total"])]
    for label, value in rows:
        print(f"{label:<28} {value:>4}")
    print(f"(longest routes read as: {args.longest})")
    return 0


def _setup_check(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="sheet in the neutral JSON format")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")


def _run_check(args: argparse.Namespace) -> int:
    from engine.railroad_ink.sheetcheck import check_sheet

    sf = _load(args.file)
    try:
        result = check_sheet(sf)
    except EngineError as exc:
        raise CliError(f"{args.file}: {exc}", 2) from None
    if args.json:
        print(json.dumps(result.to_json()))
    elif result.code == 0:
        print(f"legal: {result.message}")
    if result.code == 1 and not args.json:
        print(f"illegal: {result.message}")
    if result.code == 2:
        raise CliError(f"{args.file}: {result.message}", 2)
    return result.code


def _setup_render(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="sheet in the neutral JSON format")
    p.add_argument("--svg", help="write the drawing as SVG (real size, mm)")
    p.add_argument("--png", help="write the drawing as PNG")
    p.add_argument("--longest", choices=("trail", "path"), default="trail")


def _run_render(args: argparse.Namespace) -> int:
    from engine.railroad_ink.scoring import score_sheet
    from referee_app.render.railroad_ink import sheet_drawing

    if not args.svg and not args.png:
        raise CliError("render: give --svg FILE and/or --png FILE", 2)
    sf = _load(args.file)
    score = score_sheet(sf.sheet, args.longest, sf.expansions, trace=True)
    svg, png = sheet_drawing(sf.sheet, score)
    try:
        if args.svg:
            Path(args.svg).write_text(svg, encoding="utf-8")
        if args.png:
            Path(args.png).write_bytes(png)
    except OSError as exc:
        raise CliError(f"render: cannot write: {exc}", 2) from None
    print(f"total {score.total}: wrote {', '.join(x for x in (args.svg, args.png) if x)}")
    return 0


def _run_faces(args: argparse.Namespace) -> int:
    from engine.railroad_ink.tiles import FACES, PIECES

    if args.json:
        print(json.dumps({die: list(faces) for die, faces in FACES.items()}))
        return 0
    for die, faces in FACES.items():
        print(f"{die}:")
        for face in dict.fromkeys(faces):
            sides = PIECES.get(face, ("",))[0]
            print(f"  {face:<34} x{faces.count(face)} {sides}")
    return 0


def register(cli: CommandTree) -> None:
    cli.group((GROUP,), "Railroad Ink: score, check and draw sheets")
    cli.add((GROUP, "score"), _setup_score, _run_score, help="score a sheet (networks, longest routes, "
                                                             "centre, "
            "errors, expansions, total)")
    cli.add((GROUP, "check"), _setup_check, _run_check, help="check a sheet's placement sequence: exit "
                                                             "0 legal, "
            "1 first illegal placement, 2 bad input")
    cli.add((GROUP, "render"), _setup_render, _run_render, help="draw a sheet with its score as SVG "
                                                                "and/or PNG")
    cli.add((GROUP, "faces"), lambda p: p.add_argument("--json", action="store_true"), _run_faces,
            help="list every die and its faces")
    register_random(cli)


def _setup_random(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", type=int, default=0, help="the same seed always plays the same game")
    p.add_argument("--expansions", default="", help="comma-separated: river, lake, meteor, lava")
    p.add_argument("--greedy", action="store_true", help="pick the best-scoring placement each time")
    p.add_argument("--out", help="write the sheet file here (default: print it)")


def _run_random(args: argparse.Namespace) -> int:
    from engine.railroad_ink.randomgame import random_game
    from engine.railroad_ink.record import game_record

    expansions = _expansions(args, ())
    _, actions = random_game(args.seed, 1, expansions, greedy=args.greedy)
    kind = "greedy" if args.greedy else "random"
    data = game_record(actions, 1, expansions, title=f"{kind} legal game, seed {args.seed}")
    text = json.dumps(data, indent=1)
    if args.out:
        try:
            Path(args.out).write_text(text + "\n", encoding="utf-8")
        except OSError as exc:
            raise CliError(f"random: cannot write {args.out}: {exc}", 2) from None
    else:
        print(text)
    return 0


def register_random(cli: CommandTree) -> None:
    cli.add((GROUP, "random"), _setup_random, _run_random,
            help="play a seeded random legal game and print its sheet file (rolls, rounds, placements)")
