"""The exact 4x4 search (engine/grid/exact.py): its symmetries, margins and win/draw/loss answers
against plain minimax, the previous search, and the `grid solve --outcome` command."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from test_grid_solver import random_position

from engine.grid import PATHS, GridState
from engine.grid.exact import SWAPPING, SYMMETRIES, ExactSearch
from engine.grid.solver import brute_force_value, final_margin, solve, solve_previous

ROOT = Path(__file__).resolve().parent.parent
# The first compiled search of a fresh checkout compiles it (numba, about half a minute on an idle
# machine, past the suite's 300 s default on a heavily loaded one): hangs are still caught, later.
pytestmark = pytest.mark.timeout(1200)


def compiled_search():
    """The compiled search module, or the test skipped where numba (the `fast` extra) is missing."""
    jitsearch = pytest.importorskip("engine.grid.jitsearch")
    if not jitsearch.available():
        pytest.skip("numba is not installed (the optional `fast` extra)")
    return jitsearch


def _brute_children(state: GridState) -> tuple[dict[tuple[int, int], int], int]:
    """Each move's (piece, cell) value for the player to move, by plain minimax, and the best of them."""
    sign = 1 if state.placed % 2 == 0 else -1
    memo: dict[tuple[int, ...], int] = {}  # the children share most of their grandchildren
    children = {(a.piece, a.cell): sign * brute_force_value(state.apply(a), memo) for a in state.legal_actions()}
    return children, max(children.values())


def _paths(g: tuple[int, ...], seat: int) -> set[frozenset[int]]:
    return {frozenset(g[c] for c in p) for p in PATHS[seat]}


def test_which_symmetries_keep_each_players_paths():
    own = [set(map(frozenset, PATHS[0])), set(map(frozenset, PATHS[1]))]
    for g in SYMMETRIES:
        assert _paths(g, 0) == own[0] and _paths(g, 1) == own[1]
    for g in SWAPPING:
        assert _paths(g, 0) == own[1] and _paths(g, 1) == own[0]
    assert len({*SYMMETRIES, *SWAPPING}) == 8


def test_symmetric_positions_have_the_same_value():
    rng = random.Random(5)
    for _ in range(3):
        state = random_position(rng, 4)
        value = brute_force_value(state)
        for g in SYMMETRIES:
            board = [0] * 16
            for c, v in enumerate(state.board):
                board[g[c]] = v
            assert brute_force_value(GridState(tuple(board))) == value


@pytest.mark.parametrize("empties,count", [(2, 10), (3, 12), (4, 8), (5, 1)])
def test_margin_and_outcome_match_brute_force(empties, count):
    rng = random.Random(40 + empties)
    for _ in range(count):
        state = random_position(rng, empties)
        want = brute_force_value(state)
        exact = solve(state)
        assert exact.exact and exact.value == want
        assert brute_force_value(state.apply(exact.best)) == want
        line = state
        for move in exact.principal:
            line = line.apply(move)
        assert line.is_terminal() and final_margin(line.board) == want
        wdl = solve(state, outcome=True)
        sign = (want > 0) - (want < 0)
        assert wdl.exact and wdl.outcome_only and wdl.value == sign
        after = brute_force_value(state.apply(wdl.best))
        assert (after > 0) - (after < 0) == sign  # the named move keeps the outcome


def test_new_search_agrees_with_the_previous_one():
    rng = random.Random(8)
    for empties in (6, 7):
        for _ in range(3):
            state = random_position(rng, empties)
            assert solve(state).value == solve_previous(state).value


def test_a_tiny_table_gives_the_same_values():
    rng = random.Random(3)
    for _ in range(4):
        state = random_position(rng, 6)
        small = ExactSearch(state.board, table_cap=20)
        big = ExactSearch(state.board)
        assert small.exact_value() == big.exact_value()
        assert small.outcome() == big.outcome()


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "referee_app", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)


