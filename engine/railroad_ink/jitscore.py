"""The bit-packed base-game scorer of engine/railroad_ink/fastscore.py compiled with numba (optional:
the `fast` extra, `pip install numba`).

One call takes a sheet's 23 packed masks as they are (a tuple of ints: no per-call conversion into
an array, which would cost more than the scoring), the exits as 8 masks (highway, then railway, by
side) and the craters as a mask, and returns (errors, open ends at craters, the network exit counts
as one code, longest highway, longest railway, centre squares). Same masks, same union-find, same
leaf peeling as the pure scorer; two things it leaves to the pure code, so results stay equal on
every sheet:
- a highway or railway graph with a cycle (peeling stops with squares left): longest comes back
  as -1 and `fastscore.longest` (the search over chains, both readings) gives it. About 5% of the
  complete sheets of random legal games have one (8% of greedy games'; none of the benchmark's 28),
  and such a sheet costs what the pure scorer costs;
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
CYCLIC = -1  # longest left to the pure scorer (the graph has a cycle)


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


def _longest(nodes: int, east: int, south: int) -> int:
    """Leaf peeling of fastscore.longest; CYCLIC when squares are left without leaves."""
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
            return CYCLIC
        rounds += 1
        if leaves == rem:
            return 2 * rounds if e | s else 2 * rounds - 1
        rem = busy


def _score(p: tuple[int, ...], ex: tuple[int, ...], craters: int) -> tuple[int, int, int, int, int, int]:
    errors, ends = _errors(p, craters)
    code = _networks(p, ex)
    lh = _longest(p[0] | p[1] | p[2] | p[3], p[1] & (p[3] >> 1) & _NOT_COL6, p[2] & (p[0] >> 7))
    lr = _longest(p[4] | p[5] | p[6] | p[7], p[5] & (p[7] >> 1) & _NOT_COL6, p[6] & (p[4] >> 7))
    return errors, ends, code, lh, lr, _popcount(p[22] & CENTRE_MASK)


if numba is not None:
    _jit = numba.njit(cache=True, nogil=True)
    _popcount = _jit(_popcount)
    _errors = _jit(_errors)
    _find = _jit(_find)
    _networks = _jit(_networks)
    _longest = _jit(_longest)
    score_packed = _jit(_score)
else:  # pragma: no cover - exercised where numba is absent
    score_packed = None
