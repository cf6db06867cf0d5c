"""Whole simulated matches for measuring the referee per move (`highway-referee eval match`).

Each game's module scripts a match with the engine (players who sometimes break a rule, hands over
the table, shadows and glare, pieces nudged a few mm, the camera knocked once) and renders its frames
from a given camera set-up with the project's scene renderers. Nothing here knows the referee: the
eval command feeds the frames to it and compares what it logged with `SimMatch.moves`.
"""

from __future__ import annotations

import importlib
from typing import Any

from datasets.match_sim.core import LIGHTS, Scene, SecondCamera, Setup, SimFrame, SimMatch, TrueMove

MODULES = {
    "highway-dice": "datasets.match_sim.dice_road",
    "highway-grid": "datasets.match_sim.grid",
    "railroad-ink": "datasets.match_sim.railroad_ink",
    "tokyo-highway": "datasets.match_sim.tokyo",
}


def simulate(game: str, seed: int, setup: Setup, **kwargs: Any) -> SimMatch:
    """The scripted match of `game` for `seed` (its frames are drawn only when iterated)."""
    if game not in MODULES:
        raise ValueError(f"no match simulator for {game!r}: one of {', '.join(MODULES)}")
    return importlib.import_module(MODULES[game]).simulate(seed, setup, **kwargs)


__all__ = ["LIGHTS", "MODULES", "Scene", "SecondCamera", "Setup", "SimFrame", "SimMatch", "TrueMove",
           "simulate"]
