"""Railroad Ink with its four expansions (seed 003, rules digest railroad-ink.md).

Rules as implemented, with the rule ids verdicts cite: docs/rules/railroad-ink.md.
Sheet format: docs/formats/railroad-ink-sheet.md.
"""

from __future__ import annotations

from typing import Any

from engine.railroad_ink.board import CENTRE, STANDARD_EXITS, Sheet, Square, cell_name, transform_sheet
from engine.railroad_ink.scoring import EXIT_POINTS, Score, ranking, score_sheet
from engine.railroad_ink.sheetcheck import CheckResult, check_sheet
from engine.railroad_ink.sheetfile import SheetFile, load_sheet, sheet_from_json, sheet_to_json
from engine.railroad_ink.state import (
    Done,
    Meteor,
    Place,
    RailroadInkState,
    Roll,
    action_from_json,
    parse_action,
)
from engine.railroad_ink.tiles import EXPANSIONS, FACES, PIECES, SPECIALS
from engine.registry import Game, register


def new_state(players: int = 2, **variant: Any) -> RailroadInkState:
    expansions = variant.pop("expansions", ())
    if variant:
        from engine.core import EngineError

        raise EngineError(f"railroad-ink variants are only 'expansions', got {sorted(variant)}")
    return RailroadInkState.new(players, expansions)


GAME = register(
    Game(
        name="railroad-ink",
        title="Railroad Ink (roll-and-write routes, with river, lake, meteor and lava expansions)",
        min_players=1,
        max_players=12,
        new_state=new_state,
        state_from_json=RailroadInkState.from_json,
        action_from_json=action_from_json,
        parse_action=parse_action,
        rules_doc="docs/rules/railroad-ink.md",
        variants={"expansions": "comma-separated subset of river, lake, meteor, lava (6 rounds instead "
                                "of 7)"},
    )
)

__all__ = ["CENTRE", "EXIT_POINTS", "EXPANSIONS", "FACES", "GAME", "PIECES", "SPECIALS", "STANDARD_EXITS",
           "CheckResult", "Done", "Meteor", "Place", "RailroadInkState", "Roll", "Score", "Sheet",
           "SheetFile",
           "Square", "action_from_json", "cell_name", "check_sheet", "load_sheet", "parse_action", "ranking",
           "score_sheet", "sheet_from_json", "sheet_to_json", "transform_sheet"]
