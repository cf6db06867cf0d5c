"""The Highway 4x4 opening book (engine/grid/book.json): what is proved about positions near the empty
board, which `grid solve` answers from the book instead of searching (engine/grid/book.py).

Two steps. The long one probes exact values with the compiled search, one JSON line per finished
null-window probe in a work file, so a stopped run resumes (probes already in the file are not redone):

    nice -n 19 .venv/bin/python bench/grid_book.py --work bench/results/grid_book_work.jsonl

It settles, in this order, (1) the exact margins along a line from 1@a1 (each side plays the move of
a 2-ply heuristic search) at LINE_EMPTY empty cells, cheap enough for the tests to re-search up to
12; (2) the exact margin v of the position after 1@a1 (Player 2 to move; the win proof of
bench/results/grid_empty_board.jsonl says it is at least 1), probing "is it at least x?" for
x = 2, 3, ... until one fails; (3) the empty board's margin (`root_walk`): for each other first move,
one per symmetry class, "does it reach v + 1?"; one that does becomes the best move, its exact margin
the new v, and the walk goes on (--no-line skips (1), --skip-first does only (1)). It is safe to
stop at any time; a probe that did not finish is not recorded and is redone. The short step writes
the book from the work file and the empty-board checkpoint:

    .venv/bin/python bench/grid_book.py --work bench/results/grid_book_work.jsonl \
        --write engine/grid/book.json

Every value in the book is exact (both probes around it finished); a position whose margin is only
bounded (the empty board, until the walk of (3) has probed every first move) is stored with its
outcome and its bound, never as a value.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent.parent), str(Path(__file__).resolve().parent)]

from grid_empty_board import root_classes  # noqa: E402

from engine.grid import GridState, Place, cell_name, format_position  # noqa: E402
from engine.grid.exact import SYMMETRIES, ExactSearch  # noqa: E402
from engine.grid.solver import solve  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
EMPTY_BOARD_PROOF = ROOT / "bench" / "results" / "grid_empty_board.jsonl"
LINE_EMPTY = (13, 12, 11, 10)  # empty cells of the line positions stored (and re-searched by tests up to 12)


def _at_least(search, x: int) -> bool:  # noqa: ANN001 - a JitSearch
    """Whether the margin (Player 1's view) of the search's position is at least x: one null window."""
    if search.placed % 2 == 0:
        return search.search(x - 1, x) >= x
    return search.search(-x, -x + 1) <= -x


def _root_win() -> tuple[int, int] | None:
    """The empty board's winning first move (piece, cell) proved by bench/grid_empty_board.py."""
    if not EMPTY_BOARD_PROOF.exists():
        return None
    for line in EMPTY_BOARD_PROOF.read_text().splitlines():
        rec = json.loads(line)
        if rec.get("question") == "win" and rec.get("p1_wins"):
            return tuple(rec["move"])  # type: ignore[return-value]
    return None


def _probes(work: Path) -> dict[tuple[str, int], bool]:
    out: dict[tuple[str, int], bool] = {}
    if work.exists():
        for line in work.read_text().splitlines():
            rec = json.loads(line)
            if "at_least" in rec:
                out[(rec["position"], rec["at_least"])] = rec["holds"]
    return out


def _probe(state: GridState, x: int, work: Path, search=None, compute: bool = True) -> bool | None:  # noqa: ANN001
    """Whether the margin of `state` is at least x, from the work file or by one null-window search
    (recorded, with the move that proved the bound when it failed high for the player to move);
    None when it is not in the work file and `compute` is off."""
    from engine.grid.jitsearch import JitSearch

    text = format_position(state)
    holds = _probes(work).get((text, x))
    if holds is not None or not compute:
        return holds
    if search is None:
        search = JitSearch(state.board, table_bits=24)
    n0, t = search.nodes, time.process_time()
    holds = _at_least(search, x)
    rec = {"position": text, "at_least": x, "holds": holds, "nodes": search.nodes - n0,
           "cpu_s": round(time.process_time() - t, 1)}
    mover_high = holds == (state.placed % 2 == 0)  # the probe failed high for the mover
    move = search._table_move()
    if mover_high and move >= 0 and rec["nodes"] > 1:  # the move that proved the bound
        rec["move"] = f"{move >> 4}@{cell_name(move & 15)}"
        rec["move_keeps"] = x if holds else x - 1
    with work.open("a") as out:
        out.write(json.dumps(rec) + "\n")
    print(json.dumps(rec), flush=True)
    return holds


def exact_by_probes(state: GridState, low: int, work: Path, compute: bool = True) -> tuple[int, bool]:
    """(margin, settled) of `state`, known to be at least `low`: probes "at least low + 1?" upward
    (one table for all of them); without `compute`, as far as the work file goes."""
    from engine.grid.jitsearch import JitSearch

    search = None
    x = low + 1
    while True:
        if compute and (format_position(state), x) not in _probes(work) and search is None:
            search = JitSearch(state.board, table_bits=24)
        holds = _probe(state, x, work, search, compute)
        if holds is None:
            return x - 1, False
        if not holds:
            return x - 1, True
        x += 1


def root_walk(work: Path, win: tuple[int, int], compute: bool = True) -> dict:
    """The empty board's margin: the exact value v of the winning first move's position, then for
    each other first move (one per symmetry class) "does it reach v + 1?"; a move that does
    becomes the best, its exact value the new v, and the walk goes on. Settled when every class
    was probed and the best move's value is exact. Without `compute`, as far as the work file goes."""
    empty = GridState()
    best = win
    value, exact = exact_by_probes(empty.apply(Place(*win)), 1, work, compute)
    if not exact:
        return {"best": best, "at_least": value, "settled": False, "exact_children": {}}
    exact_children = {win: value}
    for piece, cell in root_classes(ExactSearch([0] * 16)):
        if any(p == piece and min(g[c] for g in SYMMETRIES) == min(g[cell] for g in SYMMETRIES)
               for p, c in exact_children):  # that class is settled (the representative may differ)
            continue
        child = empty.apply(Place(piece, cell))
        holds = _probe(child, value + 1, work, compute=compute)
        if holds is None:
            return {"best": best, "at_least": value, "settled": False, "exact_children": exact_children}
        if holds:
            best = (piece, cell)
            value, exact = exact_by_probes(child, value + 1, work, compute)
            if not exact:
                return {"best": best, "at_least": value, "settled": False, "exact_children": exact_children}
            exact_children[best] = value
            if compute:
                print(f"{piece}@{cell_name(cell)} is worth {value}", flush=True)
    return {"best": best, "at_least": value, "settled": True, "exact_children": exact_children}


def line_positions(start: GridState) -> list[GridState]:
    """A line from `start` (each side plays the 2-ply heuristic move) cut at the LINE_EMPTY depths."""
    out, state = [], start
    while len(state.empty_cells()) >= min(LINE_EMPTY):
        if len(state.empty_cells()) in LINE_EMPTY:
            out.append(state)
        state = state.apply(solve(state, max_depth=2).best)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", type=Path, required=True, help="probe results (JSON lines), appended to")
    ap.add_argument("--write", type=Path, help="write the book from the work file instead of probing")
    ap.add_argument("--skip-first", action="store_true", help="only the line positions (not the probes)")
    ap.add_argument("--no-line", action="store_true", help="only the probes (not the line positions)")
    args = ap.parse_args()
    win = _root_win()
    if win is None:
        raise SystemExit(f"{EMPTY_BOARD_PROOF} holds no win proof: run bench/grid_empty_board.py --jit first")
    empty = GridState()
    first = empty.apply(next(a for a in empty.legal_actions() if (a.piece, a.cell) == win))
    if args.write:
        write_book(args.write, args.work, empty, first, win)
        return
    from engine.grid.jitsearch import JitSearch

    JitSearch(first.board, table_bits=4).margin_bounds()  # compile (or load) the search now
    JitSearch([1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0, 0, 0, 0, 0], table_bits=4).search(-1, 0)
    lines = [json.loads(line) for line in args.work.read_text().splitlines()] if args.work.exists() else []
    have = {rec["position"] for rec in lines if "exact" in rec}
    for state in [] if args.no_line else line_positions(first):  # cheap ones first
        if format_position(state) in have:
            continue
        solved = solve(state)
        with args.work.open("a") as out:
            out.write(json.dumps({"position": format_position(state), "exact": solved.value,
                                  "best": solved.best.notation(), "nodes": solved.nodes,
                                  "cpu_s": round(solved.seconds, 1)}) + "\n")
    if not args.skip_first:
        print(root_walk(args.work, win), flush=True)


def write_book(path: Path, work: Path, empty: GridState, first: GridState, win: tuple[int, int]) -> None:
    """The book from the work file: exact values where both probes around them finished, the outcome
    and the best proved bound elsewhere (the empty board, until every first move was probed)."""
    records = [json.loads(line) for line in work.read_text().splitlines()] if work.exists() else []
    walk = root_walk(work, win, compute=False)
    best = Place(*walk["best"]).notation()
    root: dict = {"position": format_position(empty), "best": best}
    if walk["settled"]:
        root.update(value=walk["at_least"], source="bench/grid_book.py probes of every first move")
    else:
        root.update(outcome=1, at_least=walk["at_least"],
                    source="bench/grid_empty_board.py --jit (bench/results/grid_empty_board.jsonl) and "
                           "bench/grid_book.py probes (not every first move probed)")
    entries = [root]
    for (piece, cell), value in walk["exact_children"].items():
        text = format_position(empty.apply(Place(piece, cell)))
        keep = [r.get("move") for r in records if r.get("position") == text and r.get("move_keeps") == value]
        entry = {"position": text, "value": value, "source": "bench/grid_book.py probes"}
        if keep:
            entry["best"] = keep[-1]
        entries.append(entry)
    for rec in records:
        if "exact" in rec:
            entries.append({"position": rec["position"], "value": rec["exact"], "best": rec["best"],
                            "source": "bench/grid_book.py line"})
    path.write_text(json.dumps({"about": "Highway 4x4 opening book: exact margins (value: Player 2's best "
                                "path minus Player 1's with best play) or, where only bounded, the outcome "
                                "(1: Player 1 wins) and the bound; regenerate with bench/grid_book.py",
                                "entries": entries}, indent=1) + "\n")
    print(f"{path}: {len(entries)} entries")


if __name__ == "__main__":
    main()
