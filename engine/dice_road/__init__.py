"""Highway, the dice road game for 2-4 players (seed 000, rules digest highway-dice).

Rules as implemented, with their rule ids: docs/rules/highway-dice.md. Board format:
docs/formats/dice-board.md.

What the referee app uses:
  * `new_state(players=2, board=None)` -> DiceState. `board` may be a Board, a dict, JSON text or
    a shipped board's name; `load_board()` / `board_json()` give the shipped default.
  * `board.cells[cell_id]` -> Cell(id, x, y, w, h): centre and size in mm on the printed sheet;
    `board.tray` and `board.pools[seat]` are Rect(x, y, w, h) in mm (top-left corner).
    Cell ids: W07 = White's road step 7 (B, G, Y for Blue, Green, Yellow); W-F1 / W-F2 = the flanks
    of White's bridge; W-D1..W-D5 = White's detour; Rrc = roundabout row r, column c (R22 the centre).
  * `state.table_view()` -> {"stones": {cell: {"value", "seat"}}, "pools": {seat: value|None},
    "roll": [a, b] | None}: what physically lies on the table.
  * Actions (`parse_action(text)`, `action_from_json(dict)`, `.to_json()`, `.notation()`):
    Roll "R 3 5" (chance event), Play "3>W07 +5" / "P3>W07" / "+5" / "pass", Reclaim "reclaim B12".
  * `state.judge(action)` -> Verdict (rule id, reason naming what was needed; illegal placements
    cost the turn), `state.apply(action)`, `engine.step(state, action)`.
  * `state.legal_uses(roll=None)` -> [Use(die, source, cell, kind, rule, target_seat)] for the player
    to move; `state.status(seat)` -> RoadStatus (needed value and cells, block value, bridge state).
Seats: 0 White, 1 Blue, 2 Green, 3 Yellow; White and Green pave odd values, Blue and Yellow even.
"""

from __future__ import annotations

from typing import Any

from engine.core import EngineError
from engine.dice_road.actions import Play, Reclaim, Roll, action_from_json, parse_action
from engine.dice_road.board import (
    SEAT_COLOURS,
    SEAT_NAMES,
    Board,
    Cell,
    Rect,
    board_json,
    load_board,
    resolve_board,
)
from engine.dice_road.road import RoadStatus, Stone
from engine.dice_road.state import DiceState, Use
from engine.registry import Game, register


def new_state(players: int = 2, board: Board | dict[str, Any] | str | None = None,
              **variant: Any) -> DiceState:
    if variant:
        raise EngineError(f"highway-dice has no variant {sorted(variant)} (only 'board')")
    return DiceState.new(players, board)


GAME = register(
    Game(
        name="highway-dice",
        title="Highway dice road (2-4 players, roads of dice to a roundabout)",
        min_players=2,
        max_players=4,
        new_state=new_state,
        state_from_json=DiceState.from_json,
        action_from_json=action_from_json,
        parse_action=parse_action,
        rules_doc="docs/rules/highway-dice.md",
        variants={"board": "a board file (JSON, docs/formats/dice-board.md) instead of the default board"},
    )
)

__all__ = [
    "GAME", "SEAT_COLOURS", "SEAT_NAMES", "Board", "Cell", "DiceState", "Play", "Reclaim", "Rect",
    "RoadStatus", "Roll", "Stone", "Use", "action_from_json", "board_json", "load_board", "new_state",
    "parse_action", "resolve_board",
]
