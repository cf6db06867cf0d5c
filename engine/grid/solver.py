"""Perfect and heuristic play for Highway 4x4.

Value convention: the final margin `p2_best - p1_best` seen from Player 1 (seat 0). Both players
want a low best path, so a positive value means Player 1 wins by that many points, zero is a draw
(rule grid.draw) and a negative value means Player 2 wins.

The search is a negamax alpha-beta (principal-variation search: null windows after the first
move) with a transposition table keyed by the board (the reserve follows from it), and a bound
test at every node: with the remaining pieces
sorted, each path's final sum lies between its current sum plus the smallest / largest pieces that
could still fill its empty cells, so each player's final best path, and therefore the margin, lies
in a known interval. When that interval already falls outside the search window the node is cut
without expanding it; when it is a single value the node is solved. A depth-limited search scores
its frontier with the middle of each path's interval (current sum + mean remaining piece per empty
cell): that is the heuristic computer player used when a position is too deep to solve in time.
With one or two empty cells the value is computed directly from the kept path sums.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from engine.core import EngineError
from engine.grid import book
from engine.grid.exact import JIT_FROM, ExactSearch, SearchTimeout
from engine.grid.paths import CELLS, PATHS, cell_name
from engine.grid.state import GridState, Place

INF = 10**9
_EXACT, _LOWER, _UPPER = 0, 1, 2
_CHECK_EVERY = 2048  # nodes between two clock reads
EXACT_REACH = 10  # empty cells up to which a timed search tries the exact solve after its first pass

# For each seat and cell: the indices of that seat's paths through the cell.
_CELL_PATHS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(i for i, p in enumerate(PATHS[seat]) if cell in p) for cell in range(CELLS))
    for seat in (0, 1)
)


# For each seat and cell: 1 for each of that seat's 20 paths through the cell, else 0.
_MEMBER: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(1 if cell in p else 0 for p in PATHS[seat]) for cell in range(CELLS)) for seat in (0, 1)
)


class _Timeout(Exception):
    pass


_OUTCOME_NAMES = {1: "player 1 wins", 0: "draw", -1: "player 2 wins"}


@dataclass(frozen=True)
class SolveResult:
    """The answer of a search. `value` is p2_best - p1_best from Player 1's view (exact when
    `exact`, otherwise the heuristic estimate of the deepest completed search)."""

    value: float
    best: Place | None  # the best move for the player to move (None on a full board)
    exact: bool
    depth: int  # plies searched (== empty cells when exact)
    nodes: int
    seconds: float
    principal: tuple[Place, ...] = field(default=())
    outcome_only: bool = False  # value is only the sign: 1 / 0 / -1 = Player 1 wins / draw / Player 2 wins
    book: bool = False  # answered (or its move taken) from the opening book, engine/grid/book.json

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"outcome": _OUTCOME_NAMES[(self.value > 0) - (self.value < 0)]} \
            if self.outcome_only and self.exact else {}
        return {
            **out,
            "value": self.value,
            "best": self.best.notation() if self.best else None,
            "exact": self.exact,
            "depth": self.depth,
            "nodes": self.nodes,
            "seconds": round(self.seconds, 4),
            "principal": [m.notation() for m in self.principal],
            **({"book": True} if self.book else {}),
        }


def final_margin(board: tuple[int, ...] | list[int]) -> int:
    """p2_best - p1_best of a full board (Player 1's view)."""
    p1 = min(sum(board[c] for c in p) for p in PATHS[0])
    p2 = min(sum(board[c] for c in p) for p in PATHS[1])
    return p2 - p1


class _Search:
    """One search over one position: mutable board, per-path sums and empty counts kept
    incrementally so a move costs a few list updates instead of 40 path sums."""

    def __init__(self, state: GridState, deadline: float | None) -> None:
        self.board = list(state.board)
        self.sums = [[sum(self.board[c] for c in p) for p in PATHS[s]] for s in (0, 1)]
        self.empty = [[sum(1 for c in p if not self.board[c]) for p in PATHS[s]] for s in (0, 1)]
        self.pieces = sorted(state.reserve())
        self.cells = state.empty_cells()
        self.placed = state.placed
        self.deadline = deadline
        self.nodes = 0
        self.tt: dict[bytes, tuple[int, int, float, int]] = {}

    # -- incremental moves ----------------------------------------------------------------
    def _place(self, piece: int, cell: int) -> None:
        self.board[cell] = piece
        for s in (0, 1):
            sums, empty = self.sums[s], self.empty[s]
            for i in _CELL_PATHS[s][cell]:
                sums[i] += piece
                empty[i] -= 1
        self.placed += 1

    def _unplace(self, piece: int, cell: int) -> None:
        self.board[cell] = 0
        for s in (0, 1):
            sums, empty = self.sums[s], self.empty[s]
            for i in _CELL_PATHS[s][cell]:
                sums[i] -= piece
                empty[i] += 1
        self.placed -= 1

    # -- bounds -----------------------------------------------------------------------------
    def _bounds(self) -> tuple[int, int]:
        """(low, high) of the final margin from Player 1's view."""
        pieces = self.pieces
        n = len(pieces)
        lo = [0] * (n + 1)
        hi = [0] * (n + 1)
        for k in range(n):
            lo[k + 1] = lo[k] + pieces[k]
            hi[k + 1] = hi[k] + pieces[n - 1 - k]
        s0, e0, s1, e1 = self.sums[0], self.empty[0], self.sums[1], self.empty[1]
        p1lo = min([s + lo[e] for s, e in zip(s0, e0, strict=True)])
        p1hi = min([s + hi[e] for s, e in zip(s0, e0, strict=True)])
        p2lo = min([s + lo[e] for s, e in zip(s1, e1, strict=True)])
        p2hi = min([s + hi[e] for s, e in zip(s1, e1, strict=True)])
        return p2lo - p1hi, p2hi - p1lo

    def _estimate(self) -> float:
        """Heuristic final margin: every empty cell holds the mean remaining piece."""
        mean = sum(self.pieces) / len(self.pieces) if self.pieces else 0.0
        p1 = min([s + mean * e for s, e in zip(self.sums[0], self.empty[0], strict=True)])
        p2 = min([s + mean * e for s, e in zip(self.sums[1], self.empty[1], strict=True)])
        return p2 - p1

    # -- move ordering ------------------------------------------------------------------------
    def _ordered_moves(self, mover: int, first: int) -> list[tuple[int, int]]:
        """Moves as (piece, cell). A cell matters to a seat in proportion to how many of its
        near-best paths run through it; the mover wants small pieces where it matters to
        itself and large ones where it matters to the opponent."""
        pieces = self.pieces
        n = len(pieces)
        mean = sum(pieces) / n
        weight = [[0.0] * CELLS, [0.0] * CELLS]
        for s in (0, 1):
            est = [v + mean * e for v, e in zip(self.sums[s], self.empty[s], strict=True)]
            floor = min(est)
            for i, p in enumerate(PATHS[s]):
                w = 1.0 / (1.0 + est[i] - floor)
                for c in p:
                    weight[s][c] += w
        own, opp = weight[mover], weight[1 - mover]
        cells = [c for c in self.cells if not self.board[c]]
        scored = []
        for c in cells:
            tilt = opp[c] - own[c]
            for p in pieces:
                scored.append(((p - mean) * tilt, p, c))
        scored.sort(reverse=True)
        moves = [(p, c) for _, p, c in scored]
        if first >= 0:
            fp, fc = first >> 4, first & 15
            if (fp, fc) in moves:
                moves.remove((fp, fc))
                moves.insert(0, (fp, fc))
        return moves

    # -- negamax ------------------------------------------------------------------------------
    def negamax(self, depth: int, alpha: float, beta: float) -> float:
        """Value for the player to move; searches `depth` plies (all of them when depth >= the
        number of empty cells, giving an exact value)."""
        n = len(self.pieces)
        sign = 1 if self.placed % 2 == 0 else -1
        if n == 0:
            return sign * final_margin(self.board)
        self.nodes += 1
        if self.nodes % _CHECK_EVERY == 0 and self.deadline is not None \
                and time.perf_counter() > self.deadline:
            raise _Timeout
        if n <= 2:
            return self._endgame(sign)
        depth = min(depth, n)
        key = bytes(self.board)
        entry = self.tt.get(key)
        first = -1
        if entry is not None:
            edepth, flag, evalue, first = entry
            if edepth >= depth:
                if flag == _EXACT:
                    return evalue
                if flag == _LOWER and evalue >= beta:
                    return evalue
                if flag == _UPPER and evalue <= alpha:
                    return evalue
        mlo, mhi = self._bounds()
        vlo, vhi = (mlo, mhi) if sign > 0 else (-mhi, -mlo)
        if vlo == vhi:
            return vlo
        if vhi <= alpha:
            return vhi
        if vlo >= beta:
            return vlo
        if depth == 0:
            return sign * self._estimate()
        alpha0 = alpha
        best, best_move = -INF, -1
        mover = self.placed % 2
        moves = self._ordered_moves(mover, first) if n > 3 else \
            [(p, c) for c in self.cells if not self.board[c] for p in self.pieces]
        for piece, cell in moves:
            self._place(piece, cell)
            idx = self.pieces.index(piece)
            del self.pieces[idx]
            try:
                if best_move < 0:
                    value = -self.negamax(depth - 1, -beta, -alpha)
                else:
                    # Principal-variation search: prove the move no better than the best so far with
                    # a null window; search it fully only when that proof fails.
                    value = -self.negamax(depth - 1, -alpha - 1, -alpha)
                    if alpha < value < beta:
                        value = -self.negamax(depth - 1, -beta, -value)
            finally:
                self.pieces.insert(idx, piece)
                self._unplace(piece, cell)
            if value > best:
                best, best_move = value, (piece << 4) | cell
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        flag = _UPPER if best <= alpha0 else _LOWER if best >= beta else _EXACT
        self.tt[key] = (depth, flag, best, best_move)
        return best

    def _endgame(self, sign: int) -> float:
        """Exact value with one or two empty cells: at most 2 ways to finish (the mover picks
        which piece goes where; the last piece is forced), from the kept path sums."""
        cells = [c for c in self.cells if not self.board[c]]
        s0, s1 = self.sums
        if len(cells) == 1:
            m0, m1, p = _MEMBER[0][cells[0]], _MEMBER[1][cells[0]], self.pieces[0]
            p1 = min([s + p * a for s, a in zip(s0, m0, strict=True)])
            p2 = min([s + p * a for s, a in zip(s1, m1, strict=True)])
            return sign * (p2 - p1)
        (a, b), (x, y) = self.pieces, cells
        best = -INF
        x0, y0, x1, y1 = _MEMBER[0][x], _MEMBER[0][y], _MEMBER[1][x], _MEMBER[1][y]
        for px, py in ((a, b), (b, a)):
            p1 = min([s + px * mx + py * my for s, mx, my in zip(s0, x0, y0, strict=True)])
            p2 = min([s + px * mx + py * my for s, mx, my in zip(s1, x1, y1, strict=True)])
            best = max(best, sign * (p2 - p1))
        return best

    def principal(self, limit: int) -> list[Place]:
        """The best line from the root: stored exact best moves, re-searched (cheaply, the table
        is warm) where a node was cut before storing one."""
        line: list[Place] = []
        made: list[tuple[int, int]] = []
        while len(line) < limit and self.pieces:
            entry = self.tt.get(bytes(self.board))
            if entry is not None and entry[1] == _EXACT and entry[0] >= len(self.pieces) and entry[3] >= 0:
                piece, cell = entry[3] >> 4, entry[3] & 15
            else:
                _, move = _root_move(self, len(self.pieces))
                piece, cell = move.piece, move.cell
            line.append(Place(piece, cell, self.placed % 2))
            self._place(piece, cell)
            self.pieces.remove(piece)
            made.append((piece, cell))
        for piece, cell in reversed(made):
            self._unplace(piece, cell)
            self.pieces.append(piece)
        self.pieces.sort()
        return line


def _root_move(search: _Search, depth: int) -> tuple[float, Place]:
    """Search every root move with a full window so the chosen move is a true best one."""
    mover = search.placed % 2
    sign = 1 if mover == 0 else -1
    entry = search.tt.get(bytes(search.board))
    first = entry[3] if entry else -1
    best, best_move = -INF, None
    alpha = -INF
    for piece, cell in search._ordered_moves(mover, first):
        search._place(piece, cell)
        idx = search.pieces.index(piece)
        del search.pieces[idx]
        try:
            if best_move is None:
                value = -search.negamax(depth - 1, -INF, -alpha)
            else:  # null window first, as in negamax
                value = -search.negamax(depth - 1, -alpha - 1, -alpha)
                if value > alpha:
                    value = -search.negamax(depth - 1, -INF, -value)
        finally:
            search.pieces.insert(idx, piece)
            search._unplace(piece, cell)
        if value > best:
            best, best_move = value, (piece, cell)
            alpha = value
    assert best_move is not None
    search.tt[bytes(search.board)] = (min(depth, len(search.pieces)), _EXACT, best,
                                      (best_move[0] << 4) | best_move[1])
    return sign * best, Place(best_move[0], best_move[1], mover)


JIT_MIN_BUDGET = 20.0  # s: a first use compiles the search for about that long, whatever the deadline


# Empty cells up to which a timed search tries the exact solve when it is compiled: 12 with a budget
# of JIT_REACH_BUDGET seconds or more (a few seconds at 12), one fewer below it (well under a second
# at 11), so a short budget keeps its heuristic passes where the exact solve would not finish.
JIT_REACH = 12
JIT_REACH_BUDGET = 5.0


def _compiled_ready(deadline: float | None) -> bool:
    """Whether the compiled search (engine/grid/jitsearch.py) can be used within the budget: numba is
    installed and either it was compiled before on this machine (a load of about a second) or the
    budget could absorb a first compile (no deadline, or one at least JIT_MIN_BUDGET away)."""
    from engine.grid import jitsearch

    if not jitsearch.available():
        return False
    return deadline is None or deadline - time.perf_counter() >= JIT_MIN_BUDGET or jitsearch.cached()


def _exact_search(state: GridState, deadline: float | None) -> Any:
    """The compiled search where it is ready (`_compiled_ready`) and the position is deep enough to
    pay for it; else the pure-Python one. Both give the same answers (tests)."""
    if len(state.empty_cells()) < JIT_FROM:  # not worth numba's import and load
        return ExactSearch(state.board, deadline=deadline)
    from engine.grid import jitsearch

    if _compiled_ready(deadline):
        return jitsearch.JitSearch(state.board, deadline=deadline)
    return ExactSearch(state.board, deadline=deadline)


def _exact(state: GridState, deadline: float | None, outcome: bool) -> SolveResult:
    """The exact search of engine/grid/exact.py (symmetry-keyed bound table, null-window probes):
    the margin, or with `outcome` only who wins. Raises SearchTimeout past the deadline."""
    start = time.perf_counter()
    search = _exact_search(state, deadline)
    sign = 1 if state.placed % 2 == 0 else -1
    value = search.outcome() if outcome else search.exact_value()
    search.deadline = None  # the line of a finished search is cheap: the table is warm
    if outcome:
        line = [search.keeping_outcome(value)]
    else:
        line = search.principal(value)
    mover = state.placed % 2
    moves = tuple(Place(p, c, (mover + k) % 2) for k, (p, c) in enumerate(line))
    n = len(state.empty_cells())
    return SolveResult(sign * value, moves[0], True, n, search.nodes, time.perf_counter() - start, moves,
                       outcome)


def solve(state: GridState, time_limit: float | None = None, max_depth: int | None = None,
          outcome: bool = False) -> SolveResult:
    """Best move and value of `state`. Without `time_limit` the search goes straight to the exact
    value. With `time_limit` (seconds) it first completes a 2-ply heuristic pass (a move is always
    ready), then tries the exact search when at most EXACT_REACH cells are empty (JIT_REACH where
    the compiled search is ready), otherwise deepens 2 plies per pass; at the deadline it returns
    the deepest completed pass (exact=False unless it reached the end). `max_depth` caps the plies
    (a fixed-strength computer player). With `outcome` the exact search settles only who wins
    (value 1, 0 or -1 from Player 1's view), which is much faster than the margin. A position in
    the opening book (engine/grid/book.py) is answered from it when the book holds what is asked
    (book=True); where it holds only the outcome, a margin search keeps the book's move and bound."""
    if not isinstance(state, GridState):
        raise EngineError(f"the 4x4 solver needs a highway-grid state, got {type(state).__name__}")
    start = time.perf_counter()
    n = len(state.empty_cells())
    if n == 0:
        value = final_margin(state.board)
        return SolveResult((value > 0) - (value < 0) if outcome else value, None, True, 0, 0, 0.0,
                           outcome_only=outcome)
    deadline = start + time_limit if time_limit is not None else None
    entry = book.lookup(state.board) if max_depth is None else None
    mover = state.placed % 2
    if entry is not None and entry.best is not None:
        move = Place(entry.best[0], entry.best[1], mover)
        known = entry.outcome if outcome else entry.value
        if known is not None:  # proved: no search
            return SolveResult(known, move, True, n, 0, time.perf_counter() - start, (move,), outcome, True)
    if max_depth is None and (time_limit is None or outcome):
        try:
            return _exact(state, deadline, outcome)
        except SearchTimeout:
            pass  # fall through to the heuristic passes (only reached with a time limit)
    search = _Search(state, deadline)
    target = n if max_depth is None else max(1, min(n, max_depth))
    reach = EXACT_REACH
    if n > EXACT_REACH and _compiled_ready(deadline):  # else the reach does not matter
        reach = JIT_REACH if deadline is None or deadline - start >= JIT_REACH_BUDGET else JIT_REACH - 1
    result: SolveResult | None = None
    depth = min(2, target)
    while True:
        try:
            if depth >= n:
                result = _exact(state, deadline, outcome=False)
                break
            value, move = _root_move(search, depth)
        except (_Timeout, SearchTimeout):
            break
        result = SolveResult(value, move, False, depth, search.nodes, time.perf_counter() - start)
        if depth >= target:
            break
        # Shallow heuristic passes only pay off where the exact search is out of reach; up to
        # EXACT_REACH empty cells (JIT_REACH with the compiled search) go from the 2-ply safety
        # pass straight to the exact search.
        depth = target if target <= reach else min(target, depth + 2)
    if result is None:
        # Not even the first pass finished: fall back to the static ordering's first move.
        mover = search.placed % 2
        piece, cell = search._ordered_moves(mover, -1)[0]
        est = search._estimate()
        result = SolveResult(est, Place(piece, cell, mover), False, 0, search.nodes,
                             time.perf_counter() - start)
    if result.exact:
        return result
    if entry is not None and entry.best is not None and entry.at_least is not None:
        # Only a bound is proved here: the estimate, kept within it, with the book's move, which
        # keeps the proved outcome (a heuristic move may not).
        move = Place(entry.best[0], entry.best[1], mover)
        return SolveResult(max(result.value, entry.at_least), move, False, result.depth, search.nodes,
                           time.perf_counter() - start, (move,), book=True)
    return SolveResult(result.value, result.best, False, result.depth, search.nodes,
                       time.perf_counter() - start, (result.best,) if result.best else ())


def solve_previous(state: GridState) -> SolveResult:
    """The exact search this module used before engine/grid/exact.py: principal-variation search
    with a depth-flag table keyed by the plain board. Kept as the benchmark's baseline."""
    start = time.perf_counter()
    n = len(state.empty_cells())
    if n == 0:
        return SolveResult(final_margin(state.board), None, True, 0, 0, 0.0)
    search = _Search(state, None)
    value, move = _root_move(search, n)
    return SolveResult(value, move, True, n, search.nodes, time.perf_counter() - start)


def hint(state: GridState, time_limit: float | None = None) -> tuple[Place | None, float]:
    """(best move for the player to move, its value p2_best - p1_best from Player 1's view)."""
    result = solve(state, time_limit)
    return result.best, result.value


def computer_move(state: GridState, time_budget: float = 1.0) -> Place:
    """A computer player: the exact best move when the position solves within the budget,
    otherwise the best move of the deepest heuristic search that finished."""
    result = solve(state, time_budget)
    if result.best is None:
        raise EngineError("the board is full: there is no move to make")
    return result.best


def brute_force_value(state: GridState, memo: dict[tuple[int, ...], int] | None = None) -> int:
    """Plain minimax over every move, no pruning: the reference the tests check the solver against.
    Only for a handful of empty cells. A board reached by two move orders is valued once (`memo`,
    board -> value; pass one dict to share it between calls): the board alone decides the value, and
    at 6 empty cells the 1.2 million move sequences reach only 13,327 boards."""
    memo = {} if memo is None else memo
    value = memo.get(state.board)
    if value is None:
        if state.is_terminal():
            value = final_margin(state.board)
        else:
            values = [brute_force_value(state.apply(a), memo) for a in state.legal_actions()]
            value = max(values) if state.current_player() == 0 else min(values)
        memo[state.board] = value
    return value


def describe(value: float) -> str:
    """A value in words, e.g. 'Player 1 wins by 3'."""
    if value == 0:
        return "draw"
    who = "Player 1" if value > 0 else "Player 2"
    amount = abs(value)
    text = f"{amount:g}" if float(amount).is_integer() else f"{amount:.1f}"
    return f"{who} wins by {text}"


__all__ = ["SolveResult", "brute_force_value", "computer_move", "describe", "final_margin", "hint",
           "solve", "solve_previous", "cell_name"]
