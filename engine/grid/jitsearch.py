"""The exact 4x4 search of engine/grid/exact.py compiled with numba (optional: `pip install numba`).

Same search -- negamax with null windows, the four path-keeping symmetries merged in a bound table,
path bounds, the same move ordering (but for softer path weights from ORDER_SOFT_FROM empty cells)
-- over numpy arrays, so a node costs well under a microsecond instead of about twelve. Differences
forced by compiled code: the table is a fixed array of 2**22
slots of 32 bytes (about 134 MB; 2**20, 32 MB, up to 12 empty cells, where it misses the cache less)
indexed by a 64-bit Zobrist code of the board under the symmetry
that gives the smallest code, with a second independent code stored to confirm a hit; a slot is
overwritten by a position with at least as many empty cells. A deadline, where there is one, is
checked every 65 536 nodes (`_past`, a small function of its own: a process's first object-mode
call unpickles the lifted block with the IR of the function around it, 2.1 MB and about 0.14 s
inside `_search`). Shortcuts the Python search does not take:
- **The last four cells** are filled directly: the value comes from the final margins of the k!
  fillings (`_endgame` up to three cells, `_endgame4` for four: 24 fillings, then the mover's
  piece, the opponent's, and the mover's pick of the last two), with no nodes below.
- **Game bounds.** A player who puts the smallest piece left on one of their paths at each of
  their turns until it is full caps that path's final sum, whatever the other does, at its sum
  plus a greedy table entry (`_fill_greedy`: the other's only useful answers are the largest piece
  on the path or starving the owner of the smallest); so that player's best path is at most that,
  while the other's best path stays within its path bounds in every filling. These bound the game
  value, tighter than the path bounds, and are checked first at each node (they settle many nodes
  before the costlier pair bounds); they are not bounds of every filling, so the commuting replies
  keep the filling bounds.
- **Interchangeable cells.** A path is live while its lowest possible sum is below the highest
  possible best path of its player; a dead path can never be strictly below the best one in any
  filling of the board. Two empty cells on exactly the same live paths of both players can swap
  their pieces in every continuation without changing any live path's sum, so they give the same
  value: the search tries one cell of each such set (`_gen`).
- **Pair bounds** (the commuting replies' bound, `_reply_bound`; at the nodes only with
  JitSearch(node_pairs=5), from 5 empty cells: now that the game bounds and the table settle most
  nodes first, they settled 0.6-6% of the nodes that computed them, for about a quarter of the CPU):
  Player 2's path j minus Player 1's path i gains nothing from the empty cells both cross, which
  bounds the margin much tighter where best paths cross on empty cells (`_pair_bounds`). Both
  players' paths are visited lowest possible sum first, so a path of Player 1 usually stops after
  a few of Player 2's (it can no longer raise either bound).
- **The game's pair bounds** (`_game_pair_bounds`, off unless JitSearch(game_pair=True)): Player 1
  putting the smallest piece left on its path i at each turn keeps the margin at least the least of
  P2_j - P1_i over every such continuation (`_gpair`, memoised by pieces left and cells of each
  kind), so the value is at least max over i of min over j; Player 2 likewise gives min over j of
  max over i as an upper bound. Never looser than the game and pair bounds and about 8% fewer nodes
  at 12 empty cells, but about 40% more CPU per node: slower, hence off.
- **Piece swap bound.** After (p, cell) and (q, cell) the two positions differ only in which of p
  and q is still to come: swapping the two pieces in every continuation maps the games onto each
  other, and on the final boards every path sum differs by at most |p - q|, so each best path too
  and the margin by at most 2|p - q|. A node skips (q, cell) once an earlier (p, cell) came back at
  least 2|p - q| below its window (about 30% fewer nodes at 12 empty cells). One-sided
  (`_swap_slack`): a path's sum moves by +d where q = p + d lands and by -d where p lands instead,
  so the mover gains only |d| unless the cell is on a live path of the side the swap hurts (the
  opponent's for a larger piece, the mover's for a smaller); 2|d| only then.
- **Enhanced transposition cut-off** (off unless JitSearch(etc=True), then from ETC_FROM empty
  cells): before its first generated move a node looks every child up in the table (`_child_cut`,
  by the child's Zobrist codes, nothing placed) and stops when one entry already proves a cut-off.
  About 5% fewer nodes at 12 empty cells, but each probe misses the cache: 10-20% more CPU on
  typical positions (a gain only on the hardest), hence off (docs/rules/highway-grid.md).
The table is probed before the pair bounds, which a hit makes unnecessary.
- **Bound order** (from BOUND_ORDER_FROM to BOUND_ORDER_UPTO empty cells; JitSearch(bound_order=None)
  turns it off): a node that generates its moves (its table move, if any, has failed) first looks
  at each child's game bounds without a node (`_bound_order`), nothing placed: the node's paths are
  grouped once per cell by empty count and whether they cross it (`_cell_groups`), and a child's
  bounds are a min over those groups read through the child reserve's rows. A
  child whose bounds already put the mover at or above beta ends the node with that bound, the cut
  the child itself would have returned at once; otherwise the moves are sorted with the sum of the
  child's two bounds counted in. At 12 empty cells it cuts the nodes of the hardest positions by
  about a quarter and their CPU by 10-20% (seed 2's position 48: 2.60M nodes to 0.78M); from 5-7
  empty cells it saves more nodes but the looks cost what the cheap nodes they save cost. Only at
  PV and expected cut-nodes (JitSearch(bound_order_all=True): at expected all-nodes too, as it
  was until 2026-12-07): an all-node fails low, so there is no cut to find, and the look over every
  child (64 at 8 empty cells) cost more than the 0.6% of nodes its order saved there.
- **Commuting replies.** Placements commute: the board after the mover's m and the opponent's
  reply r is the same in either order. So when the board after r alone (one more empty cell than
  after m and r) already has bounds that keep the mover at or below the window's low end, every
  move m' on another cell than r's with another piece fails low too, by that bound, without a
  search: the opponent answers it with r. A node that failed low on a move tries the reply that
  refuted it (each node reports its best move, the 3-cell endgame too) and, after its first move,
  the two replies that worked at its depth before; up to four such replies leave only the moves
  that share a cell or a piece with each of them (about 4-5x fewer nodes at 12 empty cells). The
  bound of the board after r reads only the mover's side of the pair bounds (`_pair_side`), and
  stops once it is past the window: the same bound where it is used, for half the reads.
- **Killer moves** (from KILLER_FROM to KILLER_UPTO empty cells; JitSearch(killers=None) turns them
  off): each depth keeps the NK2 replies that last refuted a move one level up (a move that failed
  low and the child's best move), latest first; a node that generates its moves sorts those that
  are legal there right after its best-scored move. Siblings share refutations (the same reply
  often refutes the next move of an all-node): 17% fewer nodes on the hardest positions at 12
  empty cells; tried before the best-scored move they made the search larger.
- **Cut look** (from CUT_LOOK_FROM to CUT_LOOK_UPTO empty cells; JitSearch(cut_look=None) turns it
  off): each node carries its expected type (PV, cut or all: a PV node's first child is PV and its
  others cut-nodes, a cut-node's first child an all-node and its later ones cut-nodes, an all-node's
  children cut-nodes). An expected cut-node about to generate its moves first looks, cell by cell, at
  the child's game bounds after the smallest and the largest piece left (`_cut_look`, straight from
  the 40 paths, nothing placed, a cell's reading stopped once neither piece can cut) and stops at
  one that already gives the mover beta: the cut the child would return at once, found before the
  moves are generated and the best-scored move's subtree is searched. About a quarter fewer nodes
  at 12 empty cells, and 10-12% less CPU in all than the same look read from _cell_groups after
  _gen (seeds 5 and 12); looking at every piece found as many cuts for no less CPU, and looking at
  all-nodes too cost CPU for no fewer nodes.
- **All look** (from ALL_LOOK_FROM to ALL_LOOK_UPTO empty cells; JitSearch(all_look=None) turns it
  off): an expected all-node first reads every child's game bounds, nothing placed (`_all_look`:
  in a child the other seat moves next, so the mover gets at most the other's greedy cap minus
  the mover's lowest possible best path), and when every one keeps the mover at or below alpha it
  fails low with their most, without a move: each child would have returned at once. About a
  fifth fewer nodes at 12 empty cells, 5-6% less CPU.
The table's move is tried first, then the best-scored move, then the killer moves, and only then
are the others sorted (most nodes are cut by one of the first two).

`available()` says whether numba imports (the optional `fast` extra); `engine.grid.solver` uses this
module for positions with JIT_FROM or more empty cells when it does, and engine/grid/exact.py
otherwise (tests compare the two). The first use on a machine compiles for about a minute of CPU
(`highway-referee grid compile` does it on purpose); numba caches the result in a folder of
NUMBA_CACHE_DIR or ~/.cache/numba named by a hash of this file's content (engine/grid/jitcache.py),
so another clone of the same code finds it, and a fresh process loads it in about 0.2 s
(`cached()` says whether it will).
"""

from __future__ import annotations

import hashlib
import itertools
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from engine.grid.exact import SYMMETRIES, ExactAnswers, SearchTimeout
from engine.grid.paths import CELLS, PATHS

try:  # numba is an optional speed-up, never a requirement
    import numba

    from engine.grid import jitcache

    # numba's cache of this module: a user-wide folder named by the content of this file and of the
    # modules whose constants it compiles in (engine/grid/jitcache.py says why)
    CACHE_DIR = jitcache.install(__file__, [Path(__file__).with_name(name)
                                            for name in ("jitsearch.py", "exact.py", "paths.py")])
    _jit = numba.njit(cache=True)
    # The search itself runs without numba's reference counting: it allocates nothing, and each
    # call (one per node) would otherwise pay an atomic increment and decrement per array argument
    # (16 of them) and per view it takes (about 12% of its CPU, measured with perf).
    _jit_norc = numba.njit(cache=True, _nrt=False)
    # The helpers that _search calls are inlined into it at numba's level (branch grid12): a call of
    # a compiled helper passes each array as some seven machine words on the stack (70-odd pushes for
    # _gen or _cut_look) and spills the vector registers around it, once or several times per node.
    _jit_inline = numba.njit(cache=True, inline="always")
