"""Highway on the 4x4 board with pieces numbered 1..16 (seed 001, rules digest highway-grid)."""

from __future__ import annotations

from typing import Any

from engine.core import EngineError
from engine.grid.paths import PATHS, cell_name, parse_cell
from engine.grid.position import format_position, parse_position
from engine.grid.state import GridState, PathValue, Place, best_path, parse_action
from engine.registry import Game, register


def new_state(players: int = 2, **variant: Any) -> GridState:
    if players != 2:
        raise EngineError(f"highway-grid is a two-player game, not {players}")
    if variant:
        raise EngineError(f"highway-grid has no variants, got {sorted(variant)}")
    return GridState()


GAME = register(
    Game(
        name="highway-grid",
        title="Highway 4x4 (numbered pieces 1-16)",
        min_players=2,
        max_players=2,
        new_state=new_state,
        state_from_json=GridState.from_json,
        action_from_json=Place.from_json,
        parse_action=parse_action,
        rules_doc="docs/rules/highway-grid.md",
    )
)

__all__ = ["GAME", "PATHS", "GridState", "PathValue", "Place", "best_path", "cell_name", "format_position",
           "parse_action", "parse_cell", "parse_position"]
