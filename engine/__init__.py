"""Pure rules engines for the refereed games. No camera, no web, no files: deterministic values.

Each game package below registers its `Game` when imported. `import engine` imports none of them:
`get_game` and `games` import them all on first use, and `engine.tokyo` and the like import on
first access, so a command that needs one game (`grid solve`) does not pay for the others' imports.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

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

_GAME_PACKAGES = frozenset(m.name for m in pkgutil.iter_modules(__path__) if m.ispkg)


def __getattr__(name: str) -> ModuleType:
    """`engine.tokyo` after a bare `import engine`: the game package, imported on first access."""
    if name in _GAME_PACKAGES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
