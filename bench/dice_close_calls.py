"""The reader's second reading of close calls (`LearnedDiceReader(recheck=True)`, branch dice21e) over a
grid of its two settings, on the training blocks (where it was chosen) or the held-out ones: for each
margin (a die is a close call when its two likeliest values' shares of the die mass differ by less)
and context (the second crop's side in box sides), the dice read right per series. Only values move:
the dice found are the same in every row (checked).

    python bench/dice_close_calls.py --realdata ../shared/realdata --blocks train \\
        --margins 0.2,0.4,1.01 --contexts 1.0,1.05,1.15,1.25 --json out/close_calls.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import vision.learned.reader as learned_reader  # noqa: E402
from bench.dice_heldout import SETS, left_out  # noqa: E402
from vision.dice.evaluate import evaluate  # noqa: E402
from vision.learned.reader import LearnedDiceReader  # noqa: E402
from vision.realdata import load_labels  # noqa: E402


def read_right(r: dict) -> tuple[int, int]:
    """(dice found, dice found and read right) of an `evaluate` report."""
    found = round(r["recall"] * r["n_labelled"])
    return found, round((r["value_accuracy"] or 0.0) * found)


def grid(realdata: Path, blocks: str, margins: list[float], contexts: list[float],
         only: tuple[str, ...] = ()) -> list[dict]:
    """Rows per series and setting (margin and context None: no second reading); the reader module's
    settings are put back afterwards."""
    saved = learned_reader.RECHECK_MARGIN, learned_reader.RECHECK_CONTEXT
    try:
        return _grid(realdata, blocks, margins, contexts, only)
    finally:
        learned_reader.RECHECK_MARGIN, learned_reader.RECHECK_CONTEXT = saved


def _grid(realdata: Path, blocks: str, margins: list[float], contexts: list[float],
          only: tuple[str, ...]) -> list[dict]:
    rows = []
    settings: list[tuple[float, float] | None] = [None] + [(m, c) for m in margins for c in contexts]
    for name in SETS:
        labels = load_labels(realdata / name)
        skip = left_out(labels, blocks, only)
        if len(skip) == len(labels.items):
            continue
        base_found = None
        for s in settings:
            if s is not None:  # the module's settings are read at each call of `_recheck`
                learned_reader.RECHECK_MARGIN, learned_reader.RECHECK_CONTEXT = s
            reader = LearnedDiceReader(mode="crops", recheck=s is not None)
            found, right = read_right(evaluate(labels, reader.read, None, skip))
            base_found = found if base_found is None else base_found
            if found != base_found:
                raise AssertionError(f"{name}: the recheck changed the dice found ({found} != {base_found})")
            rows.append({"set": name, "blocks": blocks, "margin": None if s is None else s[0],
                         "context": None if s is None else s[1], "found": found, "read_right": right})
            print(json.dumps(rows[-1]), flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--realdata", type=Path, required=True)
    ap.add_argument("--blocks", choices=("heldout", "train"), default="train")
    ap.add_argument("--only", action="append", default=[], metavar="PATTERN")
    ap.add_argument("--margins", default="0.2,0.4,1.01")
    ap.add_argument("--contexts", default="1.0,1.05,1.15,1.25")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    cv2.setNumThreads(1)
    margins = [float(v) for v in args.margins.split(",")]
    contexts = [float(v) for v in args.contexts.split(",")]
    rows = grid(args.realdata, args.blocks, margins, contexts, tuple(args.only))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
