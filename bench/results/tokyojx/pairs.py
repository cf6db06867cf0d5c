"""Per seed: totals, and every decision whose best two builds are a junction and a plain column of the
same place and height (the pair's averaged log-belief gap)."""
import json
import re
import sys

FIELDS = ("moves_right", "confirmations", "missed_moves", "wrong_verdicts", "wrong_verdicts_confident",
          "illegal_moves", "illegal_flagged_right", "false_mismatches", "moves", "cpu_seconds")


def twin(a, b):
    return a != b and re.sub(r" junction", "", a) == re.sub(r" junction", "", b)


def pairs(run):
    out = []
    for e in run["log"]:
        ev = list(e["ev"].items())
        builds = [k for k, _ in ev if k != "None"]
        if len(builds) >= 2 and twin(builds[0], builds[1]):
            gap = round(ev[0][1] - dict(ev)[builds[1]], 2)
            out.append((e["kind"], e["conf"], e["margin"], builds[0], gap))
        elif e["kind"] in ("ask",) or e["conf"] < 0.9 and e["kind"] == "commit":
            out.append((e["kind"], e["conf"], e["margin"], builds[0] if builds else None, None))
    return out


def main():
    tot = {k: 0 for k in FIELDS}
    for run in json.load(open(sys.argv[1])):
        for k in FIELDS:
            tot[k] += run.get(k, 0) or 0
        print(run["seed"], {k: run.get(k) for k in FIELDS[:8]})
        for f in run["failures"]:
            print("   FAIL", f["move"], f["truth"], f["outcome"], f.get("confidence"))
        for p in pairs(run):
            print("   ", p)
    print("TOTAL", tot, "cpu/move", round(tot["cpu_seconds"] / max(1, tot["moves"]), 3))


main()
