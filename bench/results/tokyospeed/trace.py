# ruff: noqa  (measurement scripts of branch tokyospeed, kept as run)
"""Per-seed trace at full precision: every decoder decision (kind, repr of margin/confidence, top
candidates with repr scores) and every adapter observation (items, confidence, beliefs by repr).
    PYTHONPATH=CODE python trace.py SEEDS OUT.json
"""
import hashlib
import json
import sys
import time

from referee_app.commands import eval_match as em
from referee_app.decoder import decide
from referee_app.games import tokyo as tk

LOG, OBS = [], []
_decide = decide.Decoder._decide

def every(self, state, key, table, ranked):
    ex = _decide(self, state, key, table, ranked)
    if ex is not None:
        kind = ("ask" if ex.candidates else "mismatch" if ex.mismatch
                else "commit" if ex.action is not None else "none")
        LOG.append({"frame": self._frame, "kind": kind, "margin": repr(ranked.margin),
                    "conf": repr(ranked.confidence),
                    "top": [(c.label(), repr(c.score), c.legal) for c in ranked.ranked[:6]]})
    return ex

_read = tk.TokyoAdapter.read
def read(self, frame):
    o = _read(self, frame)
    s = repr((sorted(o.items.items()), sorted(o.confidence.items()),
              sorted(((str(k), repr(v)) for k, v in o.beliefs.items())), o.blocked, list(o.warnings)))
    OBS.append(hashlib.sha256(s.encode()).hexdigest()[:16])
    return o

def main():
    from datasets.match_sim.core import SecondCamera
    seeds, out = sys.argv[1], sys.argv[2]
    setup = em.make_setup("1280x720", 550, 40, "normal", False, em.LENS_DEG.get("tokyo-highway", 70.0),
                          None, 2, SecondCamera(SecondCamera.around_deg, None, None))
    decide.Decoder._decide = every
    tk.TokyoAdapter.read = read
    runs = []
    for seed in em.parse_seeds(seeds):
        LOG.clear(); OBS.clear()
        t = time.process_time()
        res = em.run_match(em.simulate("tokyo-highway", seed, setup))
        cpu = time.process_time() - t
        res.pop("cpu_seconds", None); res.pop("timings", None)
        runs.append({"seed": seed, "res": json.loads(json.dumps(res, default=str)), "log": list(LOG),
                     "obs": list(OBS), "cpu": cpu})
        print(seed, f"{cpu:.1f} cpu s", len(LOG), "decisions", len(OBS), "reads", flush=True)
        with open(out, "w") as f:
            json.dump(runs, f, indent=0)

main()
