"""The exact 4x4 search of engine/grid/exact.py compiled with numba (optional: `pip install numba`).

Same search -- negamax with null windows, the four path-keeping symmetries merged in a bound table,
path bounds, the same move ordering -- over numpy arrays, so a node costs well under a microsecond
instead of about twelve. Differences forced by compiled code: the table is a fixed array of 2**22
slots (about 110 MB) indexed by a 64-bit Zobrist code of the board under the symmetry that gives the
smallest code, with a second independent code stored to confirm a hit; a slot is overwritten by a
position with at least as many empty cells. A deadline is checked every 65 536 nodes.

`available()` says whether numba imports (the optional `fast` extra); `engine.grid.solver` uses this
module for positions with JIT_FROM or more empty cells when it does, and engine/grid/exact.py
otherwise (tests compare the two). The first use on a machine compiles for about half a minute; the
result is cached beside the module and loads in about a second afterwards.
"""

from __future__ import annotations

import time

import numpy as np

from engine.grid.exact import SYMMETRIES, ExactAnswers, SearchTimeout
from engine.grid.paths import CELLS, PATHS

try:  # numba is an optional speed-up, never a requirement
    import numba

    _jit = numba.njit(cache=True)
except ImportError:  # pragma: no cover - exercised where numba is absent
    numba = None


def available() -> bool:
    return numba is not None


INF = 1 << 30
JIT_FROM = 11  # empty cells from which the compiled search pays for its start-up
TABLE_BITS = 22
_NEG = -1

_CP = np.full((2, CELLS, 20), -1, np.int64)  # paths of each seat through each cell
_CPN = np.zeros((2, CELLS), np.int64)
_PC = np.array([[list(p) for p in PATHS[s]] for s in (0, 1)], np.int64)  # cells of each path
for _s in (0, 1):
    for _c in range(CELLS):
        _ids = [i for i, p in enumerate(PATHS[_s]) if _c in p]
        _CP[_s, _c, : len(_ids)] = _ids
        _CPN[_s, _c] = len(_ids)
_SYM = np.array(SYMMETRIES, np.int64)
_rng = np.random.default_rng(20261201)
_Z1 = _rng.integers(1, 2**62, size=(17, CELLS), dtype=np.int64)
_Z2 = _rng.integers(1, 2**62, size=(17, CELLS), dtype=np.int64)


