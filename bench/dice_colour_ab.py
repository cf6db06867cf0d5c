"""Referee dice-road matches twice on the same frames: with the dice colours matched as the camera
gives them ('absolute': main dbc8f59's zone reader, `ZoneDiceReader._light` off) and under the light the
paper round each die shows ('paper': this reader). Each match's frames are drawn once and kept in
memory as PNG, never written or shown, so report seeds may be run (once, at the end).

    PYTHONPATH=. python bench/dice_colour_ab.py 1920x1080 30 dim /tmp/dim.json 101,102,103,104,105

Prints each run's summary as `eval match` scores it (height 850 mm) and writes every run's JSON.
"""

from __future__ import annotations

import json
import sys
import time

import cv2

import vision.zones as zones
from datasets.match_sim.core import SimFrame
from referee_app.commands.eval_match import make_setup, run_match, simulate


def main() -> None:
    camera, tilt, light, out = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
    seeds = [int(s) for s in sys.argv[5].split(",")]
    setup = make_setup(camera, 850, tilt, light, False)
    paper_light = zones.ZoneDiceReader._light
    results = []
    try:
        for seed in seeds:
            t0 = time.process_time()
            png = [cv2.IMWRITE_PNG_COMPRESSION, 1]
            stored = [(cv2.imencode(".png", f.image, png)[1], f.scene, f.checkpoint)
                      for f in simulate("highway-dice", seed, setup).frames()]
            cpu = time.process_time() - t0
            print(f"seed {seed}: {len(stored)} frames drawn ({cpu:.0f} CPU s)", flush=True)
            for mode in ("absolute", "paper"):
                zones.ZoneDiceReader._light = (  # type: ignore[method-assign]
                    paper_light if mode == "paper" else (lambda self, box: None))
                sim = simulate("highway-dice", seed, setup)
                sim.frames = lambda st=stored: (SimFrame(cv2.imdecode(b, cv2.IMREAD_COLOR), s, c)
                                                for b, s, c in st)
                res = run_match(sim)
                results.append({"seed": seed, "mode": mode, **res})
                print(f"seed {seed} {mode}: {res['moves_right']}/{res['moves']} right, illegal flagged "
                      f"{res['illegal_flagged_right']}/{res['illegal_moves']}, "
                      f"{res['false_mismatches']} false mismatches, {res['missed_moves']} missed, "
                      f"{res['wrong_verdicts']} wrong, "
                      f"{res['seconds_per_move']} CPU s/move", flush=True)
            with open(out, "w") as fh:
                json.dump(results, fh, default=str, indent=1)
    finally:
        zones.ZoneDiceReader._light = paper_light  # type: ignore[method-assign]


if __name__ == "__main__":
    main()