except ImportError:  # pragma: no cover - exercised where numba is absent
    numba = None
    CACHE_DIR = None


def available() -> bool:
    return numba is not None


def cached(func: Any = None) -> bool:
    """Whether numba's on-disk cache holds a compile of the search (`func`: another compiled function
    of ours) for its current source, so a use costs a load of a fraction of a second, not a compile
    of about a minute. Read from numba's own cache index, wherever numba keeps it (CACHE_DIR, by
    engine/grid/jitcache.py; else beside the module or under NUMBA_CACHE_DIR): the index is fresh
    when its source stamp is the source's (jitcache's content hash; numba's own locators stamp a
    hash of the content from numba 0.68, the file's time before), it was written by this numba
    version, and it holds an entry for the function's current bytecode. A file time compared with
    the index's called a touched or re-cloned module uncompiled, and `grid solve` then took the
    pure-Python search."""
    if numba is None:
        return False
    func = _search if func is None else func
    try:
        cache = func._cache
        if cache._impl.locator.get_source_stamp() != cache._cache_file._source_stamp:
            return False  # the source changed since this process imported it
        index = cache._cache_file._load_index()  # {} when missing or stale (numba's rule)
        code = hashlib.sha256(func.py_func.__code__.co_code).hexdigest()
        return any(key[2][0] == code for key in index)
    except Exception:  # noqa: BLE001 - numba's private cache API moved: the safe answer
        return False


def compile_all() -> None:
    """Compile (or load) every compiled function the search uses, so that numba caches them: what a
    first use on a machine pays once (`highway-referee grid compile`)."""
    search = JitSearch([1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0, 0, 0, 0, 0])  # 8 empty: every helper runs
    search.margin_bounds()
    search.ordered_moves()
    search.principal(search.exact_value())
    search.place(9, 8)
    search.unplace(9, 8)


INF = 1 << 30
TABLE_BITS = 22  # slots (2**22, 134 MB) for deep searches: past 12 empty cells they run to 10**8 nodes
SMALL_TABLE_BITS = 20  # up to SMALL_TABLE_UPTO empty cells (at most a few million nodes): a 32 MB table
SMALL_TABLE_UPTO = 12  # misses the cache and the TLB less and is cheaper to clear (~15% less CPU)
_NEG = -1

_CP = np.full((2, CELLS, 20), -1, np.int64)  # paths of each seat through each cell
_CPN = np.zeros((2, CELLS), np.int64)
_PC = np.array([[list(p) for p in PATHS[s]] for s in (0, 1)], np.int64)  # cells of each path
for _s in (0, 1):
    for _c in range(CELLS):
        _ids = [i for i, p in enumerate(PATHS[_s]) if _c in p]
        _CP[_s, _c, : len(_ids)] = _ids
        _CPN[_s, _c] = len(_ids)
_CPM = np.zeros((2, CELLS), np.int64)  # paths of each seat through each cell, as a 20-bit mask
for _s in (0, 1):
    for _c in range(CELLS):
        _CPM[_s, _c] = sum(1 << i for i, p in enumerate(PATHS[_s]) if _c in p)
_SYM = np.array(SYMMETRIES, np.int64)
_PM = np.array([[sum(1 << c for c in p) for p in PATHS[s]] for s in (0, 1)], np.int64)  # cells of each path
# st (the search's state, see _place) from index 32, per depth n: the node's best move (a parent's
# candidate reply), its commuting replies and their bounds (4), two replies that worked at that
# depth before, and the replies it tried (8)
NR, NT = 4, 8  # per node: commuting replies kept, replies tried
NK2 = 6  # per depth: refuting replies kept for the move order (killer moves, _search)
REF = 32
RFM = REF + 17
RFV = RFM + 17 * NR
KIL = RFV + 17 * NR
TRY = KIL + 17 * 2
KIL2 = TRY + 17 * NT  # per depth n: the replies (at n - 1) that last refuted a move at n, latest first
TYP = KIL2 + 17 * NK2  # per depth n: the node's expected type, 0 PV, 1 cut, 2 all (set by its parent)
CUT_LOOK = TYP + 17  # empty cells from / up to which an expected cut-node runs _cut_look
ALL_LOOK = CUT_LOOK + 2  # empty cells from / up to which an expected all-node runs _all_look, then
# the count of nodes it settled
BOUND_ORDER_ALL = ALL_LOOK + 3  # 1: expected all-nodes run _bound_order too (JitSearch(bound_order_all=True))
STATE = BOUND_ORDER_ALL + 1
REPLY_FROM = 4  # empty cells from which a node tries commuting replies (children from 3 report one)
GAME_PAIR_UPTO = 12  # pieces left at the root up to which _game_pair_bounds can be asked for (its memo)
GAME_PAIR_FROM = 7  # empty cells from which a search that asks for them uses them
ETC_FROM = 8  # empty cells from which JitSearch(etc=True) probes a node's children in the table
# Bound order (_bound_order): from BOUND_ORDER_FROM up to BOUND_ORDER_UPTO empty cells a node that
# generates its moves looks at each child's game bounds first: a child that they already settle as a
# cut-off ends the node, and the moves are sorted with BOUND_ORDER_WEIGHT times the sum of the
# child's two bounds taken off their score. Chosen on the hardest positions of seeds 1 and 2 at 12
# empty cells (docs/rules/highway-grid.md, "Bound order"): from 5 or 7 empty cells it halves the
# nodes but a look costs as much as the cheap nodes it saves; weights 1 and 3 did worse.
BOUND_ORDER_FROM = 8
BOUND_ORDER_UPTO = 11
BOUND_ORDER_WEIGHT = 0.5
# Killer moves (from KILLER_FROM up to KILLER_UPTO empty cells): the NK2 replies that last refuted a
# move one level up, latest first, are tried right after the best-scored move (before it they made
# the search larger). Chosen on the hardest positions of tuning seeds 1-3 at 12 empty cells
# (docs/rules/highway-grid.md, "Killer moves after the best-scored move"): 2, 4, 6 and 8 kept
# replies took 13%, 16%, 17% and 17% fewer nodes; a countermove per previous move added nothing.
KILLER_FROM = 5
KILLER_UPTO = 11
# Cut look (_cut_look, from CUT_LOOK_FROM up to CUT_LOOK_UPTO empty cells; JitSearch(cut_look=None)
# turns it off): an expected cut-node (its parent's first move at an expected all-node, or a later
# move anywhere) that generates its moves first looks for a child its game bounds already settle as
# a cut-off, reading only the smallest and the largest piece on each cell. Chosen by node counts on
# the hardest positions of tuning seeds 1-3 and seed 11's 100 positions at 12 empty cells
# (docs/rules/highway-grid.md, "Cut look"): about a quarter fewer nodes and 5-10% less CPU; every
# piece looked at (or _bound_order's full look) found about as many cuts for no less CPU, and the look
# at expected all-nodes too cost CPU for no fewer nodes. Read before the moves are generated, straight
# from the paths (branch gridlook): 10-12% less CPU again; up to 9 or 11 empty cells then took 1.7%
# less CPU on five hard positions, within the noise, so the range stays.
CUT_LOOK_FROM = 5
CUT_LOOK_UPTO = 7
# All look (_all_look, from ALL_LOOK_FROM up to ALL_LOOK_UPTO empty cells; JitSearch(all_look=None)
# turns it off): an expected all-node first reads every child's game bounds, nothing placed, and
# returns the most of them when every one already keeps the mover at or below alpha (each child
# would return at once), without generating or searching a move.
ALL_LOOK_FROM = 5
ALL_LOOK_UPTO = 7
STORE_FROM = 5  # empty cells from which a node probes and stores the bound table (below, the endgames)
# A path's weight in the move order is 1 / (softness + its estimated sum's gap to the best path).
# ExactSearch's softness, 1, gives nearly all the weight to the single best estimate; from
# ORDER_SOFT_FROM empty cells ORDER_SOFTNESS spreads it over the paths within a few points of the
# best (a guess at why it pays: with many cells still to fill those paths can still overtake it).
# Both values measured on seed 1's 100 positions at 12 empty cells: 22-30% fewer nodes, the
# hardest positions down by a third or more (docs/rules/highway-grid.md, "Softer move-order
# weights"); softer everywhere, or from 6-7 empty cells, was slower on the easier positions.
ORDER_SOFTNESS = 8.0
ORDER_SOFT_FROM = 9
# Empty cells from which a node that the game bounds and the table do not settle tries the pair
# bounds: never by default (JitSearch(node_pairs=5) puts them back from 5). At 12 empty cells they
# settled 0.6-6% of the nodes that computed them and took about a quarter of the search's CPU
# (perf): off, the 15 hardest positions of tuning seeds 1-3 take 6.7% more nodes and about 15% less
# CPU (docs/rules/highway-grid.md, "Pair bounds at the nodes off"). The commuting replies keep them
# (_reply_bound: without them 47% more nodes).
PAIR_FROM = CELLS + 1
# fillings of k <= 3 empty cells: _PERMS[k, t, j] = which of the k pieces goes on the j-th empty cell
_PERMS = np.zeros((4, 6, 3), np.int64)
_NPERMS = np.array([1, 1, 2, 6], np.int64)
for _k in range(1, 4):
    for _t, _p in enumerate(itertools.permutations(range(_k))):
        _PERMS[_k, _t, :_k] = _p
