"""Render scenes (datasets.tokyo.scene) of what the Tokyo Highway engine says stands on the table,
and moves as a camera shows them: shared by the bundled recorded match (referee_app.demo_tokyo) and
the simulated matches of `eval match` (datasets.match_sim.tokyo)."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import numpy as np

from engine.tokyo import Build, Observed, Start, TokyoState, parse_action

STICK_RGB = "natural"  # plain wooden roads, as in the published sets: the owner is the base's owner


def scene_from_state(state: TokyoState) -> dict[str, Any]:
    """The render scene (datasets.tokyo.scene) of what the engine says stands on the table."""
    view = state.table_view()
    supports = [{"id": s["id"], "x_mm": s["x"], "y_mm": s["y"], "height": s["height"],
                 "junction": s["junction"]} for s in view["supports"]]
    sticks = []
    for st in view["sticks"]:
        ends = []
        for end in (st["from"], st["to"]):
            ends.append(end if isinstance(end, int) else {"x_mm": end[0], "y_mm": end[1]})
        sticks.append({"a": ends[0], "b": ends[1], "color": STICK_RGB, "player": st["owner"], "id": st["id"]})
    scene: dict[str, Any] = {"supports": supports, "sticks": sticks, "cars": [], "loose": [], "fallen": []}
    index = {st["id"]: k for k, st in enumerate(sticks)}
    per_stick: dict[int, list[str]] = {}
    for c in view["cars"]:
        per_stick.setdefault(c["stick"], []).append(c["color"])
    for sid, colours in per_stick.items():
        for t, colour in zip(_car_spots(state, sid, len(colours)), colours, strict=True):
            scene["cars"].append({"stick": index[sid], "t": t, "color": colour})
    return scene


def _car_spots(state: TokyoState, sid: int, n: int) -> list[float]:
    """Where along road `sid` its cars stand (0..1 from its first end): away from crossings."""
    crossings = [c for c in state.all_crossings() if sid in (c["over"], c["under"])]
    st = state.stick_by_id[sid]
    a, b = np.array(st.a[:2]), np.array(st.b[:2])
    length = float(np.linalg.norm(b - a))
    cross_t = [float(np.dot(np.array(c["at"]) - a, b - a) / length**2) for c in crossings]
    spots = [0.5, 0.38, 0.62, 0.3, 0.7]
    spots.sort(key=lambda t: -min((abs(t - c) for c in cross_t), default=1.0))
    return sorted(spots[:n])


def with_build(scene: dict[str, Any], state: TokyoState, action: Build) -> dict[str, Any]:
    """The scene plus the pieces of a build the engine has not applied (a wrong one on the table)."""
    out = json.loads(json.dumps(scene))
    assert action.support is not None
    new_id = max(s["id"] for s in out["supports"]) + 1
    out["supports"].append({"id": new_id, "x_mm": action.support.x, "y_mm": action.support.y,
                            "height": action.support.height, "junction": action.support.junction})
    seat = state.support(action.base).owner
    out["sticks"].append({"a": action.base, "b": new_id, "color": STICK_RGB, "player": seat})
    return out


def seen_action(state: TokyoState, move: str) -> Start | Build:
    """The move as the camera shows it: the player's colour and what is on top at each crossing of
    the new road."""
    action = parse_action(move)
    if isinstance(action, Start):
        return action
    assert isinstance(action, Build)
    crossings = state.judge(action).details.get("crossings") or []
    observed = tuple(sorted((Observed(c["road"], c["new_on_top"]) for c in crossings), key=lambda o: o.road))
    return replace(action, observed=observed)  # cars: the referee places those the build earns
