"""How the Railroad Ink referee adapter reads whole table frames (a sheet from a random legal game and
four dice in the tray): exactly right, refused (blocked: the referee waits for the next frame), or
wrong without being refused (the case that must not happen).

Frames: `TableCamera` renders (datasets/demo_railroad_ink.py) with a new camera, lamp, table and pen
per frame, tilt 0-25 degrees, lighting and sensor faults at `--effects`. Baseline: the same frames
read square by square, counting each of the 49 squares and the tray on its own. A frame read wrong
where every wrong item is reported below the loop's confirmation threshold counts as "asked": the
players would be asked to confirm, not overruled.
Usage: python bench/rri_referee_table.py [--frames N] [--effects E] [--seed S]
"""

from __future__ import annotations

import argparse
import random

from datasets.demo_railroad_ink import TableCamera, TableScene
from engine.railroad_ink import FACES, cell_name
from engine.railroad_ink.randomgame import random_game
from engine.railroad_ink.state import RailroadInkState
from referee_app.games.railroad_ink import LOOP_CONFIRMS_BELOW, TRAY, RailroadInkAdapter, square_value


def table_at(seed: int) -> tuple[TableScene, dict[str, object]]:
    """A sheet part-way through a random legal game, the dice of a random roll, and the items the
    adapter should read from them."""
    rng = random.Random(seed)
    final, _actions = random_game(seed)
    sheet = final.sheets[0]
    keep = {c for c, sq in sheet.placed() if sq.round <= rng.randint(2, 7)}
    squares = {c: (sq.sides, sq.overpass, sq.round) for c, sq in sheet.placed() if c in keep}
    tray = [rng.choice(FACES[d]) for d in RailroadInkState.new(1).dice]
    truth: dict[str, object] = {cell_name(c): square_value(s, o) for c, (s, o, _r) in squares.items()}
    truth[TRAY] = tuple(sorted(tray))
    return TableScene(squares, tray), truth


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=24)
    ap.add_argument("--effects", type=float, default=0.6)
    ap.add_argument("--seed", type=int, default=900)
    args = ap.parse_args()
    adapter = RailroadInkAdapter()
    exact = blocked = wrong = asked = 0
    parts_right = parts_total = 0
    for k in range(args.frames):
        scene, truth = table_at(args.seed + k)
        camera = TableCamera(seed=args.seed + k, effects=args.effects, tilt_deg=(0.0, 25.0))
        obs = adapter.read(camera.shot(scene, 0))
        reading = getattr(obs, "reading", None)
        if reading is not None:  # baseline: every square and the tray scored on its own
            for name, sq in reading.squares.items():
                want = truth.get(name, "----")
                got = square_value(sq.sides, sq.overpass) if sq.status == "read" else None
                parts_right += got == want
                parts_total += 1
            parts_right += obs.items.get(TRAY) == truth[TRAY]
            parts_total += 1
        if obs.blocked:
            blocked += 1
        elif obs.items == truth:
            exact += 1
        else:
            diff = sorted(k for k in set(obs.items) | set(truth) if obs.items.get(k) != truth.get(k))
            sure = [d for d in diff if obs.confidence.get(d, 1.0) >= LOOP_CONFIRMS_BELOW]
            if sure:
                wrong += 1
                print(f"  frame {k}: read wrong without refusal or question at {', '.join(sure)}")
            else:
                asked += 1
    n = args.frames
    share = parts_right / max(parts_total, 1)
    print(f"{n} table frames, effects {args.effects}, seed {args.seed}")
    print(f"baseline, squares and trays read right one by one: {parts_right}/{parts_total} = {share:.3f}")
    print(f"whole frames: exact {exact}/{n} = {exact / n:.3f} ({exact / n / share:.2f}x baseline), "
          f"refused {blocked}/{n}, wrong but asked to confirm {asked}/{n}, wrong without refusal or "
          f"question {wrong}/{n}")


if __name__ == "__main__":
    main()
