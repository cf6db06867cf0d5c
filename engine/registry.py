"""The game registry: one `Game` description per supported game, looked up by name.

Each game package registers itself on import; `engine/__init__.py` imports them all, so
`engine.get_game("highway-grid")` works after `import engine`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
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


def register(game: Game) -> Game:
    _GAMES[game.name] = game
    return game


def get_game(name: str) -> Game:
    try:
        return _GAMES[name]
    except KeyError:
        known = ", ".join(sorted(_GAMES)) or "none"
        raise EngineError(f"unknown game {name!r} (known games: {known})") from None


def games() -> list[Game]:
    return [_GAMES[k] for k in sorted(_GAMES)]
