"""Render one simulated dice match's frames to disk once, then referee them again and again through the
eval-match loop with variants of the reader: at 4K most of a match's CPU is drawing its frames (about
2.5 s a frame against 0.1 s to read one back), so a variant costs minutes instead of a quarter hour.
Tuning seeds only (1-50).

    PYTHONPATH=. python bench/dice_match_frames.py save 13 /tmp/m13 --camera 3840x2160 --height 850 --tilt 30
    PYTHONPATH=. python bench/dice_match_frames.py replay 13 /tmp/m13 --ppm 3.0 --log /tmp/m13-ppm3.jsonl

`replay` prints the match's score and failures as `eval match` does; `--ppm` forces the resolution of
the reader's views (vision.board3d.view_px_per_mm: 2.0 for every camera since dice4k; `--ppm 2.5` is
what 4K at 850 mm / 30 degrees got before), `--reuse off` reads every frame as a photo
(`DiceAdapter(reuse=False)`), `--log` writes each frame's observation (items, confidences, blocked,
the views' px/mm, and `wrong`: the keys where it differs from the scene's truth) as JSON lines.
`--exact prep+faces` (or `all`) puts steps branch dicefps made cheaper back to their exact
computation (vision.zones.EXACT_STEPS). `--moves N` replays the first N moves (frames saved of a
match stopped early suffice).
"""

from __future__ import annotations

import argparse
import json
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
    return simulate("highway-dice", args.seed, setup, max_moves=args.moves)


def save(args: argparse.Namespace) -> None:
    save_frames(_sim(args), args.dir)


def replay(args: argparse.Namespace) -> None:
    import vision.board3d
    from referee_app.games.dice import DiceAdapter

    sim = _sim(args)
    at = {"scene": 0, "frame": 0}  # what the logger is reading now (its truth: `_truth`)

    def note(scene: int, k: int) -> None:
        at["scene"], at["frame"] = scene, k

    sim.frames = saved_frames(sim, args.dir, note)  # the loop draws nothing: it reads the saved frames
    if args.ppm is not None:
        ppm = args.ppm
        vision.board3d.view_px_per_mm = lambda *_a, **_k: ppm  # looked up at each new pose
    reuse = args.reuse == "on"
    log = open(args.log, "w") if args.log else None  # noqa: SIM115 - closed below
    read = DiceAdapter.read

    def logged(self: DiceAdapter, frame: Any) -> Any:
        obs = read(self, frame)
        if log is not None:
            conf = {k: round(v, 3) for k, v in obs.confidence.items()}
            scene = sim.scenes[at["scene"]]
            truth = _truth(scene.content)
            wrong = sorted(k for k in set(truth) | set(obs.items)
                           if _norm(obs.items.get(k)) != truth.get(k) and k not in obs.unseen)
            log.write(json.dumps({"frame": at["frame"], "scene": at["scene"], "note": scene.note,
                                  "items": obs.items, "conf": conf, "blocked": obs.blocked,
                                  "wrong": {k: [_norm(obs.items.get(k)), truth.get(k)] for k in wrong},
                                  "ppm": self._reader.px_per_mm}, default=str) + "\n")
        return obs

    init = DiceAdapter.__init__
    from vision.zones import EXACT_STEPS

    exact = EXACT_STEPS if args.exact == "all" else frozenset(filter(None, args.exact.split("+")))
    DiceAdapter.__init__ = (  # type: ignore[method-assign]
        lambda self, reuse_=reuse: init(self, reuse=reuse_, exact=exact))
    DiceAdapter.read = logged  # type: ignore[method-assign]
    try:
        res = run_match(sim)
    finally:
        DiceAdapter.read, DiceAdapter.__init__ = read, init  # type: ignore[method-assign]
        if log is not None:
            log.close()
    print(f"seed {args.seed} ppm {args.ppm or 'auto'} reuse {args.reuse} exact {args.exact or '-'}: "
          f"{res['moves_right']}/{res['moves']} right, {res['false_mismatches']} false mismatches, "
          f"{res['missed_moves']} missed, {res['wrong_verdicts']} wrong, "
          f"{res['seconds_per_move']} CPU s/move")
    for f in res["failures"]:
        print("  ", f)


def _norm(v: Any) -> Any:
    return list(v) if isinstance(v, (tuple, list)) else v


def _truth(content: Any) -> dict[str, Any]:
    """The items a perfect reader would report for a scene's dice (the adapter's keys): each die in
    the tray or a pool by its rectangle, the others on their nearest cell. A hand scene's truth is
    its dice too (the hand may hide some: read the `wrong` of still scenes)."""
    from engine.dice_road import SEAT_COLOURS, load_board

    board = load_board()
    colours = {c: i for i, c in enumerate(SEAT_COLOURS)}
    out: dict[str, Any] = {}
    tray: list[int] = []

    def inside(r: Any, x: float, y: float) -> bool:
        return r.x <= x <= r.x + r.w and r.y <= y <= r.y + r.h

    for d in content if isinstance(content, list) else []:
        x, y = d["x_mm"], d["y_mm"]
        if inside(board.tray, x, y):
            tray.append(d["value"])
            continue
        pool = next((s for s, r in enumerate(board.pools) if inside(r, x, y)), None)
        if pool is not None:
            out[f"pool:{pool}"] = d["value"]
            continue
        cell = min(board.cells.values(), key=lambda c: (c.x - x) ** 2 + (c.y - y) ** 2)
        out[f"cell:{cell.id}"] = [d["value"], colours[d["color"]]]
    if tray:
        out["tray"] = sorted(tray)
    return out


def main() -> None:
    ap = match_parser(__doc__, "3840x2160", 850, 30)
    ap.add_argument("--ppm", type=float, default=None)
    ap.add_argument("--reuse", choices=("on", "off"), default="on")
    ap.add_argument("--exact", default="",
                    help="steps made cheaper by c99a357 put back (prep+faces+...; all: every one)")
    ap.add_argument("--moves", type=int, default=None,
                    help="the match's first N moves only (replay: frames saved of a match cut short)")
    args = ap.parse_args()
    (save if args.what == "save" else replay)(args)


if __name__ == "__main__":
    main()
