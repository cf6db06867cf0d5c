# ruff: noqa  (measurement scripts of branch tokyospeed, kept as run)
"""Profile eval match (standard two-camera set-up) on one tuning seed: per-read CPU by frame kind,
and a cProfile (process time).  PYTHONPATH=CODE python prof_eval.py SEED OUT.prof"""
import collections
import cProfile
import pstats
import sys
import time

from referee_app.commands import eval_match as em
from referee_app.games import tokyo as tk
from referee_app.games import tokyo_builds as tb
from referee_app.games import tokyo_reuse as tr

KIND = {}
_settle = tr.StillViews.settle
def settle(self, camera, image):
    before = self._kept.get(camera)
    out = _settle(self, camera, image)
    if camera == 1:
        KIND["c1"] = "exact" if (before is not None and out[0] is before[0] and out[2]) else \
            "still" if (before is not None and out[0] is before[0]) else "changed"
    return out
tr.StillViews.settle = settle
CALLS = collections.Counter()
for name in ("road_blob_spots", "road_column_spots", "_views", "build_spots"):
    f = getattr(tb, name)
    def w(*a, _f=f, _n=name, **k):
        CALLS[_n] += 1
        t = time.process_time(); r = _f(*a, **k); CALLS[_n + "_s"] += time.process_time() - t
        return r
    setattr(tb, name, w)
_rb = tb.read_builds
def rb(*a, **k):
    CALLS["read_builds"] += 1
    t = time.process_time(); r = _rb(*a, **k); CALLS["read_builds_s"] += time.process_time() - t
    return r
tb.read_builds = rb; tk.read_builds = rb
PER = collections.defaultdict(list)
_read = tk.TokyoAdapter.read
def read(self, frame):
    t = time.process_time()
    o = _read(self, frame)
    dt = time.process_time() - t
    memo = self._remembered
    kind = KIND.get("c1", "?")
    if o.blocked and "hand" in str(o.blocked).lower() or any("hand" in w for w in o.warnings):
        kind += "+hand"
    if memo is not None and memo.settled:
        kind += "+settled"
    PER[kind].append(dt)
    return o
tk.TokyoAdapter.read = read

from datasets.match_sim.core import SecondCamera

setup = em.make_setup("1280x720", 550, 40, "normal", False, em.LENS_DEG.get("tokyo-highway", 70.0),
                      None, 2, SecondCamera(SecondCamera.around_deg, None, None))
seed = int(sys.argv[1])
sim = em.simulate("tokyo-highway", seed, setup)
prof = cProfile.Profile(time.process_time)
t = time.process_time()
prof.enable()
res = em.run_match(sim)
prof.disable()
print("total cpu", round(time.process_time() - t, 2), "moves right", res.get("moves_right"))
prof.dump_stats(sys.argv[2])
for k, v in sorted(PER.items()):
    print(f"{k:28s} n={len(v):3d} sum={sum(v):6.2f} mean={1000*sum(v)/len(v):6.0f} ms")
print(dict(CALLS))
pstats.Stats(sys.argv[2]).sort_stats("cumulative").print_stats(45)
