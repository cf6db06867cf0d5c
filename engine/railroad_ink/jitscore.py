"""The bit-packed base-game scorer of engine/railroad_ink/fastscore.py compiled with numba (optional:
the `fast` extra, `pip install numba`).

One call takes a sheet's 23 packed masks as they are (a tuple of ints: no per-call conversion into
an array, which would cost more than the scoring), the exits as 8 masks (highway, then railway, by
side), the craters as a mask and the reading (path or trail), and returns (errors, open ends at
craters, the network exit counts as one code, longest highway, longest railway, centre squares).
Same masks, same union-find, same leaf peeling as the pure scorer. A highway or railway graph with
a cycle (peeling stops with squares left; about 5% of the complete sheets of random legal games,
8% of greedy games', none of the benchmark's 28) is searched depth-first from every square, exact
under both readings. Two things it leaves to the pure code, so results stay equal on every sheet:
- a cycle whose search passes SEARCH_STEPS route extensions (dense grids of loops, where the
  search is exponential): longest comes back as -1 and `fastscore.longest` (the search over
  chains of longest.py) gives it;
- more than 12 exit heads on the sheet (only with custom exits): the code comes back as -1 and
  `fastscore.network_exit_counts` counts the networks.
The counts code is the counts largest first as base-16 digits (each count is 1..12): unique, and
decoded once per distinct code by `scoring`. Passing the tuple costs about a microsecond a call;
a numpy array would pass faster but building one from the tuple costs more than that.

`available()` says whether numba imports. engine/railroad_ink/scoring.py loads this module lazily
(see `scoring.compiled_kernel`) and keeps the pure scorer as the fallback. The first use on a
machine compiles for a few seconds; numba caches the result beside the module (or in its user-wide
cache where that folder is read-only), so later processes load it in well under a second.
"""

from __future__ import annotations

from engine.railroad_ink.fastscore import (
    _NOT_COL0,
    _NOT_COL6,
    _NOT_ROW0,
    _NOT_ROW6,
    CENTRE_MASK,
)

try:  # numba is an optional speed-up, never a requirement
    import numba
    import numpy as np
except ImportError:  # pragma: no cover - exercised where numba is absent
    numba = None


def available() -> bool:
    return numba is not None


NO_CODE = -1  # counts left to the pure scorer (more than 12 exit heads)
CYCLIC = -1  # longest left to the pure scorer (a cycle the search gave up on)
SEARCH_STEPS = 20_000  # route extensions `_search` tries before it gives up


def _popcount(x: int) -> int:
    # masks are below 2**49: byte sums never carry past bit 62, so int64 arithmetic stays exact
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    x += x >> 8
    x += x >> 16
    x += x >> 32
    return x & 0x7F


def _errors(p: tuple[int, ...], craters: int) -> tuple[int, int]:
    hn, he, hs, hw = p[0], p[1], p[2], p[3]
    rn, re, rs, rw = p[4], p[5], p[6], p[7]
    wn, we, ws, ww = p[8], p[9], p[10], p[11]
    e = (he | re | we) & _NOT_COL6 & ~((he & (hw >> 1)) | (re & (rw >> 1)) | (we & (ww >> 1)))
    w = (hw | rw | ww) & _NOT_COL0 & ~((hw & (he << 1)) | (rw & (re << 1)) | (ww & (we << 1)))
    n = (hn | rn | wn) & _NOT_ROW0 & ~((hn & (hs << 7)) | (rn & (rs << 7)) | (wn & (ws << 7)))
    s = (hs | rs | ws) & _NOT_ROW6 & ~((hs & (hn >> 7)) | (rs & (rn >> 7)) | (ws & (wn >> 7)))
    ends = 0
    if craters:
        ce, cw, cn, cs = e & (craters >> 1), w & (craters << 1), n & (craters << 7), s & (craters >> 7)
        ends = _popcount(ce) + _popcount(cw) + _popcount(cn) + _popcount(cs)
        e, w, n, s = e & ~ce, w & ~cw, n & ~cn, s & ~cs
    errors = _popcount(e) + _popcount(w) + _popcount(n) + _popcount(s)
    if p[16] | p[17] | p[18] | p[19]:
        occ = p[20]
        errors += (_popcount(p[17] & _NOT_COL6 & ~(occ >> 1)) + _popcount(p[19] & _NOT_COL0 & ~(occ << 1))
                   + _popcount(p[16] & _NOT_ROW0 & ~(occ << 7)) + _popcount(p[18] & _NOT_ROW6 & ~(occ >> 7)))
    return errors, ends


def _find(parent, a: int) -> int:  # noqa: ANN001 - a numba array
    while parent[a] != a:
        a = parent[a]
    return a