def test_grid_solve_outcome_on_the_command_line():
    state = random_position(random.Random(12), 4)
    text = " ".join(str(v) if v else "." for v in state.board)
    proc = _cli("grid", "solve", text, "--outcome", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    want = brute_force_value(state)
    assert out["exact"] is True
    assert out["outcome"] == {1: "player 1 wins", 0: "draw", -1: "player 2 wins"}[(want > 0) - (want < 0)]
    plain = _cli("grid", "solve", text, "--outcome")
    assert plain.returncode == 0 and "outcome:" in plain.stdout


def test_compiled_search_agrees_with_the_python_one():
    """engine/grid/jitsearch.py (numba, optional) against engine/grid/exact.py: margins, outcomes,
    moves that keep them, and a deadline that stops it."""
    jitsearch = compiled_search()
    from engine.grid.exact import SearchTimeout

    rng = random.Random(21)
    for empties in (1, 2, 5, 7, 8):
        for _ in range(2):
            state = random_position(rng, empties)
            want = ExactSearch(state.board).exact_value()
            fast = jitsearch.JitSearch(state.board, table_bits=12)  # a small table: slots get reused
            assert fast.exact_value() == want
            assert jitsearch.JitSearch(state.board, table_bits=12).outcome() == (want > 0) - (want < 0)
            piece, cell = fast.keeping_move(want)
            child = list(state.board)
            child[cell] = piece
            if empties > 1:  # the named move keeps the value
                assert -ExactSearch(child).exact_value() == want
    deep = jitsearch.JitSearch([0] * 16, deadline=0.0001, table_bits=12)
    with pytest.raises(SearchTimeout):
        deep.outcome()


_NO_OBJMODE = r"""
import time
import numba.core.serialize as ser
sizes = []
orig = ser._numba_unpickle
ser._numba_unpickle = lambda address, data, hashed: sizes.append(len(data)) or orig(address, data, hashed)
from engine.grid import jitsearch
jitsearch.JitSearch([1, 2, 3, 4, 5, 6, 7, 8] + [0] * 8).exact_value()  # loads the compiled search
board = [0, 0, 0, 6, 0, 12, 9, 0, 0, 0, 0, 0, 11, 0, 0, 0]
del sizes[:]
search = jitsearch.JitSearch(board)
search.exact_value()
print(search.nodes, len(sizes))
search = jitsearch.JitSearch(board, deadline=time.perf_counter() + 3600)
search.exact_value()
print(search.nodes, max(sizes))
"""


def test_compiled_search_reads_the_clock_cheaply():
    """The deadline check: numba's first object-mode call in a process unpickles the lifted block
    with the IR of the function around it, about 2 MB inside _search (about 0.14 s, a sixth of
    the hardest 12-empty solve; main paid it in every process's first search past 65,536 nodes,
    timed or not). Now a search without a deadline never reads the clock (nothing unpickled), and
    a timed one reads it in a small function of its own (_past: under 200 kB). Run in a fresh
    process: an earlier timed search would have unpickled it already."""
    compiled_search()
    out = subprocess.run([sys.executable, "-c", _NO_OBJMODE], capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=1200)
    assert out.returncode == 0, out.stderr
    (nodes, unpickled), (timed_nodes, largest) = (map(int, line.split()) for line in out.stdout.split("\n")[:2])
    assert nodes == timed_nodes > 65536  # both searches got past the first clock check
    assert unpickled == 0
    assert largest < 200_000

def _lopsided(rng: random.Random, empties: int) -> GridState:
    """Small pieces along one path of each player, large ones elsewhere: most paths can no longer
    be a best path, so many empty cells lie on the same live paths (the compiled search keeps one
    cell of each such kind)."""
    a, b = rng.choice(PATHS[0]), rng.choice(PATHS[1])
    cells = sorted(range(16), key=lambda c: (c not in a and c not in b, rng.random()))
    board = [0] * 16
    for piece, cell in zip(range(1, 17), cells, strict=True):
        board[cell] = piece
    for cell in rng.sample(range(16), empties):
        board[cell] = 0
    return GridState(tuple(board))


def test_compiled_endgame_and_merged_cells_match_brute_force():
    """The compiled search fills the last three cells directly and tries one cell of each set of
    empty cells on the same live paths; both against plain minimax, on positions where merging
    happens (checked: fewer cells among the moves than empty cells)."""
    jitsearch = compiled_search()
    rng = random.Random(77)
    merged = 0
    for empties, count in ((1, 6), (2, 10), (3, 16), (4, 12), (5, 2)):
        for i in range(count):
            state = _lopsided(rng, empties) if i % 2 else random_position(rng, empties)
            want = brute_force_value(state)
            search = jitsearch.JitSearch(state.board, table_bits=10)
            sign = 1 if state.placed % 2 == 0 else -1
            assert sign * search.exact_value() == want, state.board
            assert jitsearch.JitSearch(state.board, table_bits=10).outcome() == sign * ((want > 0) - (want < 0))
            if empties >= 2:
                cells = {c for _, c in search.ordered_moves(-1)}
                merged += len(cells) < empties
    assert merged >= 5


def test_grid_solve_with_a_time_limit_answers_exactly_at_twelve_empty_cells():
    """Where the compiled search is ready, `grid solve` (which always has a time limit) goes from
    its 2-ply pass straight to the exact search up to JIT_REACH empty cells, instead of deepening
    heuristic passes two plies at a time; the margin agrees with a fresh search and its best line."""
    jitsearch = compiled_search()
    state = random_position(random.Random(1), 12)
    text = " ".join(str(v) if v else "." for v in state.board)
    proc = _cli("grid", "solve", text, "--json", "--time", "600")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    sign = 1 if state.placed % 2 == 0 else -1
    assert out["exact"] is True and out["depth"] == 12
    assert out["value"] == sign * jitsearch.JitSearch(state.board).exact_value()
    line = state
    for notation in out["principal"]:  # the best line it prints ends on that margin
        line = line.apply(next(a for a in line.legal_actions() if a.notation() == notation))
    assert line.is_terminal() and final_margin(line.board) == out["value"]


def test_compiled_pair_bounds_hold_every_filling_and_are_tighter():
    """The pair bounds of the compiled search contain the margin of every way to fill the empty
    cells, and are never looser than the per-path bounds (strictly tighter on some positions)."""
    jitsearch = compiled_search()
    import itertools

    rng = random.Random(31)
    tighter = 0
    for i in range(24):
        state = random_position(rng, 4 + i % 3) if i % 2 else _lopsided(rng, 4 + i % 3)
        empty = state.empty_cells()
        margins = []
        for pieces in itertools.permutations(state.reserve()):
            board = list(state.board)
            for c, p in zip(empty, pieces, strict=True):
                board[c] = p
            margins.append(final_margin(board))
        search = jitsearch.JitSearch(state.board, table_bits=4)
        tables = jitsearch._tables()
        low, high = jitsearch._pair_bounds(search.st, search.sums, search.emp, *tables, search.eg[32:])
        plain_low, plain_high = search.margin_bounds()
        assert low <= min(margins) and high >= max(margins), state.board
        assert plain_low <= low and high <= plain_high
        tighter += (plain_low, plain_high) != (low, high)
    assert tighter >= 5


def test_piece_swap_bound_holds_and_the_search_that_skips_by_it_is_exact():
    """The compiled search skips a move (q, c) when an earlier (p, c) of the same node is at least
    2|p - q| below its window: swapping p and q everywhere in the rest of the game moves every path
    sum by at most |p - q|, so each best path too and the margin by at most twice that. The lemma
    against plain minimax, then the search that uses it against plain minimax and the Python search
    (which does not), on positions where it skips."""
    compiled_search()
    from engine.grid import Place

    rng = random.Random(64)
    for _ in range(2):
        state = random_position(rng, 4)
        for cell in state.empty_cells():
            values = {p: brute_force_value(state.apply(Place(p, cell))) for p in state.reserve()}
            for p in values:
                for q in values:
                    assert abs(values[p] - values[q]) <= 2 * abs(p - q)
    assert _exact_while_skipping(rng, ((4, 6), (5, 4), (6, 4), (7, 3)), 20) >= 10


def test_one_sided_piece_swap_bound_holds_and_is_reached():
    """The compiled search's piece swap slack (_swap_slack): (p + d, c) is worth at most |d| more to
    the mover than (p, c), 2|d| only where c is on a live path of the side the swap makes worse off
    (the opponent's for a larger piece, the mover's for a smaller). Against plain minimax on every
    pair of pieces on every cell; the one-|d| case is reached exactly (a slack one point smaller
    would be wrong), and the search that skips by it is exact."""
    jitsearch = compiled_search()
    from engine.grid import Place

    plo, phi = jitsearch._tables()
    rng = random.Random(2412)
    reached = {1: 0, 2: 0}  # slack factor -> cases where the gain equals the slack
    for i in range(40):
        state = _lopsided(rng, 4) if i % 2 else random_position(rng, 4)
        search = jitsearch.JitSearch(state.board, table_bits=10)
        mover = state.placed % 2
        sign = 1 if mover == 0 else -1
        args = (search.st, search.sums, search.emp, plo, phi)
        own, opp = jitsearch._live(*args, mover), jitsearch._live(*args, 1 - mover)
        for cell in state.empty_cells():
            values = {p: sign * brute_force_value(state.apply(Place(p, cell))) for p in state.reserve()}
            for p in values:
                for q in values:
                    if p == q:
                        continue
                    slack = int(jitsearch._swap_slack(own, opp, mover, cell, q - p))
                    assert slack in (abs(q - p), 2 * abs(q - p))
                    assert values[q] - values[p] <= slack, (state.board, cell, p, q)
                    if values[q] - values[p] == slack:
                        reached[slack // abs(q - p)] += 1
    assert reached[1] >= 1
    assert _exact_while_skipping(rng, ((4, 6), (5, 4), (6, 4), (7, 3)), 20) >= 10


def test_enhanced_transposition_cutoff_is_exact():
    """With JitSearch(etc=True) a node from ETC_FROM empty cells first looks its children up in the
    table and stops at once when an entry already proves a cut-off (_child_cut): the search that
    does so against the previous search, on positions where it happens, and the cut-off value
    against the child's own search."""
    jitsearch = compiled_search()
    rng = random.Random(77)
    cuts = 0
    for i in range(4):  # from 6 empty cells here (ETC_FROM is higher), where 8-empty searches reach it
        state = _lopsided(rng, 8) if i % 2 else random_position(rng, 8)
        want = solve_previous(state).value
        sign = 1 if state.placed % 2 == 0 else -1
        for probe in ("exact_value", "outcome"):
            # the cut look off: at 6-7 empty cells it settles first the nodes this test needs
            search = jitsearch.JitSearch(state.board, table_bits=10, etc=True, cut_look=None)
            search.st[24] = 6
            got = getattr(search, probe)()
            assert sign * got == (want if probe == "exact_value" else (want > 0) - (want < 0)), state.board
            cuts += int(search.st[23])
    assert cuts >= 1
    # a child's exact entry turns into a cut-off at its parent exactly when it reaches beta
    state = random_position(rng, 7)
    search = jitsearch.JitSearch(state.board, table_bits=12)
    value = search.exact_value()
    moves = np.array([p * 16 + c for p, c in search.ordered_moves()], np.int64)
    found = False
    for move in moves:
        search.place(int(move) >> 4, int(move) & 15)
        child = search.exact_value()
        search.unplace(int(move) >> 4, int(move) & 15)
        cut, cm = jitsearch._child_cut(search.zk, search.tt, np.array([move]), 1, -child)
        assert (cut, cm) == (-child, move)
        cut, cm = jitsearch._child_cut(search.zk, search.tt, np.array([move]), 1, -child + 1)
        assert cm == -1
        found = found or -child == value
    assert found


def test_commuting_reply_bound_holds_and_the_search_that_skips_by_it_is_exact():
    """The compiled search skips every move on another cell with another piece than an opponent's
    reply r when the bounds of the board with r alone keep the mover at or below alpha: the
    placements commute, so the board after (m, r) is one of r's fillings. The lemma against plain
    minimax (a move's value never exceeds the highest margin of any filling after the reply), then
    the search that uses it against plain minimax and the previous search, on positions where it
    skips (a wrong bound, e.g. the reply's board read without r, would change values here)."""
    compiled_search()
    import itertools

    from engine.grid import Place

    def filling_range(state: GridState) -> tuple[int, int]:
        margins = []
        for pieces in itertools.permutations(state.reserve()):
            board = list(state.board)
            for c, p in zip(state.empty_cells(), pieces, strict=True):
                board[c] = p
            margins.append(final_margin(board))
        return min(margins), max(margins)

    rng = random.Random(91)
    for _ in range(2):
        state = random_position(rng, 4)
        sign = 1 if state.placed % 2 == 0 else -1
        for reply in list(state.legal_actions())[::3]:
            low, high = filling_range(state.apply(Place(reply.piece, reply.cell)))
            cap = high if sign > 0 else -low  # the mover's best over the fillings after the reply
            for move in state.legal_actions():
                if move.cell != reply.cell and move.piece != reply.piece:
                    assert sign * brute_force_value(state.apply(move)) <= cap
    assert _exact_while_skipping(rng, ((4, 8), (5, 6), (6, 4), (7, 3), (8, 2)), 21) >= 20


def _exact_while_skipping(rng: random.Random, plan: tuple[tuple[int, int], ...], counter: int,
                          game_pair: bool = False, etc: bool = False) -> int:
    """The compiled search's margin and outcome against plain minimax (up to 5 empty cells) or the
    previous search, on `count` positions of each `empties` in plan (every other one lopsided, where
    bounds skip most); returns how many moves its st[counter] says were skipped."""
    import engine.grid.jitsearch as jitsearch

    skipped = 0
    for empties, count in plan:
        for i in range(count):
            state = _lopsided(rng, empties) if i % 2 else random_position(rng, empties)
            want = brute_force_value(state) if empties <= 5 else solve_previous(state).value
            search = jitsearch.JitSearch(state.board, table_bits=10, game_pair=game_pair, etc=etc)
            sign = 1 if state.placed % 2 == 0 else -1
            assert sign * search.exact_value() == want, state.board
            outcome = jitsearch.JitSearch(state.board, table_bits=10, game_pair=game_pair, etc=etc).outcome()
            assert outcome == sign * ((want > 0) - (want < 0))
            skipped += int(search.st[counter])
    return skipped


def _greedy_brute(pool: tuple[int, ...], empty: int, other: int, owner_next: bool) -> int:
    """The most a path with `empty` empty cells ends up adding when its owner always puts the
    smallest piece left on it, against every answer of the other player (any piece, on the path or
    on one of the `other` cells)."""
    if empty == 0:
        return 0
    if owner_next:
        rest = pool[1:]
        return pool[0] + _greedy_brute(rest, empty - 1, other, False)
    best = -1
    for k, piece in enumerate(pool):
        rest = pool[:k] + pool[k + 1:]
        best = max(best, piece + _greedy_brute(rest, empty - 1, other, True))
        if other:
            best = max(best, _greedy_brute(rest, empty, other - 1, True))
    return best


def test_greedy_table_matches_every_answer_of_the_other_player():
    """The compiled search's game bounds rest on a table that tries only two answers of the other
    player (the largest piece on the path, or starving the owner of its smallest piece first); it
    must equal the most that any sequence of answers achieves."""
    jitsearch = compiled_search()
    gt = jitsearch._greedy((1 << 17) - 2)
    rng = random.Random(12)
    for _ in range(400):
        pool = tuple(sorted(rng.sample(range(1, 17), rng.randint(1, 8))))
        empty = rng.randint(1, min(7, len(pool)))
        owner = rng.randint(0, 1)
        mask = sum(1 << p for p in pool)
        assert gt[mask, empty, owner] == _greedy_brute(pool, empty, len(pool) - empty, owner == 1), pool


def test_game_bounds_hold_against_minimax_and_are_tighter():
    """The game bounds (a player who fills one path greedily caps their best path by the greedy
    table) contain the minimax margin, are never looser than the per-path bounds and strictly
    tighter on some positions. They bound the game, not every filling (some filling lies outside
    them), which is why the commuting replies, whose board is reached by another move order, keep
    the filling bounds."""
    jitsearch = compiled_search()
    import itertools

    rng = random.Random(57)
    tighter = outside = 0
    for i in range(30):
        empties = 4 + i % 2
        state = random_position(rng, empties) if i % 3 else _lopsided(rng, empties)
        want = brute_force_value(state)
        search = jitsearch.JitSearch(state.board, table_bits=4)
        plo, phi = jitsearch._tables()
        low, high = jitsearch._game_bounds(search.st, search.sums, search.emp, plo, phi, search.gt)
        plain_low, plain_high = search.margin_bounds()
        assert low <= want <= high, state.board
        assert plain_low <= low and high <= plain_high
        tighter += (low, high) != (plain_low, plain_high)
        margins = []
        for pieces in itertools.permutations(state.reserve()):
            board = list(state.board)
            for c, p in zip(state.empty_cells(), pieces, strict=True):
                board[c] = p
            margins.append(final_margin(board))
        outside += min(margins) < low or max(margins) > high
    assert tighter >= 10 and outside >= 5


def test_four_cell_endgame_answers_every_window():
    """The compiled search solves four empty cells directly (24 fillings): against plain minimax
    through null windows on both sides of the value (a fail-high returns a lower bound, a fail-low
    an upper bound), and the move it names keeps the value."""
    jitsearch = compiled_search()
    from engine.grid import Place

    rng = random.Random(44)
    for i in range(10):
        state = _lopsided(rng, 4) if i % 2 else random_position(rng, 4)
        sign = 1 if state.placed % 2 == 0 else -1
        value = sign * brute_force_value(state)  # the mover's view, as inside the search
        for alpha in range(value - 3, value + 3):
            got = jitsearch.JitSearch(state.board, table_bits=4).search(alpha, alpha + 1)
            assert (got > alpha) == (value > alpha), (state.board, alpha)
            assert value <= got if got <= alpha else alpha < got <= value
        search = jitsearch.JitSearch(state.board, table_bits=4)
        assert search.exact_value() == value
        piece, cell = search.keeping_move(value)
        assert sign * brute_force_value(state.apply(Place(piece, cell))) == value


def _gpair_brute(pool: tuple[int, ...], kinds: tuple[str, ...], seat: int) -> int:
    """The least (sum on the 'oth' cells) - (sum on the 'own' cells) over every way to place the
    pieces in `pool` on the empty cells `kinds` ('own', 'oth', 'sh' or 'rest'), turn by turn from
    seat (16 - len(pool)) % 2, where `seat`, while an 'own' or 'sh' cell is empty, places the
    smallest piece left on one of those."""
    if not pool:
        return 0
    mover = (16 - len(pool)) % 2
    forced = mover == seat and any(k in ("own", "sh") for k in kinds)
    best = None
    for k, piece in enumerate(pool):
        if forced and piece != min(pool):
            continue
        rest = pool[:k] + pool[k + 1:]
        for c, kind in enumerate(kinds):
            if forced and kind not in ("own", "sh"):
                continue
            gain = {"own": -piece, "oth": piece}.get(kind, 0)
            value = gain + _gpair_brute(rest, kinds[:c] + kinds[c + 1:], seat)
            best = value if best is None else min(best, value)
    assert best is not None
    return best


def test_game_pair_table_matches_every_continuation():
    """_gpair (the game's pair bounds' table, memoised over counts of cells of each kind) against
    every continuation on explicit cells."""
    jitsearch = compiled_search()
    rng = random.Random(14)
    for _ in range(150):
        pool = tuple(sorted(rng.sample(range(1, 17), rng.randint(1, 6))))
        kinds = tuple(rng.choice(("own", "oth", "sh", "rest")) for _ in pool)
        seat = rng.randint(0, 1)
        mask = sum(1 << p for p in pool)
        gp, gix = jitsearch._game_pair_memo(mask, True)
        got = jitsearch._gpair(gp, gix, mask, kinds.count("own"), kinds.count("oth"), kinds.count("sh"), seat)
        assert got == _gpair_brute(pool, kinds, seat), (pool, kinds, seat)


def test_game_pair_bounds_hold_against_minimax_and_are_tighter():
    """The game's pair bounds (Player 1 putting the smallest piece left on one of its paths keeps
    the margin at least min over Player 2's paths of _gpair's; the same for Player 2) contain the
    minimax margin and are never looser than the filling pair bounds or the game bounds. Many are
    met exactly (a bound one point tighter would exclude the value: the test would fail), and some
    are strictly tighter than both."""
    jitsearch = compiled_search()
    rng = random.Random(58)
    tighter = met = 0
    for i in range(40):
        empties = 4 + i % 2
        state = random_position(rng, empties) if i % 3 else _lopsided(rng, empties)
        want = brute_force_value(state)
        search = jitsearch.JitSearch(state.board, table_bits=4, game_pair=True)
        plo, phi = jitsearch._tables()
        args = (search.st, search.sums, search.emp, plo, phi)
        low, high = jitsearch._game_pair_bounds(*args, search.eg[32:], search.gp, search.gix)
        assert low <= want <= high, state.board
        game_low, game_high = jitsearch._game_bounds(*args, search.gt)
        pair_low, pair_high = jitsearch._pair_bounds(*args, search.eg[32:])
        assert low >= max(game_low, pair_low) and high <= min(game_high, pair_high), state.board
        tighter += (low, high) != (max(game_low, pair_low), min(game_high, pair_high))
        met += (low == want) + (high == want)
    assert tighter >= 5 and met >= 10


def test_search_with_the_game_pair_bounds_is_exact():
    """The compiled search asked to stop nodes by the game's pair bounds (from GAME_PAIR_FROM empty
    cells; off by default, being slower) against the previous search, on positions where it stops
    some."""
    jitsearch = compiled_search()
    rng = random.Random(63)
    assert _exact_while_skipping(rng, ((7, 4), (8, 4), (9, 2)), 22, game_pair=True) >= 20
    assert jitsearch.JitSearch([0] * 4 + list(range(1, 13))).gp.shape[0] == 0  # off unless asked for


def test_search_without_codes_below_the_table_is_exact_and_restores_them():
    """Nodes below STORE_FROM empty cells place their moves without updating the Zobrist codes
    (they are never looked up in the table): on positions of 5 to 8 empty cells the compiled search
    (a small table, so slots are overwritten and a stale code would be read) equals the Python
    search, a margin one point off would fail, and the codes after a search are the board's own."""
    jitsearch = compiled_search()
    rng = random.Random(505)
    for empties in (5, 6, 6, 7, 7, 8) * 4:
        state = random_position(rng, empties) if rng.random() < 0.5 else _lopsided(rng, empties)
        want = ExactSearch(state.board).exact_value()
        fast = jitsearch.JitSearch(state.board, table_bits=8)
        assert fast.exact_value() == want, state.board
        assert fast.search(want - 1, want) >= want and fast.search(want, want + 1) <= want  # not one off
        assert np.array_equal(fast.zk, jitsearch.JitSearch(state.board, table_bits=8).zk)


def test_softer_move_order_search_gives_the_value_and_a_best_move():
    """The compiled search's move order weighs paths by 1 / (ORDER_SOFTNESS + gap): the order only
    decides what is searched first, so the values and the moves it names must stay those of plain
    minimax (5 empty cells: the full set of best moves) and of the previous search (8 empty cells,
    where `solve` runs the compiled search; the move's position re-solved by the previous search)."""
    jitsearch = compiled_search()
    from engine.grid import Place

    rng = random.Random(2024)
    for i in range(6):
        state = _lopsided(rng, 5) if i % 2 else random_position(rng, 5)
        children, value = _brute_children(state)
        search = jitsearch.JitSearch(state.board, table_bits=10)
        assert search.exact_value() == value, state.board
        assert children[search.principal(value)[0]] == value, state.board
    for _ in range(3):
        state = random_position(rng, 8)
        got = solve(state)
        assert got.exact and got.value == solve_previous(state).value, state.board
        child = state.apply(Place(got.best.piece, got.best.cell))
        assert solve_previous(child).value == got.value, state.board


def test_softer_move_order_visits_fewer_nodes_at_twelve_empty_cells():
    """The softer path weights of the move order are what make a 12-empty search cheaper: on a
    fixed position (bench/grid_ab.py --seed 1, position 34) the search before them visited 668,381
    nodes to its margin, and now visits about a third of that (a node count, deterministic; never a
    time). The margin is the one the search before them found (bench/results)."""
    jitsearch = compiled_search()
    board = (3, 14, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 4, 0, 0, 0)
    search = jitsearch.JitSearch(board)
    assert search.exact_value() == 3
    assert search.nodes < 400_000


def test_bound_order_cut_is_a_true_bound_of_the_move():
    """_bound_order ends a node when a child's game bounds already put the mover at or above beta:
    the value it returns must be at most what plain minimax gives that move, and a beta one above
    that move's true value must never be cut by it."""
    jitsearch = compiled_search()
    rng = random.Random(4242)
    cuts = 0
    for i in range(8):
        state = _lopsided(rng, 5) if i % 2 else random_position(rng, 5)
        sign = 1 if state.placed % 2 == 0 else -1
        search = jitsearch.JitSearch(state.board, table_bits=8)
        plo, phi = jitsearch._tables()
        for action in state.legal_actions():
            move = np.array([action.piece * 16 + action.cell], np.int64)
            true = sign * brute_force_value(state.apply(action))
            for beta in range(true - 6, true + 2):
                score = np.zeros(1)
                cut, cm = jitsearch._bound_order(search.st, search.sums, search.emp, plo, phi, search.gt,
                                                 move, score, 1, beta, sign, np.zeros(160, np.int64))
                if cm >= 0:
                    assert beta <= cut <= true, (state.board, action, beta)
                    cuts += 1
                assert beta <= true or cm < 0, (state.board, action, beta)
    assert cuts >= 1


def test_cut_look_is_a_true_bound_of_the_move():
    """_cut_look ends an expected cut-node when a child's game bounds already put the mover at or
    above beta: the value it returns must be at least beta and at most what plain minimax gives the
    move it names, equal to _bound_order's look at that move (the same game bounds, half of them
    read), and a beta above every move's true value must never be cut. It reads only the smallest
    and the largest piece left on each empty cell, before the moves are generated, and stops
    reading a cell's paths once neither piece can cut: the move it names must be the first of
    those (cells ascending, the smaller piece first) that _bound_order cuts at, and it may miss
    none of them."""
    jitsearch = compiled_search()
    rng = random.Random(5757)
    cuts = 0
    misses = 0
    for i in range(24):
        # at 5 empty cells against minimax too; at 6 and 7 (as in the search) against _bound_order
        empties = 5 if i < 8 else 6 + i % 2
        state = _lopsided(rng, empties) if i % 2 else random_position(rng, empties)
        sign = 1 if state.placed % 2 == 0 else -1
        search = jitsearch.JitSearch(state.board, table_bits=8)
        plo, phi = jitsearch._tables()
        reserve = search.reserve  # ascending
        looked = [p * 16 + c for c in range(16) if not state.board[c] for p in (reserve[0], reserve[-1])]
        if empties == 5:
            true = {a.piece * 16 + a.cell: sign * brute_force_value(state.apply(a)) for a in state.legal_actions()}
        else:  # no minimax: an upper bound of every move's value (the node's game bound)
            lo, hi = jitsearch._game_bounds(search.st, search.sums, search.emp, plo, phi, search.gt)
            top = hi if sign > 0 else -lo
            true = {a.piece * 16 + a.cell: top for a in state.legal_actions()}
            true[-1] = -top - 8
        for beta in range(min(true.values()) - 6, max(true.values()) + 3):
            cut, cm = jitsearch._cut_look(search.st, search.sums, search.emp, plo, search.gt, beta)
            first = -1
            for mv in looked:
                one = np.array([mv], np.int64)
                low, _ = jitsearch._bound_order(search.st, search.sums, search.emp, plo, phi, search.gt, one,
                                                np.zeros(1), 1, beta, sign, np.zeros(160, np.int64))
                if low >= beta:
                    first = mv
                    break
            assert cm == first, (state.board, beta)
            if cm >= 0:
                assert beta <= cut <= true[cm], (state.board, cm, beta)
                assert low == cut, (state.board, cm, beta)
                cuts += 1
            else:
                misses += 1
            assert beta <= max(true.values()) or cm < 0, (state.board, beta)
    assert cuts >= 10 and misses >= 10


def test_search_with_the_cut_look_is_exact():
    """The cut look (_cut_look at expected cut-nodes, from CUT_LOOK_FROM empty cells by default;
    here from 5 to 8, so small positions use it) only settles nodes by true bounds of a move:
    exact against minimax at 6 empty cells (margin, outcome, null windows on both sides of the
    value, the named move among the best) and against the previous search at 8 and 9, on and
    off."""
    _option_is_exact(6161, "cut_look", (5, 8), (5, 9), 6, 6, (8, 9), 27)


def test_cut_look_visits_fewer_nodes_on_the_hardest_known_twelve_empty_position():
    """Seed 5's position 12 of bench/grid_ab.py at 12 empty cells (`. . . 6 / . 12 9 . / . . . . /
    11 . . .`, margin -1), the one position of seeds 4, 5 and 11 still over 1 s after grid14, takes
    1,578,171 nodes to its margin without the cut look (main's search) and about a third fewer with
    it (a node count, deterministic; never a time); both find the same margin. Both without the all look, which came later."""
    jitsearch = compiled_search()
    board = (0, 0, 0, 6, 0, 12, 9, 0, 0, 0, 0, 0, 11, 0, 0, 0)
    search = jitsearch.JitSearch(board, all_look=None)
    assert search.exact_value() == -1
    off = jitsearch.JitSearch(board, cut_look=None, all_look=None)
    assert off.exact_value() == -1
    assert search.nodes < 1_200_000 < 1_500_000 < off.nodes


def test_all_look_bounds_every_move():
    """_all_look fails an expected all-node low without a move when every child's game bounds (the
    other seat moves next there: its greedy cap minus the mover's lowest possible best path) keep
    the mover at or below alpha. Against each child's _game_bounds read after placing the move:
    the look returns their most whenever alpha is at least that, and INF (not settled) below it;
    at 5 empty cells each child's plain minimax value is at most its bound too."""
    jitsearch = compiled_search()
    rng = random.Random(7171)
    plo, phi = jitsearch._tables()
    for i in range(18):
        empties = 5 + i % 3
        state = _lopsided(rng, empties) if i % 2 else random_position(rng, empties)
        sign = 1 if state.placed % 2 == 0 else -1
        bounds = {}
        for a in state.legal_actions():
            child = jitsearch.JitSearch(state.apply(a).board, table_bits=8)
            lo, hi = jitsearch._game_bounds(child.st, child.sums, child.emp, plo, phi, child.gt)
            bounds[a] = hi if sign > 0 else -lo  # the mover's value there is at most this
            if empties == 5:
                assert sign * brute_force_value(state.apply(a)) <= bounds[a], (state.board, a)
        most = max(bounds.values())
        search = jitsearch.JitSearch(state.board, table_bits=8)
        for alpha in range(most - 4, most + 4):
            got = jitsearch._all_look(search.st, search.sums, search.emp, plo, search.gt, alpha)
            assert got == (most if alpha >= most else jitsearch.INF), (state.board, alpha)


def test_search_with_the_all_look_is_exact():
    """The all look (_all_look at expected all-nodes, from ALL_LOOK_FROM to ALL_LOOK_UPTO empty cells
    by default; here from 5 to 8) only settles nodes by true bounds of every move: exact against
    minimax at 6 empty cells (margin, outcome, null windows on both sides of the value, the named
    move among the best) and against the previous search at 8 and 9, on and off."""
    jitsearch = compiled_search()
    _option_is_exact(4242, "all_look", (5, 8), (5, 9), 6, 6, (8, 9), jitsearch.ALL_LOOK + 2)


def test_all_look_visits_fewer_nodes_on_the_hardest_known_twelve_empty_position():
    """Seed 5's position 12 (margin -1): 1,071,345 nodes to its margin without the all look (main's
    search before grid13) and about a fifth fewer with it (a node count, never a time)."""
    jitsearch = compiled_search()
    board = (0, 0, 0, 6, 0, 12, 9, 0, 0, 0, 0, 0, 11, 0, 0, 0)
    search = jitsearch.JitSearch(board)
    assert search.exact_value() == -1
    off = jitsearch.JitSearch(board, all_look=None)
    assert off.exact_value() == -1
    assert search.nodes < 900_000 < 1_000_000 < off.nodes
    assert search.st[jitsearch.ALL_LOOK + 2] > 0


def _option_is_exact(seed: int, option: str, small: tuple[int, int], big: tuple[int, int],
                     small_empties: int, small_count: int, big_empties: tuple[int, ...], used_slot: int) -> None:
    """A search option that should change only the order or the cut-offs (never the value), on
    from `small` empty cells: margins and outcomes against plain minimax on `small_count` positions
    at `small_empties` empty cells, with the move it names among the best; then against the previous
    search at each of `big_empties`, with the option on (`big`) and off. `used_slot` is the search's
    counter of the option's use: the test fails if the option never ran."""
    jitsearch = compiled_search()
    rng = random.Random(seed)
    used = 0
    for i in range(small_count):
        state = _lopsided(rng, small_empties) if i % 2 else random_position(rng, small_empties)
        children, value = _brute_children(state)
        search = jitsearch.JitSearch(state.board, table_bits=8, **{option: small})
        assert search.exact_value() == value, state.board
        assert children[search.principal(value)[0]] == value, state.board
        used += int(search.st[used_slot])
        probe = jitsearch.JitSearch(state.board, table_bits=8, **{option: small})
        assert probe.outcome() == (value > 0) - (value < 0), state.board
        assert probe.search(value - 1, value) >= value and probe.search(value, value + 1) <= value
    for empties in big_empties:
        state = random_position(rng, empties)
        want = solve_previous(state).value
        sign = 1 if state.placed % 2 == 0 else -1
        for setting in (big, None):
            search = jitsearch.JitSearch(state.board, table_bits=10, **{option: setting})
            assert sign * search.exact_value() == want, (state.board, setting)
            used += int(search.st[used_slot])
    assert used >= 1


def test_search_with_the_bound_order_is_exact():
    """The bound order (_bound_order, from BOUND_ORDER_FROM empty cells by default; here from 5, so
    small positions use it): exact against minimax at 5 empty cells and the previous search at 8."""
    _option_is_exact(9090, "bound_order", (5, 8), (5, 8), 5, 8, (8, 8, 8), 27)


def test_bound_order_visits_fewer_nodes_on_a_hard_twelve_empty_position():
    """Seed 2's position 48 of bench/grid_ab.py at 12 empty cells (margin 4, the slowest of that
    seed's 100 after the softer move order) took 2,602,683 nodes to its margin before the bound
    order; with it far fewer (a node count, deterministic; never a time). Its margin is the one
    both the search before and the bound order's own off switch find."""
    jitsearch = compiled_search()
    board = (0, 0, 15, 9, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 2, 0)
    search = jitsearch.JitSearch(board)
    assert search.exact_value() == 4
    assert search.nodes < 1_300_000


def test_child_game_bounds_from_cell_groups_equal_placing_each_move():
    """_child_game_bounds reads each child's game bounds from the node's paths grouped per cell and
    empty count (nothing placed); they must equal _game_bounds on the child itself, the piece
    placed, for every legal move of random positions from 2 to 14 empty cells."""
    jitsearch = compiled_search()
    rng = random.Random(2412)
    checked = 0
    for i in range(60):
        state = _lopsided(rng, 2 + i % 13) if i % 3 == 0 else random_position(rng, 2 + i % 13)
        search = jitsearch.JitSearch(state.board, table_bits=8)
        plo, _ = jitsearch._tables()
        actions = list(state.legal_actions())
        rng.shuffle(actions)  # cells in any order, not grouped as _gen groups them
        move = np.array([a.piece * 16 + a.cell for a in actions], np.int64)
        out = np.zeros((len(move), 2), np.int64)
        jitsearch._child_game_bounds(search.st, search.sums, search.emp, plo, search.gt, move, len(move),
                                     out, np.zeros(160, np.int64))
        for q, action in enumerate(actions):
            search.place(action.piece, action.cell)
            want = jitsearch._game_bounds(search.st, search.sums, search.emp, plo, plo, search.gt)
            search.unplace(action.piece, action.cell)
            assert tuple(out[q]) == tuple(int(v) for v in want), (state.board, action)
            checked += 1
    assert checked > 1000


def test_search_with_killer_moves_is_exact():
    """Killer moves (the replies that last refuted a move one level up, sorted right after the
    best-scored move; from KILLER_FROM empty cells by default, here from 5 so that small positions
    use them) change only the order: exact against minimax at 6 empty cells and the previous search
    at 8 and 9."""
    _option_is_exact(5151, "killers", (5, 8), (5, 9), 6, 6, (8, 9), 30)


def test_killer_moves_visit_fewer_nodes_on_a_hard_twelve_empty_position():
    """Seed 1's position 47 of bench/grid_ab.py at 12 empty cells (`13 . . 6 / . . . . / . . . . /
    . 7 . 5`, margin 3, the slowest of that seed's 100 on main at 594adc5) takes 1,071,342 nodes to
    its margin without killer moves and about a quarter fewer with them (a node count,
    deterministic; never a time); both find the same margin. Both without the cut look, which
    came later and takes that position under 900,000 nodes either way, and without the all look."""
    jitsearch = compiled_search()
    board = (13, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 5)
    search = jitsearch.JitSearch(board, cut_look=None, all_look=None)
    assert search.exact_value() == 3
    off = jitsearch.JitSearch(board, killers=None, cut_look=None, all_look=None)
    assert off.exact_value() == 3
    assert search.nodes < 900_000 < off.nodes


def test_search_with_and_without_the_pair_bounds_at_the_nodes_is_exact():
    """The pair bounds at the nodes are off by default (PAIR_FROM; JitSearch(node_pairs=5) puts
    them back from 5 empty cells): both settings against plain minimax at 6 empty cells (margin,
    outcome, null windows on both sides of the value, the named move among the best) and against
    the previous search at 8 and 9 empty cells, where the compiled search's helpers (rows and
    scratch read by offset, no reference counting in _search) are all in use."""
    jitsearch = compiled_search()
    rng = random.Random(1414)
    for i in range(6):
        state = _lopsided(rng, 6) if i % 2 else random_position(rng, 6)
        children, value = _brute_children(state)
        for setting in (5, None):
            search = jitsearch.JitSearch(state.board, table_bits=8, node_pairs=setting)
            assert search.exact_value() == value, (state.board, setting)
            assert children[search.principal(value)[0]] == value, (state.board, setting)
            probe = jitsearch.JitSearch(state.board, table_bits=8, node_pairs=setting)
            assert probe.outcome() == (value > 0) - (value < 0), (state.board, setting)
            assert probe.search(value - 1, value) >= value and probe.search(value, value + 1) <= value
    for empties in (8, 9):
        state = random_position(rng, empties)
        want = solve_previous(state).value
        sign = 1 if state.placed % 2 == 0 else -1
        for setting in (5, None):
            search = jitsearch.JitSearch(state.board, table_bits=10, node_pairs=setting)
            assert sign * search.exact_value() == want, (state.board, setting)


def test_pair_bounds_at_the_nodes_are_off_by_default():
    """Seed 1's position 47 of bench/grid_ab.py at 12 empty cells (margin 3): with the pair bounds
    at the nodes (node_pairs=5, main's search until they were turned off) it takes fewer nodes than
    without them, the default (they were worth 0.3-7% of the nodes at 12 empty cells and cost about
    a quarter of the CPU); both find the same margin. A node count, deterministic; never a time."""
    jitsearch = compiled_search()
    board = (13, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 5)
    default = jitsearch.JitSearch(board, all_look=None)  # as when they were turned off
    assert default.exact_value() == 3
    with_pairs = jitsearch.JitSearch(board, node_pairs=5, all_look=None)
    assert with_pairs.exact_value() == 3
    assert with_pairs.nodes < default.nodes
    assert default.st[31] > jitsearch.CELLS  # no node tries them


def test_search_tables_are_zeroed_aligned_on_huge_pages_and_exact():
    """The search's bound table and per-reserve tables sit on 2 MB-aligned memory asked for huge
    pages (_huge_zeros): the same zeros, shape and dtype as np.zeros, writable and C-ordered, and a
    search over them still gives minimax's margins (at 5 empty cells, the default table size)."""
    jitsearch = compiled_search()
    for shape, dtype in (((1 << 10, 4), np.int64), ((3, 5, 2), np.int16), ((7,), np.uint8)):
        table = jitsearch._huge_zeros(shape, dtype)
        assert table.shape == shape and table.dtype == dtype and table.flags.c_contiguous
        assert table.ctypes.data % (1 << 21) == 0 and not table.any()
        table[-1] = 1
        assert table.sum() == np.prod(shape[1:])
    rng = random.Random(1212)
    for _ in range(3):
        state = random_position(rng, 5)
        search = jitsearch.JitSearch(state.board)
        assert search.tt.ctypes.data % (1 << 21) == 0
        sign = 1 if state.placed % 2 == 0 else -1
        assert search.exact_value() == sign * brute_force_value(state), state.board


def test_the_search_helpers_are_inlined_and_the_nodes_unchanged():
    """The helpers _search calls at every node are compiled into it (numba's inline="always", no call
    with its arrays pushed per node); only the cost changes, not the search: seed 5's position 12 at
    12 empty cells takes exactly the nodes it took before (1,071,334 to its margin -1)."""
    jitsearch = compiled_search()
    for name in ("_put", "_take", "_hash", "_game_bounds", "_bounds", "_live", "_gen", "_first",
                 "_pop16", "_rank_paths", "_pair_bounds_at", "_groups", "_endgame", "_endgame4",
                 "_reply_bound", "_swap_slack", "_cell_groups", "_child_seat_bounds", "_child_bounds",
                 "_bound_order", "_cut_look", "_all_look"):
        assert getattr(jitsearch, name).targetoptions.get("inline") == "always", name
    search = jitsearch.JitSearch((0, 0, 0, 6, 0, 12, 9, 0, 0, 0, 0, 0, 11, 0, 0, 0), all_look=None,
                                 bound_order_all=True)
    assert search.exact_value() == -1
    # the all look and the bound order's restriction to PV and cut-nodes (later) change the tree
    assert search.nodes == 1_071_334


def test_one_side_of_the_pair_bounds_is_that_side():
    """_pair_side (the commuting replies' bound reads only the mover's side of the pair bounds): its
    low side is _pair_bounds' low, its high side _pair_bounds' high where that is at most the
    threshold a, and past a (whatever number) where it is past a, on positions of 4 to 9 empty
    cells and thresholds on both sides of the high bound."""
    jitsearch = compiled_search()
    rng = random.Random(2424)
    past = 0
    for i in range(60):
        state = random_position(rng, 4 + i % 6) if i % 2 else _lopsided(rng, 4 + i % 6)
        search = jitsearch.JitSearch(state.board, table_bits=4)
        tables = jitsearch._tables()
        low, high = jitsearch._pair_bounds(search.st, search.sums, search.emp, *tables, search.eg[32:])
        pb = np.zeros(512, np.int64)
        assert jitsearch._pair_side_of(search.st, search.sums, search.emp, *tables, pb, False, 0) == low
        for a in (high - 3, high - 1, high, high + 2, jitsearch.INF):
            got = jitsearch._pair_side_of(search.st, search.sums, search.emp, *tables, pb, True, a)
            if high <= a:
                assert got == high, (state.board, a)
            else:
                assert got > a, (state.board, a)
                past += 1
    assert past >= 60


def test_search_without_the_bound_order_at_all_nodes_is_exact():
    """The bound order (_bound_order) runs at PV and cut-nodes only by default; JitSearch(...,
    bound_order_all=True) runs it at expected all-nodes too, as before. Both are exact: against
    minimax at 6 empty cells (margin, outcome, null windows on both sides of the value, the named
    move among the best) with the bound order from 5 empty cells, and against the previous search
    at 8 and 9 empty cells."""
    jitsearch = compiled_search()
    rng = random.Random(5151)
    for i in range(6):
        state = _lopsided(rng, 6) if i % 2 else random_position(rng, 6)
        children, value = _brute_children(state)
        for every in (False, True):
            search = jitsearch.JitSearch(state.board, table_bits=8, bound_order=(5, 8), bound_order_all=every)
            assert search.exact_value() == value, (state.board, every)
            assert children[search.principal(value)[0]] == value, (state.board, every)
            probe = jitsearch.JitSearch(state.board, table_bits=8, bound_order=(5, 8), bound_order_all=every)
            assert probe.outcome() == (value > 0) - (value < 0), (state.board, every)
            assert probe.search(value - 1, value) >= value and probe.search(value, value + 1) <= value
    for empties in (8, 9):
        state = random_position(rng, empties)
        want = solve_previous(state).value
        sign = 1 if state.placed % 2 == 0 else -1
        for every in (False, True):
            search = jitsearch.JitSearch(state.board, table_bits=10, bound_order_all=every)
            assert sign * search.exact_value() == want, (state.board, every)


def test_bound_order_at_all_nodes_is_off_by_default_and_changes_only_the_tree():
    """Seed 5's position 12 of bench/grid_ab.py at 12 empty cells (margin -1): with the bound order
    at expected all-nodes too (bound_order_all=True) the search visits exactly the nodes it did
    before the change (851,350 to its margin); by default it skips the look there and visits a few
    more (856,501; a node count, deterministic, never a time), with the same margin."""
    jitsearch = compiled_search()
    board = (0, 0, 0, 6, 0, 12, 9, 0, 0, 0, 0, 0, 11, 0, 0, 0)
    before = jitsearch.JitSearch(board, bound_order_all=True)
    assert before.exact_value() == -1
    assert before.nodes == 851_350
    default = jitsearch.JitSearch(board)
    assert default.exact_value() == -1
    assert default.nodes == 856_501
    assert default.st[jitsearch.BOUND_ORDER_ALL] == 0