_FILL4 = np.array(list(itertools.permutations(range(4))), np.int64)  # the 24 fillings of four cells
# _F4SET[t, mask]: which of the four pieces (a 4-bit set) filling t puts on the empty cells in mask
_F4SET = np.array([[sum(1 << int(f[j]) for j in range(4) if m >> j & 1) for m in range(16)] for f in _FILL4],
                  np.int64)
_F4CODE = np.array([sum(int(f[j]) << 2 * j for j in range(4)) for f in _FILL4], np.int64)
_LOW4 = np.array([0] + [(m & -m).bit_length() - 1 for m in range(1, 16)], np.int64)  # lowest set bit
_rng = np.random.default_rng(20261201)
_Z1 = _rng.integers(1, 2**62, size=(17, CELLS), dtype=np.int64)
_Z2 = _rng.integers(1, 2**62, size=(17, CELLS), dtype=np.int64)


if numba is not None:

    @_jit_inline
    def _put(st, sums, emp, piece, cell):  # noqa: ANN001, ANN202
        # st: [0..15] board, 16 reserve mask, 17 placed, 18 nodes, 19 abort, 20 moves skipped by
        # the piece swap bound, 21 by a commuting reply, 22 nodes settled by the game's pair bounds,
        # 23 nodes cut by a child's table entry, 24 empty cells from which a node looks for one
        # (JitSearch(etc=True)), 25 / 26 empty cells from / up to which nodes use _bound_order,
        # 27 nodes cut by a child's game bounds there, 28 / 29 empty cells from / up to which nodes
        # sort killer moves, 30 killer moves sorted forward, 31 empty cells from which a node tries
        # the pair bounds; from 32 the per-depth replies (REF)
        st[cell] = piece
        for s in range(2):
            for k in range(_CPN[s, cell]):
                i = _CP[s, cell, k]
                sums[s, i] += piece
                emp[s, i] -= 1
        st[16] ^= 1 << piece
        st[17] += 1

    @_jit_inline
    def _take(st, sums, emp, piece, cell):  # noqa: ANN001, ANN202
        st[cell] = 0
        for s in range(2):
            for k in range(_CPN[s, cell]):
                i = _CP[s, cell, k]
                sums[s, i] -= piece
                emp[s, i] += 1
        st[16] ^= 1 << piece
        st[17] -= 1

    @_jit_inline
    def _hash(zk, piece, cell):  # noqa: ANN001, ANN202
        for g in range(4):
            zk[0, g] ^= _Z1[piece, _SYM[g, cell]]
            zk[1, g] ^= _Z2[piece, _SYM[g, cell]]

    @_jit
    def _place(st, sums, emp, zk, piece, cell):  # noqa: ANN001, ANN202 - compiled, typed by numba
        _put(st, sums, emp, piece, cell)
        _hash(zk, piece, cell)

    @_jit
    def _unplace(st, sums, emp, zk, piece, cell):  # noqa: ANN001, ANN202
        _take(st, sums, emp, piece, cell)
        _hash(zk, piece, cell)

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
    def _fill_greedy(gt, done, reserve):  # noqa: ANN001, ANN202
        """Fill gt[mask, e, z] for every mask within reserve (a 17-bit mask of pieces) not yet done:
        the most that a path with e empty cells can end up adding to its sum when its owner puts
        the smallest piece left on it at each of their turns until it is full (z = 1 when the
        owner moves next), whatever the other player does. The other player's best answers are
        only the largest piece left on the path, or the smallest on another cell (it starves the
        owner): the pool after any other answer is dominated rank by rank. Starving earlier is never
        worse, so it suffices to try r starving moves first, then placements on the path
        (tests/test_grid_exact.py checks this against every answer). A search fills the masks of its
        own reserve (a 12-empty root: 4,096 masks, well under 0.1 s)."""
        pool = np.zeros(16, np.int64)
        mask = reserve
        while True:
            if not done[mask]:
                done[mask] = True
                count = 0
                for p in range(1, 17):
                    if mask >> p & 1:
                        pool[count] = p
                        count += 1
                for e in range(1, min(7, count) + 1):
                    other = count - e
                    for z in range(2):
                        most = 0
                        for r in range(min(other, e) + 1):
                            bottom = 0
                            top = count - 1
                            filled = 0
                            starved = 0
                            total = 0
                            owner = z == 1
                            while filled < e:
                                if owner:
                                    total += pool[bottom]
                                    bottom += 1
                                    filled += 1
                                elif starved < r:
                                    bottom += 1
                                    starved += 1
                                else:
                                    total += pool[top]
                                    top -= 1
                                    filled += 1
                                owner = not owner
                            most = max(most, total)
                        gt[mask, e, z] = most
            if mask == 0:
                break
            mask = (mask - 1) & reserve

    @_jit_inline
    def _game_bounds(st, sums, emp, plo, phi, gt):  # noqa: ANN001, ANN202
        """(low, high) of the value of the game (the margin p2_best - p1_best with best play), at
        least as tight as _bounds: a player who fills one of their paths greedily (gt) keeps their
        best path at most its sum plus gt, whatever the other does, while every filling keeps the
        other's best path between its path bounds. Bounds of the game, not of every filling: not
        for the commuting replies (_reply_bound), whose board is reached by another move order."""
        m = st[16]  # rows read in place: a row view would cost an atomic reference count pair
        p1 = 1 - (st[17] & 1)  # 1 when Player 1 moves next
        p1lo = p1hi = p2lo = p2hi = INF
        for i in range(20):
            a = sums[0, i]
            e = emp[0, i]
            p1lo = min(p1lo, a + plo[m, e])
            p1hi = min(p1hi, a + gt[m, e, p1])
            a = sums[1, i]
            e = emp[1, i]
            p2lo = min(p2lo, a + plo[m, e])
            p2hi = min(p2hi, a + gt[m, e, 1 - p1])
        return p2lo - p1hi, p2hi - p1lo

    @_jit_inline
    def _bounds(st, sums, emp, plo, phi):  # noqa: ANN001, ANN202
        """(low, high) of the final margin p2_best - p1_best."""
        m = st[16]
        p1lo = p1hi = p2lo = p2hi = INF
        for i in range(20):
            a = sums[0, i]
            e = emp[0, i]
            p1lo = min(p1lo, a + plo[m, e])
            p1hi = min(p1hi, a + phi[m, e])
            a = sums[1, i]
            e = emp[1, i]
            p2lo = min(p2lo, a + plo[m, e])
            p2hi = min(p2hi, a + phi[m, e])
        return p2lo - p1hi, p2hi - p1lo

    @_jit_inline
    def _live(st, sums, emp, plo, phi, s):  # noqa: ANN001, ANN202
        """Seat s's live paths (a 20-bit mask): those whose lowest possible sum is below the
        highest possible best path, so that one of them will be the best (ExactSearch.live)."""
        m = st[16]
        top = INF
        for i in range(20):
            top = min(top, sums[s, i] + phi[m, emp[s, i]])
        live = 0
        for i in range(20):
            if sums[s, i] + plo[m, emp[s, i]] < top:
                live |= 1 << i
        return live

    @_jit_inline
    def _gen(st, sums, emp, plo, phi, move, score, wt, d, kb, live0, live1):  # noqa: ANN001, ANN202
        """Fill move (piece * 16 + cell) and score (lower = tried earlier) with this node's moves,
        one cell only of those no live path crosses; return their count. wt[d]: a (2, 16) buffer,
        kb[496:512]: 16 int64 of scratch (both read in place, no views: a view costs an atomic
        reference count pair), live0 / live1: each seat's live paths (_live).
        The order is ExactSearch.ordered_moves's (ties may fall the other way) but for the paths'
        weights from ORDER_SOFT_FROM empty cells on: 1 / (ORDER_SOFTNESS + gap) instead of
        1 / (1 + gap), so paths a few points above the best one count almost as much."""
        # Empty cells on the same live paths of both seats are interchangeable: one of each kind.
        keep = 0  # the cells kept (a mask)
        nk = 0
        for c in range(CELLS):
            if st[c] == 0:
                sig = (_CPM[0, c] & live0) | (_CPM[1, c] & live1) << 20
                new = True
                for q in range(nk):
                    if kb[496 + q] == sig:
                        new = False
                        break
                if new:
                    kb[496 + nk] = sig
                    nk += 1
                    keep |= 1 << c
        n = 0
        total = 0
        for p in range(1, 17):
            if st[16] >> p & 1:
                n += 1
                total += p
        mean = total / n
        for s in range(2):
            for c in range(CELLS):
                wt[d, s, c] = 0.0
        soft = ORDER_SOFTNESS if CELLS - st[17] >= ORDER_SOFT_FROM else 1.0
        for s in range(2):
            floor = 1e18
            for i in range(20):
                floor = min(floor, sums[s, i] + mean * emp[s, i])
            for i in range(20):
                w = 1.0 / (soft + sums[s, i] + mean * emp[s, i] - floor)
                for j in range(7):
                    wt[d, s, _PC[s, i, j]] += w
        mover = st[17] & 1
        k = 0
        for c in range(CELLS):
            if keep >> c & 1:
                tilt = wt[d, 1 - mover, c] - wt[d, mover, c]
                for p in range(1, 17):
                    if st[16] >> p & 1:
                        score[k] = -((p - mean) * tilt)
                        move[k] = p * 16 + c
                        k += 1
        return k

    @_jit_inline
    def _first(move, score, k, first):  # noqa: ANN001, ANN202
        """Index of the move to try first: the table's move when it is among them, else the best
        scored (the first of equals, as a stable sort would put it)."""
        if first >= 0:
            for t in range(k):
                if move[t] == first:
                    return t
        best = 0
        for t in range(1, k):
            if score[t] < score[best]:
                best = t
        return best

    @_jit_inline
    def _pop16(x):  # noqa: ANN001, ANN202
        """Set bits of a 16-bit mask (SWAR: a few register operations, no table read)."""
        x = x - ((x >> 1) & 0x5555)
        x = (x & 0x3333) + ((x >> 2) & 0x3333)
        x = (x + (x >> 4)) & 0x0F0F
        return (x + (x >> 8)) & 0x1F

    @_jit_inline
    def _rank_paths(sums, emp, plo, phi, m, empty, pb, o):  # noqa: ANN001, ANN202
        """The paths that can be their player's best, lowest possible sum first, into pb: Player 1's
        path indices in pb[0:20] and their lowest sums in pb[40:60], Player 2's in pb[20:40] and
        pb[60:80], then Player 2's sums, empty counts and empty cells in pb[80:140], all counted
        from the offset o. (ni, nj)."""
        # Only paths that can be their player's best in some filling take part: lowest possible
        # sum at most the highest possible best path.
        top0 = INF
        top1 = INF
        for i in range(20):
            top0 = min(top0, sums[0, i] + phi[m, emp[0, i]])
            top1 = min(top1, sums[1, i] + phi[m, emp[1, i]])
        ni = 0  # pb[o + 0:20] Player 1's candidate paths, pb[o + 40:60] their lowest sums (sorted)
        nj = 0  # pb[o + 20:40] Player 2's, pb[o + 60:80] theirs
        for i in range(20):
            low = sums[0, i] + plo[m, emp[0, i]]
            if low <= top0:
                q = ni
                while q > 0 and pb[o + 40 + q - 1] > low:
                    pb[o + q] = pb[o + q - 1]
                    pb[o + 40 + q] = pb[o + 40 + q - 1]
                    q -= 1
                pb[o + q] = i
                pb[o + 40 + q] = low
                ni += 1
            low = sums[1, i] + plo[m, emp[1, i]]
            if low <= top1:
                q = nj
                while q > 0 and pb[o + 60 + q - 1] > low:
                    pb[o + 20 + q] = pb[o + 20 + q - 1]
                    pb[o + 60 + q] = pb[o + 60 + q - 1]
                    q -= 1
                pb[o + 20 + q] = i
                pb[o + 60 + q] = low
                nj += 1
        for q in range(nj):  # Player 2's candidates' sums, empty counts, empty cells
            j = pb[o + 20 + q]
            pb[o + 80 + q] = sums[1, j]
            pb[o + 100 + q] = emp[1, j]
            pb[o + 120 + q] = _PM[1, j] & empty
        return ni, nj

    @_jit_inline
    def _pair_bounds_at(st, sums, emp, plo, phi, pb, o):  # noqa: ANN001, ANN202
        """(low, high) of the final margin p2_best - p1_best from pairs of paths, tighter than
        _bounds: Player 2's path j minus Player 1's path i gets nothing from the empty cells they
        share (whatever piece goes there counts on both sides), and the largest pieces for j's own
        empty cells and the smallest for i's (or the other way round) are different pieces. Then
        margin <= max over i of min over j of the highest (P2_j - P1_i), and >= max over i of
        min over j of the lowest (one P1 path is at least the best one, every P2 path at least
        the best one), i and j over the paths that can be their player's best.
        Both sides are visited lowest possible sum first, so the min over j of a path i usually
        falls below both maxima found so far after a few j, and that i can stop early: it can no
        longer raise either. pb[o:o + 160]: scratch (an offset, not a view: a view costs an
        atomic reference count pair)."""
        m = st[16]  # rows read in place (no views: each costs an atomic reference count pair)
        empty = 0
        for c in range(CELLS):
            if st[c] == 0:
                empty |= 1 << c
        ni, nj = _rank_paths(sums, emp, plo, phi, m, empty, pb, o)
        up = -INF
        down = -INF
        for r in range(ni):
            i = pb[o + r]
            e1 = emp[0, i]
            s1 = sums[0, i]
            m1 = _PM[0, i] & empty
            top = INF
            bottom = INF
            for q in range(nj):
                shared = _pop16(m1 & pb[o + 120 + q])
                a = pb[o + 100 + q] - shared
                b = e1 - shared
                d = pb[o + 80 + q] - s1
                top = min(top, d + phi[m, a] - plo[m, b])
                bottom = min(bottom, d + plo[m, a] - phi[m, b])
                if top <= up and bottom <= down:
                    break
            up = max(up, top)
            down = max(down, bottom)
        return down, up

    @_jit_inline
    def _pair_side(st, sums, emp, plo, phi, pb, o, upper, a):  # noqa: ANN001, ANN202
        """One side of _pair_bounds_at, the same number: with `upper` its high bound (stopped once it
        is past a, and then some number past a: a caller that asks whether it is at most a needs no
        more), else its low bound. The commuting replies need only the mover's side: half the table
        reads of both, and each path of Player 1 stops on one condition instead of two."""
        m = st[16]
        empty = 0
        for c in range(CELLS):
            if st[c] == 0:
                empty |= 1 << c
        ni, nj = _rank_paths(sums, emp, plo, phi, m, empty, pb, o)
        most = -INF
        for r in range(ni):
            i = pb[o + r]
            e1 = emp[0, i]
            s1 = sums[0, i]
            m1 = _PM[0, i] & empty
            least = INF
            for q in range(nj):
                shared = _pop16(m1 & pb[o + 120 + q])
                x = pb[o + 100 + q] - shared
                y = e1 - shared
                d = pb[o + 80 + q] - s1
                if upper:
                    least = min(least, d + phi[m, x] - plo[m, y])
                else:
                    least = min(least, d + plo[m, x] - phi[m, y])
                if least <= most:
                    break
            most = max(most, least)
            if upper and most > a:
                break
        return most

    @_jit
    def _pair_side_of(st, sums, emp, plo, phi, pb, upper, a):  # noqa: ANN001, ANN202
        """_pair_side with pb[0:160] as its scratch (for the tests)."""
        return _pair_side(st, sums, emp, plo, phi, pb, 0, upper, a)

    @_jit
    def _pair_bounds(st, sums, emp, plo, phi, pb):  # noqa: ANN001, ANN202
        """_pair_bounds_at with pb[0:160] as its scratch."""
        return _pair_bounds_at(st, sums, emp, plo, phi, pb, 0)

    @_jit
    def _gpair(gp, gix, mask, own, oth, sh, seat):  # noqa: ANN001, ANN202
        """The least that (sum of the pieces on `oth` cells) - (sum of those on `own` cells) can end
        at, over every continuation in which `seat`, at each of its turns while its path (its `own`
        cells and the `sh` cells it shares with the other path) has an empty cell, puts the
        smallest piece left on one of them (which one is left to the opponent, as is every other
        placement, that seat's own after its path is full included). mask: the pieces left (a
        17-bit mask); the other empty cells are the rest of them. Memoised in gp, indexed by the
        mask compressed to the root's reserve (gix); tests/test_grid_exact.py checks it against
        every continuation."""
        if own == 0 and oth == 0:
            return 0
        key = gix[mask & 511] + gix[512 + (mask >> 9)]
        idx = (((seat * (gp.shape[0] >> 10) + key) * 8 + own) * 8 + oth) * 8 + sh
        got = gp[idx]
        if got != -32768:
            return np.int64(got)
        count = _pop16(mask >> 1)
        rest = count - own - oth - sh
        best = np.int64(INF)
        if (16 - count) & 1 == seat and own + sh > 0:
            p = 1
            while not mask >> p & 1:
                p += 1
            m2 = mask ^ (1 << p)
            if own > 0:
                best = min(best, _gpair(gp, gix, m2, own - 1, oth, sh, seat) - p)
            if sh > 0:
                best = min(best, _gpair(gp, gix, m2, own, oth, sh - 1, seat))
        else:
            for p in range(1, 17):
                if mask >> p & 1:
                    m2 = mask ^ (1 << p)
                    if own > 0:
                        best = min(best, _gpair(gp, gix, m2, own - 1, oth, sh, seat) - p)
                    if oth > 0:
                        best = min(best, _gpair(gp, gix, m2, own, oth - 1, sh, seat) + p)
                    if sh > 0:
                        best = min(best, _gpair(gp, gix, m2, own, oth, sh - 1, seat))
                    if rest > 0:
                        best = min(best, _gpair(gp, gix, m2, own, oth, sh, seat))
        gp[idx] = best
        return best

    @_jit
    def _game_pair_bounds(st, sums, emp, plo, phi, pb, gp, gix):  # noqa: ANN001, ANN202
        """(low, high) of the value of the game from pairs of paths, at least as tight as _pair_bounds
        and _game_bounds: Player 1 who puts the smallest piece left on its path i at each of its
        turns keeps the margin at least min over j of (P2_j - P1_i), and the least that can come to
        is _gpair's (the empty cells i and j share cancel, the pieces on the rest of them are from
        one pool and the turns alternate); so the value is at least the max over i of that. The
        same for Player 2 with its path j: at most min over j of max over i (Player 2 commits to j
        before Player 1's best path is known, so this one is a min of maxima). Bounds of the game,
        not of every filling (as _game_bounds); the filling-based pair high is kept when lower."""
        lo = plo[st[16]]
        hi = phi[st[16]]
        mask = st[16]
        empty = 0
        for c in range(CELLS):
            if st[c] == 0:
                empty |= 1 << c
        ni, nj = _rank_paths(sums, emp, plo, phi, mask, empty, pb, 0)
        for r in range(ni):
            i = pb[r]
            pb[140 + r] = _PM[0, i] & empty
        up = -INF  # the filling-based high: max over i of min over j
        down = -INF  # the game's low: max over i of min over j
        for r in range(ni):
            i = pb[r]
            e1 = emp[0, i]
            s1 = sums[0, i]
            m1 = pb[140 + r]
            top = INF
            bottom = INF
            for q in range(nj):
                shared = _pop16(m1 & pb[120 + q])
                a = pb[100 + q] - shared
                b = e1 - shared
                d = pb[80 + q] - s1
                top = min(top, d + hi[a] - lo[b])
                if d + lo[a] - hi[b] < bottom:  # the game's low can only raise the filling's
                    bottom = min(bottom, d + _gpair(gp, gix, mask, b, a, shared, 0))
                if top <= up and bottom <= down:
                    break
            up = max(up, top)
            down = max(down, bottom)
        high = up  # the game's high: min over j of max over i
        for q in range(nj):
            ej = pb[100 + q]
            mj = pb[120 + q]
            most = -INF
            for r in range(ni):
                i = pb[r]
                shared = _pop16(pb[140 + r] & mj)
                a = ej - shared
                b = emp[0, i] - shared
                d = pb[80 + q] - sums[0, i]
                if d + hi[a] - lo[b] > most:
                    most = max(most, d - _gpair(gp, gix, mask, a, b, shared, 1))
                if most >= high:
                    break
            high = min(high, most)
        return down, high

    @_jit
    def _moves(st, sums, emp, first, plo, phi):  # noqa: ANN001, ANN202
        """All moves in the order the search tries them."""
        move = np.empty(256, np.int64)
        score = np.empty(256)
        k = _gen(st, sums, emp, plo, phi, move, score, np.zeros((1, 2, CELLS)), 0, np.zeros(512, np.int64),
                 _live(st, sums, emp, plo, phi, 0), _live(st, sums, emp, plo, phi, 1))
        head = _first(move, score, k, first)
        out = np.empty(k, np.int64)
        out[0] = move[head]
        j = 1
        for t in np.argsort(score[:k], kind="mergesort"):
            if t != head:
                out[j] = move[t]
                j += 1
        return out

    @_jit_inline
    def _groups(st, sums, buf, co, po, lo, w):  # noqa: ANN001, ANN202
        """The endgames' common start: the empty cells (into buf[co:]) and the pieces left (buf[po:]),
        in order, and per seat s the smallest current path sum in each group of paths (a group: the
        set of empty cells its paths cross, as a bit mask over the cells) at buf[lo + w * s + mask].
        Offsets, not views: a view costs an atomic reference count pair. Returns the number of
        empty cells."""
        k = 0
        for c in range(CELLS):
            if st[c] == 0:
                buf[co + k] = c
                k += 1
        q = 0
        for p in range(1, 17):
            if st[16] >> p & 1:
                buf[po + q] = p
                q += 1
        for u in range(2 * w):
            buf[lo + u] = INF
        for s in range(2):
            for i in range(20):
                mask = 0
                for j in range(k):
                    mask |= (_CPM[s, buf[co + j]] >> i & 1) << j
                if sums[s, i] < buf[lo + w * s + mask]:
                    buf[lo + w * s + mask] = sums[s, i]
        return k

    @_jit_inline
    def _endgame(st, sums, sign, buf):  # noqa: ANN001, ANN202
        """Exact value for the mover with 1 to 3 empty cells, from the final margins of the k!
        ways to fill them: each seat's paths are grouped by which empty cells they cross (the
        smallest current sum per group), so a filling costs a few additions per group.
        buf: 32 int64 of scratch (cells [0:3], pieces [3:6], fillings' values [6:12], group minima
        [16:32])."""
        k = _groups(st, sums, buf, 0, 3, 16, 8)
        count = _NPERMS[k]
        for t in range(count):
            best0 = INF
            best1 = INF
            for mask in range(1 << k):
                add = 0
                for j in range(k):
                    if mask >> j & 1:
                        add += buf[3 + _PERMS[k, t, j]]
                best0 = min(best0, buf[16 + mask] + add)
                best1 = min(best1, buf[24 + mask] + add)
            buf[6 + t] = sign * (best1 - best0)
        if k <= 2:  # the mover's placement decides the whole filling
            best = buf[6]
            for t in range(1, count):
                best = max(best, buf[6 + t])
            return best
        # three cells: the mover puts piece a on cell j, the opponent picks which of the two
        # fillings with that placement follows
        best = -INF
        for j in range(3):
            for a in range(3):
                worst = INF
                for t in range(6):
                    if _PERMS[3, t, j] == a:
                        worst = min(worst, buf[6 + t])
                if worst > best:
                    best = worst
                    st[REF + 3] = buf[3 + a] * 16 + buf[j]  # the reply a parent may try (_search)
        return best

    @_jit_inline
    def _endgame4(st, sums, sign, buf, alpha, beta):  # noqa: ANN001, ANN202
        """Value for the mover with exactly 4 empty cells, from the final margins of the 24 ways to
        fill them (paths grouped by which empty cells they cross, as in _endgame): the mover puts
        one piece, the opponent one, then the mover picks which of the last two fillings follows.
        Fail-soft within (alpha, beta): a value >= beta is a lower bound, one <= alpha an upper one.
        Leaves the mover's best move in st[REF + 4] (the reply a parent may try). buf: 512 int64:
        cells [0:4], pieces [4:8], the groups in use [8:24], group minima [192:224], the final
        margin for the mover by filling code (piece index << 2 * cell index) [224:480], the sum of
        the pieces in each 4-bit set of piece indices [480:496]. Offsets, not views (a view costs
        an atomic reference count pair)."""
        _groups(st, sums, buf, 0, 4, 192, 16)
        buf[480] = 0
        for u in range(1, 16):
            buf[480 + u] = buf[480 + (u & (u - 1))] + buf[4 + _LOW4[u]]
        nm = 0
        for mask in range(16):
            if buf[192 + mask] < INF or buf[208 + mask] < INF:
                buf[8 + nm] = mask
                nm += 1
        for t in range(24):
            best0 = INF
            best1 = INF
            for u in range(nm):
                mask = buf[8 + u]
                v = buf[480 + _F4SET[t, mask]]
                best0 = min(best0, buf[192 + mask] + v)
                best1 = min(best1, buf[208 + mask] + v)
            buf[224 + _F4CODE[t]] = sign * (best1 - best0)
        best = -INF
        for j1 in range(4):
            for a1 in range(4):
                c1 = a1 << 2 * j1
                worst = INF
                for j2 in range(4):
                    if j2 == j1:
                        continue
                    j3 = 0
                    while j3 == j1 or j3 == j2:
                        j3 += 1
                    j4 = 6 - j1 - j2 - j3
                    for a2 in range(4):
                        if a2 == a1:
                            continue
                        b3 = 0
                        while b3 == a1 or b3 == a2:
                            b3 += 1
                        b4 = 6 - a1 - a2 - b3
                        c2 = c1 | a2 << 2 * j2
                        v = max(buf[224 + (c2 | b3 << 2 * j3 | b4 << 2 * j4)],
                                buf[224 + (c2 | b4 << 2 * j3 | b3 << 2 * j4)])
                        worst = min(worst, v)
                        if worst <= best or worst <= alpha:
                            break
                    if worst <= best or worst <= alpha:
                        break
                if worst > best:
                    best = worst
                    st[REF + 4] = buf[4 + a1] * 16 + buf[j1]
                    if best >= beta:
                        return best
        return best

    @_jit_inline
    def _reply_bound(st, sums, emp, zk, plo, phi, eg, r, sign, a):  # noqa: ANN001, ANN202
        """The mover's upper bound on the board with the opponent's reply r added (the path bounds,
        and the mover's side of the pair bounds where those stay above a), or, when that is above a,
        some number above a (the caller keeps only a bound of at most a)."""
        _put(st, sums, emp, r >> 4, r & 15)  # never looked up in the table: no Zobrist codes
        rlo, rhi = _bounds(st, sums, emp, plo, phi)
        if sign > 0:
            if rhi > a:
                rhi = min(rhi, _pair_side(st, sums, emp, plo, phi, eg, 32, True, a))
            ub = rhi
        else:
            if -rlo > a:
                rlo = max(rlo, _pair_side(st, sums, emp, plo, phi, eg, 32, False, a))
            ub = -rlo
        _take(st, sums, emp, r >> 4, r & 15)
        return ub

    @_jit_inline
    def _swap_slack(own, opp, mover, cell, d):  # noqa: ANN001, ANN202
        """How much more (piece + d, cell) can be worth to the mover than (piece, cell): swapping the
        two pieces in every continuation moves each live path's final sum by 0 or +-|d| (+d on
        paths through cell, -d on those through the other piece's cell), and a best path is the
        lowest live one (or a constant cap). The mover gains at most |d| on each best path, and only
        |d| in all unless cell is on a live path of the side that the swap makes worse off: the
        opponent's when the piece gets larger (d > 0), the mover's when it gets smaller. own / opp:
        the mover's and the opponent's live paths (_live masks); mover: its seat."""
        if d > 0:
            onlive = opp & _CPM[1 - mover, cell]
        else:
            onlive = own & _CPM[mover, cell]
        return (2 if onlive else 1) * abs(d)

    @_jit_inline
    def _cell_groups(sums, emp, cell, buf):  # noqa: ANN001, ANN202
        """The paths of each seat grouped by their empty count e, for the children of moves on cell:
        the least sum of those that do not cross it (unchanged in every child) and of those that do
        (each gains the piece and loses an empty cell). A game bound only needs the least sum per
        empty count, so a child's bound is a min over at most 16 groups instead of 40 paths.
        Compressed into buf (int64): seat s's groups at buf[64 s:], off the cell as (e, least sum)
        pairs from buf[64 s + 2], on it from buf[64 s + 34]; their counts in buf[64 s],
        buf[64 s + 1]. Uses buf[128:160] as scratch."""
        for s in range(2):
            for u in range(32):
                buf[128 + u] = INF
            on = _CPM[s, cell]
            for i in range(20):
                u = emp[s, i] + (16 if on >> i & 1 else 0)
                if sums[s, i] < buf[128 + u]:
                    buf[128 + u] = sums[s, i]
            base = 64 * s
            no = 0
            ni = 0
            for e in range(8):
                if buf[128 + e] < INF:
                    buf[base + 2 + 2 * no] = e
                    buf[base + 3 + 2 * no] = buf[128 + e]
                    no += 1
                if buf[144 + e] < INF:
                    buf[base + 34 + 2 * ni] = e
                    buf[base + 35 + 2 * ni] = buf[144 + e]
                    ni += 1
            buf[base] = no
            buf[base + 1] = ni

    @_jit_inline
    def _child_seat_bounds(buf, s, piece, plo, gt, reserve, z):  # noqa: ANN001, ANN202
        """Seat s's (lowest possible best path, greedy cap of its best path) after piece on the cell
        of _cell_groups's buf; reserve: the child's (its rows of plo and gt are read in place: a row
        view costs an atomic reference count pair), z: 1 when s moves next there. The same mins as
        _game_bounds over the child's paths."""
        base = 64 * s
        low = INF
        cap = INF
        for u in range(buf[base]):
            e = buf[base + 2 + 2 * u]
            a = buf[base + 3 + 2 * u]
            low = min(low, a + plo[reserve, e])
            cap = min(cap, a + gt[reserve, e, z])
        for u in range(buf[base + 1]):
            e = buf[base + 34 + 2 * u] - 1
            a = buf[base + 35 + 2 * u] + piece
            low = min(low, a + plo[reserve, e])
            cap = min(cap, a + gt[reserve, e, z])
        return low, cap

    @_jit_inline
    def _child_bounds(st, sums, emp, plo, gt, mv, cell, buf):  # noqa: ANN001, ANN202
        """(cell, low, high): the game bounds (Player 2's sum minus Player 1's) of move mv's child,
        read from the paths grouped per cell (_cell_groups, refreshed into buf when mv's cell is
        not `cell`, the one grouped last) and the child's reserve; nothing is placed."""
        piece = mv >> 4
        if mv & 15 != cell:
            cell = mv & 15
            _cell_groups(sums, emp, cell, buf)
        reserve = st[16] ^ (1 << piece)
        p1 = st[17] & 1  # 1 when Player 1 moves next in the children
        p1lo, p1hi = _child_seat_bounds(buf, 0, piece, plo, gt, reserve, p1)
        p2lo, p2hi = _child_seat_bounds(buf, 1, piece, plo, gt, reserve, 1 - p1)
        return cell, p2lo - p1hi, p2hi - p1lo

    @_jit
    def _child_game_bounds(st, sums, emp, plo, gt, move, k, out, buf):  # noqa: ANN001, ANN202
        """_game_bounds of each of the k moves' child, into out[q, 0:2], without placing a piece."""
        cell = -1
        for q in range(k):
            cell, out[q, 0], out[q, 1] = _child_bounds(st, sums, emp, plo, gt, move[q], cell, buf)

    @_jit_inline
    def _bound_order(st, sums, emp, plo, phi, gt, move, score, k, b, sign, buf):  # noqa: ANN001, ANN202
        """Each of the k moves' child looked at through its game bounds (no node, nothing placed:
        _cell_groups): the first whose low bound for the mover is already at least b ends the node,
        returned as (that bound, its move); else (-INF, -1), with each move's score lowered by
        BOUND_ORDER_WEIGHT times the sum of its child's two bounds for the mover (higher first). The
        child's game bounds are what the child would return first if searched, so a cut here is one
        the search would make, without the node. buf: 160 int64 of scratch."""
        cell = -1
        for q in range(k):
            cell, low, high = _child_bounds(st, sums, emp, plo, gt, move[q], cell, buf)
            if sign < 0:
                low, high = -high, -low
            if low >= b:
                return low, move[q]
            score[q] -= BOUND_ORDER_WEIGHT * (low + high)
        return -INF, -1

    @_jit_inline
    def _cut_look(st, sums, emp, plo, gt, b):  # noqa: ANN001, ANN202
        """(bound, move) of the first move whose child's game bounds already give the mover at least
        b, else (-INF, -1): _bound_order's cut, cheaper, run before the moves are generated (a cut
        skips _live and _gen). Only the smallest and the largest piece left are looked at, on each
        empty cell in turn (on seed 5's position 12 at 12 empty cells they found 95% of the cuts
        that all the pieces find), and only the mover's low bound (the other seat's lowest possible
        best path minus the mover's greedy cap; the mover does not move next in the child). The two
        pieces give two child reserves for the whole node, so each cell reads the 40 paths once,
        no grouping: first the mover's two caps, then the other's two lows, stopped as soon as
        both are below what a cut needs. The bound is what the child would return at once, so a
        cut here is one the search would make, without its node."""
        m = st[16]
        pmin = 1
        while m >> pmin & 1 == 0:
            pmin += 1
        pmax = 16
        while m >> pmax & 1 == 0:
            pmax -= 1
        ra = m ^ (1 << pmin)  # the children's reserves (their rows of plo and gt read in place)
        rb = m ^ (1 << pmax)
        ms = st[17] & 1  # the mover's seat
        os = 1 - ms
        for cell in range(CELLS):
            if st[cell] != 0:
                continue
            on = _CPM[ms, cell]
            capa = INF
            capb = INF
            for i in range(20):
                a = sums[ms, i]
                e = emp[ms, i]
                if on >> i & 1:
                    capa = min(capa, a + pmin + gt[ra, e - 1, 0])
                    capb = min(capb, a + pmax + gt[rb, e - 1, 0])
                else:
                    capa = min(capa, a + gt[ra, e, 0])
                    capb = min(capb, a + gt[rb, e, 0])
            ta = b + capa  # the other's lowest possible best path that a cut needs
            tb = b + capb
            on = _CPM[os, cell]
            lowa = INF
            lowb = INF
            for i in range(20):
                a = sums[os, i]
                e = emp[os, i]
                if on >> i & 1:
                    lowa = min(lowa, a + pmin + plo[ra, e - 1])
                    lowb = min(lowb, a + pmax + plo[rb, e - 1])
                else:
                    lowa = min(lowa, a + plo[ra, e])
                    lowb = min(lowb, a + plo[rb, e])
                if lowa < ta and lowb < tb:
                    break
            if lowa >= ta:
                return lowa - capa, pmin * 16 + cell
            if lowb >= tb:
                return lowb - capb, pmax * 16 + cell
        return -INF, -1

    @_jit_inline
    def _all_look(st, sums, emp, plo, gt, a):  # noqa: ANN001, ANN202
        """The most that the mover gets by any move when every child's game bounds already keep it at
        or below a, else INF (stopped at the first child whose bounds do not). In a child the other
        seat moves next: the mover's value there is at most the other's greedy cap (gt, owner to
        move) minus the mover's lowest possible best path (plo), which is what the child returns at
        once when it is at most a (its game bounds reach its beta); so a node whose every child
        does that fails low with the most of them, the value its search would find or a tighter
        bound, without a move. Nothing is placed: a child's path reads through its reserve's rows."""
        m = st[16]
        ms = st[17] & 1
        os = 1 - ms
        most = -INF
        for cell in range(CELLS):
            if st[cell] != 0:
                continue
            onm = _CPM[ms, cell]
            ono = _CPM[os, cell]
            for p in range(1, 17):
                if m >> p & 1 == 0:
                    continue
                r = m ^ (1 << p)
                cap = INF
                for i in range(20):
                    x = sums[os, i]
                    e = emp[os, i]
                    if ono >> i & 1:
                        cap = min(cap, x + p + gt[r, e - 1, 1])
                    else:
                        cap = min(cap, x + gt[r, e, 1])
                low = INF
                for i in range(20):
                    x = sums[ms, i]
                    e = emp[ms, i]
                    if onm >> i & 1:
                        low = min(low, x + p + plo[r, e - 1])
                    else:
                        low = min(low, x + plo[r, e])
                    if cap - low > a:
                        return INF
                most = max(most, cap - low)
        return most

    @_jit
    def _child_cut(zk, tt, move, k, b):  # noqa: ANN001, ANN202
        """Enhanced transposition cut-off: the highest value >= b that a table entry of a child
        (after one of the k moves) already proves for the mover, and that move; (-INF, -1) when
        none does. The child's codes come from the node's by the move's Zobrist terms, so no child
        is placed; a probe costs a table read."""
        cut = -INF
        cm = -1
        size = tt.shape[0] - 1
        for q in range(k):
            piece = move[q] >> 4
            cell = move[q] & 15
            key = zk[0, 0] ^ _Z1[piece, _SYM[0, cell]]
            g = 0
            for u in range(1, 4):
                ku = zk[0, u] ^ _Z1[piece, _SYM[u, cell]]
                if ku < key:
                    key = ku
                    g = u
            row = tt[key & size]
            if row[0] == key and row[1] == zk[1, g] ^ _Z2[piece, _SYM[g, cell]] and row[3] >> 16 > 0:
                value = 32768 - (row[2] >> 16)  # minus the child's upper bound
                if value >= b and value > cut:
                    cut = value
                    cm = move[q]
        return cut, cm

    @_jit
    def _past(limit):  # noqa: ANN001, ANN202
        """Whether time.perf_counter() is past limit: read in object mode, in a function of its own. A
        process's first object-mode call unpickles the lifted block with the IR of the function
        around it: about 0.14 s inside _search, a few milliseconds here (the first timed search
        that runs past 65,536 nodes paid it)."""
        with numba.objmode(now="float64"):
            now = time.perf_counter()
        return now > limit

    @_jit_norc
    def _search(st, sums, emp, zk, tt, plo, phi, gt, gp, gix, mv, sc, wt, eg, tr, od, alpha, beta, limit):  # noqa: ANN001, ANN202
        st[18] += 1
        if st[19]:
            return 0
        if limit > 0 and st[18] & 65535 == 0 and _past(limit):
            st[19] = 1
            return 0
        n = 16 - st[17]
        st[REF + n] = -1
        sign = 1 if st[17] & 1 == 0 else -1
        mlo, mhi = _game_bounds(st, sums, emp, plo, phi, gt)
        if sign > 0:
            vlo, vhi = mlo, mhi
        else:
            vlo, vhi = -mhi, -mlo
        if vlo >= beta or vlo == vhi:
            return vlo
        if vhi <= alpha:
            return vhi
        store = n >= STORE_FROM  # the endgames below are cheaper than a probe
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
            slot = key & (tt.shape[0] - 1)
            # a slot: key, check code, the bounds (lower + 2**15 | upper + 2**15 << 16), move | empty
            # cells << 16; 32 bytes, so a probe reads one cache line
            if tt[slot, 0] == key and tt[slot, 1] == check and tt[slot, 3] >> 16 > 0:
                hit = True
                tl, th = (tt[slot, 2] & 0xFFFF) - 32768, (tt[slot, 2] >> 16) - 32768
                tm = tt[slot, 3] & 0xFFFF
                first = (tm >> 4) * 16 + _SYM[g, tm & 15]
                if tl >= beta or th <= alpha or tl == th:
                    st[REF + n] = first
                    return tl if tl >= beta or tl == th else th
                vlo = max(vlo, tl)
                vhi = min(vhi, th)
        game_pair = n >= GAME_PAIR_FROM and gp.shape[0] > 0
        if game_pair or n >= st[31]:  # st[31]: PAIR_FROM unless JitSearch(node_pairs=...)
            if game_pair:
                plo2, phi2 = _game_pair_bounds(st, sums, emp, plo, phi, eg[32:], gp, gix)
            else:
                plo2, phi2 = _pair_bounds_at(st, sums, emp, plo, phi, eg, 32)
            if sign > 0:
                vlo, vhi = max(vlo, plo2), min(vhi, phi2)
            else:
                vlo, vhi = max(vlo, -phi2), min(vhi, -plo2)
            if vlo >= beta or vlo == vhi or vhi <= alpha:
                if game_pair:
                    st[22] += 1
                return vlo if vlo >= beta or vlo == vhi else vhi
        if st[ALL_LOOK] <= n <= st[ALL_LOOK + 1] and st[TYP + n] == 2:
            # an expected all-node whose children's game bounds may all fail it low already
            most = _all_look(st, sums, emp, plo, gt, max(alpha, vlo))
            if most < INF:
                st[ALL_LOOK + 2] += 1
                return most
        if n <= 3:
            return _endgame(st, sums, sign, eg)
        if n == 4:
            return _endgame4(st, sums, sign, eg, alpha, beta)
        # A child below STORE_FROM empty cells is never looked up in the table (nor are its
        # children's, ETC_FROM > STORE_FROM): its Zobrist codes are not updated, placed and taken
        # back in order, so the codes are right again at this node.
        hashed = n > STORE_FROM or n > st[24]
        a = max(alpha, vlo)
        a0 = a
        b = min(beta, vhi)
        best = -INF
        best_move = -1
        # Most nodes that get here are cut by their first move: the table's move is tried before
        # the moves are generated and sorted. Buffers are per depth (n).
        p0 = first if first >= 0 and st[first & 15] == 0 and st[16] >> (first >> 4) & 1 else -1
        move, score = mv[n], sc[n]
        k = -1
        h = -1  # index of the best-scored move, tried before the others are sorted
        order = od[n]  # the moves' indices by score, filled once the moves are sorted
        j = 0
        t = 0
        ntry = 0
        nr = 0  # replies of the opponent that refute every move they commute with (see below)
        own = opp = 0xFFFFF  # live paths of the mover and of the opponent (set with the moves)
        while True:
            if t == 0 and p0 >= 0:
                m = p0
            elif k < 0:
                if st[CUT_LOOK] <= n <= st[CUT_LOOK + 1] and st[TYP + n] == 1:
                    # an expected cut-node whose table move (if any) failed: a child that its game
                    # bounds already settle as a cut-off, before the moves are generated
                    cut, cm = _cut_look(st, sums, emp, plo, gt, b)
                    if cm >= 0:
                        st[27] += 1
                        best = max(best, cut)
                        best_move = cm
                        break
                own = _live(st, sums, emp, plo, phi, st[17] & 1)
                opp = _live(st, sums, emp, plo, phi, 1 - (st[17] & 1))
                if st[17] & 1 == 0:
                    k = _gen(st, sums, emp, plo, phi, move, score, wt, n, eg, own, opp)
                else:
                    k = _gen(st, sums, emp, plo, phi, move, score, wt, n, eg, opp, own)
                if st[25] <= n <= st[26] and (st[TYP + n] != 2 or st[BOUND_ORDER_ALL]):
                    # a child whose game bounds already cut, else their order (an expected all-node
                    # fails low: no cut to find there, and its order matters little)
                    cut, cm = _bound_order(st, sums, emp, plo, phi, gt, move, score, k, b, sign, eg)
                    if cm >= 0:
                        st[27] += 1
                        best = max(best, cut)
                        best_move = cm
                        break
                for q in range(k):
                    if move[q] != p0 and (h < 0 or score[q] < score[h]):
                        h = q
                if h < 0:
                    break
                if st[28] <= n <= st[29]:  # killer moves: sorted right after the best-scored move
                    for u in range(NK2):
                        kr = st[KIL2 + NK2 * (n + 1) + u]
                        if kr < 0 or kr == p0 or st[kr & 15] != 0 or st[16] >> (kr >> 4) & 1 == 0:
                            continue
                        for q in range(k):
                            if move[q] == kr and q != h:
                                score[q] = score[h] - NK2 + u
                                st[30] += 1
                                break
                if n >= st[24]:  # a child whose table entry already proves a cut-off
                    cut, cm = _child_cut(zk, tt, move, k, b)
                    if cm >= 0:
                        st[23] += 1
                        best = max(best, cut)
                        best_move = cm
                        break
                m = move[h]
            else:
                if j == 0:  # stable insertion sort (a few dozen moves below the top nodes)
                    for q in range(k):
                        x = score[q]
                        u = q
                        while u > 0 and score[order[u - 1]] > x:
                            order[u] = order[u - 1]
                            u -= 1
                        order[u] = q
                while j < k and (move[order[j]] == p0 or order[j] == h):
                    j += 1
                if j >= k:
                    break
                m = move[order[j]]
                j += 1
            piece = m >> 4
            cell = m & 15
            # Piece swap bound: this move's value is within 2|piece - p| of an earlier (p, cell)
            # (see the module docstring); skip it when that already keeps it at or below a.
            bound = INF
            for q in range(nr):
                r = st[RFM + n * NR + q]
                if r & 15 != cell and r >> 4 != piece:
                    bound = min(bound, st[RFV + n * NR + q])
            if bound <= a:
                best = max(best, bound)
                st[21] += 1
                continue
            for q in range(t):
                if tr[n, 0, q] & 15 == cell:
                    slack = _swap_slack(own, opp, st[17] & 1, cell, piece - (tr[n, 0, q] >> 4))
                    bound = min(bound, tr[n, 1, q] + slack)
            if bound <= a:
                best = max(best, bound)
                st[20] += 1
                continue
            _put(st, sums, emp, piece, cell)
            if hashed:
                _hash(zk, piece, cell)
            # the child's expected type: a PV node's first child is PV, its others cut-nodes; a
            # cut-node's first child is an all-node, its later ones (it did not cut) cut-nodes
            typ = st[TYP + n]
            if typ == 0:
                st[TYP + n - 1] = 0 if best_move < 0 else 1
            else:
                st[TYP + n - 1] = 2 if typ == 1 and t == 0 else 1
            if best_move < 0:
                value = -_search(st, sums, emp, zk, tt, plo, phi, gt, gp, gix, mv, sc, wt, eg, tr, od, -b, -a,
                                 limit)
            else:
                value = -_search(st, sums, emp, zk, tt, plo, phi, gt, gp, gix, mv, sc, wt, eg, tr, od, -a - 1,
                                 -a, limit)
                if a < value < b:
                    st[TYP + n - 1] = 0
                    value = -_search(st, sums, emp, zk, tt, plo, phi, gt, gp, gix, mv, sc, wt, eg, tr, od, -b,
                                     -value, limit)
            r = st[REF + n - 1]
            _take(st, sums, emp, piece, cell)
            if hashed:
                _hash(zk, piece, cell)
            if st[19]:
                return 0
            if value <= a and r >= 0 and st[28] < n <= st[29] + 1 and st[KIL2 + NK2 * n] != r:
                # r refuted m: first in this depth's killer list (read by the nodes one level down)
                base = KIL2 + NK2 * n
                u = NK2 - 1
                for q in range(NK2):
                    if st[base + q] == r:
                        u = q
                        break
                while u > 0:
                    st[base + u] = st[base + u - 1]
                    u -= 1
                st[base] = r
            # Commuting reply: the opponent's reply r to this move, played right here instead,
            # leaves a board whose fillings include those after (m', r) for every move m' on another
            # cell with another piece; so when the bounds of that board already keep the mover at or
            # below a, every such m' fails low too (at most that bound), without a search.
            if value <= a and n >= REPLY_FROM:
                # the child's reply, and after the first move the replies that worked at this depth
                # before (they may not be legal here)
                for u in range(3 if t == 0 else 1):
                    if u > 0:
                        r = st[KIL + n * 2 + u - 1]
                    # legal here (a table move is checked too: a wrong one would give a wrong bound)
                    if r < 0 or st[r & 15] != 0 or st[16] >> (r >> 4) & 1 == 0 or nr >= NR or ntry >= NT:
                        continue
                    seen = False
                    for q in range(ntry):
                        if st[TRY + n * NT + q] == r:
                            seen = True
                    if seen:
                        continue
                    st[TRY + n * NT + ntry] = r
                    ntry += 1
                    ub = _reply_bound(st, sums, emp, zk, plo, phi, eg, r, sign, a)
                    if ub <= a:
                        st[RFM + n * NR + nr] = r
                        st[RFV + n * NR + nr] = ub
                        nr += 1
                        if u == 0 and st[KIL + n * 2] != r:
                            st[KIL + n * 2 + 1] = st[KIL + n * 2]
                            st[KIL + n * 2] = r
            tr[n, 0, t] = m
            tr[n, 1, t] = value  # not a cut-off: an upper bound of the move's value
            t += 1
            if value > best:
                best = value
                best_move = m
                if value > a:
                    a = value
                    if a >= b:
                        break
        st[REF + n] = best_move
        if store:
            if best <= a0:
                lo, hi = vlo, best
            elif best >= b:
                lo, hi = best, vhi
            else:
                lo, hi = best, best
            if hit:
                lo = max(lo, tl)
                hi = min(hi, th)
            if hit or n >= tt[slot, 3] >> 16:
                tt[slot, 0] = key
                tt[slot, 1] = check
                tt[slot, 2] = (lo + 32768) | (hi + 32768) << 16
                # no move (every one skipped by a bound) is stored as piece 0, which is never legal
                mv0 = (best_move >> 4) * 16 + _SYM[g, best_move & 15] if best_move >= 0 else 0
                tt[slot, 3] = mv0 | n << 16
        return best


