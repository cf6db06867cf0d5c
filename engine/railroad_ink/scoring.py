"""End-of-game scoring with a full breakdown (rules rri.score.*, docs/rules/railroad-ink.md).

One pass over the drawn squares collects the connections; networks are joined with a union-find
over tile parts (an overpass is two parts, a station one), so exits are counted per network.

`score_sheet` without a trace scores from the bit-packed sides (engine/railroad_ink/fastscore.py),
compiled with numba (engine/railroad_ink/jitscore.py) where the optional `fast` extra is installed.
Loading numba and the compiled scorer costs about as much CPU (0.4-0.9 s) as scoring some tens of
thousands of sheets in pure Python, so a process switches only after JIT_AFTER sheets (a one-shot
command never pays it); `compiled=True` switches at once (benchmarks, long jobs), `compiled=False` or the
environment variable HIGHWAY_REFEREE_PURE_SCORE=1 (PURE_ENV) keep the pure scorer. Both give the same
numbers on every sheet.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.core import EngineError
from engine.railroad_ink.board import CENTRE, NEIGHBOURS, OPPOSITE, STANDARD_EXITS, Sheet, cell_name
from engine.railroad_ink.fastscore import (
    centre_squares,
    errors_and_craters,
    exit_slots,
    kind_longest,
    longest_routes,
    network_exit_counts,
)
from engine.railroad_ink.longest import READINGS, longest_route

# exits on one network -> points (the published score table, printed on every sheet)
EXIT_POINTS = (0, 0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 45)
CLOSED_LAVA_LAKE_POINTS = 5
CRATER_END_POINTS = 2
RIVER_BOTH_EDGES_BONUS = 3
_STANDARD_EXIT_MAP = {(c, s): k for c, s, k in STANDARD_EXITS}
_STANDARD_SLOTS = exit_slots(STANDARD_EXITS)
_FAST_EXPANSIONS = frozenset({"meteor"})
JIT_AFTER = 10_000  # fast-path sheets a process scores in pure Python before loading the compiled scorer
PURE_ENV = "HIGHWAY_REFEREE_PURE_SCORE"


@dataclass(frozen=True)
class Score:
    exit_points: int
    network_exit_counts: tuple[int, ...]
    longest_highway: int
    longest_railway: int
    center_squares: int
    errors: int
    expansion_points: int
    total: int
    longest: str
    expansion: dict[str, int] = field(default_factory=dict)
    # for drawings, filled with trace=True only: networks (cells, exits), longest routes (cells in
    # order), open ends (cell, side)
    networks: tuple[tuple[tuple[int, ...], int], ...] = field(default=(), compare=False)
    highway_route: tuple[int, ...] = field(default=(), compare=False)
    railway_route: tuple[int, ...] = field(default=(), compare=False)
    error_sides: tuple[tuple[int, int], ...] = field(default=(), compare=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "exit_points": self.exit_points,
            "network_exit_counts": list(self.network_exit_counts),
            "longest_highway": self.longest_highway,
            "longest_railway": self.longest_railway,
            "center_squares": self.center_squares,
            "errors": self.errors,
            "expansion_points": self.expansion_points,
            "expansion": dict(self.expansion),
            "total": self.total,
            "longest": self.longest,
            "longest_highway_route": [cell_name(c) for c in self.highway_route],
            "longest_railway_route": [cell_name(c) for c in self.railway_route],
            "error_sides": [f"{cell_name(c)}{'NESW'[s]}" for c, s in self.error_sides],
        }


def score_sheet(sheet: Sheet, longest: str = "trail", expansions: tuple[str, ...] = (),
                trace: bool = False, compiled: bool | None = None) -> Score:
    """Score a sheet. `longest` picks the reading (trail: the seed's; path: distinct squares).
    Expansion points are added for the expansions named (their tiles are always read). Without a
    trace and without the river, lake or lava expansions the score comes from the bit-packed sides
    (engine/railroad_ink/fastscore.py; compiled, jitscore.py, per `compiled`: see the module's
    docstring); otherwise from `score_sheet_full`, which gives the same numbers plus the drawings'
    details."""
    if trace or longest not in READINGS or (expansions and not _FAST_EXPANSIONS.issuperset(expansions)):
        return score_sheet_full(sheet, longest, expansions, trace)
    p = sheet.packed
    craters = 0
    for c in sheet.craters:
        craters |= 1 << c
    kernel = _kernel if compiled is None else compiled_kernel() if compiled else None
    if kernel is None and compiled is None and _load["left"]:
        _load["left"] -= 1
        if not _load["left"]:
            kernel = compiled_kernel()
    if kernel is not None:
        ex = _STANDARD_MASKS if sheet.exits is STANDARD_EXITS else _exit_masks(sheet.exits)
        errors, crater_ends, code, lh, lr, centre = kernel(p, ex, craters, longest == "path")
        got = _COUNTS.get(code)
        if got is None:
            got = _decode(code, p, sheet.exits)
        counts, exit_points = got
        if lh < 0:  # a dense tangle of loops: the search over chains (rare)
            lh = kind_longest(p, 0, longest)
        if lr < 0:
            lr = kind_longest(p, 4, longest)
    else:
        errors, crater_ends = errors_and_craters(p, craters)
        counts, exit_points = _exit_points(p, sheet.exits)
        lh, lr = longest_routes(p, longest)
        centre = centre_squares(p)
    expansion = {"meteor": CRATER_END_POINTS * crater_ends} if expansions else {}
    extra = expansion.get("meteor", 0)
    score = object.__new__(Score)  # the frozen dataclass's __init__ costs more than the scoring
    total = exit_points + lh + lr + centre + extra - errors
    score.__dict__.update({"exit_points": exit_points, "network_exit_counts": counts, "longest_highway": lh,
                           "longest_railway": lr, "center_squares": centre, "errors": errors,
                           "expansion_points": extra, "total": total,
                           "longest": longest, "expansion": expansion, "networks": (), "highway_route": (),
                           "railway_route": (), "error_sides": ()})
    return score


# -- the compiled scorer (engine/railroad_ink/jitscore.py), loaded on demand ----------------------
_kernel: Callable[..., tuple[int, int, int, int, int, int]] | None = None
_load = {"left": JIT_AFTER, "tried": 0}  # auto-load countdown; whether a load was tried


def compiled_kernel() -> Callable[..., tuple[int, int, int, int, int, int]] | None:
    """The compiled scorer, loaded (compiled on a machine's first use) and warmed now; None where
    numba is missing (the pure scorer stays) or PURE_ENV is set. Tried once per process."""
    global _kernel
    if _kernel is None and not _load["tried"]:
        _load["tried"] = 1
        _load["left"] = 0
        if os.environ.get(PURE_ENV, "") not in ("", "0"):
            return None
        from engine.railroad_ink import jitscore

        if jitscore.available():
            kernel = jitscore.score_packed
            kernel(Sheet().packed, _STANDARD_MASKS, 0, False)
            _kernel = kernel
    return _kernel


def _masks(exits: tuple[tuple[int, int, str], ...]) -> tuple[int, ...]:
    """The exits as 8 masks (highway then railway, by side) for the compiled scorer."""
    masks = [0] * 8
    for _, i, bit, _ in exit_slots(exits):
        masks[i] |= bit
    return tuple(masks)


_STANDARD_MASKS = _masks(STANDARD_EXITS)
_EXIT_MASKS: dict[tuple[tuple[int, int, str], ...], tuple[int, ...]] = {}


def _exit_masks(exits: tuple[tuple[int, int, str], ...]) -> tuple[int, ...]:
    got = _EXIT_MASKS.get(exits)
    if got is None:
        if len(_EXIT_MASKS) > 64:
            _EXIT_MASKS.clear()
        got = _EXIT_MASKS[exits] = _masks(exits)
    return got


_COUNTS: dict[int, tuple[tuple[int, ...], int]] = {}  # the compiled scorer's counts code -> counts, points


def _exit_points(p: tuple[int, ...], exits: tuple[tuple[int, int, str], ...]) -> tuple[tuple[int, ...], int]:
    """(exits per network, their points), counted in pure Python from the packed sides."""
    counts = network_exit_counts(p, _STANDARD_SLOTS if exits is STANDARD_EXITS else exit_slots(exits))
    return counts, sum([EXIT_POINTS[n] for n in counts])


def _decode(code: int, p: tuple[int, ...], exits: tuple[tuple[int, int, str], ...]
            ) -> tuple[tuple[int, ...], int]:
    if code < 0:  # more than 12 exit heads: the pure count
        return _exit_points(p, exits)
    digits = []
    c = code
    while c:
        digits.append(c & 15)
        c >>= 4
    counts = tuple(reversed(digits))
    got = _COUNTS[code] = counts, sum([EXIT_POINTS[n] for n in counts])
    return got


def score_sheet_full(sheet: Sheet, longest: str = "trail", expansions: tuple[str, ...] = (),
                     trace: bool = False) -> Score:
    """Score a sheet square by square, with every detail a drawing needs (`trace`) and every
    expansion's points."""
    if longest not in READINGS:
        raise EngineError(f"longest must be one of {READINGS}, got {longest!r}")
    cells = sheet.cells
    craters = sheet.craters
    exits = _STANDARD_EXIT_MAP if sheet.exits is STANDARD_EXITS else {(c, s): k for c, s, k in sheet.exits}
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    hadj: dict[int, list[int]] = {}
    radj: dict[int, list[int]] = {}
    exit_ports: list[int] = []
    errors = 0
    error_sides: list[tuple[int, int]] = []
    crater_ends = 0
    centre = 0
    water: list[tuple[int, int]] = []  # lake joins between cells (for lake sizes)
    river: list[tuple[int, int]] = []
    lava: list[tuple[int, int]] = []
    river_edge_ends: dict[int, int] = {}
    river_open: set[int] = set()
    lava_open: set[int] = set()
    lake_cells: list[int] = []
    river_cells: list[int] = []
    lava_cells: list[int] = []

    for c, sq in enumerate(cells):
        if sq is not None:
            for _, _, g in sq.info.ports:
                parent[c * 4 + g] = c * 4 + g
    for c, sq in enumerate(cells):
        if sq is None:
            continue
        info = sq.info
        sides = info.sides
        base = c * 4
        if info.route and c in CENTRE:
            centre += 1
        if "H" in sides:
            hadj.setdefault(c, [])
        if "R" in sides:
            radj.setdefault(c, [])
        if "L" in sides:
            lake_cells.append(c)
        if "W" in sides:
            river_cells.append(c)
        if "V" in sides:
            lava_cells.append(c)
        neigh = NEIGHBOURS[c]
        for s, k, g in info.ports:
            n = neigh[s]
            if n < 0:
                if k == "H" or k == "R":
                    if exits.get((c, s)) == k:
                        exit_ports.append(base + g)
                elif k == "W":
                    river_edge_ends[c] = river_edge_ends.get(c, 0) + 1
                continue
            nsq = cells[n]
            if nsq is not None and nsq.sides[OPPOSITE[s]] == k:
                if n > c:  # each connection once
                    a, b = find(base + g), find(n * 4 + nsq.info.group[OPPOSITE[s]])
                    if a != b:
                        parent[a] = b
                    if k == "H":
                        hadj[c].append(n)
                        hadj.setdefault(n, []).append(c)
                    elif k == "R":
                        radj[c].append(n)
                        radj.setdefault(n, []).append(c)
                    elif k == "L":
                        water.append((c, n))
                    elif k == "W":
                        river.append((c, n))
                    else:
                        lava.append((c, n))
                continue
            if k in "HRW":
                if nsq is None and n in craters:
                    crater_ends += 1  # an open end at a crater scores instead of costing
                else:
                    errors += 1
                    error_sides.append((c, s))
                    if k == "W":
                        river_open.add(c)
            elif k == "V" and nsq is None:
                errors += 1  # open lava side
                error_sides.append((c, s))
                lava_open.add(c)

    counts: dict[int, int] = {}
    for p in exit_ports:
        r = find(p)
        counts[r] = counts.get(r, 0) + 1
    network_counts = tuple(sorted(counts.values(), reverse=True))
    exit_points = sum(EXIT_POINTS[n] for n in network_counts)
    lh, hroute = longest_route(hadj, longest, trace)
    lr, rroute = longest_route(radj, longest, trace)

    expansion: dict[str, int] = {}
    if "river" in expansions:
        expansion["river"] = _best_river(river_cells, river, river_edge_ends, river_open)
    if "lake" in expansions:
        sizes = [len(g) for g in _groups(lake_cells, water)]
        expansion["lake"] = min(sizes) if sizes else 0
    if "meteor" in expansions:
        expansion["meteor"] = CRATER_END_POINTS * crater_ends
    if "lava" in expansions:
        lakes = _groups(lava_cells, lava)
        closed = sum(1 for g in lakes if not (g & lava_open))
        expansion["lava"] = CLOSED_LAVA_LAKE_POINTS * closed + max((len(g) for g in lakes), default=0)
    extra = sum(expansion.values())
    total = exit_points + lh + lr + centre + extra - errors
    networks: tuple[tuple[tuple[int, ...], int], ...] = ()
    if trace:
        members: dict[int, set[int]] = {}
        for port in parent:
            members.setdefault(find(port), set()).add(port // 4)
        networks = tuple(sorted(((tuple(sorted(m)), counts.get(r, 0)) for r, m in members.items()),
                                key=lambda x: (-x[1], x[0])))
    return Score(exit_points, network_counts, lh, lr, centre, errors, extra, total, longest, expansion,
                 networks, tuple(hroute), tuple(rroute), tuple(error_sides))


def _groups(nodes: list[int], links: list[tuple[int, int]]) -> list[set[int]]:
    parent = {n: n for n in nodes}

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in links:
        parent[find(a)] = find(b)
    out: dict[int, set[int]] = {}
    for n in nodes:
        out.setdefault(find(n), set()).add(n)
    return list(out.values())


def _best_river(cells: list[int], links: list[tuple[int, int]], edge_ends: dict[int, int],
                open_cells: set[int]) -> int:
    """One river scores (rule rri.river.score): 1 per square, +3 when both its ends reach the edge."""
    best = 0
    for g in _groups(cells, links):
        ends = sum(edge_ends.get(c, 0) for c in g)
        bonus = RIVER_BOTH_EDGES_BONUS if ends == 2 and not (g & open_cells) else 0
        best = max(best, len(g) + bonus)
    return best


def ranking(scores: list[Score]) -> list[int]:
    """Seats from first to last: highest total, then fewer errors (rule rri.score.tie-break)."""
    return sorted(range(len(scores)), key=lambda i: (-scores[i].total, scores[i].errors, i))
