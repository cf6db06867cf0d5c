"""Plain-JSON views of a Tokyo Highway table for the referee app, the drawing and the CLI."""

from __future__ import annotations

from typing import Any

from engine.tokyo.checks import stick_bar
from engine.tokyo.geometry import segment_intersection
from engine.tokyo.table import TokyoTable


def all_crossings(state: TokyoTable) -> list[dict[str, Any]]:
    """Every place where two roads cross in plan view, which is on top, and the heights."""
    g = state.rules.geometry
    bars = [stick_bar(s, g) for s in state.sticks]
    out = []
    for i, a in enumerate(bars):
        for b in bars[i + 1 :]:
            if set(a.rests) & set(b.rests):
                continue
            hit = segment_intersection(a, b)
            if hit is None:
                continue
            za, zb = a.z_at(hit[0]), b.z_at(hit[1])
            top, low, zt, zl = (a, b, za, zb) if za >= zb else (b, a, zb, za)
            x, y = a.xy_at(hit[0])
            out.append(
                {
                    "over": top.ref,
                    "under": low.ref,
                    "at": [round(x, 1), round(y, 1)],
                    "z_over": round(zt, 1),
                    "z_under": round(zl, 1),
                }
            )
    return out


def table_view(state: TokyoTable) -> dict[str, Any]:
    """The table in plain JSON for the referee app and the drawing (units: mm, heights in columns)."""
    colors = state.rules.colors
    sticks = []
    for s in state.sticks:
        sticks.append(
            {
                "id": s.id,
                "owner": s.owner,
                "color": colors[s.owner],
                "kind": s.kind,
                "from": s.base if s.base is not None else [s.a[0], s.a[1]],
                "to": s.end if s.end is not None else [s.b[0], s.b[1]],
                "ends": [[round(v, 2) for v in s.a], [round(v, 2) for v in s.b]],
                "cars_earned": s.cars_earned,
                "crossed_over": s.crossed_over,
                "crossed_under": s.crossed_under,
            }
        )
    return {
        "game": state.game_name,
        "units": "mm",
        "unit_height_mm": state.rules.geometry.unit_height_mm,
        "supports": [{**s.to_json(), "color": colors[s.owner]} for s in state.supports],
        "sticks": sticks,
        "cars": [{**c.to_json(), "color": colors[c.owner]} for c in state.cars],
        "crossings": state.all_crossings(),
        "blocks": [b.to_json() for b in state.rules.blocks],
        "players": [
            {
                "seat": i,
                "color": colors[i],
                **state.stock[i].to_json(),
                "open_bases": [b.id for b in state.open_bases(i)],
                "out": i in state.out,
            }
            for i in range(state.rules.players)
        ],
        "to_move": None if state.winner is not None else state.current_player(),
        "phase": "over" if state.winner is not None else ("setup" if state.in_setup else "play"),
        "winner": state.winner,
    }