if numba is not None:

    @_jit
    def _place(st, sums, emp, zk, piece, cell):  # noqa: ANN001, ANN202 - compiled, typed by numba
        # st: [0..15] board, 16 reserve mask, 17 placed, 18 nodes, 19 abort, 20 deadline check count
        st[cell] = piece
        for s in range(2):
            for k in range(_CPN[s, cell]):
                i = _CP[s, cell, k]
                sums[s, i] += piece
                emp[s, i] -= 1
        for g in range(4):
            zk[0, g] ^= _Z1[piece, _SYM[g, cell]]
            zk[1, g] ^= _Z2[piece, _SYM[g, cell]]
        st[16] ^= 1 << piece
        st[17] += 1

    @_jit
    def _unplace(st, sums, emp, zk, piece, cell):  # noqa: ANN001, ANN202
        st[cell] = 0
        for s in range(2):
            for k in range(_CPN[s, cell]):
                i = _CP[s, cell, k]
                sums[s, i] -= piece
                emp[s, i] += 1
        for g in range(4):
            zk[0, g] ^= _Z1[piece, _SYM[g, cell]]
            zk[1, g] ^= _Z2[piece, _SYM[g, cell]]
        st[16] ^= 1 << piece
        st[17] -= 1

    @_jit
    def _prefix_tables():  # noqa: ANN202
        """For every reserve (a 17-bit mask of pieces 1..16): the sums of its k smallest and of its
        k largest pieces, k = 0..16 (the path bounds' inner loop reads them instead of sorting)."""
        lo = np.zeros((1 << 17, 17), np.int16)
        hi = np.zeros((1 << 17, 17), np.int16)
        for mask in range(0, 1 << 17, 2):
            n = 0
            for p in range(1, 17):
                if mask >> p & 1:
                    n += 1
                    lo[mask, n] = lo[mask, n - 1] + p
            k = 0
            for p in range(16, 0, -1):
                if mask >> p & 1:
                    k += 1
                    hi[mask, k] = hi[mask, k - 1] + p
        return lo, hi

    @_jit
    def _bounds(st, sums, emp, plo, phi):  # noqa: ANN001, ANN202
        """(low, high) of the final margin p2_best - p1_best."""
        lo = plo[st[16]]
        hi = phi[st[16]]
        p1lo = p1hi = p2lo = p2hi = INF
        for i in range(20):
            a = sums[0, i]
            e = emp[0, i]
            p1lo = min(p1lo, a + lo[e])
            p1hi = min(p1hi, a + hi[e])
            a = sums[1, i]
            e = emp[1, i]
            p2lo = min(p2lo, a + lo[e])
            p2hi = min(p2hi, a + hi[e])
        return p2lo - p1hi, p2hi - p1lo

    @_jit
    def _moves(st, sums, emp, first):  # noqa: ANN001, ANN202
        """Moves as piece * 16 + cell, best first (ExactSearch.ordered_moves's order; ties
        may fall the other way)."""
        n = 0
        total = 0
        for p in range(1, 17):
            if st[16] >> p & 1:
                n += 1
                total += p
        mean = total / n
        weight = np.zeros((2, CELLS))
        for s in range(2):
            floor = 1e18
            for i in range(20):
                floor = min(floor, sums[s, i] + mean * emp[s, i])
            for i in range(20):
                w = 1.0 / (1.0 + sums[s, i] + mean * emp[s, i] - floor)
                for j in range(7):
                    weight[s, _PC[s, i, j]] += w
        mover = st[17] & 1
        count = n * n
        score = np.empty(count)
        move = np.empty(count, np.int64)
        k = 0
        for c in range(CELLS):
            if st[c] == 0:
                tilt = weight[1 - mover, c] - weight[mover, c]
                for p in range(1, 17):
                    if st[16] >> p & 1:
                        score[k] = -((p - mean) * tilt)
                        move[k] = p * 16 + c
                        k += 1
        order = np.argsort(score, kind="mergesort")
        out = np.empty(count, np.int64)
        j = 0
        if first >= 0 and st[first & 15] == 0 and st[16] >> (first >> 4) & 1:
            out[0] = first
            j = 1
        else:
            first = -1
        for t in range(count):
            m = move[order[t]]
            if m != first:
                out[j] = m
                j += 1
        return out

    @_jit
    def _search(st, sums, emp, zk, tk, tc, tlo, thi, tmv, tn, plo, phi, alpha, beta, limit):  # noqa: ANN001, ANN202
        st[18] += 1
        if st[19]:
            return 0
        if st[18] & 65535 == 0:
            with numba.objmode(now="float64"):
                now = time.perf_counter()
            if limit > 0 and now > limit:
                st[19] = 1
                return 0
        n = 16 - st[17]
        sign = 1 if st[17] & 1 == 0 else -1
        mlo, mhi = _bounds(st, sums, emp, plo, phi)
        if sign > 0:
            vlo, vhi = mlo, mhi
        else:
            vlo, vhi = -mhi, -mlo
        if vlo >= beta or vlo == vhi:
            return vlo
        if vhi <= alpha:
            return vhi
        if n == 1:
            cell = 0
            for c in range(CELLS):
                if st[c] == 0:
                    cell = c
            piece = 0
            for p in range(1, 17):
                if st[16] >> p & 1:
                    piece = p
            _place(st, sums, emp, zk, piece, cell)
            m = sums[1].min() - sums[0].min()
            _unplace(st, sums, emp, zk, piece, cell)
            return sign * m
        store = n >= 4
        first = -1
        slot = 0
        g = 0
        check = 0
        hit = False
        if store:
            key = zk[0, 0]
            for h in range(1, 4):
                if zk[0, h] < key:
                    key = zk[0, h]
                    g = h
            check = zk[1, g]
            slot = key & (tk.shape[0] - 1)
            if tn[slot] > 0 and tk[slot] == key and tc[slot] == check:
                hit = True
                tl, th = tlo[slot], thi[slot]
                if tl >= beta or th <= alpha or tl == th:
                    return tl if tl >= beta or tl == th else th
                vlo = max(vlo, tl)
                vhi = min(vhi, th)
                if tmv[slot] >= 0:
                    first = (tmv[slot] >> 4) * 16 + _SYM[g, tmv[slot] & 15]
        a = max(alpha, vlo)
        a0 = a
        b = min(beta, vhi)
        best = -INF
        best_move = -1
        moves = _moves(st, sums, emp, first)
        for t in range(moves.shape[0]):
            piece = moves[t] >> 4
            cell = moves[t] & 15
            _place(st, sums, emp, zk, piece, cell)
            if best_move < 0:
                value = -_search(st, sums, emp, zk, tk, tc, tlo, thi, tmv, tn, plo, phi, -b, -a, limit)
            else:
                value = -_search(st, sums, emp, zk, tk, tc, tlo, thi, tmv, tn, plo, phi, -a - 1, -a, limit)
                if a < value < b:
                    value = -_search(st, sums, emp, zk, tk, tc, tlo, thi, tmv, tn, plo, phi, -b, -value,
                                     limit)
            _unplace(st, sums, emp, zk, piece, cell)
            if st[19]:
                return 0
            if value > best:
                best = value
                best_move = piece * 16 + cell
                if value > a:
                    a = value
                    if a >= b:
                        break
        if store:
            if best <= a0:
                lo, hi = vlo, best
            elif best >= b:
                lo, hi = best, vhi
            else:
                lo, hi = best, best
            if hit:
                lo = max(lo, tlo[slot])
                hi = min(hi, thi[slot])
            if hit or n >= tn[slot]:
                tk[slot] = key
                tc[slot] = check
                tlo[slot] = lo
                thi[slot] = hi
                tn[slot] = n
                tmv[slot] = (best_move >> 4) * 16 + _SYM[g, best_move & 15]
        return best


