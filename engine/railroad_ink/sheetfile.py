"""The neutral sheet format (docs/formats/railroad-ink-sheet.md): read and write (checking a file's
placement sequence against the rules is in `sheetcheck`, which plays it through the state).

Version 1 is the shared case format (placements with resolved sides). The project's extensions are
optional: `round` per placement, `rounds` (each round's roll and meteor choice), `expansions`,
`craters`. A sheet written here reads back identically.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from engine import jsontext
from engine.core import EngineError
from engine.railroad_ink.board import CELLS, MIDDLE, Sheet, Square, cell_name, check_square
from engine.railroad_ink.tiles import SPECIALS, check_expansions

FORMAT = "railroad-ink-sheet"


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
        data = jsontext.load_file(p)
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
    if not craters:  # the usual case: fill the squares once instead of copying the sheet per placement
        cells: list[Square | None] = [None] * CELLS
        order: list[int] = []
        specials = []
        for _, cell, sq in events:
            if cells[cell] is not None:
                order.remove(cell)
            cells[cell] = sq
            order.append(cell)
            if sq.special:
                specials.append(sq.piece)
        return Sheet(tuple(cells), tuple(order), specials=tuple(specials))
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
