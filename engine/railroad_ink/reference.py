"""A plain, exhaustive reference for the longest routes: depth-first search over every walk from
every square. Exponential on loops and quadratic on trees, so it is slow; it is the oracle the tests
compare `longest.py` with, and the baseline bench/rri_score.py measures against."""

from __future__ import annotations

from engine.railroad_ink.board import NEIGHBOURS, OPPOSITE, Sheet


def route_graph(sheet: Sheet, kind: str) -> dict[int, list[int]]:
    adj: dict[int, list[int]] = {}
    for c, sq in enumerate(sheet.cells):
        if sq is None or kind not in sq.sides:
            continue
        adj[c] = []
        for s in range(4):
            n = NEIGHBOURS[c][s]
            if sq.sides[s] == kind and n >= 0 and sheet.cells[n] is not None \
                    and sheet.cells[n].sides[OPPOSITE[s]] == kind:
                adj[c].append(n)
    return adj


def naive_longest(adj: dict[int, list[int]], reading: str) -> int:
    best = 0

    def trail(node: int, used: set[frozenset[int]], length: int) -> None:
        nonlocal best
        best = max(best, length + 1)
        for m in adj[node]:
            e = frozenset((node, m))
            if e not in used:
                used.add(e)
                trail(m, used, length + 1)
                used.discard(e)

    def path(node: int, seen: set[int]) -> None:
        nonlocal best
        best = max(best, len(seen))
        for m in adj[node]:
            if m not in seen:
                seen.add(m)
                path(m, seen)
                seen.discard(m)

    for start in adj:
        if reading == "trail":
            trail(start, set(), 0)
        else:
            path(start, {start})
    return best