_TABLES: list = []


def _tables() -> tuple[np.ndarray, np.ndarray]:
    if not _TABLES:
        _TABLES.extend(_prefix_tables())
    return _TABLES[0], _TABLES[1]


class JitSearch(ExactAnswers):
    """ExactSearch's answers (exact_value, outcome, keeping_move, keeping_outcome, principal) over
    the compiled search."""

    def __init__(self, board: tuple[int, ...] | list[int], deadline: float | None = None,
                 table_bits: int = TABLE_BITS) -> None:
        if numba is None:
            raise RuntimeError("numba is not installed")
        self.st = np.zeros(21, np.int64)
        self.sums = np.zeros((2, 20), np.int64)
        self.emp = np.zeros((2, 20), np.int64)
        self.zk = np.zeros((2, 4), np.int64)
        self.st[16] = sum(1 << p for p in range(1, 17))
        size = 1 << table_bits
        self.tk, self.tc = np.zeros(size, np.int64), np.zeros(size, np.int64)
        self.tlo, self.thi = np.zeros(size, np.int32), np.zeros(size, np.int32)
        self.tmv, self.tn = np.full(size, -1, np.int32), np.zeros(size, np.int8)
        for s in (0, 1):
            for i in range(20):
                self.emp[s, i] = 7
        for cell, piece in enumerate(board):
            if piece:
                _place(self.st, self.sums, self.emp, self.zk, piece, cell)
        self.deadline = deadline

    @property
    def nodes(self) -> int:
        return int(self.st[18])

    @property
    def placed(self) -> int:  # type: ignore[override]
        return int(self.st[17])

    @property
    def reserve(self) -> list[int]:  # type: ignore[override]
        return [p for p in range(1, 17) if int(self.st[16]) >> p & 1]

    def place(self, piece: int, cell: int) -> None:
        _place(self.st, self.sums, self.emp, self.zk, piece, cell)

    def unplace(self, piece: int, cell: int) -> None:
        _unplace(self.st, self.sums, self.emp, self.zk, piece, cell)

    def search(self, alpha: int, beta: int) -> int:
        limit = self.deadline if self.deadline is not None else 0.0
        plo, phi = _tables()
        value = int(_search(self.st, self.sums, self.emp, self.zk, self.tk, self.tc, self.tlo, self.thi,
                            self.tmv, self.tn, plo, phi, alpha, beta, limit))
        if self.st[19]:
            self.st[19] = 0
            raise SearchTimeout
        return value

    def final(self) -> int:
        m = int(self.sums[1].min() - self.sums[0].min())
        return m if int(self.st[17]) & 1 == 0 else -m

    def margin_bounds(self) -> tuple[int, int]:
        lo, hi = _bounds(self.st, self.sums, self.emp, *_tables())
        return int(lo), int(hi)

    def ordered_moves(self, first: int = -1) -> list[tuple[int, int]]:
        return [(int(m) >> 4, int(m) & 15) for m in _moves(self.st, self.sums, self.emp, first)]

    def _table_move(self) -> int:
        return -1  # the compiled search orders its own nodes; the root's first move needs no hint
