"""The game registry: one `Game` description per supported game, looked up by name.

Each game package registers itself on import. `get_game` and `games` import every game package
under engine/ on first use (not `import engine`: a command that needs one game imports only it), so
`engine.get_game("highway-grid")` works after `import engine`.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.core import Action, EngineError, GameState


@dataclass(frozen=True)
class Game:
    name: str  # stable id used in logs and on the CLI, e.g. "highway-grid"
    title: str
    min_players: int
    max_players: int
    new_state: Callable[..., GameState]  # new_state(players=2, **variant) -> initial state
    state_from_json: Callable[[dict[str, Any]], GameState]
    action_from_json: Callable[[dict[str, Any]], Action]
    parse_action: Callable[[str], Action]  # notation -> Action (raises NotationError)
    rules_doc: str = ""  # path of the rules-as-implemented page under docs/
    variants: dict[str, str] = field(default_factory=dict)  # variant option -> description


_GAMES: dict[str, Game] = {}
_ALL_LOADED: list[bool] = []


def _load_all() -> None:
    """Import every game package under engine/ once (each registers its Game on import)."""
    if _ALL_LOADED:
        return
    _ALL_LOADED.append(True)
    # the folder, not `import engine`: the package imports this module (no cycle)
    for mod in pkgutil.iter_modules([str(Path(__file__).parent)]):
        if mod.ispkg:
            importlib.import_module(f"engine.{mod.name}")


def register(game: Game) -> Game:
    _GAMES[game.name] = game
    return game


def get_game(name: str) -> Game:
    if name not in _GAMES:
        _load_all()
    try:
        return _GAMES[name]
    except KeyError:
        known = ", ".join(sorted(_GAMES)) or "none"
        raise EngineError(f"unknown game {name!r} (known games: {known})") from None


def games() -> list[Game]:
    _load_all()
    return [_GAMES[k] for k in sorted(_GAMES)]
