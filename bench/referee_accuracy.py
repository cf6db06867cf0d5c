"""The referee's accuracy per move, per game, over the documented envelope of camera set-ups: runs
`highway-referee eval match GAME --envelope` for each game and prints (or writes into
docs/benchmarks/referee-accuracy.md) one table per game.

    OPENBLAS_NUM_THREADS=1 .venv/bin/python bench/referee_accuracy.py [--quick] [--games highway-dice,...]
        [--seeds 101-102] [--turns N] [--json OUT] [--write-docs [--section current]]

`--write-docs` replaces the tables of one section (`current` by default; `before` holds the numbers
of the referee before the engine-driven decoder and is only rewritten on purpose) between the
markers `<!-- accuracy:SECTION:GAME -->` and `<!-- /accuracy:SECTION:GAME -->`.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from referee_app.commands.eval_match import GAMES, envelope, parse_seeds, table  # noqa: E402

DOC = REPO / "docs" / "benchmarks" / "referee-accuracy.md"


def _commit() -> str:
    try:
        out = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, timeout=10)
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def write_docs(doc: Path, section: str, results: list[dict], command: str) -> None:
    text = doc.read_text()
    for result in results:
        game = result["game"]
        begin, end = f"<!-- accuracy:{section}:{game} -->", f"<!-- /accuracy:{section}:{game} -->"
        t = result["total"]
        block = (f"{begin}\n{table(result)}\n\nAll set-ups: {t['moves_right']}/{t['moves']} moves right, "
                 f"{t['false_mismatches']} false mismatches, {t['confirmations']} confirmations, "
                 f"{t['wrong_verdicts']} wrong verdicts ({t['wrong_verdicts_confident']} at ≥ 0.9), "
                 f"{t['illegal_flagged_right']}/{t['illegal_moves']} illegal moves flagged right. "
                 f"Seeds {','.join(map(str, result['seeds']))}, {result['grid']} grid, "
                 f"commit {result.get('commit', 'unknown')}, "
                 f"`{command}`.\n{end}")
        pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
        if pattern.search(text):
            text = pattern.sub(lambda _m, b=block: b, text)
        else:
            raise SystemExit(f"{doc}: no {begin} ... {end} section to replace")
    doc.write_text(text)


def main(argv: list[str] | None = None) -> int:
    import cv2

    cv2.setNumThreads(1)
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", default=",".join(GAMES))
    p.add_argument("--seeds", default="101-102", help="report seeds (default 101-102)")
    p.add_argument("--quick", action="store_true", help="a few set-ups per game only")
    p.add_argument("--turns", type=int, default=None)
    p.add_argument("--json", type=Path)
    p.add_argument("--write-docs", action="store_true", help=f"write the tables into {DOC.relative_to(REPO)}")
    p.add_argument("--section", default="current", choices=("current", "before"))
    p.add_argument("--from-json", type=Path, action="append", default=[], metavar="FILE",
                   help="write the tables from saved --json results instead of running (repeatable)")
    args = p.parse_args(argv)
    if args.from_json:
        results = []
        for path in args.from_json:  # this script's list, or one `eval match --envelope --json` result
            data = json.loads(path.read_text())
            results += data if isinstance(data, list) else [data]
        for result in results:
            print(f"\n{result['game']}\n{table(result)}")
        if args.write_docs:
            write_docs(DOC, args.section, results, _command(args, results))
        return 0
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    unknown = sorted(set(games) - set(GAMES))
    if unknown:
        p.error(f"unknown games: {', '.join(unknown)}")
    seeds = parse_seeds(args.seeds)
    results = []
    for game in games:
        result = envelope(game, seeds, args.quick, "normal", False, args.turns,
                          lambda line: print(line, file=sys.stderr, flush=True))
        result["commit"] = _commit()
        results.append(result)
        print(f"\n{game}\n{table(result)}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    if args.write_docs:
        write_docs(DOC, args.section, results, _command(args, results))
    return 0


def _command(args: argparse.Namespace, results: list[dict]) -> str:
    """The command that reproduces these tables."""
    quick = all(r["grid"] == "quick" for r in results)
    seeds = sorted({s for r in results for s in r["seeds"]})
    games = [r["game"] for r in results]
    return ("python bench/referee_accuracy.py --write-docs" + (" --quick" if quick else "")
            + (f" --games {','.join(games)}" if set(games) != set(GAMES) else "")
            + ("" if seeds == [101, 102] else f" --seeds {','.join(map(str, seeds))}")
            + (f" --section {args.section}" if args.section != "current" else ""))


if __name__ == "__main__":
    raise SystemExit(main())
