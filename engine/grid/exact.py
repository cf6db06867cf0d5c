"""Exact search for Highway 4x4: the value of a position with no depth limit, or only its sign.

Values are the final margin p2_best - p1_best seen from the player to move inside the search
(negamax), and from Player 1 at the interface, as in `engine.grid.solver`.

What makes it fast enough in Python:
- **Symmetries.** Of the eight symmetries of the square, four map each player's 20 paths onto that
  same player's paths: the identity, the half turn (a1<->d4, d1<->a4), the reflection in the a1-d4
  diagonal and the reflection in the d1-a4 diagonal. Boards related by one of them have the same
  value, so the transposition table is keyed by the smallest of the four board codes (kept
  incrementally: a move adds piece << 5*g(cell) to each). The other four (quarter turns and the
  two flips through the middle of the sides) map Player 1's paths onto Player 2's and back: they
  turn a position into one where the other player owns the paths of the player to move, which is a
  different game (the turn order does not swap with them), so they do not merge table entries.
- **A bound table.** Each entry holds a lower and an upper bound of the exact value, so the
  win/draw/loss probes (is the value >= 1? >= 0?) and the moves that keep a value reuse everything
  earlier searches proved. The table is capped (it is
  cleared of shallow entries when full) so it fits in memory.
- **Path bounds.** Each path's final sum lies between its current sum plus the smallest and plus
  the largest pieces that can still fill its empty cells; that bounds both best paths and so the
  margin, cutting any node whose interval misses the window.
- **Move ordering.** The table's best move first, then small pieces where the mover's near-best
  paths run and large pieces where the opponent's do.
"""

from __future__ import annotations

import time

from engine.grid.paths import CELLS, PATHS, SIZE

INF = 10**9
# Empty cells from which the solver uses the compiled search (engine/grid/jitsearch.py, where numba
# is installed and its start-up, a cached load, pays): defined here so that a smaller position
# never imports numba (0.2-0.5 s).
JIT_FROM = 8
TABLE_CAP = 6_000_000  # entries; ~150 bytes each in CPython, well under 4 GB
_STORE_MIN_EMPTY = 4  # nodes with fewer empty cells are cheaper to search than to store


