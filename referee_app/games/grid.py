"""Highway 4x4: the numbered-piece reader's cells -> one placement per settled change."""

from __future__ import annotations

from typing import Any

from engine import Action, GameState
from engine.grid import GridState, Place, cell_name, parse_cell
from referee_app.games.base import Explanation, GameAdapter, Observation


class GridAdapter(GameAdapter):
    game = "highway-grid"
    has_reader = True

    def board_svg(self, state: GameState) -> str:
        from referee_app.render.grid import grid_svg

        return grid_svg(state)

    def extras(self, state: GameState) -> dict[str, Any]:
        assert isinstance(state, GridState)
        p1, p2 = state.best_paths()
        return {"player_1_best_path": p1.value, "player_2_best_path": p2.value,
                "pieces_left": len(state.reserve()),
                "best_paths": {"player_1": p1.to_json(), "player_2": p2.to_json()}}

    def hint(self, state: GameState) -> dict[str, Any] | None:
        assert isinstance(state, GridState)
        if state.is_terminal():
            return None
        from engine.grid.solver import hint

        found = hint(state)
        action, value = found[0], found[1]
        return {"notation": action.notation(), "value": value,
                "text": f"best move: {action.notation()} (value {value} for the player to move)"}

    def action_cells(self, action: Action) -> list[str]:
        return [cell_name(action.cell)] if isinstance(action, Place) else []

    # -- camera -------------------------------------------------------------------------------
    def read(self, frame: Any) -> Observation:
        from vision.tiles import read_grid_board

        image = frame.image if hasattr(frame, "image") else frame
        cells = read_grid_board(image, None)
        return observation_from_cells(cells, image)

    def expected(self, state: GameState) -> dict[str, Any]:
        assert isinstance(state, GridState)
        return {cell_name(i): p for i, p in enumerate(state.board) if p}

    def explain(self, state: GameState, seen: Observation) -> Explanation:
        expected = self.expected(state)
        added = {c: v for c, v in seen.items.items() if c not in expected}
        missing = {c: v for c, v in expected.items() if c not in seen.items}
        changed = {c: (expected[c], v) for c, v in seen.items.items() if c in expected and expected[c] != v}
        if not (added or missing or changed):
            return Explanation()
        problems = []
        for c, v in sorted(missing.items()):
            problems.append(f"piece {v} is missing from {c}: put it back")
        for c, (was, now) in sorted(changed.items()):
            problems.append(f"{c} should hold piece {was} but shows {now}: put {was} back")
        if len(added) > 1:
            problems.append(f"{len(added)} new pieces at {', '.join(sorted(added))}: one piece per turn")
        if problems:
            return Explanation(mismatch="the table disagrees with the match: " + "; ".join(problems),
                               cells=sorted({*added, *missing, *changed}))
        (cell, piece), = added.items()
        action = Place(int(piece), parse_cell(cell))
        return Explanation(action=action, confidence=float(seen.confidence.get(cell, 1.0)), cells=[cell])


def observation_from_cells(cells: dict[str, tuple[int | None, float]], image: Any = None,
                           unsure: float = 0.5) -> Observation:
    """Reader output {cell: (number or None, confidence)} -> Observation; a cell the reader could
    not read at all (confidence below `unsure` and no number) blocks the view."""
    items: dict[str, Any] = {}
    conf: dict[str, float] = {}
    blocked = None
    for cell, (number, c) in cells.items():
        if number is None:
            if c < unsure:
                blocked = f"cell {cell} cannot be read"
            continue
        items[cell] = int(number)
        conf[cell] = float(c)
    return Observation(items, conf, blocked, annotated=None)


ADAPTER = GridAdapter()
