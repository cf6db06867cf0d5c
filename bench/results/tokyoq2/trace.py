"""Run Tokyo Highway seeds as `eval match --cameras 2` does at 550 mm / 40 degrees (em.run_match, the
same report), logging the decoder's ranking at every question and mismatch (branch tokyoq, issue 19).

    PYTHONPATH=. python bench/results/tokyoq/trace.py 1-30 OUT.json
"""

import json
import sys
import time
from pathlib import Path

from referee_app.commands import eval_match as em
from referee_app.decoder import decide

FIELDS = ("moves_right", "confirmations", "false_mismatches", "missed_moves", "wrong_verdicts",
          "wrong_verdicts_confident", "illegal_moves", "illegal_flagged_right")
LOG: list = []
_decide = decide.Decoder._decide


def logged_decide(self, state, key, table, ranked):
    votes, led = dict(self._votes), dict(self._led)
    ex = _decide(self, state, key, table, ranked)
    if ex is not None and (ex.candidates or ex.mismatch):
        runner = ranked.ranked[1].score if len(ranked.ranked) > 1 else None
        LOG.append({
            "frame": self._frame, "kind": "ask" if ex.candidates else "mismatch",
            "margin": round(ranked.margin, 3),
            "raw": None if runner is None else round(ranked.best.score - runner, 3),
            "conf": round(ranked.confidence, 3),
            "top": [(c.kind, c.label(), round(c.score, 2), c.legal) for c in ranked.ranked[:6]],
            "votes": {str(k[1]): v for k, v in votes.items()},
            "led": {str(k[1]): v for k, v in led.items()},
            "ev": {str(s): round(v, 2) for s, v in
                   sorted(self.evidence._e.get("build", {}).items(), key=lambda kv: -kv[1])[:8]},
        })
    return ex


def main() -> None:
    seeds, out = em.parse_seeds(sys.argv[1]), Path(sys.argv[2])
    setup = em.make_setup("1280x720", 550, 40, "normal", False, em.LENS_DEG.get("tokyo-highway", 70.0),
                          None, 2, None)
    decide.Decoder._decide = logged_decide
    runs = []
    for seed in seeds:
        LOG.clear()
        t = time.time()
        res = em.run_match(em.simulate("tokyo-highway", seed, setup))
        res["seed"], res["asks"] = seed, list(LOG)
        runs.append(res)
        print(seed, {k: res[k] for k in FIELDS}, f"{time.time() - t:.0f}s", flush=True)
        for f in res["failures"]:
            print("  FAIL", f, flush=True)
        for e in LOG:
            print("  ASK", json.dumps(e, default=str), flush=True)
        out.write_text(json.dumps(runs, default=str, indent=1))


if __name__ == "__main__":
    main()
