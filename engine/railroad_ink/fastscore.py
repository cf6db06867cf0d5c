"""Base-game scoring from a sheet's bit-packed sides (engine/railroad_ink/packed.py).

Every fact a score needs is a whole-sheet integer expression over the 49-bit masks:
- a connection east of cell c is "c shows kind k on E and c+1 shows k on W": `Ke & (Kw >> 1)`
  outside column 6; south is `Ks & (Kn >> 7)`;
- an error is a highway, railway or river side whose neighbour square exists and does not show the
  same kind, unless that neighbour is an empty crater (which scores instead), or a lava side facing
  an empty square: again a few masks per direction, counted with int.bit_count();
- the centre is `ROUTE & CENTRE`.
Networks are joined by a union-find over the connection bits only (an overpass is two parts: its
north-south sides and its east-west sides), and the longest routes run on adjacency built from the
highway and railway connection bits: forests (the usual case) by peeling leaves, all components at
once, with a few integer operations per round. The results equal `scoring.score_sheet_full` on
every sheet (tests/test_rri_fastscore.py).
"""

from __future__ import annotations

from engine.railroad_ink.longest import longest_route
from engine.railroad_ink.packed import OCCUPIED, OVERPASS, ROUTE

_H, _R, _W, _L, _V = 0, 4, 8, 12, 16  # first mask index of each kind (then + side N, E, S, W)
_ALL = (1 << 49) - 1
_COL0 = sum(1 << (r * 7) for r in range(7))
_COL6 = _COL0 << 6
_NOT_COL0 = _ALL & ~_COL0
_NOT_COL6 = _ALL & ~_COL6
_NOT_ROW0 = _ALL & ~((1 << 7) - 1)
_NOT_ROW6 = _ALL & ~(((1 << 7) - 1) << 42)
CENTRE_MASK = sum(1 << (r * 7 + c) for r in range(2, 5) for c in range(2, 5))
EXIT_POINTS = (0, 0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 45)
_KIND = {"H": _H, "R": _R}


def exit_slots(exits: tuple[tuple[int, int, str], ...]) -> tuple[tuple[int, int, int, bool], ...]:
    """(cell, mask index, bit, east-west side) of each highway or railway exit. One exit per (cell,
    side), the last listed, as `scoring.score_sheet_full` reads them."""
    one = {(c, s): k for c, s, k in exits}
    return tuple((c, _KIND[k] + s, 1 << c, s in (1, 3)) for (c, s), k in one.items() if k in _KIND)


def errors_and_craters(p: tuple[int, ...], craters: int) -> tuple[int, int]:
    """(open-end errors, open ends at a crater) of the whole sheet."""
    hn, he, hs, hw = p[0], p[1], p[2], p[3]
    rn, re, rs, rw = p[4], p[5], p[6], p[7]
    wn, we, ws, ww = p[8], p[9], p[10], p[11]
    # open highway, railway and river sides facing a square inside the sheet, by direction
    e = (he | re | we) & _NOT_COL6 & ~((he & (hw >> 1)) | (re & (rw >> 1)) | (we & (ww >> 1)))
    w = (hw | rw | ww) & _NOT_COL0 & ~((hw & (he << 1)) | (rw & (re << 1)) | (ww & (we << 1)))
    n = (hn | rn | wn) & _NOT_ROW0 & ~((hn & (hs << 7)) | (rn & (rs << 7)) | (wn & (ws << 7)))
    s = (hs | rs | ws) & _NOT_ROW6 & ~((hs & (hn >> 7)) | (rs & (rn >> 7)) | (ws & (wn >> 7)))
    ends = 0
    if craters:  # an open end at an empty crater scores instead of costing
        ce, cw, cn, cs = e & (craters >> 1), w & (craters << 1), n & (craters << 7), s & (craters >> 7)
        ends = ce.bit_count() + cw.bit_count() + cn.bit_count() + cs.bit_count()
        e, w, n, s = e & ~ce, w & ~cw, n & ~cn, s & ~cs
    errors = e.bit_count() + w.bit_count() + n.bit_count() + s.bit_count()
    if p[16] | p[17] | p[18] | p[19]:  # lava sides facing an empty square
        occ = p[OCCUPIED]
        errors += ((p[17] & _NOT_COL6 & ~(occ >> 1)).bit_count()
                   + (p[19] & _NOT_COL0 & ~(occ << 1)).bit_count()
                   + (p[16] & _NOT_ROW0 & ~(occ << 7)).bit_count()
                   + (p[18] & _NOT_ROW6 & ~(occ >> 7)).bit_count())
    return errors, ends


