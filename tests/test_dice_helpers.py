"""Helpers for the dice-road tests: play notation through the engine, and build positions."""

from __future__ import annotations

from typing import Any

from engine.core import Verdict, step
from engine.dice_road import DiceState, load_board, new_state, parse_action
from engine.dice_road.road import cycle_of


def play(state: DiceState, *notations: str) -> tuple[DiceState, list[Verdict]]:
    verdicts = []
    for text in notations:
        state, verdict = step(state, parse_action(text))
        verdicts.append(verdict)
    return state, verdicts


def turn(state: DiceState, roll: str, action: str) -> tuple[DiceState, Verdict]:
    """One turn: the roll ('3 5') then the play; returns the new state and the play's verdict."""
    state, (rv, verdict) = play(state, f"R {roll}", action)
    assert rv.legal, rv
    return state, verdict


def paved(seat: int, n: int, start_t: int = 0) -> list[dict[str, Any]]:
    """The first n stones of `seat`'s road, paved in cycle order."""
    road = load_board().roads[seat]
    cyc = cycle_of(seat)
    return [{"cell": road.cells[k], "value": cyc[k % 3], "seat": seat, "kind": "pave", "t": start_t + k}
            for k in range(n)]


def position(players: int = 2, turn: int = 0, trails: dict[int, list[dict[str, Any]]] | None = None,
             bridges: dict[int, list[dict[str, Any]]] | None = None, pools: dict[int, int] | None = None,
             roll: list[int] | None = None) -> DiceState:
    trails = trails or {}
    bridges = bridges or {}
    pools = pools or {}
    clock = 1 + max([s["t"] for t in [*trails.values(), *bridges.values()] for s in t], default=0)
    return DiceState.from_json({
        "game": "highway-dice", "board": "default", "players": players, "turn": turn, "roll": roll,
        "pools": [pools.get(s) for s in range(players)],
        "trails": [trails.get(s, []) for s in range(players)],
        "bridges": [bridges.get(s, []) for s in range(players)],
        "clock": clock, "winner": None,
    })


def fresh(players: int = 2) -> DiceState:
    return new_state(players)
