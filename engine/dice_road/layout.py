"""The geometry of the default printed board, written as code once and shipped as data.

`python -m engine.dice_road.layout > engine/dice_road/boards/default.json` regenerates the shipped
file; a test checks that the two agree. The engine itself only ever reads the JSON.

Layout (grid units, pitch 22 mm, centre of an A2 landscape sheet at grid (0, 0), y down):
White's road runs up the left edge, along the top, down to the roundabout's top-left corner; the
other three roads are its mirror images (Blue in x, Green in y, Yellow in both). The roundabout is
the 5x5 block |x|, |y| <= 2 with its centre R22; the four road ends are its corners.
"""

from __future__ import annotations

import json
from typing import Any

PITCH = 22.0  # mm between cell centres
CELL = 20.0  # printed square; a 16 mm die fits with room to spare
SHEET_W, SHEET_H = 594.0, 420.0  # A2 landscape
ORIGIN = (SHEET_W / 2, SHEET_H / 2)

# White's road (seat 0), corner -> roundabout corner, in grid units.
_WHITE_ROAD = (
    [(-11, y) for y in range(-2, -8, -1)]  # up the left edge
    + [(x, -7) for x in range(-10, -3)]  # along the top
    + [(-4, y) for y in range(-6, -1)]  # down towards the roundabout
    + [(-3, -2), (-2, -2)]
)
_BRIDGE_INDEX = 15  # (-4, -4): a straight run with room for the detour on its outer side
_FLANKS = [(-5, -4), (-3, -4)]
_DETOUR = [(-5, -5), (-6, -5), (-6, -4), (-6, -3), (-5, -3)]  # out two, along two, back
_WARNING_BEFORE = 9

SEATS = (("W", 1, 1), ("B", -1, 1), ("G", 1, -1), ("Y", -1, -1))  # letter, x mirror, y mirror


def _ra(x: int, y: int) -> str:
    """Roundabout cell id: R + row + column inside the 5x5 block (R22 is the centre)."""
    return f"R{y + 2}{x + 2}"


# Roundabout lanes, without the road's corner cell and without the centre.
_LANES_2P = {
    0: {"outer": [(-2, -1), (-2, 0), (-1, 0)], "middle": [(-1, -2), (0, -2), (0, -1)]},
    1: {"outer": [(2, -1), (2, 0), (1, 0)], "middle": [(1, -2), (0, -2), (0, -1)]},
}
_LANES_FIXED = {  # a pinwheel: the four routes never share a cell
    0: [(-1, -2), (0, -2), (0, -1)],
    1: [(2, -1), (2, 0), (1, 0)],
    2: [(-2, 1), (-2, 0), (-1, 0)],
    3: [(1, 2), (0, 2), (0, 1)],
}


def _mm(x: float, y: float) -> tuple[float, float]:
    return ORIGIN[0] + PITCH * x, ORIGIN[1] + PITCH * y


def default_board() -> dict[str, Any]:
    cells: dict[str, tuple[int, int]] = {}
    roads: dict[str, Any] = {}
    for seat, (letter, mx, my) in enumerate(SEATS):
        def f(p: tuple[int, int], mx: int = mx, my: int = my) -> tuple[int, int]:
            return p[0] * mx, p[1] * my

        road = []
        for i, p in enumerate(_WHITE_ROAD):
            cid = f"{letter}{i + 1:02d}"
            cells[cid] = f(p)
            road.append(cid)
        flanks = []
        for k, p in enumerate(_FLANKS):
            cells[f"{letter}-F{k + 1}"] = f(p)
            flanks.append(f"{letter}-F{k + 1}")
        detour = []
        for k, p in enumerate(_DETOUR):
            cells[f"{letter}-D{k + 1}"] = f(p)
            detour.append(f"{letter}-D{k + 1}")
        entry: dict[str, Any] = {
            "cells": road,
            "bridge": {
                "cell": road[_BRIDGE_INDEX],
                "flanks": flanks,
                "detour": detour,
                "warning": road[_BRIDGE_INDEX - _WARNING_BEFORE],
            },
            "fixed_lane": [_ra(*p) for p in _LANES_FIXED[seat]],
        }
        if seat in _LANES_2P:
            entry["lanes"] = {k: [_ra(*p) for p in v] for k, v in _LANES_2P[seat].items()}
        roads[str(seat)] = entry
    all_lanes = [lane for two in _LANES_2P.values() for lane in two.values()] + list(_LANES_FIXED.values())
    for lane in all_lanes:
        for p in lane:
            cells[_ra(*p)] = p
    cells[_ra(0, 0)] = (0, 0)

    def rect(x0: float, y0: float, x1: float, y1: float) -> dict[str, float]:
        (ax, ay), (bx, by) = _mm(x0, y0), _mm(x1, y1)
        return {"x": round(ax, 2), "y": round(ay, 2), "w": round(bx - ax, 2), "h": round(by - ay, 2)}

    return {
        "format": "highway-dice-board",
        "version": 1,
        "name": "default",
        "title": "Highway dice road, default board (A2 landscape, 22 mm cells)",
        "units": "mm",
        "sheet": {"width": SHEET_W, "height": SHEET_H},
        "pitch": PITCH,
        "turn_order": [0, 1, 2, 3],
        "cells": [
            {"id": cid, "x": round(_mm(*p)[0], 2), "y": round(_mm(*p)[1], 2), "w": CELL, "h": CELL}
            for cid, p in sorted(cells.items())
        ],
        "roads": roads,
        "centre": _ra(0, 0),
        # The tray fills the free block above the roundabout, the pools the strips beside it.
        "tray": rect(-2.4, -7.4, 2.4, -2.6),
        "pools": {
            "0": rect(-10, -1, -8, 1),
            "1": rect(8, -1, 10, 1),
            "2": rect(-7, -1, -5, 1),
            "3": rect(5, -1, 7, 1),
        },
    }


if __name__ == "__main__":
    print(json.dumps(default_board(), indent=1))