_TABLES: list = []

_HUGE = 1 << 21  # a transparent huge page (x86-64)
_LIBC: list = []


def _huge_zeros(shape: tuple[int, ...], dtype: type) -> np.ndarray:
    """np.zeros(shape, dtype) on 2 MB-aligned memory that Linux is asked to back with transparent
    huge pages (madvise MADV_HUGEPAGE; this machine's THP mode is "madvise", so without the call a
    table gets 4 KB pages): the search reads its table (32 MB at 12 empty cells) and the rows of
    the per-reserve tables (4-4.5 MB each) at random, and with 4 KB pages such a read also misses
    the TLB. Where madvise is missing or refused, the same zeros on ordinary pages."""
    count = int(np.prod(shape)) * np.dtype(dtype).itemsize
    buf = np.zeros(count + _HUGE, np.uint8)  # fresh pages, not touched yet
    skip = -buf.ctypes.data % _HUGE
    out = buf[skip:skip + count].view(dtype).reshape(shape)
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            if not _LIBC:
                _LIBC.append(ctypes.CDLL(None, use_errno=True))
            _LIBC[0].madvise(out.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(count), 14)  # MADV_HUGEPAGE
        except (OSError, AttributeError):
            pass
    return out


_GREEDY: list = []


def _greedy(reserve: int) -> np.ndarray:
    """The greedy table (_fill_greedy), filled for every reserve within `reserve`."""
    if not _GREEDY:
        _GREEDY.extend([_huge_zeros((1 << 17, 8, 2), np.int16), np.zeros(1 << 17, np.bool_)])
    _fill_greedy(_GREEDY[0], _GREEDY[1], reserve)
    return _GREEDY[0]


