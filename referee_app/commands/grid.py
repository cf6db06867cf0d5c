"""`highway-referee grid show|solve|hint`: 4x4 Highway positions, best paths and perfect play.

A POSITION is 16 entries row by row from a1 (top-left), '.' for empty, rows optionally separated by
'/': "7 . 3 . / . . . . / . 12 . . / . . . 16" (docs/rules/highway-grid.md). A match log file may be
given instead: its final position is used.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from engine.core import EngineError
from engine.grid import GridState, cell_name, format_position, parse_position
from engine.grid.solver import describe, solve
from engine.grid.state import PLAYER_NAMES
from referee_app.cli import CliError, CommandTree, positive_number
from referee_app.commands.input_files import missing_file
from referee_app.naming import namer


def load_position(words: list[str]) -> GridState:
    """A position from the command line words, or the final position of a log file."""
    return load_named_position(words)[0]


def load_named_position(words: list[str]) -> tuple[GridState, list[str]]:
    """`load_position` and the players' names: a log's players, else Player 1 and Player 2."""
    text = " ".join(words)
    path = Path(text)
    if len(words) == 1 and path.is_file():
        try:
            head = path.read_text(encoding="utf-8", errors="replace").lstrip()[:1]
        except OSError as exc:
            raise CliError(f"cannot read {path}: {exc.strerror}", 2) from None
        if head == "{":
            from referee_app.commands.log import load_report  # the match-log reader's imports: only for a log

            report = load_report(text)
            if not isinstance(report.final_state, GridState):
                raise CliError(f"{path} is a {report.header.game} match, not highway-grid", 2)
            return report.final_state, list(report.header.players)
        text = path.read_text(encoding="utf-8", errors="replace")
    try:
        return parse_position(text), list(PLAYER_NAMES)
    except EngineError as exc:
        if len(words) == 1 and (missing := missing_file(text)) is not None:
            raise missing from None  # a file name, not a mistyped position
        raise CliError(f"position: {exc}", 2) from None


def describe_state(state: GridState) -> dict[str, Any]:
    p1, p2 = state.best_paths()
    outcome = state.outcome()
    return {
        "position": format_position(state),
        "placed": state.placed,
        "to_move": None if state.is_terminal() else state.current_player(),
        "reserve": state.reserve(),
        "best_paths": [p1.to_json(), p2.to_json()],
        "outcome": outcome.to_json() if outcome else None,
    }


def board_text(state: GridState) -> str:
    lines = ["     a   b   c   d"]
    for r in range(4):
        cells = " ".join(f"{state.board[r * 4 + c] or '.':>3}" for c in range(4))
        lines.append(f"{r + 1}  {cells}")
    return "\n".join(lines)


def _position_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("position", nargs="+", metavar="POSITION|LOGFILE",
                   help="16 entries row by row, '.' for empty (quote it), or a match log file")


def _setup_show(p: argparse.ArgumentParser) -> None:
    _position_arg(p)
    p.add_argument("--svg", metavar="FILE", help="also draw the board and best paths as SVG")
    p.add_argument("--png", metavar="FILE", help="also draw the board and best paths as PNG")
    p.add_argument("--json", action="store_true")


def _run_show(args: argparse.Namespace) -> int:
    state, players = load_named_position(args.position)
    say = _printer(players)
    source = Path(" ".join(args.position)).resolve()
    for name in (args.svg, args.png):
        if name and Path(name).resolve() == source:
            raise CliError(f"{name} is the input file; choose another output file", 2)
    info = describe_state(state)
    if args.json:
        print(json.dumps(info, indent=2))
    else:
        say(board_text(state))
        for seat, pv in enumerate(state.best_paths()):
            so_far = "" if state.is_terminal() else " so far (empty cells count 0)"
            say(f"{PLAYER_NAMES[seat]} best path: {pv.value}{so_far}, {len(pv.paths)} path(s):")
            for path in pv.paths:
                say("    " + " ".join(f"{cell_name(c)}={state.board[c] or '.'}" for c in path))
        outcome = state.outcome()
        if outcome:
            say(f"result: {outcome.reason}")
        else:
            say(f"to move: {PLAYER_NAMES[state.current_player()]}, reserve: "
                + " ".join(map(str, state.reserve())))
    from referee_app.render.grid import grid_png, grid_svg

    for name, data in ((args.svg, lambda: grid_svg(state).encode()), (args.png, lambda: grid_png(state))):
        if not name:
            continue
        try:
            Path(name).write_bytes(data())
        except OSError as exc:
            raise CliError(f"cannot write {name}: {exc.strerror}", 2) from None
    return 0


def _setup_search(default_time: float) -> Any:
    def setup(p: argparse.ArgumentParser) -> None:
        _position_arg(p)
        p.add_argument("--time", type=positive_number, default=default_time, metavar="S",
                       help=f"time budget in seconds (default {default_time:g}); past it the deepest "
                       "finished search is used (a heuristic estimate)")
        p.add_argument("--json", action="store_true")
        if default_time >= 10:
            p.add_argument("--outcome", action="store_true",
                           help="settle only who wins (win/draw/loss search: much faster than the margin)")
    return setup


def _solve(args: argparse.Namespace) -> tuple[GridState, Any, Any]:
    state, players = load_named_position(args.position)
    if args.time <= 0:
        raise CliError(f"--time must be positive, got {args.time}", 2)
    if state.is_terminal():
        raise CliError("the board is full: nothing to solve (use `grid show` for the result)", 2)
    result = solve(state, time_limit=args.time, outcome=getattr(args, "outcome", False))
    if not result.exact:
        _compile_note(state, args.time)
    return state, result, _printer(players)


def _compile_note(state: GridState, budget: float) -> None:
    """On stderr: where the compiled search would have solved this position but is not built on
    this machine (a first compile takes about a minute, more than the budget), how to build it."""
    from engine.grid.exact import JIT_FROM

    if len(state.empty_cells()) < JIT_FROM:
        return
    from engine.grid import jitsearch
    from engine.grid.solver import JIT_MIN_BUDGET

    if jitsearch.available() and budget < JIT_MIN_BUDGET and not jitsearch.cached():
        print("highway-referee: note: the compiled 4x4 search is not built on this machine yet, so "
              "this answer comes from the slower pure-Python search; build it once with "
              "`highway-referee grid compile` (about a minute)", file=sys.stderr)


def _run_compile(args: argparse.Namespace) -> int:
    from engine.grid import jitsearch

    if not jitsearch.available():
        raise CliError("numba is not installed: pip install 'highway-referee[fast]'", 1)
    was = jitsearch.cached()
    start = time.process_time()
    jitsearch.compile_all()
    took = time.process_time() - start
    if not jitsearch.cached():
        raise CliError("numba compiled the search but could not cache it (no writable cache "
                       "directory: set NUMBA_CACHE_DIR)", 1)
    print(f"compiled 4x4 search: {'already cached, loaded' if was else 'compiled and cached'} "
          f"in {took:.1f} CPU s ({jitsearch.CACHE_DIR or 'numba cache beside the module'})")
    return 0


def _run_solve(args: argparse.Namespace) -> int:
    state, result, say = _solve(args)
    if args.json:
        print(json.dumps({"position": format_position(state), **result.to_json()}, indent=2))
        return 0
    kind = "exact" if result.exact else f"heuristic, {result.depth} plies deep"
    say(board_text(state))
    say(f"to move: {PLAYER_NAMES[state.current_player()]}")
    if result.outcome_only and result.exact:
        say(f"outcome: {result.to_json()['outcome']} with best play (exact; the margin was not searched)")
    else:
        say(f"value: {result.value:g} = {describe(result.value)} ({kind}; value = Player 2's best path "
            "minus Player 1's with best play)")
    say(f"best move: {result.best.notation()}")
    if len(result.principal) > 1:
        say("best play: " + " ".join(m.notation() for m in result.principal))
    if result.book and result.exact:
        say("answered from the opening book (engine/grid/book.json), no search")
    else:
        say(f"searched {result.nodes} nodes in {result.seconds:.2f} s"
            + (" (the move from the opening book)" if result.book else ""))
    return 0


def _run_hint(args: argparse.Namespace) -> int:
    state, result, say = _solve(args)
    if args.json:
        print(json.dumps({"best": result.best.notation(), "value": result.value, "exact": result.exact}))
        return 0
    kind = "exact" if result.exact else "estimate"
    say(f"{PLAYER_NAMES[state.current_player()]}: play {result.best.notation()} "
        f"({describe(result.value)}, {kind})")
    return 0


def _printer(players: list[str]) -> Any:
    """print, with Player 1 and Player 2 written as the match's players (a log's names)."""
    named = namer("highway-grid", players)
    return lambda line: print(named(line))


def register(cli: CommandTree) -> None:
    cli.group(("grid",), help="Highway 4x4 positions: best paths, solver, hints")
    cli.add(("grid", "show"), _setup_show, _run_show,
            help="print a position (or a log's final position) with both players' best paths")
    cli.add(("grid", "solve"), _setup_search(10.0), _run_solve,
            help="exact value and best play from a position")
    cli.add(("grid", "hint"), _setup_search(2.0), _run_hint, help="the best move for the player to move")
    cli.add(("grid", "compile"), None, _run_compile,
            help="build the compiled exact search once on this machine (numba, about a minute); "
            "`grid solve` and `grid hint` use it from then on")
