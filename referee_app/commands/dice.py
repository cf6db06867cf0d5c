"""`highway-referee print highway-dice` and the `dice` commands: new / show / legal / play / board.

A POSITION argument is a file holding a position's JSON (as `dice new` or `dice play --out` write
it), the JSON text itself, or the word `new` for the start of a game (with --players / --board).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from engine import jsontext
from referee_app.cli import CliError, CommandTree
from referee_app.commands.input_files import refuse_match_log


def _engine() -> Any:
    import engine.dice_road as dice

    return dice


def _board(path: Path | None) -> Any:
    dice = _engine()
    from engine.core import EngineError

    if path is None:
        return dice.load_board()
    try:
        return dice.Board.from_data(jsontext.read_text(path))
    except OSError as exc:
        raise CliError(f"cannot read board file {path}: {exc.strerror or exc}") from exc
    except json.JSONDecodeError as exc:
        raise CliError(f"board file {path}: {exc.msg}") from exc
    except EngineError as exc:
        raise CliError(f"board file {path}: {exc}") from exc


def _position(args: argparse.Namespace) -> Any:
    dice = _engine()
    from engine.core import EngineError

    text = args.position
    try:
        if text == "new":
            return dice.new_state(args.players, _board(args.board))
        if text.lstrip().startswith("{"):
            where, raw = "the position text", text
        else:
            refuse_match_log(Path(text), "a position file",
                             f"`highway-referee log replay {text}` shows where that match stands and "
                             f"`highway-referee play highway-dice --log {text} --moves ...` continues it; "
                             "the dice commands read a position written by `dice new --out FILE` or "
                             "`dice play ... --out FILE`.")
            where, raw = text, ""
            try:
                raw = jsontext.read_text(text)
            except json.JSONDecodeError as exc:
                raise CliError(f"{where}: {exc.msg}") from exc
        try:
            data = jsontext.loads(raw)
        except json.JSONDecodeError as exc:
            raise CliError(f"{where} is not valid JSON: {exc}") from exc
        if isinstance(data, dict) and args.board is not None:
            data = {**data, "board": _board(args.board).to_json()}
        return dice.DiceState.from_json(data)
    except OSError as exc:
        raise CliError(f"cannot read position file {text}: {exc.strerror or exc} "
                       "(give a file, JSON text, or 'new')") from exc
    except EngineError as exc:
        raise CliError(f"bad position: {exc}") from exc


def _position_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("position", help="position JSON file, JSON text, or 'new'")
    parser.add_argument("--players", type=int, default=2, help="with 'new': 2, 3 or 4 players (default 2)")
    parser.add_argument("--board", type=Path, default=None, help="a board file (default: the shipped board)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")


def _write_state(state: Any, out: Path | None) -> None:
    if out is None:
        return
    try:
        out.write_text(json.dumps(state.to_json(), indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        raise CliError(f"cannot write {out}: {exc.strerror or exc}", 1) from exc


# -- print highway-dice -----------------------------------------------------------------
def _print_setup(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, type=Path, help="folder for the SVG, PNG and marker file")
    parser.add_argument("--board", type=Path, default=None, help="a board file (default: the shipped board)")
    parser.add_argument("--dpi", type=float, default=150.0, help="PNG resolution (default 150)")
    parser.add_argument("--paper", choices=("a4", "letter"), default=None,
                        help="split the board into tiles to tape together, one per A4 or Letter page")


def _print_run(args: argparse.Namespace) -> int:
    from drawing.dice_board import printable_board

    if not 30 <= args.dpi <= 600:
        raise CliError(f"--dpi must be between 30 and 600, got {args.dpi:g}")
    board = _board(args.board)
    if args.paper:
        return _print_tiles(args, board)
    svg, png, meta = printable_board(board, args.dpi)
    stem = f"highway-dice-{board.name}"
    try:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / f"{stem}.svg").write_text(svg, encoding="utf-8")
        (args.out / f"{stem}.png").write_bytes(png)
        (args.out / f"{stem}.markers.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        raise CliError(f"cannot write to {args.out}: {exc.strerror or exc}", 1) from exc
    print(f"wrote {args.out / (stem + '.svg')} ({board.width:g} x {board.height:g} mm, print at 100 %), "
          f"{stem}.png and {stem}.markers.json")
    return 0


def _print_tiles(args: argparse.Namespace, board: Any) -> int:
    from drawing.dice_board import tiled_board
    from referee_app.commands.print_pieces import write_tiles

    try:
        pages, plan = tiled_board(board, args.paper, args.dpi)
    except ValueError as exc:  # a board file too crowded for every tile's markers
        raise CliError(f"cannot tile board {board.name!r}: {exc}") from exc
    return write_tiles(args.out, f"highway-dice-{board.name}", args.paper, pages, plan)


# -- dice ... ---------------------------------------------------------------------------
def _new_setup(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", type=int, default=2, help="2, 3 or 4 players (default 2)")
    parser.add_argument("--board", type=Path, default=None, help="a board file (default: the shipped board)")
    parser.add_argument("--out", type=Path, default=None,
                        help="write the position here instead of printing it")


def _new_run(args: argparse.Namespace) -> int:
    args.position = "new"
    state = _position(args)
    if args.out:
        _write_state(state, args.out)
        print(f"wrote {args.out}")
    else:
        print(json.dumps(state.to_json(), indent=1))
    return 0


def _show_setup(parser: argparse.ArgumentParser) -> None:
    _position_args(parser)
    parser.add_argument("--svg", type=Path, default=None, help="also write the board diagram as SVG here")


def _show_run(args: argparse.Namespace) -> int:
    state = _position(args)
    if args.svg:
        from referee_app.render.dice_board import dice_board_svg

        try:
            args.svg.write_text(dice_board_svg(state), encoding="utf-8")
        except OSError as exc:
            raise CliError(f"cannot write {args.svg}: {exc.strerror or exc}", 1) from exc
    if args.json:
        print(json.dumps({"table": state.table_view(),
                          "seats": [state.seat_summary(s) for s in state.routing.seats],
                          "turn": state.turn, "winner": state.winner}, indent=1))
    else:
        print(state.diagram())
    return 0


def _legal_setup(parser: argparse.ArgumentParser) -> None:
    _position_args(parser)
    parser.add_argument("--roll", type=int, nargs=2, metavar=("A", "B"), default=None,
                        help="the two rolled dice (default: the position's roll)")


def _legal_run(args: argparse.Namespace) -> int:
    from engine.core import EngineError

    state = _position(args)
    dice = _engine()
    if state.winner is not None:
        raise CliError(f"the game is over: {dice.SEAT_NAMES[state.winner]} has won", 1)
    if args.roll is None and state.roll is None:
        raise CliError("no dice are rolled in this position: give the roll, e.g. `--roll 3 5`")
    try:
        uses = state.legal_uses(args.roll)
    except EngineError as exc:
        raise CliError(str(exc)) from exc
    st = state.status(state.turn)
    name = dice.SEAT_NAMES[state.turn]
    roll = args.roll or list(state.roll)
    if args.json:
        print(json.dumps({"seat": state.turn, "roll": roll, "pool": state.pools[state.turn],
                          "needed": st.needed, "uses": [u.to_json() for u in uses]}, indent=1))
        return 0
    pool = state.pools[state.turn]
    print(f"{name} to play with {roll[0]} and {roll[1]}" + (f" (pool {pool})" if pool else "")
          + f"; own road needs a {st.needed} on {' or '.join(st.needed_cells)}")
    if not uses:
        print("no legal use: store a die (+V) or pass")
    for u in uses:
        target = "" if u.target_seat == state.turn else f" ({dice.SEAT_NAMES[u.target_seat]})"
        print(f"  {u.action().notation():<10} {u.kind}{target}  [{u.rule}]")
    return 0


def _play_setup(parser: argparse.ArgumentParser) -> None:
    _position_args(parser)
    parser.add_argument("actions", nargs="*",
                        help="actions in notation, e.g. 'R 3 5' '3>W07 +5' 'reclaim B12'")
    parser.add_argument("--out", type=Path, default=None, help="write the resulting position here")


def _play_run(args: argparse.Namespace) -> int:
    from engine.core import EngineError, step

    dice = _engine()
    state = _position(args)
    rows = []
    for k, text in enumerate(args.actions, 1):
        try:
            action = dice.parse_action(text)
            before = state.turn
            state, verdict = step(state, action)
        except EngineError as exc:
            raise CliError(f"action {k} ({text!r}): {exc}") from exc
        rows.append({"action": action.notation(), "seat": before, **verdict.to_json()})
        if not args.json:
            flag = "ok " if verdict.legal else "ILLEGAL"
            print(f"{k:>3}. {dice.SEAT_NAMES[before]:<6} {action.notation():<12} {flag:<7} {verdict.rule}: "
                  f"{verdict.reason}")
    _write_state(state, args.out)
    if args.json:
        print(json.dumps({"verdicts": rows, "position": state.to_json()}, indent=1))
    else:
        print(state.diagram())
    return 0


def _board_setup(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--board", type=Path, default=None, help="check and print this board file instead")


def _board_run(args: argparse.Namespace) -> int:
    board = _board(args.board)
    print(json.dumps(board.to_json(), indent=1))
    return 0


def register(cli: CommandTree) -> None:
    cli.group(("print",), help="write printable sheets (SVG at real size + PNG)")
    cli.add(("print", "highway-dice"), _print_setup, _print_run,
            help="the dice-road board at real size with its corner markers")
    cli.group(("dice",), help="Highway dice road: positions, legal uses, judging")
    cli.add(("dice", "new"), _new_setup, _new_run, help="the starting position of a new game (JSON)")
    cli.add(("dice", "show"), _show_setup, _show_run, help="what each road needs in a position")
    cli.add(("dice", "legal"), _legal_setup, _legal_run, help="every legal use of each die for a roll")
    cli.add(("dice", "play"), _play_setup, _play_run, help="judge and apply actions written in notation")
    cli.add(("dice", "board"), _board_setup, _board_run, help="print (and check) a board file")
