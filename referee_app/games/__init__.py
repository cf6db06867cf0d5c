"""Per-game glue between vision, engine and page: one `GameAdapter` per game, found by name."""

from __future__ import annotations

import importlib

from referee_app.games.base import GameAdapter, GenericAdapter

_MODULES = {
    "highway-grid": "referee_app.games.grid",
    "highway-dice": "referee_app.games.dice",
    "tokyo-highway": "referee_app.games.tokyo",
    "railroad-ink": "referee_app.games.railroad_ink",
}


def get_adapter(game: str) -> GameAdapter:
    name = _MODULES.get(game)
    if name is None:
        return GenericAdapter(game)
    try:
        module = importlib.import_module(name)
    except ImportError:
        return GenericAdapter(game)
    return module.ADAPTER


__all__ = ["GameAdapter", "GenericAdapter", "get_adapter"]
