"""A played game as a neutral sheet file per player: every placement in order with its round (also
squares later erased by a meteor or lava), each round's roll and meteor choice, the craters, and the
forced water fills. `check` replays such a file; `score` rebuilds the final sheet from it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.core import Action, step
from engine.railroad_ink.sheetfile import FORMAT
from engine.railroad_ink.state import Meteor, RailroadInkState, Roll


def game_record(actions: Sequence[Action], players: int = 1, expansions: tuple[str, ...] = (), seat: int = 0,
                **meta: Any) -> dict[str, Any]:
    state = RailroadInkState.new(players, expansions)
    placements: list[dict[str, Any]] = []
    craters: list[dict[str, Any]] = []
    rounds: dict[int, dict[str, Any]] = {}

    def note_new(before, after, rnd: int) -> None:
        for c, sq in after.placed():
            if before.cells[c] != sq:
                placements.append({"row": c // 7, "col": c % 7, "sides": sq.sides, "overpass": sq.overpass,
                                   "piece": sq.piece, "special": sq.special, "round": sq.round})
        for c in sorted(after.craters - before.craters):
            craters.append({"row": c // 7, "col": c % 7, "round": rnd})

    from engine.railroad_ink.board import Sheet

    note_new(Sheet(), state.sheets[seat], 0)  # the starting volcano (lava)
    for action in actions:
        rnd = state.round
        before = state.sheets[seat]
        state, verdict = step(state, action)
        if isinstance(action, Roll) and verdict.legal:
            rounds[rnd] = {"round": rnd, "roll": list(verdict.details["faces"])}
        elif isinstance(action, Meteor) and action.player == seat and verdict.legal:
            rounds[rnd]["meteor"] = {k: v for k, v in (("direction", action.direction),
                                                       ("ignore_with", action.ignore_with)) if v}
        if getattr(action, "player", None) == seat:
            note_new(before, state.sheets[seat], rnd)
    out: dict[str, Any] = {"format": FORMAT, "version": 2, **meta}
    if expansions:
        out["expansions"] = list(expansions)
    out["rounds"] = [rounds[r] for r in sorted(rounds)]
    out["placements"] = placements
    if craters:
        out["craters"] = craters
    return out
