import json, sys, re
for name in sys.argv[1:]:
    runs = json.load(open(name))
    seeds = [r["seed"] for r in runs]
    commits = [e for r in runs for e in r["log"] if e["kind"] == "commit"]
    twin = []
    for r in runs:
        for e in r["log"]:
            b = [k for k in e["ev"] if k != "None"]
            if e["kind"] == "commit" and len(b) > 1 and b[0].replace(" junction", "") == b[1].replace(" junction", ""):
                twin.append(e["ev"][b[0]] - e["ev"][b[1]])
    asks = [(r["seed"], f["move"]) for r in runs for f in r["failures"]]
    keys = ("moves", "moves_right", "confirmations", "missed_moves", "wrong_verdicts", "wrong_verdicts_confident",
            "illegal_moves", "illegal_flagged_right", "false_mismatches", "cpu_seconds")
    tot = {k: round(sum(r[k] for r in runs), 3) for k in keys}
    print(name, len(seeds), "seeds", tot, "cpu/move", round(tot["cpu_seconds"] / tot["moves"], 3))
    print("  failures", asks)
    print("  commits", len(commits), "conf<0.9:", sum(e["conf"] < 0.9 for e in commits),
          "min", min(e["conf"] for e in commits), "mean", round(sum(e["conf"] for e in commits) / len(commits), 3))
    print("  twin-led commits", len(twin), "gap<2:", sum(g < 2 for g in twin), "median gap", sorted(twin)[len(twin)//2] if twin else None)
