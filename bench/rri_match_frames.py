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
from collections.abc import Iterator
from typing import Any

from _match_frames import (  # bench/ is on the path when run as a script
    match_parser,
    save_frames,
    saved_frames,
)

from referee_app.commands.eval_match import make_setup, run_match, simulate


def _sim(args: argparse.Namespace) -> Any:
    if not 1 <= args.seed <= 50:
        raise SystemExit("tuning seeds only (1-50): report seeds are run once, through eval match")
    setup = make_setup(args.camera, args.height, args.tilt, args.light, args.hands)
    return simulate("railroad-ink", args.seed, setup)


def save(args: argparse.Namespace) -> None:
    save_frames(_sim(args), args.dir)


def replay(args: argparse.Namespace) -> None:
    from referee_app.games.railroad_ink import RailroadInkAdapter

    sim = _sim(args)
    where: list[int] = []  # the scene of each frame handed out

    if args.dir != "-":  # the loop draws nothing: it reads the saved frames
        sim.frames = saved_frames(sim, args.dir, lambda scene, _k: where.append(scene))
    else:  # no saved frames: draw them as eval match does, noting each one's scene
        drawn = sim.frames

        def live() -> Iterator[Any]:
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
    ap = match_parser(__doc__, "1280x720", 330, 10)
    args = ap.parse_args()
    (save if args.what == "save" else replay)(args)


if __name__ == "__main__":
    main()