def _networks(p: tuple[int, ...], ex: tuple[int, ...]) -> int:
    """The exit counts per network, largest first, as base-16 digits (NO_CODE past 12 heads)."""
    heads = 0
    for i in range(8):
        heads += _popcount(p[i] & ex[i])
    if heads > 12:
        return NO_CODE
    if heads < 2:
        return heads  # () or (1,)
    east = ((p[1] & (p[3] >> 1)) | (p[5] & (p[7] >> 1)) | (p[13] & (p[15] >> 1))) & _NOT_COL6
    south = (p[2] & (p[0] >> 7)) | (p[6] & (p[4] >> 7)) | (p[14] & (p[12] >> 7))
    ovp = p[21]
    parent = np.arange(98)  # cell c; an overpass's east-west part is c + 49
    m = east
    c = 0
    while m:
        if m & 1:
            a = c + 49 if (ovp >> c) & 1 else c
            b = c + 50 if (ovp >> (c + 1)) & 1 else c + 1
            a, b = _find(parent, a), _find(parent, b)
            if a != b:
                parent[a] = b
        m >>= 1
        c += 1
    m = south
    c = 0
    while m:
        if m & 1:
            a, b = _find(parent, c), _find(parent, c + 7)
            if a != b:
                parent[a] = b
        m >>= 1
        c += 1
    count = np.zeros(98, np.int64)
    for i in range(8):
        m = p[i] & ex[i]
        ew = i == 1 or i == 3 or i == 5 or i == 7
        c = 0
        while m:
            if m & 1:
                a = c + 49 if ew and (ovp >> c) & 1 else c
                count[_find(parent, a)] += 1
            m >>= 1
            c += 1
    found = np.zeros(12, np.int64)
    k = 0
    for r in range(98):
        if count[r]:
            v = count[r]
            j = k
            while j > 0 and found[j - 1] < v:  # insertion, largest first
                found[j] = found[j - 1]
                j -= 1
            found[j] = v
            k += 1
    code = 0
    for j in range(k):
        code = code * 16 + found[j]
    return code


def _longest(nodes: int, east: int, south: int, path: bool) -> int:
    """Leaf peeling of fastscore.longest; a graph with a cycle goes to `_search`."""
    if not nodes:
        return 0
    rem = nodes
    rounds = 0
    while True:
        e = east & rem & (rem >> 1)
        s = south & rem & (rem >> 7)
        w = e << 1
        n = s << 7
        busy = (e & (w | s | n)) | (w & (s | n)) | (s & n)
        leaves = rem & ~busy
        if not leaves:
            return _search(nodes, east, south, path)
        rounds += 1
        if leaves == rem:
            return 2 * rounds if e | s else 2 * rounds - 1
        rem = busy


def _search(nodes: int, east: int, south: int, path: bool) -> int:
    """Longest route of a graph with a cycle by depth-first search from every square: trail (no
    connection twice; connections + 1) or path (no square twice; squares). Exact, and exponential
    on dense grids: past SEARCH_STEPS extensions it gives up (CYCLIC) and the chain search of
    longest.py takes the graph. Connection ids: c east of c, 49 + c south of c."""
    edges = _popcount(east) + _popcount(south)
    squares = _popcount(nodes)
    goal = edges if not path else squares - 1  # the most extensions a route can have
    used = np.zeros(98, np.uint8)  # connections (trail) or squares (path) on the route
    at = np.zeros(100, np.int64)  # the route's squares, its next direction to try, its connections
    tried = np.zeros(100, np.int64)
    via = np.zeros(100, np.int64)
    best = 0
    steps = 0
    for start in range(49):
        if not (nodes >> start) & 1:
            continue
        depth = 0
        at[0] = start
        tried[0] = 0
        if path:
            used[start] = 1
        while depth >= 0:
            v = at[depth]
            d = tried[depth]
            if d == 4:
                if path:
                    used[v] = 0
                elif depth:
                    used[via[depth]] = 0
                depth -= 1
                continue
            tried[depth] = d + 1
            w = -1
            e = 0
            if d == 0:
                if (east >> v) & 1:
                    w, e = v + 1, v
            elif d == 1:
                if v and (east >> (v - 1)) & 1:
                    w, e = v - 1, v - 1
            elif d == 2:
                if (south >> v) & 1:
                    w, e = v + 7, 49 + v
            elif v >= 7 and (south >> (v - 7)) & 1:
                w, e = v - 7, 42 + v
            if w < 0:
                continue
            if path:
                if used[w]:
                    continue
                used[w] = 1
            else:
                if used[e]:
                    continue
                used[e] = 1
            depth += 1
            at[depth] = w
            tried[depth] = 0
            via[depth] = e
            if depth > best:
                best = depth
                if best == goal:
                    return best + 1
            steps += 1
            if steps > SEARCH_STEPS:
                return CYCLIC
    return best + 1


def _score(p: tuple[int, ...], ex: tuple[int, ...], craters: int, path: bool
           ) -> tuple[int, int, int, int, int, int]:
    errors, ends = _errors(p, craters)
    code = _networks(p, ex)
    lh = _longest(p[0] | p[1] | p[2] | p[3], p[1] & (p[3] >> 1) & _NOT_COL6, p[2] & (p[0] >> 7), path)
    lr = _longest(p[4] | p[5] | p[6] | p[7], p[5] & (p[7] >> 1) & _NOT_COL6, p[6] & (p[4] >> 7), path)
    return errors, ends, code, lh, lr, _popcount(p[22] & CENTRE_MASK)


if numba is not None:
    _jit = numba.njit(cache=True, nogil=True)
    _popcount = _jit(_popcount)
    _errors = _jit(_errors)
    _find = _jit(_find)
    _networks = _jit(_networks)
    _search = _jit(_search)
    _longest = _jit(_longest)
    score_packed = _jit(_score)
else:  # pragma: no cover - exercised where numba is absent
    score_packed = None
