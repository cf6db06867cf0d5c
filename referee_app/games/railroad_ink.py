"""Railroad Ink: the page shows every player's sheet with its score; moves come from the route-dice
reader (the roll), the sheet reader (what each player drew) or manual entry."""

from __future__ import annotations

from typing import Any

from engine import Action, GameState
from engine.railroad_ink import Place, RailroadInkState, cell_name
from referee_app.games.base import GameAdapter


class RailroadInkAdapter(GameAdapter):
    game = "railroad-ink"

    def board_svg(self, state: GameState) -> str:
        from referee_app.render.railroad_ink import sheet_svg

        assert isinstance(state, RailroadInkState)
        sheets = [_strip_xml(sheet_svg(s)) for s in state.sheets]
        if len(sheets) == 1:
            return sheets[0]
        # several players: their sheets side by side, each scaled into one column
        n = len(sheets)
        parts = [f'<svg x="{i * 100 / n}%" width="{100 / n}%" height="100%" {s[4:]}' if s.startswith("<svg")
                 else s for i, s in enumerate(sheets)]
        return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {200 * n} 200" '
                'preserveAspectRatio="xMidYMid meet">' + "".join(parts) + "</svg>")

    def extras(self, state: GameState) -> dict[str, Any]:
        assert isinstance(state, RailroadInkState)
        view = state.table_view()
        out: dict[str, Any] = {"round": getattr(state, "round", None)}
        if view.get("roll"):
            out["roll"] = ", ".join(view["roll"]) if isinstance(view["roll"], list) else str(view["roll"])
        for p in view["players"]:
            out[f"seat_{p['seat'] + 1}_total"] = p["score"].get("total")
        return out

    def action_cells(self, action: Action) -> list[str]:
        return [cell_name(action.cell)] if isinstance(action, Place) else []


def _strip_xml(svg: str) -> str:
    return svg.split("?>", 1)[1].strip() if svg.startswith("<?xml") else svg.strip()


ADAPTER = RailroadInkAdapter()
