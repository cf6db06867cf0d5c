"""The meteor's walk (Blazing Red, rule rri.meteor.walk).

From the last impact (the middle square at first) the meteor moves `distance` squares in the rolled
direction; at the board edge it bounces back the other way; when it would land on a crater it keeps
going the same way (bouncing as needed) until it lands on a square without a crater.
"""

from __future__ import annotations

from engine.railroad_ink.board import SIZE

DIRECTIONS = {"up": (-1, 0), "right": (0, 1), "down": (1, 0), "left": (0, -1)}
MAX_SKIPS = 4 * SIZE  # a row or column full of craters: stop after two full bounces


def meteor_walk(start: int, direction: str, distance: int, craters: frozenset[int]) -> list[int]:
    """The squares the meteor passes, ending with the impact square."""
    dr, dc = DIRECTIONS[direction]
    r, c = divmod(start, SIZE)
    path = []
    steps = 0
    while steps < distance or (r * SIZE + c in craters and steps < distance + MAX_SKIPS):
        nr, nc = r + dr, c + dc
        if not (0 <= nr < SIZE and 0 <= nc < SIZE):
            dr, dc = -dr, -dc  # bounce
            nr, nc = r + dr, c + dc
        r, c = nr, nc
        path.append(r * SIZE + c)
        steps += 1
    return path
