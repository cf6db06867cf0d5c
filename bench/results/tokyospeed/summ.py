# ruff: noqa  (measurement scripts of branch tokyospeed, kept as run)
import json

P = "/tmp/tokyospeed/paired/"
T = ("cpu_seconds", "seconds_per_move")
ref = None
for r in (1, 2):
    for n in ("base", "b3"):
        try:
            loop = json.load(open(f"{P}loop_{n}_r{r}.json"))
            pipe = [g for g in json.load(open(f"{P}pipe_{n}_r{r}.json"))["games"] if g["game"] == "tokyo-highway"][0]
            ev = json.load(open(f"{P}eval_{n}_r{r}.json"))
            ut = open(f"{P}eval_{n}_r{r}.txt").read().split()[-2:]
        except Exception as e:
            print(r, n, "missing", type(e).__name__); continue
        strip = [{k: v for k, v in s.items() if k not in T} for s in ev["per_seed"]]
        same = "" if ref is None else ("same per-seed fields" if strip == ref else "DIFFERENT per-seed fields")
        ref = ref or strip
        print(r, n, "loop cpu", loop["cpu_s"], "best fps", loop["best_fps_cpu"],
              "| pipe wall fps reader %.1f loop %.1f" % (pipe["reader_fps"], pipe["pipeline_fps"]),
              "| eval cpu %.1f (user+sys %.1f)" % (ev["cpu_seconds"], float(ut[0]) + float(ut[1])),
              [(s["seed"], s["cpu_seconds"]) for s in ev["per_seed"]], same)
