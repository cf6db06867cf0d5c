"""Save one simulated Railroad Ink match's frames once, then referee them again through the eval-match
loop with a log of what the adapter read in every frame: the way to see why a move of `eval match
railroad-ink` was missed. Tuning seeds only (1-50).

    PYTHONPATH=. python bench/rri_match_frames.py save 3 /tmp/r3 [--height 330 --tilt 10]
    PYTHONPATH=. python bench/rri_match_frames.py replay 3 /tmp/r3 --log /tmp/r3.jsonl

`replay` with the folder `-` draws the frames instead of reading them. `replay` prints the match's
score and failures as `eval match` does; `--log` writes one JSON line per frame: the scene it shows
(its note, and whether the camera was knocked before it), the items read, their confidences, why the
view was blocked, the adapter's warnings and each die's reading.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2

from referee_app.commands.eval_match import make_setup, run_match, simulate


def _sim(args: argparse.Namespace) -> Any:
    if not 1 <= args.seed <= 50:
        raise SystemExit("tuning seeds only (1-50): report seeds are run once, through eval match")
    setup = make_setup(args.camera, args.height, args.tilt, args.light, args.hands)
    return simulate("railroad-ink", args.seed, setup)


def save(args: argparse.Namespace) -> None:
    out = Path(args.dir)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.process_time()
    n = 0
    for n, frame in enumerate(_sim(args).frames(), 1):  # PNG: the frames exactly as the loop gets them
        cv2.imwrite(str(out / f"{n - 1:04d}.png"), frame.image, [cv2.IMWRITE_PNG_COMPRESSION, 1])
    print(f"{n} frames in {out} ({time.process_time() - t0:.0f} CPU s)")


def replay(args: argparse.Namespace) -> None:
    from datasets.match_sim.core import SimFrame
    from referee_app.games.railroad_ink import RailroadInkAdapter

    sim = _sim(args)
    folder = Path(args.dir)
    where: list[int] = []  # the scene of each frame handed out

    def frames() -> Iterator[SimFrame]:
        k = 0
        for i, scene in enumerate(sim.scenes):
            for j in range(scene.hold):
                image = cv2.imread(str(folder / f"{k:04d}.png"), cv2.IMREAD_COLOR)
                if image is None:
                    raise SystemExit(f"frame {k} missing in {folder}: save the match first")
                where.append(i)
                yield SimFrame(image, i, scene.checkpoint if j == scene.hold - 1 else None)
                k += 1

    if args.dir != "-":
        sim.frames = frames  # the loop draws nothing: it reads the saved frames
    else:  # no saved frames: draw them as eval match does, noting each one's scene
        drawn = sim.frames

        def live() -> Iterator[SimFrame]:
            for f in drawn():
                where.append(f.scene)
                yield f

        sim.frames = live
    log = open(args.log, "w") if args.log else None  # noqa: SIM115 - closed below
    read = RailroadInkAdapter.read

    def logged(self: RailroadInkAdapter, frame: Any) -> Any:
        obs = read(self, frame)
        if log is not None:
            scene = sim.scenes[where[-1]]
            conf = {k: round(v, 3) for k, v in obs.confidence.items()}
            reading = getattr(obs, "reading", None)
            dice = ([(d.status, d.face, round(float(d.confidence), 3), d.reason) for d in reading.dice]
                    if reading is not None else None)
            log.write(json.dumps({"frame": len(where) - 1, "scene": where[-1], "note": scene.note,
                                  "bump": scene.bump, "shadow": scene.shadow, "glare": scene.glare,
                                  "items": obs.items, "conf": conf, "blocked": obs.blocked,
                                  "warnings": obs.warnings, "dice": dice}, default=str) + "\n")
        return obs

    RailroadInkAdapter.read = logged  # type: ignore[method-assign]
    try:
        res = run_match(sim)
    finally:
        RailroadInkAdapter.read = read  # type: ignore[method-assign]
        if log is not None:
            log.close()
    print(f"seed {args.seed}: {res['moves_right']}/{res['moves']} right, {res['false_mismatches']} false "
          f"mismatches, {res['confirmations']} confirmations, {res['missed_moves']} missed, "
          f"{res['wrong_verdicts']} wrong, {res['seconds_per_move']} CPU s/move")
    for f in res["failures"]:
        print("  ", f)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("save", "replay"))
    ap.add_argument("seed", type=int)
    ap.add_argument("dir")
    ap.add_argument("--camera", default="1280x720")
    ap.add_argument("--height", type=float, default=330)
    ap.add_argument("--tilt", type=float, default=10)
    ap.add_argument("--light", default="normal")
    ap.add_argument("--hands", action="store_true")
    ap.add_argument("--log", default=None)
    args = ap.parse_args()
    (save if args.what == "save" else replay)(args)


if __name__ == "__main__":
    main()
