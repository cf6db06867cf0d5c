"""How far a played plain build's evidence leads its height rivals: per move, the first still frame of
its scene at the standard two-camera set-up (1280x720, 550 mm, 40 degrees), the build's nats summed over
the views against the best rival a unit higher or lower, at its place or a grid step round, scored as
`read_builds` scores them (a knocked camera 1 on its maps moved by the place's residual shifts).

    PYTHONPATH=. python bench/tokyo_height_leads.py 65/4 21/7 ...    # SEED/MOVE (index into sim.moves)

One line per move: the notation, legal or not, the lead, the best rival (x, y, height), the lead per
view, and per view K (knocked: brought back from a bump) or -. Tuning seeds only (issue 19, branch
tokyoshade: docs/vision/tokyo-referee.md).
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

PLAIN = re.compile(r"s(\d+) -> \((-?\d+),(-?\d+)\) h(\d+)$")


def first_frame_views(seed: int, move: int) -> tuple[Any, list[Any], Any]:
    """The simulated match, the state and the views its adapter scored builds on in the first still
    frame of move `move`'s scene (referee_app.games.tokyo_builds `_views`)."""
    from tokyo_poses import scene_frames, take_bumps, two_camera_move

    from referee_app.games import tokyo_builds as tb

    sim, state, adapter = two_camera_move(seed, move, Path(tempfile.mkdtemp()))
    got: dict[str, Any] = {}
    made = tb._views

    def keep(*args: Any, **kwargs: Any) -> Any:
        got["views"], got["state"] = made(*args, **kwargs), args[0]
        return got["views"]

    tb._views = keep
    try:
        scene = next(k for k, sc in enumerate(sim.scenes) if sc.checkpoint == move)
        take_bumps(sim, scene)
        adapter.watch(state)
        adapter.read(next(scene_frames(sim, scene)))
    finally:
        tb._views = made
    return sim, got.get("views", []), got.get("state")


def height_lead(seed: int, move: int) -> str:
    from referee_app.games import tokyo_builds as tb

    sim, views, state = first_frame_views(seed, move)
    notation = sim.moves[move].notation
    m = PLAIN.search(notation)
    if m is None or not views:
        return f"{seed}/{move} {notation}: not a plain build, or no build scored"
    base, x, y, h = int(m[1]), float(m[2]), float(m[3]), int(m[4])
    top = tb._tops(state, views[0].calib.sizes.unit_mm)[base]

    def score(vs: list[Any], c: tuple[float, float, int]) -> float:
        return tb._scores_seen(vs, c[0], c[1], c[2], (False,), top, near=(x, y))[0][0]

    step = (-10.0, 0.0, 10.0)
    rivals = [(x + dx, y + dy, hh) for dx in step for dy in step for hh in (h - 1, h + 1) if hh >= 1]
    scored = {c: score(views, c) for c in rivals}
    best = max(scored, key=lambda c: scored[c])
    truth = score(views, (x, y, h))
    per = [round(score([v], (x, y, h)) - score([v], best)) for v in views]
    knocked = "".join("K" if v.drawn is not None else "-" for v in views)
    legal = "legal" if sim.moves[move].legal else "ILLEGAL"
    lead = truth - scored[best]
    return f"{seed}/{move} {notation} {legal} lead {lead:.0f} over {best} per view {per} {knocked}"


def main(argv: list[str]) -> None:
    for arg in argv:
        seed, move = (int(v) for v in arg.split("/"))
        print(height_lead(seed, move), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
