"""`camera check` on the empty view of simulated dice-road matches: the first frame of each match (the
"empty board" scene, as the loop gets it), so the check's verdict can be set beside what `eval match`
measured at the same set-up and seed. Tuning seeds by default; a report seed only at the end.

    PYTHONPATH=. python bench/dice_envelope_check.py 1280x720/1000/20 1920x1080/600/0 --seeds 1-2
"""

from __future__ import annotations

import argparse
import json

from referee_app.camera_setup import run_check
from referee_app.commands.eval_match import make_setup, parse_seeds, simulate


def empty_view_check(camera: str, height: float, tilt: float, seed: int, light: str = "normal") -> dict:
    sim = simulate("highway-dice", seed, make_setup(camera, height, tilt, light))
    return run_check(next(iter(sim.frames())).image, "highway-dice")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("setups", nargs="+", help="WxH/HEIGHT/TILT, e.g. 1280x720/1000/20")
    ap.add_argument("--seeds", default="1-2")
    ap.add_argument("--light", default="normal")
    ap.add_argument("--json", help="write every report here")
    args = ap.parse_args()
    out = []
    for s in args.setups:
        camera, height, tilt = s.split("/")
        for seed in parse_seeds(args.seeds):
            r = empty_view_check(camera, float(height), float(tilt), seed, args.light)
            out.append({"setup": s, "seed": seed, "report": r})
            print(f"{s} seed {seed}: inside_envelope={r['inside_envelope']} "
                  f"face={r.get('smallest_die_face_px')} px, ppm={r.get('px_per_mm')}, "
                  f"blur={r.get('sharpness')}, missing={r['markers_missing']}, "
                  f"out_of_view={r.get('markers_out_of_view')}; {'; '.join(r['reasons'])}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
