"""Tokyo Highway (seed 002, rules digest tokyo-highway): a 3D stick-and-column building game.

Supports stand at table positions (mm) with heights in column units; roads are sticks between
support tops (or a ramp down to the table); cars are earned by first crossings over and under
opponent roads. Rules-as-implemented: docs/rules/tokyo-highway.md.
"""

from __future__ import annotations

from typing import Any

from engine.registry import Game, register
from engine.tokyo.actions import (
    Build,
    Knock,
    NewSupport,
    Observed,
    Skip,
    Start,
    action_from_json,
    parse_action,
)
from engine.tokyo.config import Block, SetGeometry, TokyoRules
from engine.tokyo.reading import TableReading, match_build
from engine.tokyo.state import TokyoState


def new_state(players: int = 2, **variant: Any) -> TokyoState:
    return TokyoState.new(TokyoRules.from_variant(players, **variant))


GAME = register(
    Game(
        name="tokyo-highway",
        title="Tokyo Highway (3D roads on columns)",
        min_players=2,
        max_players=4,
        new_state=new_state,
        state_from_json=TokyoState.from_json,
        action_from_json=action_from_json,
        parse_action=parse_action,
        rules_doc="docs/rules/tokyo-highway.md",
        variants={
            "own_crossing_blocks_cars": "true (seed): a road that also crosses an own road earns no car; "
            "false: the published rules, which do not say so",
            "knock_per_piece": "false (seed): one column per affected opponent; true: one per piece",
            "same_model_bonus": "advanced rule: placing a car model already on an opponent's road takes "
            "one grey column from them (once a turn)",
            "first_player": "seat that starts (who most recently saw a rainbow)",
            "colors": "one car colour per player (default purple/green for 2 players)",
            "geometry": "piece sizes in mm: stick_length_mm, stick_width_mm, stick_thickness_mm, "
            "column_diameter_mm, unit_height_mm, clearance_mm, car_length_mm, car_height_mm",
            "blocks": "3-4 players: buildings as obstacles, [x, y, w, d, h] in mm",
            "grey/junctions/sticks/cars": "material per player (2p: 30/3/15/10; 3p: 26/2/12/8; 4p: 20/2/9/7)",
        },
    )
)

__all__ = [
    "GAME",
    "Block",
    "Build",
    "Knock",
    "NewSupport",
    "Observed",
    "SetGeometry",
    "Skip",
    "Start",
    "TableReading",
    "TokyoRules",
    "TokyoState",
    "action_from_json",
    "match_build",
    "new_state",
    "parse_action",
]
