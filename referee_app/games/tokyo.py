"""Tokyo Highway: the page shows the top view with heights and crossings; moves come from the
stick reader or manual entry."""

from __future__ import annotations

from typing import Any

from engine import Action, GameState
from referee_app.games.base import GameAdapter


class TokyoAdapter(GameAdapter):
    game = "tokyo-highway"

    def board_svg(self, state: GameState) -> str:
        from referee_app.render.tokyo import tokyo_svg

        return tokyo_svg(state)

    def extras(self, state: GameState) -> dict[str, Any]:
        view = state.table_view()
        out: dict[str, Any] = {}
        for p in view.get("players") or []:
            out[f"{p['color']}_cars_left"] = p.get("cars")
            out[f"{p['color']}_sticks_left"] = p.get("sticks")
        if view.get("winner") is not None:
            out["winner"] = view["winner"]
        return out

    def action_cells(self, action: Action) -> list[str]:
        return []


ADAPTER = TokyoAdapter()
