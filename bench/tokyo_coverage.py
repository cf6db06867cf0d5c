"""Which of a simulated Tokyo Highway match's new columns each camera can see: geometry only, no
rendering, so a second camera's placement can be compared over many seeds in seconds.

    .venv/bin/python bench/tokyo_coverage.py --seeds 21-50 --camera2 150 --camera2 150,750
    .venv/bin/python bench/tokyo_coverage.py --seeds 1-50 --height 550 --tilt 40 --camera2 150,750,40 --list

Every move of `eval match tokyo-highway --cameras 2` (the same scripts, datasets/match_sim/tokyo.py)
whose scene puts down a new column is checked against camera 1 (before its knock) and camera 2: a
column is "in" a picture when every point of its side (foot to top, its width) projects inside it,
"out" when none does. A column out of both pictures is a move no build reader can see, whatever the
scoring; one cut by both is read from the part in view. `--camera2 AROUND[,HEIGHT[,TILT]]` places the
second camera as `eval match --camera2-around/--camera2-height/--camera2-tilt` do (height by default
200 mm above camera 1, tilt camera 1's).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from datasets.match_sim import tokyo as sim_tokyo  # noqa: E402
from datasets.match_sim.core import SecondCamera, Setup  # noqa: E402
from referee_app.commands.eval_match import parse_seeds  # noqa: E402
from vision.tokyo.coverage import column_share_in_view  # noqa: E402


def _columns(scene: dict[str, Any]) -> set[tuple[float, float, int]]:
    return {(s["x_mm"], s["y_mm"], s["height"]) for s in scene["supports"]}


def coverage(seeds: list[int], setup: Setup) -> dict[str, Any]:
    """Counts over the moves that put down a new column, and the ones out of both pictures."""
    out: dict[str, Any] = {"moves": 0, "new_columns": 0, "out_of_both": 0, "cut_by_both": 0,
                           "out_of_camera1": 0, "out_of_camera2": 0, "lost": []}
    for seed in seeds:
        sim = sim_tokyo.simulate(seed, setup)
        cameras = [sim.photographer.pose, sim.others[0].pose]
        for k, scene in enumerate(sim.scenes):
            if scene.checkpoint is None:
                continue
            out["moves"] += 1
            new = _columns(scene.content) - _columns(sim.scenes[k - 1].content)
            if not new:
                continue
            out["new_columns"] += 1
            shares = [max(column_share_in_view(c, x, y, h) for x, y, h in new) for c in cameras]
            out["out_of_camera1"] += shares[0] == 0.0
            out["out_of_camera2"] += shares[1] == 0.0
            if max(shares) == 0.0:
                out["out_of_both"] += 1
                out["lost"].append(f"seed {seed} move {scene.checkpoint + 1} " +
                                   ", ".join(f"({x:g},{y:g}) h{h}" for x, y, h in sorted(new)))
            elif max(shares) < 1.0:
                out["cut_by_both"] += 1
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seeds", default="21-50")
    p.add_argument("--camera", default="1280x720")
    p.add_argument("--height", type=float, default=550.0)
    p.add_argument("--tilt", type=float, default=40.0)
    p.add_argument("--fov", type=float, default=50.0)
    p.add_argument("--camera2", action="append", default=[],
                   help="AROUND[,HEIGHT[,TILT]] (repeat to compare placements; default 150)")
    p.add_argument("--list", action="store_true", help="name the moves out of both pictures")
    args = p.parse_args()
    w, h = (int(v) for v in args.camera.lower().split("x"))
    seeds = parse_seeds(args.seeds)
    for spec in args.camera2 or ["150"]:
        parts = [float(v) for v in spec.split(",")] + [None, None]
        second = SecondCamera(parts[0], parts[1], parts[2])
        setup = Setup(w, h, args.height, args.tilt, fov_deg=args.fov, cameras=2, second=second)
        got = coverage(seeds, setup)
        print(f"camera 2 {spec}: {got['moves']} moves, {got['new_columns']} with a new column; out of "
              f"camera 1 {got['out_of_camera1']}, of camera 2 {got['out_of_camera2']}, of both "
              f"{got['out_of_both']}; cut by both {got['cut_by_both']}")
        if args.list:
            for line in got["lost"]:
                print("   ", line)


if __name__ == "__main__":
    main()
