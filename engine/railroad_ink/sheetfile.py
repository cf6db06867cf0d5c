"""The neutral sheet format (docs/formats/railroad-ink-sheet.md): read, write and check.

Version 1 is the shared case format (placements with resolved sides). The project's extensions are
optional: `round` per placement, `rounds` (each round's roll and meteor choice), `expansions`,
`craters`. A sheet written here reads back identically.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from engine.core import EngineError
from engine.railroad_ink.board import MIDDLE, Sheet, Square, cell_name, check_square
from engine.railroad_ink.state import Done, Meteor, Place, Progress, RailroadInkState, Roll, check_expansions
from engine.railroad_ink.tiles import SPECIALS

FORMAT = "railroad-ink-sheet"
# Rules whose breach means the file cannot be the record of a game (exit 2), not a misplayed route.
INPUT_RULES = frozenset({"rri.roll.not-rolled", "rri.roll.die-used", "rri.special.once",
                         "rri.special.per-round",
                         "rri.special.per-game"})


@dataclass(frozen=True)
class Entry:
    index: int  # position in `placements`
    cell: int
    square: Square
    has_round: bool


@dataclass(frozen=True)
class SheetFile:
    sheet: Sheet
    expansions: tuple[str, ...] = ()
    entries: tuple[Entry, ...] = ()
    craters: tuple[tuple[int, int | None], ...] = ()  # (cell, round)
    rounds: dict[int, dict[str, Any]] = field(default_factory=dict)  # round -> {"roll": [...], "meteor": {}}
    meta: dict[str, Any] = field(default_factory=dict)


def load_sheet(path: str | Path) -> SheetFile:
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise EngineError(f"{p}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise EngineError(f"{p}: cannot read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise EngineError(f"{p}: not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    try:
        return sheet_from_json(data)
    except EngineError as exc:
        raise EngineError(f"{p}: {exc}") from None


def _int(value: object, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise EngineError(f"{what} must be an integer, got {value!r}")
    return value


def sheet_from_json(data: object) -> SheetFile:
    if not isinstance(data, dict):
        raise EngineError("a sheet file is a JSON object with a 'placements' list (rule rri.format)")
    placements = data.get("placements")
    if not isinstance(placements, list):
        raise EngineError("a sheet file needs a 'placements' list (rule rri.format)")
    expansions = check_expansions(data.get("expansions", []))
    entries = []
    for i, p in enumerate(placements):
        what = f"placements[{i}]"
        if not isinstance(p, dict):
            raise EngineError(f"{what} must be an object with row, col and sides (rule rri.format)")
        if "row" not in p or "col" not in p or "sides" not in p:
            raise EngineError(f"{what} needs row, col and sides (rule rri.format)")
        cell = check_square(p["row"], p["col"], what)
        where = f"{what} {cell_name(cell)} (row {p['row']}, col {p['col']})"
        overpass = p.get("overpass")
        if overpass is not None and not isinstance(overpass, bool):
            raise EngineError(f"{where}: overpass must be true or false (rule rri.format)")
        piece = p.get("piece")
        if piece is not None and not isinstance(piece, str):
            raise EngineError(f"{where}: piece must be a name (rule rri.format)")
        rnd = p.get("round")
        if rnd is not None:
            rnd = _int(rnd, f"{where}: round")
            if rnd < 0:
                raise EngineError(f"{where}: round must be 0 or more (rule rri.format)")
        sq = Square.make(p["sides"], piece, overpass, rnd or 0, where)
        if "special" in p and bool(p["special"]) != sq.special:
            raise EngineError(f"{where}: special is {p['special']!r} but {sq.piece} "
                              f"{'is' if sq.special else 'is not'} a special (rule rri.face)")
        entries.append(Entry(i, cell, sq, rnd is not None))
    craters = []
    for i, c in enumerate(data.get("craters", []) or []):
        if not isinstance(c, dict) or "row" not in c or "col" not in c:
            raise EngineError(f"craters[{i}] must be an object with row and col (rule rri.format)")
        rnd = c.get("round")
        craters.append((check_square(c["row"], c["col"], f"craters[{i}]"),
                        None if rnd is None else _int(rnd, f"craters[{i}].round")))
    rounds: dict[int, dict[str, Any]] = {}
    raw_rounds = data.get("rounds", []) or []
    if not isinstance(raw_rounds, list):
        raise EngineError("'rounds' must be a list of {round, roll, meteor} objects (rule rri.format)")
    for i, r in enumerate(raw_rounds):
        if not isinstance(r, dict) or "round" not in r:
            raise EngineError(f"rounds[{i}] must be an object with a round number (rule rri.format)")
        n = _int(r["round"], f"rounds[{i}].round")
        roll = r.get("roll")
        if roll is not None and (not isinstance(roll, list) or not all(isinstance(f, str) for f in roll)):
            raise EngineError(f"rounds[{i}].roll must be a list of face names (rule rri.format)")
        rounds[n] = {"roll": roll, "meteor": r.get("meteor")}
    meta = {k: data[k] for k in ("id", "title", "player") if k in data}
    sheet = build_sheet(entries, craters)
    crossed = data.get("specials_crossed_off")
    if crossed is not None:  # every special crossed off, in order (a meteor may cost one too)
        if not isinstance(crossed, list) or any(s not in SPECIALS for s in crossed):
            raise EngineError(f"specials_crossed_off must list special names, got {crossed!r} (rule "
                              f"rri.format)")
        sheet = replace(sheet, specials=tuple(crossed))
    impact = data.get("impact")
    if impact is not None:
        if not isinstance(impact, dict):
            raise EngineError("impact must be an object with row and col (rule rri.format)")
        sheet = replace(sheet, impact=check_square(impact.get("row"), impact.get("col"), "impact"))
    return SheetFile(sheet, expansions, tuple(entries), tuple(craters), rounds, meta)


def build_sheet(entries: list[Entry] | tuple[Entry, ...], craters: list | tuple = ()) -> Sheet:
    """Replay placements and craters in time order (craters land at the start of their round)."""
    events: list[tuple[tuple[int, int, int], int, Square | None]] = []
    for e in entries:
        events.append(((e.square.round if e.has_round else 0, 1, e.index), e.cell, e.square))
    for i, (cell, rnd) in enumerate(craters):
        events.append(((rnd if rnd is not None else 10**6, 0, i), cell, None))
    events.sort(key=lambda ev: ev[0])
    sheet = Sheet()
    for _, cell, sq in events:
        if sq is None:
            sheet = replace(sheet.erase(cell), craters=sheet.craters | {cell}, impact=cell)
        else:
            sheet = sheet.put(cell, sq)
    return sheet


def sheet_to_json(sheet: Sheet, expansions: tuple[str, ...] = (), rounds: dict[int, dict[str,
                                                                                         Any]] | None = None,
                  **meta: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"format": FORMAT, "version": 2, **meta}
    if expansions:
        out["expansions"] = list(expansions)
    if rounds:
        out["rounds"] = [{"round": n, **{k: v for k, v in r.items() if v is not None}}
                         for n, r in sorted(rounds.items())]
    out["placements"] = [
        {"row": c // 7, "col": c % 7, "sides": sq.sides, "overpass": sq.overpass, "piece": sq.piece,
         "special": sq.special, "round": sq.round}
        for c, sq in sheet.placed()
    ]
    if sheet.craters:
        out["craters"] = [{"row": c // 7, "col": c % 7} for c in sorted(sheet.craters)]
    if sheet.impact != MIDDLE or sheet.craters:
        out["impact"] = {"row": sheet.impact // 7, "col": sheet.impact % 7}
    if sheet.specials != tuple(sq.piece for _, sq in sheet.placed() if sq.special):
        out["specials_crossed_off"] = list(sheet.specials)
    return out


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

