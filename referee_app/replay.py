"""Re-judge a match log through the engine, record by record, for any registered game.

Each action record is judged again on the state the engine reaches from the header; the engine's
verdict (not the recorded one) decides how the state moves on, so one disagreement does not hide
the next. A correction withdraws its target, which must be the latest action still in force: the
state goes back to what it was before that action. A replacement is an ordinary later action
record carrying `"corrects": target`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import engine
from engine.core import EngineError, GameState, Outcome, Verdict
from referee_app.matchlog import Header, LogProblem, MatchLogContents, MatchLogError, read_log
from referee_app.naming import namer


class ReplayError(Exception):
    """The log cannot be replayed at all (unreadable header, newer format, unknown game, bad start)."""


@dataclass
class RecordCheck:
    """The engine's second opinion on one action record."""

    seq: int
    line: int | None
    notation: str
    player: int | None  # seat to move when the action was judged
    recorded: dict[str, Any] | None  # the verdict written in the log
    engine: dict[str, Any] | None  # the verdict the engine gives now (None: action unreadable)
    agrees: bool
    withdrawn: bool = False  # a later correction withdrew it
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "line": self.line, "notation": self.notation, "player": self.player,
                "recorded": self.recorded, "engine": self.engine, "agrees": self.agrees,
                "withdrawn": self.withdrawn, "note": self.note}


@dataclass
class ReplayReport:
    path: Path
    header: Header
    checks: list[RecordCheck]
    problems: list[LogProblem]  # unreadable lines and records that break the log's own rules
    final_state: GameState
    outcome: Outcome | None
    recorded_outcome: dict[str, Any] | None = None
    outcome_agrees: bool = True
    corrections: int = 0
    # Actions still in force at the end, each with the state before it (what an undo returns to).
    in_force: list[tuple[RecordCheck, GameState]] = field(default_factory=list)

    @property
    def disagreements(self) -> list[RecordCheck]:
        return [c for c in self.checks if not c.agrees]

    @property
    def damage(self) -> list[LogProblem]:
        """Problems other than lines torn by a crash (those were never acknowledged: nothing lost)."""
        return [p for p in self.problems if not p.torn]

    @property
    def ok(self) -> bool:
        """Every verdict reproduces, the recorded outcome too, and every line was readable except
        lines torn by a crash (listed, but no record that was acknowledged is missing)."""
        return not self.disagreements and not self.damage and self.outcome_agrees

    def to_json(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "match_id": self.header.match_id,
            "game": self.header.game,
            "players": self.header.players,
            "ok": self.ok,
            "actions": len(self.checks),
            "corrections": self.corrections,
            "disagreements": [c.to_json() for c in self.disagreements],
            "problems": [{"line": p.line, "message": p.message, "torn": p.torn} for p in self.problems],
            "checks": [c.to_json() for c in self.checks],
            "final_state": self.final_state.to_json(),
            "outcome": self.outcome.to_json() if self.outcome else None,
            "recorded_outcome": self.recorded_outcome,
            "outcome_agrees": self.outcome_agrees,
        }


