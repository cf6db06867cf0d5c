"""Placement rules on one sheet, pure functions (rule ids: docs/rules/railroad-ink.md).

`placement_problem` answers "may this shape go on this square now?" with the rule broken, or None.
The round bookkeeping (which dice are left, specials per round) lives in state.py.
"""

from __future__ import annotations

from engine.railroad_ink.board import CELLS, NEIGHBOURS, OPPOSITE, Sheet, cell_name

Problem = tuple[str, str]  # (rule id, reason)


def family(piece: str) -> str:
    """route (dice and specials), river, lake or lava: each family has its own joining rule."""
    if piece.startswith("river_"):
        return "river"
    if piece.startswith("lake_"):
        return "lake"
    if piece.startswith("lava_") or piece == "volcano":
        return "lava"
    return "route"


def has_lava(sheet: Sheet, cell: int) -> bool:
    sq = sheet.cells[cell]
    return sq is not None and "V" in sq.sides


def open_lava_squares(sheet: Sheet) -> set[int]:
    """Empty squares that an open lava side faces (where lava can grow)."""
    out = set()
    for c, sq in enumerate(sheet.cells):
        if sq is None or "V" not in sq.sides:
            continue
        for s in range(4):
            n = NEIGHBOURS[c][s]
            if sq.sides[s] == "V" and n >= 0 and sheet.cells[n] is None:
                out.add(n)
    return out


def lava_fronts(sheet: Sheet) -> set[int]:
    """Drawn squares without lava that a lava side faces: where lava may erase a route."""
    out = set()
    for c, sq in enumerate(sheet.cells):
        if sq is None or "V" not in sq.sides:
            continue
        for s in range(4):
            n = NEIGHBOURS[c][s]
            other = sheet.cells[n] if n >= 0 else None
            if sq.sides[s] == "V" and other is not None and "V" not in other.sides:
                out.add(n)
    return out


def placement_problem(sheet: Sheet, cell: int, sides: str, piece: str, erase_ok: bool = False
                      ) -> Problem | None:
    """Why `piece` drawn as `sides` may not go on `cell`, or None when it may."""
    where = cell_name(cell)
    fam = family(piece)
    if sheet.cells[cell] is not None and not erase_ok:
        return "rri.square.occupied", f"square {where} is already drawn ({sheet.cells[cell].piece}); " \
                                      "a drawn route is never erased"
    touches = False
    neigh = NEIGHBOURS[cell]
    for s in range(4):
        k = sides[s]
        n = neigh[s]
        if n < 0:
            ex = sheet.exit_at(cell, s)
            if ex is None or k == "-":
                continue
            if k == "W":
                return "rri.river.exit", f"the river on {where}'s {'NESW'[s]} side would run into an exit"
            if k in "HR":
                if k != ex:
                    return ("rri.connect.mismatch", f"{where}'s {'NESW'[s]} side is {_kind(k)} but faces a "
                            f"{_kind(ex)} exit: only a station joins highway and railway")
                touches = True
            continue
        nsq = sheet.cells[n]
        if nsq is None:
            continue
        f = nsq.sides[OPPOSITE[s]]
        if k == "-" or f == "-":
            continue
        if f != k:
            return ("rri.connect.mismatch", f"{where}'s {'NESW'[s]} side is {_kind(k)} but faces the "
                                            f"{_kind(f)} "
                    f"of {cell_name(n)}: only a station joins highway and railway")
        if k in "HR":
            touches = True
        elif k == "V":
            touches = touches or fam == "lava"
    if fam == "route" and not touches:
        return ("rri.connect.touch", f"{piece} on {where} touches neither an exit nor a drawn route of "
                                     f"the same "
                "kind")
    if piece == "volcano":
        if any(n >= 0 and has_lava(sheet, n) for n in neigh):
            return "rri.lava.volcano", f"a new volcano on {where} may not be next to lava"
    elif fam == "lava" and not touches:
        return "rri.lava.connect", f"{piece} on {where} must join existing lava with a lava side"
    return None


def _kind(k: str) -> str:
    return {"H": "highway", "R": "railway", "W": "river", "L": "lake", "V": "lava"}.get(k, "nothing")


def forced_water(sheet: Sheet) -> list[int]:
    """Empty squares bordered by open water on three or more sides (rule rri.lake.fill)."""
    out = []
    for c in range(CELLS):
        if sheet.cells[c] is not None or c in sheet.craters:
            continue
        wet = 0
        for s in range(4):
            n = NEIGHBOURS[c][s]
            if n >= 0 and sheet.cells[n] is not None and sheet.cells[n].sides[OPPOSITE[s]] == "L":
                wet += 1
        if wet >= 3:
            out.append(c)
    return out
