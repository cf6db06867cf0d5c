# ruff: noqa  (measurement scripts of branch tokyospeed, kept as run)
import json
import sys

a = {r["seed"]: r for r in json.load(open(sys.argv[1]))}
b = {r["seed"]: r for r in json.load(open(sys.argv[2]))}
for s in sorted(set(a) & set(b)):
    x, y = a[s], b[s]
    T = ("seconds_per_move", "cpu_seconds", "timings", "wall_seconds")
    strip = lambda r: {k: v for k, v in r.items() if k not in T}
    res_same = strip(x["res"]) == strip(y["res"])
    log_same = x["log"] == y["log"]
    obs_same = x["obs"] == y["obs"]
    print(s, "res", res_same, "decisions", log_same, len(x["log"]), "reads", obs_same, len(x["obs"]),
          "cpu %.1f -> %.1f" % (x["cpu"], y["cpu"]))
    if not res_same:
        for k in x["res"]:
            if k not in T and x["res"][k] != y["res"].get(k): print("   ", k, str(x["res"][k])[:200], "|", str(y["res"].get(k))[:200])
