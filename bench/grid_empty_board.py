"""Who wins Highway 4x4 from the empty board: the win/draw/loss search of engine/grid/exact.py run
root move by root move, one JSON line per finished move in a checkpoint file, so a stopped run
resumes where it was (moves already in the file are skipped; the table starts empty again).

    nice -n 10 .venv/bin/python bench/grid_empty_board.py --out empty_board.jsonl [--table 3000000]

Root moves are taken once per class of the four path-keeping symmetries (96 of the 256: six classes
of cells), in the search's move order. The first move proved to win for Player 1 settles the game
(a "p1_wins": true line); when every move is refuted, the game is a draw or a Player 2 win (a
second pass with --draws tells which). Each line holds the move, the answer, nodes and CPU seconds.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.grid.exact import SYMMETRIES, ExactSearch  # noqa: E402
from engine.grid.paths import cell_name  # noqa: E402


def root_classes(search: ExactSearch) -> list[tuple[int, int]]:
    seen: set[tuple[int, int]] = set()
    out = []
    for piece, cell in search.ordered_moves(-1):
        key = (piece, min(g[cell] for g in SYMMETRIES))
        if key not in seen:
            seen.add(key)
            out.append((piece, cell))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True, help="checkpoint file (JSON lines), appended to")
    ap.add_argument("--table", type=int, default=3_000_000, help="table entries kept (~150 bytes each)")
    ap.add_argument("--jit", action="store_true", help="the compiled search (needs numba)")
    ap.add_argument("--table-bits", type=int, default=24,
                    help="the compiled search's table: 2**bits slots of 29 bytes (24: about 490 MB)")
    ap.add_argument("--draws", action="store_true",
                    help="ask whether each move at least draws for Player 1 instead of whether it wins")
    args = ap.parse_args()
    done = set()
    if args.out.exists():
        for line in args.out.read_text().splitlines():
            rec = json.loads(line)
            if rec.get("question") == ("draw" if args.draws else "win"):
                done.add(tuple(rec["move"]))
    if args.jit:
        from engine.grid.jitsearch import JitSearch

        search = JitSearch([0] * 16, table_bits=args.table_bits)
    else:
        search = ExactSearch([0] * 16, table_cap=args.table)
    bound = 0 if args.draws else -1  # Player 2's value after the move must be <= this
    with args.out.open("a") as out:
        for piece, cell in root_classes(search):
            if (piece, cell) in done:
                continue
            n0, t = search.nodes, time.process_time()
            search.place(piece, cell)
            holds = search._child_at_most(bound)
            search.unplace(piece, cell)
            answer = "p1_draws" if args.draws else "p1_wins"
            rec = {"question": "draw" if args.draws else "win", "move": [piece, cell],
                   "notation": f"{piece}@{cell_name(cell)}", answer: holds,
                   "nodes": search.nodes - n0, "cpu_s": round(time.process_time() - t, 1),
                   "table": len(search.table) if hasattr(search, "table") else None}
            out.write(json.dumps(rec) + "\n")
            out.flush()
            if holds:
                break


if __name__ == "__main__":
    main()
