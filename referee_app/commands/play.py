"""`highway-referee play GAME`: referee a match from typed moves, for any registered game.

Each move is judged by the engine; its verdict (with the rule id) is printed and written to a
durable match log (source=manual, confidence 1.0). Illegal moves are logged and flagged, never
dropped, and make the exit status 1. The word `undo` withdraws the latest move still in force
(a correction record); the next move is logged as its replacement.

Each typed move is read and judged on its own: a move that cannot be read (a typo) or that the
engine cannot judge (a player who is not in the match) is reported with the reason and skipped, the
rest are judged, and the exit status is 2. Players may be named by name in moves (`Ann done`) and
are printed by name (see referee_app/typed_moves.py).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import engine
from engine.core import Action, EngineError, GameState
from referee_app.cli import CliError, CommandTree, positive_number
from referee_app.matchlog import Header, MatchLogError, MatchLogWriter
from referee_app.naming import namer
from referee_app.replay import ReplayError, replay
from referee_app.store import MatchStore
from referee_app.typed_moves import MoveReader, TypedMove


def parse_variant(items: list[str]) -> dict[str, Any]:
    """`k=v` options: integers, true/false and plain strings."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise CliError(f"--variant {item!r}: write KEY=VALUE, e.g. --variant expansion=lava")
        v: Any = value.strip()
        if v.lower() in ("true", "false"):
            v = v.lower() == "true"
        elif v.lstrip("-").isdigit():
            v = int(v)
        out[key.strip()] = v
    return out


def get_game(name: str) -> engine.Game:
    try:
        return engine.get_game(name)
    except EngineError as exc:
        raise CliError(str(exc), 2) from None


def _setup(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", help="game name (see `highway-referee games`)")
    p.add_argument("--players", type=int,
                   help="number of players (default: as many as --names gives, else the game's minimum)")
    p.add_argument("--names", help="comma-separated player names (default Player 1, Player 2, ...)")
    p.add_argument("--variant", action="append", default=[], metavar="K=V",
                   help="a variant option (repeatable), e.g. --variant expansion=lava")
    p.add_argument("--moves", help="the moves in the game's notation, e.g. \"7@b2 3@a1\" or \"R 1 3 3>W07\" "
                   "(';' may separate them); without it, one move per line is read from stdin "
                   "('#' starts a comment). A player may be named by name: \"Ann done\"")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--log", metavar="FILE",
                       help="write the match log here; an existing log of the same game is continued")
    where.add_argument("--data", metavar="DIR",
                       help="data folder to keep the log in (default: $HIGHWAY_REFEREE_DATA, "
                       "else the user data dir)")
    p.add_argument("--computer", type=int, metavar="N",
                   help="highway-grid: the computer plays Player N (1 or 2) with the solver")
    p.add_argument("--think", type=positive_number, default=1.0, metavar="S",
                   help="seconds the computer may think per move (default 1; exact when it can solve)")
    p.add_argument("--json", action="store_true", help="print one JSON document instead of text")


class Unjudgeable(Exception):
    """A typed move the match cannot take (a seat not in the match, undo with nothing to undo...)."""