def _game_pair_memo(reserve: int, enabled: bool) -> tuple[np.ndarray, np.ndarray]:
    """_gpair's memo (unfilled: -32768) for a search from `reserve`, and the index that compresses a
    mask of pieces within it to its rank among that reserve's subsets (low 9 bits, then the rest).
    Empty (the game pair bounds off, _pair_bounds instead) unless `enabled`, and past GAME_PAIR_UPTO
    pieces, where the memo would grow to 2**n * 2 KB. Off by default: at 12 empty cells they save
    about 8% of the nodes but cost about 40% more CPU per node (filling the memo, some 150k entries
    per search, and the second pass over the path pairs), so the search is slower
    (docs/rules/highway-grid.md)."""
    pieces = [p for p in range(1, 17) if reserve >> p & 1]
    if not enabled or len(pieces) > GAME_PAIR_UPTO:
        return np.zeros(0, np.int16), np.zeros(768, np.int64)
    rank = {p: k for k, p in enumerate(pieces)}
    gix = np.zeros(768, np.int64)
    for part in range(512):
        gix[part] = sum(1 << rank[p] for p in range(9) if part >> p & 1 and p in rank)
    for part in range(256):
        gix[512 + part] = sum(1 << rank[p + 9] for p in range(8) if part >> p & 1 and p + 9 in rank)
    return np.full((1 << len(pieces)) << 10, -32768, np.int16), gix


