"""The opening book of Highway 4x4 (engine/grid/book.json, written by bench/grid_book.py): its entries
against fresh search where that is cheap, its symmetry lookup, and `grid solve` of the empty board
answering from it through the command line."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from engine.grid import GridState, Place, format_position, parse_position
from engine.grid.book import BOOK_PATH, lookup
from engine.grid.exact import SYMMETRIES, ExactSearch
from engine.grid.solver import solve

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.timeout(1200)  # a fresh checkout compiles the search first (minutes under load)
EMPTY = " ".join(["."] * 16)
RESEARCH_UP_TO = 12  # empty cells: entries this deep are re-searched (about a second each, compiled)


def _entries() -> list[dict]:
    return json.loads(BOOK_PATH.read_text())["entries"]


def _fresh(board: tuple[int, ...]) -> int:
    """The exact margin for the player to move, by a search that never reads the book."""
    try:
        from engine.grid import jitsearch
    except ImportError:  # pragma: no cover
        jitsearch = None
    if jitsearch is not None and jitsearch.available():
        return jitsearch.JitSearch(board).exact_value()
    return ExactSearch(board).exact_value()


def test_every_entry_is_a_value_or_an_outcome_with_its_bound():
    entries = _entries()
    assert entries
    for rec in entries:
        state = parse_position(rec["position"])
        assert ("value" in rec) != ("outcome" in rec), rec  # a bound is never stored as a value
        if "outcome" in rec:
            assert isinstance(rec["at_least"], int) and rec["outcome"] == 1 and rec["at_least"] >= 1
        if rec.get("best"):
            move = next(a for a in state.legal_actions() if a.notation() == rec["best"])
            assert isinstance(move, Place)
    proof = [json.loads(line) for line in (ROOT / "bench/results/grid_empty_board.jsonl").read_text().splitlines()]
    assert any(r["question"] == "win" and r["p1_wins"] and r["move"] == [1, 0] for r in proof)
    root = lookup(GridState().board)
    assert root is not None and root.outcome == 1 and root.best is not None
    # the root's move and bound are those a finished probe (or an exact entry) proved
    child = GridState().apply(Place(*root.best))
    after = lookup(child.board)
    probes = [json.loads(line) for line in (ROOT / "bench/results/grid_book_work.jsonl").read_text().splitlines()]
    text = format_position(child)
    bound = root.value if root.value is not None else root.at_least
    assert (after is not None and after.value == bound) or any(
        r.get("position") == text and r.get("at_least") == bound and r.get("holds") for r in probes)


def test_an_exact_root_value_rests_on_a_probe_of_every_first_move():
    """The empty board's value is the best first move's: the work file must show every other first
    move (one per symmetry class) held to at most that value, or the book may not call it exact."""
    root = lookup(GridState().board)
    if root is None or root.value is None:
        pytest.skip("the book holds only the empty board's outcome")
    probes = [json.loads(line) for line in (ROOT / "bench/results/grid_book_work.jsonl").read_text().splitlines()]
    failed = {r["position"] for r in probes if r.get("at_least") == root.value + 1 and r.get("holds") is False}
    exact = {format_position(parse_position(r["position"])): r["value"] for r in _entries() if "value" in r}
    seen: set[tuple[int, ...]] = set()
    for move in GridState().legal_actions():
        child = GridState().apply(move)
        canon = min(tuple(child.board[g[c]] for c in range(16)) for g in SYMMETRIES)
        if canon in seen:
            continue
        seen.add(canon)
        forms = {format_position(GridState(tuple(b))) for b in (
            tuple(child.board[g.index(c)] for c in range(16)) for g in SYMMETRIES)}
        held = any(f in failed for f in forms) or any(exact.get(f, root.value + 1) <= root.value for f in forms)
        assert held, f"first move {move.notation()} is not shown to stay at or under {root.value}"
    assert len(seen) >= 16 * 16 // len(SYMMETRIES)


def _compiled() -> bool:
    try:
        from engine.grid import jitsearch
    except ImportError:  # pragma: no cover
        return False
    return jitsearch.available()


def test_sampled_deep_entries_match_a_fresh_search():
    # the pure-Python search (no numba) takes minutes from 11 empty cells: it re-searches the 10-empty one
    up_to = RESEARCH_UP_TO if _compiled() else 10
    deep = [r for r in _entries() if "value" in r and parse_position(r["position"]).board.count(0) <= up_to]
    assert len(deep) >= (2 if _compiled() else 1)
    for rec in random.Random(1).sample(deep, min(3, len(deep))):
        state = parse_position(rec["position"])
        sign = 1 if state.placed % 2 == 0 else -1
        assert sign * _fresh(state.board) == rec["value"], rec["position"]
        if rec.get("best"):  # the stored move keeps the value
            child = state.apply(next(a for a in state.legal_actions() if a.notation() == rec["best"]))
            assert -sign * _fresh(child.board) == rec["value"]


def test_symmetric_positions_read_the_same_entry_with_the_move_mapped():
    # a position its symmetries change (the empty board maps to itself, and so does its move)
    rec = next(r for r in _entries() if "value" in r and r.get("best")
               and parse_position(r["position"]).board.count(0) < 16)
    state = parse_position(rec["position"])
    piece, cell = rec["best"].split("@")
    move = next(a for a in state.legal_actions() if a.notation() == rec["best"])
    for g in SYMMETRIES:
        board = [0] * 16
        for c, v in enumerate(state.board):
            board[g[c]] = v
        entry = lookup(tuple(board))
        assert entry is not None and entry.value == rec["value"]
        assert entry.best == (int(piece), g[move.cell])
        answer = solve(GridState(tuple(board)))
        assert answer.exact and answer.book and answer.value == rec["value"]


def _cli(*args: str) -> dict:
    proc = subprocess.run([sys.executable, "-m", "referee_app", *args, "--json"], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_grid_solve_of_the_empty_board_answers_from_the_book():
    out = _cli("grid", "solve", EMPTY, "--outcome")
    assert out["exact"] is True and out["book"] is True
    root = lookup(GridState().board)
    assert root is not None and root.best is not None
    move = Place(*root.best).notation()
    assert out["outcome"] == "player 1 wins" and out["best"] == move
    margin = _cli("grid", "solve", EMPTY, "--time", "1")
    plain = _cli("grid", "solve", EMPTY)  # the command, as written
    assert plain["exact"] is (root.value is not None) and plain["best"] == move
    if root.value is None:  # only the outcome is proved: the margin stays an estimate, honestly
        assert margin["exact"] is False and margin["value"] >= root.at_least
    else:
        assert margin["exact"] is True and margin["value"] == root.value
    assert margin["best"] == move and margin["book"] is True


@pytest.mark.parametrize("text", [EMPTY])
def test_a_fixed_depth_search_ignores_the_book(text):
    answer = solve(parse_position(text), max_depth=1)
    assert not answer.exact and not answer.book