def _sym(f) -> tuple[int, ...]:  # noqa: ANN001 - a (row, col) -> (row, col) map
    return tuple(f(c // SIZE, c % SIZE)[0] * SIZE + f(c // SIZE, c % SIZE)[1] for c in range(CELLS))


# The four path-preserving symmetries as cell permutations (each is its own inverse).
SYMMETRIES: tuple[tuple[int, ...], ...] = (
    _sym(lambda r, c: (r, c)),
    _sym(lambda r, c: (3 - r, 3 - c)),
    _sym(lambda r, c: (c, r)),
    _sym(lambda r, c: (3 - c, 3 - r)),
)
# The four that swap the players' paths (stated for the docs and checked by the tests).
SWAPPING: tuple[tuple[int, ...], ...] = (
    _sym(lambda r, c: (r, 3 - c)),
    _sym(lambda r, c: (3 - r, c)),
    _sym(lambda r, c: (c, 3 - r)),
    _sym(lambda r, c: (3 - c, r)),
)
_SHIFT = tuple(tuple(5 * g[c] for c in range(CELLS)) for g in SYMMETRIES)
_CELL_PATHS = tuple(tuple(tuple(i for i, p in enumerate(PATHS[s]) if c in p) for c in range(CELLS))
                    for s in (0, 1))


class SearchTimeout(Exception):
    """The deadline passed before the search finished."""


class ExactAnswers:
    """What a caller asks of an exact search (the value, who wins, a move that keeps either, a best
    line), written once over the primitives each search provides: search(alpha, beta),
    margin_bounds(), final(), place / unplace, ordered_moves(first), _table_move(), and the
    `placed` count and `reserve` list."""

    placed: int
    reserve: list[int]

    def exact_value(self) -> int:
        """The exact value for the player to move: one full-window search inside the path bounds
        (null-window probes stepping towards the value visit more nodes when it is far from 0)."""
        mlo, mhi = self.margin_bounds()
        lo, hi = (mlo, mhi) if self.placed & 1 == 0 else (-mhi, -mlo)
        return self.search(lo - 1, hi + 1)

    def outcome(self) -> int:
        """-1, 0 or 1: loss, draw or win for the player to move."""
        if self.search(0, 1) >= 1:
            return 1
        return 0 if self.search(-1, 0) >= 0 else -1

    def _child_at_most(self, bound: int) -> bool:
        """After a move: whether the value for the new player to move is <= bound."""
        if not self.reserve:
            return self.final() <= bound
        return self.search(bound, bound + 1) <= bound

    def keeping_move(self, value: int) -> tuple[int, int]:
        """A move (piece, cell) that secures at least `value` for the player to move (the exact
        value, or 1 / 0 for a win / at least a draw)."""
        for piece, cell in self.ordered_moves(self._table_move()):
            self.place(piece, cell)
            ok = self._child_at_most(-value)
            self.unplace(piece, cell)
            if ok:
                return piece, cell
        raise ValueError(f"no move secures {value}")

    def keeping_outcome(self, result: int) -> tuple[int, int]:
        """A move that keeps the outcome `result` (1 win, 0 draw) for the player to move; in a lost
        position (-1) the first move of the ordering (every move loses)."""
        if result < 0:
            return self.ordered_moves(self._table_move())[0]
        return self.keeping_move(result)

    def principal(self, value: int) -> list[tuple[int, int]]:
        """A best line from here to the full board, keeping `value` (exact, mover's view)."""
        line: list[tuple[int, int]] = []
        while self.reserve:
            move = self.keeping_move(value)
            line.append(move)
            self.place(*move)
            value = -value
        for piece, cell in reversed(line):
            self.unplace(piece, cell)
        return line



class ExactSearch(ExactAnswers):
    """Exact negamax over one game; the table survives between calls, so probes and later
    positions of the same game reuse it."""

    def __init__(self, board: tuple[int, ...] | list[int], table_cap: int = TABLE_CAP,
                 deadline: float | None = None) -> None:
        self.deadline = deadline  # time.perf_counter() value past which search() gives up
        self.board = list(board)
        self.sums = [[sum(self.board[c] for c in p) for p in PATHS[s]] for s in (0, 1)]
        self.empty = [[sum(1 for c in p if not self.board[c]) for p in PATHS[s]] for s in (0, 1)]
        self.reserve = sorted(set(range(1, 17)) - set(self.board))
        self.keys = [sum(v << _SHIFT[g][c] for c, v in enumerate(self.board) if v) for g in range(4)]
        self.placed = 16 - len(self.reserve)
        self.nodes = 0
        self.table: dict[int, list[int]] = {}
        self.table_cap = table_cap
        self.mask = sum(1 << p for p in self.reserve)
        self._prefix: dict[int, tuple[list[int], list[int]]] = {}

    # -- moves ------------------------------------------------------------------------------
    def place(self, piece: int, cell: int) -> None:
        self.board[cell] = piece
        s0, e0, s1, e1 = self.sums[0], self.empty[0], self.sums[1], self.empty[1]
        for i in _CELL_PATHS[0][cell]:
            s0[i] += piece
            e0[i] -= 1
        for i in _CELL_PATHS[1][cell]:
            s1[i] += piece
            e1[i] -= 1
        keys = self.keys
        for g in range(4):
            keys[g] += piece << _SHIFT[g][cell]
        self.reserve.remove(piece)
        self.mask ^= 1 << piece
        self.placed += 1

    def unplace(self, piece: int, cell: int) -> None:
        self.board[cell] = 0
        s0, e0, s1, e1 = self.sums[0], self.empty[0], self.sums[1], self.empty[1]
        for i in _CELL_PATHS[0][cell]:
            s0[i] -= piece
            e0[i] += 1
        for i in _CELL_PATHS[1][cell]:
            s1[i] -= piece
            e1[i] += 1
        keys = self.keys
        for g in range(4):
            keys[g] -= piece << _SHIFT[g][cell]
        self.reserve.append(piece)
        self.reserve.sort()
        self.mask ^= 1 << piece
        self.placed -= 1

    def canonical(self) -> tuple[int, int]:
        """(table key, index of the symmetry that gives it)."""
        k = self.keys
        g = min(range(4), key=k.__getitem__)
        return k[g], g

    # -- bounds -----------------------------------------------------------------------------
    def _prefixes(self) -> tuple[list[int], list[int]]:
        key = self.mask
        got = self._prefix.get(key)
        if got is None:
            pieces = self.reserve
            n = len(pieces)
            lo, hi = [0] * (n + 1), [0] * (n + 1)
            for k in range(n):
                lo[k + 1] = lo[k] + pieces[k]
                hi[k + 1] = hi[k] + pieces[n - 1 - k]
            got = self._prefix[key] = (lo, hi)
        return got

    def margin_bounds(self) -> tuple[int, int]:
        """(low, high) of the final margin p2_best - p1_best."""
        lo, hi = self._prefixes()
        s0, e0, s1, e1 = self.sums[0], self.empty[0], self.sums[1], self.empty[1]
        p1lo = min([s + lo[e] for s, e in zip(s0, e0)])  # noqa: B905 - equal lengths, hot loop
        p1hi = min([s + hi[e] for s, e in zip(s0, e0)])  # noqa: B905
        p2lo = min([s + lo[e] for s, e in zip(s1, e1)])  # noqa: B905
        p2hi = min([s + hi[e] for s, e in zip(s1, e1)])  # noqa: B905
        return p2lo - p1hi, p2hi - p1lo

    # -- ordering ---------------------------------------------------------------------------
    def ordered_moves(self, first: int) -> list[tuple[int, int]]:
        pieces = self.reserve
        mover = self.placed & 1
        mean = sum(pieces) / len(pieces)
        weight = [[0.0] * CELLS, [0.0] * CELLS]
        for s in (0, 1):
            est = [v + mean * e for v, e in zip(self.sums[s], self.empty[s])]  # noqa: B905
            floor = min(est)
            w_s = weight[s]
            for i, p in enumerate(PATHS[s]):
                w = 1.0 / (1.0 + est[i] - floor)
                for c in p:
                    w_s[c] += w
        own, opp = weight[mover], weight[1 - mover]
        board = self.board
        scored = [((p - mean) * (opp[c] - own[c]), p, c) for c in range(CELLS) if not board[c]
                  for p in pieces]
        scored.sort(reverse=True)
        moves = [(p, c) for _, p, c in scored]
        if first >= 0:
            fm = (first >> 4, first & 15)
            if fm in moves:
                moves.remove(fm)
                moves.insert(0, fm)
        return moves

    # -- search -----------------------------------------------------------------------------
    def final(self) -> int:
        """Margin of the full board for the player to move (sign by parity)."""
        m = min(self.sums[1]) - min(self.sums[0])
        return m if self.placed & 1 == 0 else -m

    def search(self, alpha: int, beta: int) -> int:
        """Fail-soft negamax value for the player to move, exact inside (alpha, beta)."""
        self.nodes += 1
        if self.nodes & 4095 == 0 and self.deadline is not None and time.perf_counter() > self.deadline:
            raise SearchTimeout
        n = len(self.reserve)
        sign = 1 if self.placed & 1 == 0 else -1
        mlo, mhi = self.margin_bounds()
        vlo, vhi = (mlo, mhi) if sign > 0 else (-mhi, -mlo)
        if vlo >= beta or vlo == vhi:
            return vlo
        if vhi <= alpha:
            return vhi
        if n == 1:
            cell = self.board.index(0)
            piece = self.reserve[0]
            self.place(piece, cell)
            v = -self.final()
            self.unplace(piece, cell)
            return v
        store = n >= _STORE_MIN_EMPTY
        first = -1
        if store:
            key, g = self.canonical()
            entry = self.table.get(key)
            if entry is not None:
                tlo, thi, tmove = entry
                if tlo >= beta:
                    return tlo
                if thi <= alpha:
                    return thi
                if tlo == thi:
                    return tlo
                vlo, vhi = max(vlo, tlo), min(vhi, thi)
                if tmove >= 0:
                    first = (tmove & ~15) | SYMMETRIES[g][tmove & 15]
        a = a0 = max(alpha, vlo)
        b = min(beta, vhi)
        best, best_move = -INF, -1
        moves = self.ordered_moves(first) if n > 3 else \
            [(p, c) for c in range(CELLS) if not self.board[c] for p in self.reserve]
        for piece, cell in moves:
            self.place(piece, cell)
            if best_move < 0:
                value = -self.search(-b, -a)
            else:
                value = -self.search(-a - 1, -a)
                if a < value < b:
                    value = -self.search(-b, -value)
            self.unplace(piece, cell)
            if value > best:
                best, best_move = value, (piece << 4) | cell
                if value > a:
                    a = value
                    if a >= b:
                        break
        if store:
            if best <= a0:  # failed low: an upper bound
                lo, hi = vlo, best
            elif best >= b:  # failed high: a lower bound
                lo, hi = best, vhi
            else:
                lo = hi = best
            if entry is not None:
                lo, hi = max(lo, entry[0]), min(hi, entry[1])
            canon_move = (best_move & ~15) | SYMMETRIES[g][best_move & 15]
            if len(self.table) >= self.table_cap and entry is None:
                self._trim()
            self.table[key] = [lo, hi, canon_move]
        return best

    def _trim(self) -> None:
        """Keep the table under its cap: drop the entries nearest the leaves (cheapest to redo)."""
        deep = {k: v for k, v in self.table.items() if sum(1 for g in range(16) if (k >> 5 * g) & 31) < 9}
        self.table = deep if len(deep) < self.table_cap // 2 else {}

    def _table_move(self) -> int:
        key, g = self.canonical()
        entry = self.table.get(key)
        if entry is None or entry[2] < 0:
            return -1
        return (entry[2] & ~15) | SYMMETRIES[g][entry[2] & 15]