def initial_state(header: Header) -> GameState:
    """The state a log starts from: its set-up position, or the game's start with its variant."""
    try:
        game = engine.get_game(header.game)
        if header.initial_state is not None:
            return game.state_from_json(header.initial_state)
        return game.new_state(players=len(header.players), **header.variant)
    except (EngineError, TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
        # a damaged set-up position or variant: whatever the game's JSON reader raises
        raise ReplayError(f"cannot start the match: {exc}") from exc


def _outcomes_agree(recorded: dict[str, Any] | None, outcome: Outcome | None) -> bool:
    if recorded is None:
        return True  # an end record without an outcome (an abandoned match) claims nothing
    if outcome is None:
        return False
    return (sorted(recorded.get("winners") or []) == sorted(outcome.winners)
            and bool(recorded.get("draw")) == outcome.draw)


def replay(log: Path | str | MatchLogContents) -> ReplayReport:
    """Replay a log file (or already-read contents). Raises ReplayError when nothing can be replayed."""
    if isinstance(log, MatchLogContents):
        contents = log
    else:
        try:
            contents = read_log(log)
        except MatchLogError as exc:
            raise ReplayError(str(exc)) from exc
    header = contents.header
    try:
        game = engine.get_game(header.game)
    except EngineError as exc:
        raise ReplayError(f"{contents.path}: {exc}") from exc
    state = initial_state(header)
    problems = list(contents.problems)
    checks: list[RecordCheck] = []
    in_force: list[tuple[int, GameState, RecordCheck]] = []  # (seq, state before, its check)
    withdrawn: set[int] = set()
    recorded_outcome: dict[str, Any] | None = None
    ended = False
    corrections = 0
    for index, rec in enumerate(contents.records):
        line = contents.line_of(index)
        kind = rec["type"]
        if kind == "action":
            corrects = rec.get("corrects")
            if corrects is not None and corrects not in withdrawn:
                problems.append(LogProblem(line or 0, f"action seq {rec['seq']} says it replaces seq "
                                                      f"{corrects}, which no earlier correction withdrew"))
            check, state = _replay_action(game, state, rec, line, in_force)
            checks.append(check)
        elif kind == "correction":
            corrections += 1
            target = rec["target"]
            if in_force and in_force[-1][0] == target:
                _, state, check = in_force.pop()
                check.withdrawn = True
                withdrawn.add(target)
            else:
                latest = in_force[-1][0] if in_force else None
                problems.append(LogProblem(
                    line or 0,
                    f"correction seq {rec['seq']} withdraws seq {target}, which is not the latest action "
                    f"still in force (that is {'seq ' + str(latest) if latest else 'none'}); ignored",
                ))
        elif kind == "end":
            ended = True
            recorded_outcome = rec.get("outcome")
    outcome = state.outcome()
    outcome_agrees = _outcomes_agree(recorded_outcome, outcome) if ended else True
    problems.sort(key=lambda p: p.line)
    return ReplayReport(contents.path, header, checks, problems, state, outcome, recorded_outcome,
                        outcome_agrees, corrections, [(c, s) for _, s, c in in_force])


def _replay_action(game: engine.Game, state: GameState, rec: dict[str, Any], line: int | None,
                   in_force: list[tuple[int, GameState, RecordCheck]],
                   ) -> tuple[RecordCheck, GameState]:
    seq = rec["seq"]
    notation = str(rec.get("notation", ""))
    recorded = rec.get("verdict") if isinstance(rec.get("verdict"), dict) else None
    mover = state.current_player()
    note = ""
    try:
        action = game.action_from_json(rec["action"])
        notation = notation or action.notation()
        verdict = state.judge(action)
    except (EngineError, TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
        # a damaged action record (a field renamed or of the wrong type by a bad byte)
        check = RecordCheck(seq, line, notation, mover, recorded, None, False,
                            note=f"the engine cannot read this action: {exc}")
        return check, state
    try:
        recorded_verdict = Verdict.from_json(recorded) if recorded is not None else None
    except (EngineError, TypeError, ValueError, KeyError, AttributeError):
        recorded_verdict = None
    agrees = recorded_verdict is not None and verdict.same_ruling(recorded_verdict)
    if recorded_verdict is None:
        note = (note + "; " if note else "") + "the record has no readable verdict"
    check = RecordCheck(seq, line, notation, mover, recorded, verdict.to_json(), agrees, note=note)
    try:
        new_state = state.apply(action, verdict)
    except (EngineError, NotImplementedError, TypeError, ValueError, KeyError, IndexError) as exc:
        check.agrees = False
        check.note = (check.note + "; " if check.note else "") + f"the engine cannot apply it: {exc}"
        return check, state
    in_force.append((seq, state, check))
    return check, new_state


def format_report(report: ReplayReport) -> str:
    """The human-readable replay summary the CLI prints."""
    h = report.header
    named = namer(h.game, h.players, report.final_state)  # the players by name, as the page does
    out = [f"{report.path}: {h.game}, match {h.match_id}, players {', '.join(h.players)}, "
           f"started {h.started}",
           f"{len(report.checks)} action records, {report.corrections} corrections, "
           f"{len(report.disagreements)} disagreements, {len(report.problems)} log problems"]
    for c in report.disagreements:
        where = f"line {c.line}" if c.line else f"seq {c.seq}"
        rec = c.recorded or {}
        eng = c.engine or {}
        if c.engine is None:
            out.append(f"  {where} (seq {c.seq}) {c.notation}: {c.note}")
            continue
        out.append(f"  {where} (seq {c.seq}) {c.notation}: log says "
                   f"{'legal' if rec.get('legal') else 'illegal'} {rec.get('rule', '?')}/"
                   f"{rec.get('consequence', '?')}, engine says {'legal' if eng.get('legal') else 'illegal'} "
                   f"{eng.get('rule')}/{eng.get('consequence')}: {named(eng.get('reason', ''))}"
                   + (f" ({c.note})" if c.note else ""))
    for p in report.problems:
        out.append(f"  {report.path}, {p}")
    if not report.outcome_agrees:
        out.append(f"  the end record's outcome {report.recorded_outcome} differs from the engine's "
                   f"{report.outcome.to_json() if report.outcome else None}")
    if report.outcome is not None:
        out.append(f"outcome: {named(report.outcome.reason)}")
    else:
        out.append("outcome: the game is not over")
    torn = [p for p in report.problems if p.torn]
    if report.ok and torn:
        lines = ", ".join(str(p.line) for p in torn)
        out.append(f"verdicts reproduce: yes (every intact record; line{'s' if len(torn) > 1 else ''} "
                   f"{lines} cut by a crash held nothing that was acknowledged)")
    else:
        out.append("verdicts reproduce: yes" if report.ok else "verdicts reproduce: NO")
    return "\n".join(out)