class _Session:
    """The match being played: state, the log writer and the actions still in force."""

    def __init__(self, args: argparse.Namespace, game: engine.Game) -> None:
        self.game = game
        self.store: MatchStore | None = None
        self.in_force: list[tuple[int, GameState]] = []
        self.pending_replacement: int | None = None
        self.played = 0  # records written in this session
        given = [n.strip() for n in args.names.split(",")] if args.names else []
        players = args.players or len(given) or game.min_players  # "Ann,Bo,Cy" is three players
        if not game.min_players <= players <= game.max_players:
            raise CliError(f"{game.name} takes {game.min_players}-{game.max_players} players, not {players}")
        names = given or [f"Player {i + 1}" for i in range(players)]
        if len(names) != players:
            raise CliError(f"--names gives {len(names)} names for {players} players")
        variant = parse_variant(args.variant)
        log_path = Path(args.log) if args.log else None
        if log_path is not None and log_path.exists():
            self._continue(log_path)
            return
        try:
            self.state = game.new_state(players=players, **variant)
        except (EngineError, TypeError) as exc:
            raise CliError(f"cannot start {game.name}: {exc}") from None
        self.names, self.variant = names, variant
        self._log_path = log_path
        self._data = args.data
        self._writer: MatchLogWriter | None = None

    def _continue(self, path: Path) -> None:
        try:
            report = replay(path)
        except ReplayError as exc:
            raise CliError(f"cannot continue {path}: {exc}", 2) from None
        if report.header.game != self.game.name:
            raise CliError(f"{path} is a {report.header.game} match, not {self.game.name}", 2)
        if report.damage:  # a line torn by a crash is no damage: the writer continues after it
            raise CliError(f"{path} has damaged lines ({report.damage[0]}); "
                           "replay it with `highway-referee log replay` before continuing", 2)
        self.state = report.final_state
        self.names, self.variant = report.header.players, report.header.variant
        self.in_force = [(c.seq, s) for c, s in report.in_force]
        self._log_path, self._data = path, None
        try:
            self._writer = MatchLogWriter.open(path)
        except MatchLogError as exc:
            raise CliError(str(exc), 2) from None

    @property
    def writer(self) -> MatchLogWriter:
        """The log is created at the first record, so a rejected command line writes nothing."""
        if self._writer is None:
            try:
                if self._log_path is not None:
                    header = Header(self.game.name, self.names, self.variant)
                    self._writer = MatchLogWriter.create(self._log_path, header)
                else:
                    self.store = MatchStore(self._data)
                    self._writer = self.store.create(self.game.name, self.names, self.variant)
            except MatchLogError as exc:
                raise CliError(str(exc), 2) from None
        return self._writer

    def play(self, action: Action, by: str = "") -> dict[str, Any]:
        mover = self.state.current_player()
        try:
            verdict = self.state.judge(action)
            new_state = self.state.apply(action, verdict)
        except (EngineError, NotImplementedError) as exc:
            raise Unjudgeable(f"cannot judge {action.notation()}: {exc}") from None
        extra: dict[str, Any] = {"player": mover} if mover >= 0 else {}
        if by:
            extra["by"] = by  # e.g. the computer player: still a manual (not camera) entry
        seq = self.writer.action(action.to_json(), action.notation(), verdict.to_json(), source="manual",
                                 confidence=1.0, corrects=self.pending_replacement, **extra)
        self.pending_replacement = None
        self.played += 1
        self.in_force.append((seq, self.state))
        self.state = new_state
        return {"seq": seq, "player": mover, "notation": action.notation(), "verdict": verdict.to_json()}

    def undo(self) -> dict[str, Any]:
        if not self.in_force:
            raise Unjudgeable("nothing to undo")
        target, before = self.in_force.pop()
        seq = self.writer.correction(target, source="manual", reason="undo typed by the user")
        self.state = before
        self.played += 1
        self.pending_replacement = target
        return {"seq": seq, "undo": target}

    def named(self, text: str) -> str:
        """`text` with the seats the engine names written as the players' names."""
        return namer(self.game.name, self.names, self.state)(text)

    def player_name(self, seat: int) -> str:
        return self.names[seat] if 0 <= seat < len(self.names) else "chance" if seat == engine.CHANCE else "-"

    def finish(self) -> None:
        if self._writer is None:
            return
        outcome = self.state.outcome()
        if outcome is not None and self.played:
            self.writer.end(outcome.to_json(), outcome.reason)
        self._writer.close()
        if self.store is not None:
            self.store.update(self._writer.header.match_id)


def _print_move(number: int, session: _Session, res: dict[str, Any], by: str = "") -> None:
    v = res["verdict"]
    flag = "legal  " if v["legal"] else "ILLEGAL"
    extra = "" if v["legal"] else f" [{v['consequence']}]"
    print(f"{number:>3}. {session.player_name(res['player']):<10} {res.get('display', res['notation']):<8} "
          f"{flag} {v['rule']:<22} {session.named(v['reason'])}{extra}{by}")


def _named_diagram(session: _Session, text: str) -> str:
    """The state's diagram with the players' names; the dice road's rows start with the seat's
    colour padded to a column ("*White  pool ..."), which stays a column with the names."""
    width = max(map(len, session.names), default=0)
    lines = []
    for line in text.split("\n"):
        row = re.match(r"([* ])(\w+) +pool ", line)
        if row and session.named(row.group(2)) != row.group(2):
            line = f"{row.group(1)}{session.named(row.group(2)):<{width}} pool {line[row.end():]}"
        lines.append(session.named(line))
    return "\n".join(lines)


def _typed(args: argparse.Namespace, reader: MoveReader) -> Iterator[tuple[str, TypedMove]]:
    """(where, move) for each typed move: --moves read as a list, stdin one move a line."""
    if args.moves is not None:
        for index, move in enumerate(reader.read_list(args.moves), start=1):
            yield f"--moves, move {index}", move
        return
    at_terminal = getattr(sys.stdin, "isatty", None)
    if at_terminal is not None and at_terminal():  # a person, not a pipe: say what the wait is for
        print(f"Type one move a line in {args.game}'s notation (docs/rules/{args.game}.md); players may "
              "be named by name. Each move is judged at once; Ctrl-D ends (Ctrl-C stops).",
              file=sys.stderr, flush=True)
    for number, line in enumerate(sys.stdin, start=1):
        text = line.split("#", 1)[0].strip()
        if text:
            yield f"stdin line {number}", reader.read_one(text)


