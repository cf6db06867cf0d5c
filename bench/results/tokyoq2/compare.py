"""Seed by seed, main against the branch (branch tokyoq2): python compare.py BRANCH_COMMIT
Main: main_9b69a68_12_31-60_trace.json and per_seed/main_S.json; branch: per_seed/branch_COMMIT_S.json."""

import json
import sys
from pathlib import Path

HERE = Path(__file__).parent
K = ("moves", "moves_right", "confirmations", "missed_moves", "wrong_verdicts", "wrong_verdicts_confident",
     "illegal_moves", "illegal_flagged_right", "false_mismatches", "cpu_seconds")


def runs(paths):
    out = {}
    for p in paths:
        for r in json.loads(p.read_text()):
            out[r["seed"]] = r
    return out


def main() -> None:
    commit = sys.argv[1]
    main_runs = runs([HERE / "main_9b69a68_12_31-60_trace.json",
                      *sorted((HERE / "per_seed").glob("main_*.json"))])
    branch = runs(sorted((HERE / "per_seed").glob(f"branch_{commit}_*.json")))
    seeds = sorted(set(main_runs) & set(branch))
    tot = {w: dict.fromkeys(K, 0.0) for w in ("main", "branch")}
    for s in seeds:
        m, b = main_runs[s], branch[s]
        for w, r in (("main", m), ("branch", b)):
            for k in K:
                tot[w][k] += r[k]
        diff = [k for k in K[1:-1] if m[k] != b[k]]
        wrong = [(f["move"], f["confidence"]) for r in (m, b) for f in r["failures"]
                 if f["outcome"] == "wrong"]

        def row(r):
            return f"q{r['confirmations']} r{r['moves_right']} miss{r['missed_moves']} w{r['wrong_verdicts']}"
        print(f"{s:3d} main {row(m)} | branch {row(b)}"
              f" | cpu/move {m['cpu_seconds'] / m['moves']:.3f} {b['cpu_seconds'] / b['moves']:.3f}"
              + (f"  DIFF {diff}" if diff else "") + (f" wrong {wrong}" if wrong else ""))
    print(len(seeds), "seeds")
    for w, t in tot.items():
        print(w, {k: round(v, 1) for k, v in t.items()},
              f"questions/100 {100 * t['confirmations'] / t['moves']:.2f}",
              f"cpu/move {t['cpu_seconds'] / t['moves']:.3f}")


if __name__ == "__main__":
    main()