def _tables() -> tuple[np.ndarray, np.ndarray]:
    if not _TABLES:
        for table in _prefix_tables():
            huge = _huge_zeros(table.shape, table.dtype)
            huge[:] = table
            _TABLES.append(huge)
    return _TABLES[0], _TABLES[1]


class JitSearch(ExactAnswers):
    """ExactSearch's answers (exact_value, outcome, keeping_move, keeping_outcome, principal) over
    the compiled search."""

    def __init__(self, board: tuple[int, ...] | list[int], deadline: float | None = None,
                 table_bits: int | None = None, game_pair: bool = False, etc: bool = False,
                 bound_order: tuple[int, int] | None = (BOUND_ORDER_FROM, BOUND_ORDER_UPTO),
                 killers: tuple[int, int] | None = (KILLER_FROM, KILLER_UPTO),
                 node_pairs: int | None = None,
                 cut_look: tuple[int, int] | None = (CUT_LOOK_FROM, CUT_LOOK_UPTO),
                 all_look: tuple[int, int] | None = (ALL_LOOK_FROM, ALL_LOOK_UPTO),
                 bound_order_all: bool = False) -> None:
        if numba is None:
            raise RuntimeError("numba is not installed")
        if table_bits is None:
            small = sum(1 for piece in board if not piece) <= SMALL_TABLE_UPTO
            table_bits = SMALL_TABLE_BITS if small else TABLE_BITS
        self.st = np.zeros(STATE, np.int64)
        self.st[KIL:KIL + 34] = -1
        self.st[KIL2:KIL2 + 17 * NK2] = -1
        # empty cells from / up to which a node sorts the killer moves after its best-scored move
        self.st[28], self.st[29] = killers if killers is not None else (CELLS + 1, 0)
        self.st[24] = ETC_FROM if etc else CELLS + 1  # empty cells from which a node probes its children
        # empty cells from which a node tries the pair bounds (None: PAIR_FROM, by default never)
        self.st[31] = node_pairs if node_pairs is not None else PAIR_FROM
        # empty cells from / up to which a node looks at its children's game bounds (None: never)
        self.st[25], self.st[26] = bound_order if bound_order is not None else (CELLS + 1, 0)
        # empty cells from / up to which an expected cut-node runs _cut_look (None: never)
        self.st[CUT_LOOK:CUT_LOOK + 2] = cut_look if cut_look is not None else (CELLS + 1, 0)
        # empty cells from / up to which an expected all-node runs _all_look (None: never)
        self.st[ALL_LOOK:ALL_LOOK + 2] = all_look if all_look is not None else (CELLS + 1, 0)
        # whether expected all-nodes run the bound order too (by default only PV and cut-nodes)
        self.st[BOUND_ORDER_ALL] = int(bound_order_all)
        self.sums = np.zeros((2, 20), np.int64)
        self.emp = np.zeros((2, 20), np.int64)
        self.zk = np.zeros((2, 4), np.int64)
        self.st[16] = sum(1 << p for p in range(1, 17))
        size = 1 << table_bits
        self.tt = _huge_zeros((size, 4), np.int64)  # one 32-byte row per slot (see _search)
        # per-depth move buffers of the compiled search
        self.mv, self.sc = np.zeros((17, 256), np.int64), np.zeros((17, 256))
        self.wt = np.zeros((17, 2, CELLS))
        self.tr = np.zeros((17, 2, 256), np.int64)  # per depth: moves tried and their values
        self.od = np.zeros((17, 256), np.int64)  # per depth: the moves' order
        # scratch: the endgames' [0:32] and [192:], the pair bounds' [32:192], _gen's [496:]
        self.eg = np.zeros(512, np.int64)
        for s in (0, 1):
            for i in range(20):
                self.emp[s, i] = 7
        for cell, piece in enumerate(board):
            if piece:
                _place(self.st, self.sums, self.emp, self.zk, piece, cell)
        self.gt = _greedy(int(self.st[16]))  # the game bounds of every reserve this search can reach
        self.gp, self.gix = _game_pair_memo(int(self.st[16]), game_pair)
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
        gt = self.gt
        self.st[TYP + CELLS - int(self.st[17])] = 0 if beta - alpha > 1 else 1
        value = int(_search(self.st, self.sums, self.emp, self.zk, self.tt, plo, phi, gt, self.gp, self.gix,
                            self.mv, self.sc,
                            self.wt, self.eg, self.tr, self.od, alpha, beta, limit))
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
        return [(int(m) >> 4, int(m) & 15) for m in _moves(self.st, self.sums, self.emp, first, *_tables())]

    def _table_move(self) -> int:
        """The table's move for this position (piece * 16 + cell), or -1: after a search that
        failed high it is a move that proved that bound (the root's slot is never overwritten
        during its own search: nothing below it has as many empty cells)."""
        keys = self.zk[0]
        g = int(np.argmin(keys))
        row = self.tt[int(keys[g]) & (self.tt.shape[0] - 1)]
        if row[0] != keys[g] or row[1] != self.zk[1, g] or row[3] >> 16 == 0:
            return -1
        tm = int(row[3]) & 0xFFFF
        return (tm >> 4) * 16 + int(_SYM[g, tm & 15])  # each symmetry is its own inverse