# Cells of each row's set bits (by row, then the row's 7 bits): the union-find below walks a mask
# row by row through these instead of peeling one bit at a time.
_ROW_CELLS = tuple((r * 7, tuple(tuple(r * 7 + c for c in range(7) if v >> c & 1) for v in range(128)))
                   for r in range(7))
_PARTS = list(range(98))  # union-find nodes: cell c; an overpass's east-west part is c + 49


def network_exit_counts(p: tuple[int, ...], exits: tuple[tuple[int, int, int, bool], ...]) -> tuple[int, ...]:
    """Exits per network (highway, railway and lake sides joined), largest first; networks
    without an exit are left out."""
    heads = [(c, bit, ew) for c, i, bit, ew in exits if p[i] & bit]
    if len(heads) < 2:
        return (1,) if heads else ()
    east = ((p[1] & (p[3] >> 1)) | (p[5] & (p[7] >> 1)) | (p[13] & (p[15] >> 1))) & _NOT_COL6
    south = (p[2] & (p[0] >> 7)) | (p[6] & (p[4] >> 7)) | (p[14] & (p[12] >> 7))
    ovp = p[OVERPASS]
    parent = _PARTS[:]
    joins = ((1, east, ovp), (7, south, 0))  # an overpass's east-west part joins east-west only
    for shift, cells in _ROW_CELLS:
        for step, mask, parts in joins:
            row = mask >> shift & 127
            if row:
                for a in cells[row]:
                    b = a + step
                    if parts:
                        if parts >> a & 1:
                            a += 49
                        if parts >> b & 1:
                            b += 49
                    while parent[a] != a:
                        a = parent[a]
                    while parent[b] != b:
                        b = parent[b]
                    if a != b:
                        parent[a] = b
    counts: dict[int, int] = {}
    for c, bit, ew in heads:
        a = c + 49 if ew and ovp & bit else c
        while parent[a] != a:
            a = parent[a]
        counts[a] = counts.get(a, 0) + 1
    return tuple(sorted(counts.values(), reverse=True))


def longest(nodes: int, east: int, south: int, reading: str) -> int:
    """Longest route in squares over one kind's graph (nodes: squares showing the kind; east and
    south: the connection bits).

    Forests (the usual case) are peeled: every round removes all squares with at most one
    connection left, in every component at once. A tree whose longest path has d squares vanishes
    after ceil(d / 2) rounds and its last round removes its centre: one square when d is odd, two
    joined ones when d is even. So the rounds of the last component standing give the answer.
    Peeling stops with squares left only when a cycle exists; then the search over chains in
    `longest.longest_route` (which knows both readings) takes the whole graph."""
    if not nodes:
        return 0
    rem = nodes
    rounds = 0
    while True:
        e = east & rem & (rem >> 1)  # c joined to c + 1, both still there
        s = south & rem & (rem >> 7)
        w = e << 1
        n = s << 7
        busy = (e & (w | s | n)) | (w & (s | n)) | (s & n)  # two or more connections left
        leaves = rem & ~busy
        if not leaves:
            return _cyclic(nodes, east, south, reading)
        rounds += 1
        if leaves == rem:
            return 2 * rounds if e | s else 2 * rounds - 1
        rem = busy


def _cyclic(nodes: int, east: int, south: int, reading: str) -> int:
    adj: dict[int, list[int]] = {}
    m = nodes
    while m:
        low = m & -m
        m ^= low
        adj[low.bit_length() - 1] = []
    for joins, step in ((east, 1), (south, 7)):
        m = joins
        while m:
            low = m & -m
            m ^= low
            a = low.bit_length() - 1
            adj[a].append(a + step)
            adj[a + step].append(a)
    return longest_route(adj, reading)[0]


def longest_routes(p: tuple[int, ...], reading: str) -> tuple[int, int]:
    """(longest highway, longest railway) in squares."""
    return kind_longest(p, _H, reading), kind_longest(p, _R, reading)


def kind_longest(p: tuple[int, ...], k: int, reading: str) -> int:
    """Longest route of one kind (k: its first mask index, _H or _R) in squares."""
    n, e, s, w = p[k], p[k + 1], p[k + 2], p[k + 3]
    return longest(n | e | s | w, e & (w >> 1) & _NOT_COL6, s & (n >> 7), reading)


def centre_squares(p: tuple[int, ...]) -> int:
    return (p[ROUTE] & CENTRE_MASK).bit_count()
