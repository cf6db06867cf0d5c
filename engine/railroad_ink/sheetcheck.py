"""Checking a sheet file's placement sequence (docs/formats/railroad-ink-sheet.md): the placements are
played through `RailroadInkState` in their recorded order, and the first one the rules refuse is named.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from engine.core import EngineError
from engine.railroad_ink.board import MIDDLE, cell_name
from engine.railroad_ink.sheetfile import Entry, SheetFile
from engine.railroad_ink.state import Done, Meteor, Place, Progress, RailroadInkState, Roll
from engine.railroad_ink.tiles import SPECIALS

# Rules whose breach means the file cannot be the record of a game (exit 2), not a misplayed route.
INPUT_RULES = frozenset({"rri.roll.not-rolled", "rri.roll.die-used", "rri.special.once",
                         "rri.special.per-round",
                         "rri.special.per-game"})


# -- checking a placement sequence ------------------------------------------------------------------
@dataclass(frozen=True)
class CheckResult:
    code: int  # 0 legal, 1 an illegal placement, 2 the file cannot be a game record
    rule: str | None = None
    message: str = ""
    index: int | None = None  # placements[index] that failed
    square: str | None = None
    checked: int = 0
    mode: str = "free"

    def to_json(self) -> dict[str, Any]:
        return {"legal": self.code == 0, "code": self.code, "rule": self.rule, "message": self.message,
                "placement": self.index, "square": self.square, "checked": self.checked, "mode": self.mode}


def check_sheet(sf: SheetFile) -> CheckResult:
    """Judge every placement in order. With recorded rolls ('rounds'), the dice, the meteor and the
    "if possible" rule are checked too; without, only the sheet rules and the specials."""
    recorded = bool(sf.rounds) and all(r.get("roll") for r in sf.rounds.values())
    state = RailroadInkState.new(1, sf.expansions, free_dice=not recorded)
    mode = "recorded rolls" if recorded else "free"
    checked = 0

    def fail(verdict, entry: Entry | None) -> CheckResult:
        code = 2 if verdict.rule in INPUT_RULES else 1
        square = cell_name(entry.cell) if entry else None
        if entry is None:
            at = f"round {state.round}: "
        else:
            rnd = f", round {entry.square.round}" if entry.has_round else ""
            at = f"placements[{entry.index}] {square} ({entry.square.piece}{rnd}): "
        return CheckResult(code, verdict.rule, at + verdict.reason + f" (rule {verdict.rule})",
                           entry.index if entry else None, square, checked, mode)

    entries = list(sf.entries)
    if "lava" in sf.expansions:  # the starting volcano may be listed; the engine draws it already
        entries = [e for e in entries if not (e.cell == MIDDLE and e.square.piece == "volcano" and
                                              e.square.round == 0)]
    if not recorded:
        last_round = None
        pending = sorted((rnd, cell) for cell, rnd in sf.craters if rnd is not None)
        for e in entries:
            while pending and e.has_round and pending[0][0] <= e.square.round:
                _, cell = pending.pop(0)  # a crater lands at the start of its round
                sheet = state.sheets[0]
                sheet = replace(sheet.erase(cell), craters=sheet.craters | {cell}, impact=cell)
                state = replace(state, sheets=(sheet,))
            if not e.has_round or e.square.round != last_round:
                # a new round (or no round data: the per-round limit cannot be judged)
                state = replace(state, round=e.square.round if e.has_round else state.round,
                                progress=(Progress(),))
                last_round = e.square.round if e.has_round else None
            try:
                action = Place(0, e.square.piece, e.cell // 7, e.cell % 7, e.square.sides)
            except EngineError as exc:
                return CheckResult(2, "rri.face", f"placements[{e.index}]: {exc}", e.index, cell_name(e.cell),
                                   checked, mode)
            current = state.sheets[0].cells[e.cell]
            if e.square.piece == "lake_full" and current is not None and current.piece == "lake_full":
                continue  # the forced fill the engine already made
            verdict = state.judge(action)
            if not verdict.legal:
                return fail(verdict, e)
            state = state.apply(action, verdict)
            checked += 1
        return CheckResult(0, None, f"{checked} placements legal ({mode} mode: no recorded rolls)", None,
                           None,
                           checked, mode)

    last = max(sf.rounds)
    if any(e.has_round is False for e in entries):
        bad = next(e for e in entries if not e.has_round)
        raise EngineError(f"placements[{bad.index}] {cell_name(bad.cell)} has no round number, but the file "
                          "records rolls: every placement needs its round (rule rri.format)")
    for rnd in range(1, last + 1):
        if state.is_terminal():  # rounds recorded after the last round of the game
            late = next((e for e in entries if e.square.round >= rnd), None)
            if late is not None:
                action = Place(0, late.square.piece, late.cell // 7, late.cell % 7, late.square.sides)
                return fail(state.judge(action), late)
            break
        info = sf.rounds.get(rnd)
        if info is None:
            raise EngineError(f"rounds: round {rnd} is missing (rounds must run 1..{last}) (rule rri.format)")
        try:
            state = state.apply(Roll(tuple(info["roll"])))
        except EngineError as exc:
            raise EngineError(f"rounds[round {rnd}].roll: {exc}") from None
        if "meteor" in sf.expansions:
            m = info.get("meteor") or {}
            if not isinstance(m, dict):
                raise EngineError(f"rounds[round {rnd}].meteor must be an object (rule rri.format)")
            verdict = state.judge(Meteor(0, m.get("direction"), m.get("ignore_with")))
            if not verdict.legal:
                return fail(verdict, None)
            state = state.apply(Meteor(0, m.get("direction"), m.get("ignore_with")), verdict)
        for e in (e for e in entries if e.square.round == rnd):
            current = state.sheets[0].cells[e.cell]
            if e.square.piece == "lake_full" and current is not None and current.piece == "lake_full":
                continue  # the forced fill the engine already made
            action = Place(0, e.square.piece, e.cell // 7, e.cell % 7, e.square.sides)
            verdict = state.judge(action)
            if not verdict.legal:
                return fail(verdict, e)
            state = state.apply(action, verdict)
            checked += 1
        verdict = state.judge(Done(0))
        if not verdict.legal:
            return fail(verdict, None)
        state = state.apply(Done(0), verdict)
    stray = [e for e in entries if e.square.round > last or e.square.round < 1]
    if stray:
        e = stray[0]
        raise EngineError(f"placements[{e.index}] {cell_name(e.cell)} is in round {e.square.round}, "
                          f"which has no "
                          f"recorded roll (rounds 1..{last}) (rule rri.format)")
    return CheckResult(0, None, f"{checked} placements legal over {last} rounds ({mode})", None, None,
                       checked,
                       mode)


def specials_used(sf: SheetFile) -> list[str]:
    return [e.square.piece for e in sf.entries if e.square.piece in SPECIALS]

