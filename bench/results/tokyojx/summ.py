"""Totals of trace.py JSON files, and the confidence of their commits (branch tokyojx).

    python summ.py main_f7258f1_1-10_31-37_51_58_77.json branch_6074aaf_1-10_31-37_51_58_77.json
"""

import json
import sys

KEYS = ("moves", "moves_right", "confirmations", "missed_moves", "wrong_verdicts", "wrong_verdicts_confident",
        "illegal_moves", "illegal_flagged_right", "false_mismatches", "cpu_seconds")


def twin_led(e: dict) -> bool:
    """The decision's two leading builds are a junction and the plain column of one place and height."""
    b = [k for k in e["ev"] if k != "None"]
    return len(b) > 1 and b[0].replace(" junction", "") == b[1].replace(" junction", "")


def main() -> None:
    for name in sys.argv[1:]:
        runs = json.load(open(name))
        commits = [e for r in runs for e in r["log"] if e["kind"] == "commit"]
        gaps = sorted(e["ev"][a] - e["ev"][b] for e in commits if twin_led(e)
                      for a, b in [[k for k in e["ev"] if k != "None"][:2]])
        tot = {k: round(sum(r[k] for r in runs), 3) for k in KEYS}
        print(name, len(runs), "seeds", tot, "cpu/move", round(tot["cpu_seconds"] / tot["moves"], 3))
        print("  failures", [(r["seed"], f["move"]) for r in runs for f in r["failures"]])
        print("  commits", len(commits), "conf<0.9:", sum(e["conf"] < 0.9 for e in commits),
              "min", min(e["conf"] for e in commits),
              "mean", round(sum(e["conf"] for e in commits) / len(commits), 3))
        print("  twin-led commits", len(gaps), "gap<2:", sum(g < 2 for g in gaps),
              "median gap", gaps[len(gaps) // 2] if gaps else None)


if __name__ == "__main__":
    main()
