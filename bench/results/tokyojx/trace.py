"""eval match --cameras 2 at 550/40 (em.run_match), logging every decoder decision: commits with their
confidence and margin, asks, mismatches, with the top of the ranking (tokyojx; after tokyoq's trace)."""
import json
import sys
import time
from pathlib import Path

from referee_app.commands import eval_match as em
from referee_app.decoder import decide

FIELDS = ("moves_right", "confirmations", "false_mismatches", "missed_moves", "wrong_verdicts",
          "wrong_verdicts_confident", "illegal_moves", "illegal_flagged_right", "cpu_seconds")
LOG: list = []
_decide = decide.Decoder._decide


def logged_decide(self, state, key, table, ranked):
    ex = _decide(self, state, key, table, ranked)
    if ex is not None:
        kind = ("ask" if ex.candidates else "mismatch" if ex.mismatch
                else "commit" if ex.action is not None else "none")
        LOG.append({"frame": self._frame, "kind": kind, "margin": round(ranked.margin, 3),
                    "conf": round(ranked.confidence, 3),
                    "top": [(c.label(), round(c.score, 2), c.legal) for c in ranked.ranked[:4]],
                    "ev": {str(s): round(v, 2) for s, v in
                           sorted(self.evidence._e.get("build", {}).items(), key=lambda kv: -kv[1])[:4]}})
    return ex


def main() -> None:
    seeds, out = em.parse_seeds(sys.argv[1]), Path(sys.argv[2])
    from datasets.match_sim.core import SecondCamera
    second = SecondCamera(SecondCamera.around_deg, None, None)
    setup = em.make_setup("1280x720", 550, 40, "normal", False, em.LENS_DEG.get("tokyo-highway", 70.0),
                          None, 2, second)
    decide.Decoder._decide = logged_decide
    runs = []
    for seed in seeds:
        LOG.clear()
        t = time.time()
        res = em.run_match(em.simulate("tokyo-highway", seed, setup))
        res["seed"], res["log"] = seed, list(LOG)
        runs.append(res)
        print(seed, {k: res.get(k) for k in FIELDS}, f"{time.time() - t:.0f}s", flush=True)
        for f in res["failures"]:
            print("  FAIL", f, flush=True)
        for e in LOG:
            if e["kind"] != "none":
                print("  ", json.dumps(e, default=str), flush=True)
        out.write_text(json.dumps(runs, default=str, indent=1))


if __name__ == "__main__":
    main()
