"""Pure rules engines for the refereed games. No camera, no web, no files: deterministic values.

Importing `engine` imports every game package below it, each of which registers its `Game`.
"""

from __future__ import annotations

import importlib
import pkgutil

from engine.core import (
    CHANCE,
    TERMINAL,
    Action,
    Consequence,
    EngineError,
    GameState,
    NotationError,
    Outcome,
    Verdict,
    judge,
    play,
    step,
)
from engine.registry import Game, games, get_game, register

for _mod in pkgutil.iter_modules(__path__):
    if _mod.ispkg:
        importlib.import_module(f"{__name__}.{_mod.name}")

__all__ = [
    "CHANCE",
    "TERMINAL",
    "Action",
    "Consequence",
    "EngineError",
    "Game",
    "GameState",
    "NotationError",
    "Outcome",
    "Verdict",
    "games",
    "get_game",
    "judge",
    "play",
    "register",
    "step",
]
