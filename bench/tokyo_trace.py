"""Trace the Tokyo Highway decoder through `eval match --cameras 2` at 1280x720, 550 mm, 40 degrees
(eval_match.run_match: the very report `eval match` makes), logging its decisions per seed.

    PYTHONPATH=. python bench/tokyo_trace.py SEEDS OUT.json           # questions and mismatches
    PYTHONPATH=. python bench/tokyo_trace.py SEEDS OUT.json --every   # every decision, commits too

Without --every each seed's entry holds `asks` (every question and mismatch: margin, raw score
difference, confidence, the six best candidates, the decoder's votes and leads, the eight strongest
build beliefs); with it `log` (every decision, its kind, margin, confidence, the four best candidates
and beliefs), as branches tokyoq and tokyojx traced them (issue 19). The group rule's questions
(`Decoder._group_question`, which bypasses `_decide`) are logged in both as kind "group ask" with
their options (branch tokyoidle: tuning seed 212's idle question was one, missing from the log).
Tuning seeds only.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from referee_app.commands import eval_match as em
from referee_app.decoder import decide

FIELDS = ("moves_right", "confirmations", "false_mismatches", "missed_moves", "wrong_verdicts",
          "wrong_verdicts_confident", "illegal_moves", "illegal_flagged_right", "cpu_seconds")
LOG: list[dict[str, Any]] = []
_decide = decide.Decoder._decide


def _beliefs(decoder: Any, n: int) -> dict[str, float]:
    ev = decoder.evidence._e.get("build", {})
    return {str(s): round(v, 2) for s, v in sorted(ev.items(), key=lambda kv: -kv[1])[:n]}


def asks_only(self: Any, state: Any, key: Any, table: Any, ranked: Any) -> Any:
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
            "ev": _beliefs(self, 8),
        })
    return ex


def every(self: Any, state: Any, key: Any, table: Any, ranked: Any) -> Any:
    ex = _decide(self, state, key, table, ranked)
    if ex is not None:
        kind = ("ask" if ex.candidates else "mismatch" if ex.mismatch
                else "commit" if ex.action is not None else "none")
        LOG.append({"frame": self._frame, "kind": kind, "margin": round(ranked.margin, 3),
                    "conf": round(ranked.confidence, 3),
                    "top": [(c.label(), round(c.score, 2), c.legal) for c in ranked.ranked[:4]],
                    "ev": _beliefs(self, 4)})
    return ex


_group_question = decide.Decoder._group_question


def grouped(self: Any, state: Any, table: Any, ranked: Any) -> Any:
    """The group rule's questions (decide.Decoder._group_question), which do not pass `_decide`."""
    ex = _group_question(self, state, table, ranked)
    if ex is not None:
        LOG.append({"frame": self._frame, "kind": "group ask", "margin": round(ex.margin, 3),
                    "conf": round(ranked.confidence, 3),
                    "top": [(c.label(), round(c.score, 2), c.legal) for c in ranked.ranked[:4]],
                    "options": [(a.notation(), round(p, 3)) for a, p in ex.candidates],
                    "ev": _beliefs(self, 4)})
    return ex


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("seeds", help="tuning seeds, e.g. 1-10,31")
    ap.add_argument("out", type=Path)
    ap.add_argument("--every", action="store_true", help="log every decision, commits included")
    args = ap.parse_args()
    from datasets.match_sim.core import SecondCamera

    # the second camera as `eval match --cameras 2` places it by default
    setup = em.make_setup("1280x720", 550, 40, "normal", False, em.LENS_DEG.get("tokyo-highway", 70.0),
                          None, 2, SecondCamera(SecondCamera.around_deg, None, None))
    decide.Decoder._decide = every if args.every else asks_only
    decide.Decoder._group_question = grouped
    field = "log" if args.every else "asks"
    runs = []
    for seed in em.parse_seeds(args.seeds):
        LOG.clear()
        t = time.time()
        res = em.run_match(em.simulate("tokyo-highway", seed, setup))
        res["seed"], res[field] = seed, list(LOG)
        runs.append(res)
        print(seed, {k: res.get(k) for k in FIELDS}, f"{time.time() - t:.0f}s", flush=True)
        for f in res["failures"]:
            print("  FAIL", f, flush=True)
        for e in LOG:
            if e["kind"] != "none":
                print("  ", json.dumps(e, default=str), flush=True)
        args.out.write_text(json.dumps(runs, default=str, indent=1))


if __name__ == "__main__":
    main()
