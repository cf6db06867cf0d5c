"""Run Tokyo seeds as `eval match` does (em.run_match), logging the decoder's ranking at every ask."""
import json, sys, time
from pathlib import Path
from referee_app.commands import eval_match as em
from referee_app.decoder import decide

seeds = em.parse_seeds(sys.argv[1]); out = Path(sys.argv[2])
setup = em.make_setup("1280x720", 550, 40, "normal", False, em.LENS_DEG.get("tokyo-highway", 70.0), None, 2, None)
LOG: list = []
orig = decide.Decoder._decide
def _decide(self, state, key, table, ranked):
    votes, led = dict(self._votes), dict(self._led)
    ex = orig(self, state, key, table, ranked)
    if ex is not None and (ex.candidates or ex.mismatch):
        LOG.append({"frame": self._frame, "kind": "ask" if ex.candidates else "mismatch",
                    "margin": round(ranked.margin, 3), "raw": round(ranked.best.score - ranked.ranked[1].score, 3) if len(ranked.ranked) > 1 else None, "conf": round(ranked.confidence, 3),
                    "top": [(c.kind, c.label(), round(c.score, 2), c.legal) for c in ranked.ranked[:6]],
                    "votes": {str(k[1]): v for k, v in votes.items()},
                    "led": {str(k[1]): v for k, v in led.items()},
                    "ev": {str(s): round(v, 2) for s, v in sorted(self.evidence._e.get("build", {}).items(), key=lambda kv: -kv[1])[:8]}})
    return ex
decide.Decoder._decide = _decide
runs = []
for seed in seeds:
    LOG.clear()
    t = time.time()
    res = em.run_match(em.simulate("tokyo-highway", seed, setup))
    res["seed"] = seed
    res["asks"] = list(LOG)
    runs.append(res)
    print(seed, {k: res[k] for k in ("moves_right", "confirmations", "false_mismatches", "missed_moves", "wrong_verdicts", "wrong_verdicts_confident", "illegal_moves", "illegal_flagged_right")}, f"{time.time()-t:.0f}s", flush=True)
    for f in res["failures"]:
        print("  FAIL", f, flush=True)
    for e in LOG:
        print("  ASK", json.dumps(e, default=str), flush=True)
    out.write_text(json.dumps(runs, default=str, indent=1))
