"""Sampled builds around each open end of the player to move: positions on the table are continuous,
so the engine offers directions x spans x heights (and ramps), plus the start roads and a skip."""

from __future__ import annotations

import math
from collections.abc import Iterator

from engine.core import Action
from engine.tokyo.actions import Build, NewSupport, Skip, Start
from engine.tokyo.table import TokyoTable


def candidate_actions(state: TokyoTable, directions: int = 12) -> Iterator[Action]:
    """Builds sampled around each open end (positions are continuous, so this is a sample),
    judged or not: the property tests and benchmarks draw from them."""
    g = state.rules.geometry
    if state.winner is not None:
        return
    if state.in_setup:
        seat = state.current_player()
        n = state.rules.players
        ang = -math.pi / 2 + 2 * math.pi * seat / n
        r = 0.5 * g.stick_length_mm
        sx, sy = r * math.cos(ang), r * math.sin(ang)
        run = math.sqrt((0.9 * g.stick_length_mm) ** 2 - g.unit_height_mm**2)
        tx, ty = sx - run * math.sin(ang), sy + run * math.cos(ang)
        yield Start(NewSupport(round(sx, 1), round(sy, 1), 1), (round(tx, 1), round(ty, 1)), seat)
        return
    seat = state.to_move
    st = state.stock[seat]
    for base in state.open_bases(seat):
        heights = [(h, False) for h in (base.height - 1, base.height + 1) if h >= 1]
        if st.junctions:
            heights += [(h, True) for h in (base.height, base.height + 2) if h >= 2]
        for k in range(directions):
            ang = 2 * math.pi * k / directions
            c, s = math.cos(ang), math.sin(ang)
            for h, j in heights:
                dz = (h - base.height) * g.unit_height_mm
                for frac in (0.95, 0.6):
                    run = math.sqrt(max((frac * g.stick_length_mm) ** 2 - dz * dz, 0.0))
                    if run < g.column_diameter_mm * 1.5:
                        continue
                    yield Build(
                        base.id,
                        NewSupport(round(base.x + run * c, 1), round(base.y + run * s, 1), h, j),
                        player=seat,
                    )
            if base.height == 1:
                run = math.sqrt((0.9 * g.stick_length_mm) ** 2 - g.unit_height_mm**2)
                yield Build(
                    base.id, ramp=(round(base.x + run * c, 1), round(base.y + run * s, 1)), player=seat
                )
    yield Skip(seat)