def _outcome_text(session: _Session, outcome: Any) -> str:
    """The result with the players' names (the engines' reasons count seats)."""
    if outcome.draw and outcome.winners:
        who = " and ".join(session.player_name(w) for w in outcome.winners) + " share the win"
    elif outcome.draw:
        who = "a draw"
    else:
        who = " and ".join(session.player_name(w) for w in outcome.winners) + " wins"
    reason = session.named(outcome.reason)
    return reason if reason.lower().startswith(who.lower()) else f"{who} ({reason})"


def _computer(args: argparse.Namespace, game: engine.Game) -> int | None:
    """The seat the computer plays (--computer N is 1-based), only where a solver exists."""
    if args.computer is None:
        return None
    if game.name != "highway-grid":
        raise CliError(f"--computer: there is no computer player for {game.name} (only highway-grid)")
    if args.computer not in (1, 2):
        raise CliError(f"--computer must be 1 or 2 (the player the computer plays), not {args.computer}")
    if args.think <= 0:
        raise CliError(f"--think must be a positive number of seconds, not {args.think}")
    return args.computer - 1


def _run(args: argparse.Namespace) -> int:
    game = get_game(args.game)
    computer = _computer(args, game)
    session = _Session(args, game)
    results: list[dict[str, Any]] = []
    illegal = 0
    number = 0

    def computer_turns() -> None:
        nonlocal number
        from engine.grid.solver import solve

        while computer is not None and session.state.current_player() == computer:
            found = solve(session.state, time_limit=args.think)  # type: ignore[arg-type]
            res = session.play(found.best, by="computer")
            results.append(res)
            number += 1
            if not args.json:
                kind = "exact" if found.exact else "heuristic"
                _print_move(number, session, res, f"  (computer, {kind} value {found.value:g})")

    reader = MoveReader(game.name, game.parse_action, session.names)
    rejected = 0

    def reject(where: str, move: TypedMove, why: str) -> None:
        nonlocal rejected
        rejected += 1
        results.append({"where": where, "text": move.text, "error": why})
        if not args.json:
            print(f"{number:>3}. {'?':<10} {move.text:<8} SKIPPED {why}")

    try:
        computer_turns()
        for where, move in _typed(args, reader):
            number += 1
            if move.error:
                reject(where, move, move.error)
                continue
            try:
                if move.undo:
                    res = session.undo()
                    results.append(res)
                    if not args.json:
                        print(f"{number:>3}. undo: the move logged as seq {res['undo']} is withdrawn")
                    continue
                if session.state.is_terminal():
                    raise Unjudgeable("the game is already over")
                assert move.action is not None
                res = session.play(move.action)
            except Unjudgeable as exc:
                reject(where, move, str(exc))
                continue
            res["display"] = reader.display(res["notation"], session.names)
            results.append(res)
            illegal += not res["verdict"]["legal"]
            if not args.json:
                _print_move(number, session, res)
            computer_turns()
    finally:
        session.finish()
    outcome = session.state.outcome()
    path = session._writer.path if session._writer else None
    if args.json:
        print(json.dumps({"game": game.name, "log": str(path) if path else None,
                          "match_id": session._writer.header.match_id if session._writer else None,
                          "moves": results, "illegal": illegal, "skipped": rejected,
                          "players": session.names, "state": session.state.to_json(),
                          "outcome": outcome.to_json() if outcome else None}, indent=2))
    else:
        diagram = getattr(session.state, "diagram", None)
        if callable(diagram):
            print(_named_diagram(session, diagram()))
        print(f"outcome: {_outcome_text(session, outcome)}" if outcome else
              f"to move: {session.player_name(session.state.current_player())}")
        if path:
            print(f"log: {path}")
        if illegal:
            print(f"{illegal} illegal move(s): see the verdicts above", file=sys.stderr)
        for res in results:
            if "error" in res:
                print(f"skipped: {res['where']} ({res['text']!r}): {res['error']}", file=sys.stderr)
    return 2 if rejected else 1 if illegal else 0


def register(cli: CommandTree) -> None:
    cli.add(("play",), _setup, _run, help="referee a match from typed moves (any game), writing a match log")
