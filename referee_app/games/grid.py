"""Highway 4x4: the numbered-piece reader's cells -> one placement per settled change."""

from __future__ import annotations

import re
from typing import Any

from engine import Action, GameState
from engine.grid import GridState, Place, cell_name, parse_cell
from referee_app.decoder import candidates as cand
from referee_app.games.base import Explanation, GameAdapter, Observation
from vision.beliefs import present_belief, value_belief

_GUESS = re.compile(r"best guess (\d+)")
UNSURE = 0.4  # confidence given to a reader's best guess: below the loop's confirmation threshold


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

    def hint(self, state: GameState, time_limit: float | None = None) -> dict[str, Any] | None:
        assert isinstance(state, GridState)
        if state.is_terminal():
            return None
        from engine.grid.solver import solve

        result = solve(state, time_limit)  # the deadline is checked inside the search
        if result.best is None:
            return None
        value = result.value
        kind = "exact" if result.exact else f"estimate after {result.depth} plies"
        return {"notation": result.best.notation(), "value": value, "exact": result.exact,
                "text": f"best move: {result.best.notation()} (value {value:g} for the player to move, "
                        f"{kind})"}

    def action_cells(self, action: Action) -> list[str]:
        return [cell_name(action.cell)] if isinstance(action, Place) else []

    # -- camera -------------------------------------------------------------------------------
    def __init__(self, reuse: bool = True) -> None:
        from vision.localise import Localiser, SheetSpec
        from vision.tiles import geometry as g

        # tracks the board's markers: keeps the calibration while the board stays put (or a marker
        # is covered) and re-localises when they moved more than MOVE_MM on the board (a bumped camera)
        self.localiser = Localiser(SheetSpec(g.SHEET, *g.SHEET_MM, g.MARKER_MM, g.MARKER_MARGIN_MM))
        self.reuse = reuse  # unchanged cells keep the last frame's reading
        self._last: Any = None  # the last frame's GridReading
        self._patches: list[Any] = []  # the last calibration's marker pixels (see `_calibrate`)

    def _calibrate(self, image: Any) -> tuple[Any, str | None]:
        """(calibration, why the board cannot be read). Markers that look exactly as they did on the
        last frame need no search; otherwise the localiser checks them against the calibration."""
        from vision.tiles.reuse import marker_patches, markers_still
        from vision.types import check_image

        check_image(image)  # a broken frame is a VisionError, as from the reader
        cal = self.localiser.calibration
        same_size = cal is not None and tuple(cal.image_size) == (image.shape[1], image.shape[0])
        if same_size and self._patches and markers_still(image, self._patches):
            return cal, None
        result = self.localiser.update(image)
        if result.status == "none":
            return None, result.message
        if result.status == "stale":  # the old calibration is known wrong: do not read through it
            return None, (f"the board moved by {result.shift_mm:.1f} mm and too few of its markers "
                          "are visible to find it again")
        if result.status != "kept":  # located, moved or steady: remember how the markers look now
            self._patches = marker_patches(image, result.calibration)
        return result.calibration, None

    def read(self, frame: Any) -> Observation:
        from vision.tiles import read_grid_cells
        from vision.types import VisionError

        image = frame.image if hasattr(frame, "image") else frame
        try:
            cal, why = self._calibrate(image)
            if cal is None:
                self._last = None
                return Observation({}, {}, blocked=f"the board cannot be located: {why}")
            reading = read_grid_cells(image, cal, self._last if self.reuse else None)
        except VisionError as exc:
            self._last = None
            if "marker" in str(exc).lower():  # the board is out of view or covered: not a bad frame
                return Observation({}, {}, blocked=f"the board cannot be located: {exc}")
            raise
        self._last = reading
        cells = reading.board()
        for c in reading.cells.values():  # a number the reader is unsure of: ask, do not block
            guess = _GUESS.search(c.reason or "") if c.status == "unreadable" else None
            if guess:
                cells[c.cell] = (int(guess.group(1)), min(c.confidence, UNSURE))
        lost = [c for c in reading.cells.values() if c.status == "unreadable" and cells[c.cell][0] is None]
        obs = observation_from_cells({k: v for k, v in cells.items() if reading.cells[k] not in lost}, image)
        obs.annotated = _annotate(image, reading)
        if lost:
            names = ", ".join(c.cell for c in lost)
            reasons = sorted({c.reason for c in lost if c.reason})
            said = f"cannot read {names}" + (f" ({'; '.join(reasons)})" if reasons else "")
            if any(_reaches_in(c.region_mm) for c in lost):
                obs.blocked = said  # a hand reaching over the board: nothing on it can be trusted
            else:
                # a cell the reader cannot make out (a stack, crowded pieces merged into one object:
                # tuning seed 7 at 600 mm/30) is unseen in this frame: the decoder keeps what it knew
                # of it while the other cells are still read and can decide a move
                obs.unseen = frozenset(c.cell for c in lost)
                obs.warnings.append(said)
        return obs

    def expected(self, state: GameState) -> dict[str, Any]:
        assert isinstance(state, GridState)
        return {cell_name(i): p for i, p in enumerate(state.board) if p}

    def explain(self, state: GameState, seen: Observation) -> Explanation:
        expected = self.expected(state)
        if seen.unseen:  # a cell not seen in this frame is taken to be as the match has it
            items = {c: v for c, v in seen.items.items() if c not in seen.unseen}
            items.update({c: expected[c] for c in seen.unseen if c in expected})
            seen = Observation(items, seen.confidence)
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


    def candidates(self, state: GameState, table: dict[str, Any]) -> list[cand.Candidate]:
        """Every piece on every cell - an occupied cell or a piece already placed too (a misread, or
        a piece from another set: the engine rules both illegal) - plus nothing and something else
        (a piece moved or knocked off, two at once)."""
        assert isinstance(state, GridState)
        out = [cand.nothing(), cand.other()]
        if state.is_terminal():
            return out
        for piece in PIECE_NUMBERS:
            for i in range(16):
                name = cell_name(i)
                out.append(cand.act(Place(piece, i), {name: piece}, [name], int(bool(state.board[i]))))
        return out


PIECE_NUMBERS = range(1, 17)
PRESENT = 0.97  # the tile reader's empty/piece test, trusted far more than its number


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
    beliefs = {k: present_belief(PRESENT, value_belief(v, conf[k], PIECE_NUMBERS)) for k, v in items.items()}
    return Observation(items, conf, blocked, annotated=None, beliefs=beliefs)


# how far (mm) an unreadable object must reach past the grid into the top view's 6 mm margin to be
# a hand: a hand comes in from outside the board and reaches the view's edge (6 mm past the grid on
# every hand frame of tuning seed 1 with hands); pieces stay inside it (crowded pieces leaning at
# 600 mm/30: 1 mm past it)
REACH_MM = 4.0


def _reaches_in(region: tuple[float, float, float, float] | None) -> bool:
    """Whether an unreadable object reaches in from beyond the grid (a hand), by its sheet mm."""
    from vision.tiles import geometry as g

    if region is None:
        return False
    x0, y0, x1, y1 = region
    lo_x, lo_y = g.GRID_ORIGIN_MM
    hi_x, hi_y = lo_x + 4 * g.CELL_MM, lo_y + 4 * g.CELL_MM
    return max(lo_x - x0, lo_y - y0, x1 - hi_x, y1 - hi_y) >= REACH_MM


def _annotate(image: Any, reading: Any) -> Any:
    """The frame with each cell's reading drawn at the cell (green read, red unreadable)."""
    import cv2
    import numpy as np

    from vision.tiles import cell_centre_mm

    out = image.copy()
    for name, c in reading.cells.items():
        if c.status == "empty":
            continue
        x, y = reading.calibration.to_image(np.array([cell_centre_mm(name)], np.float32))[0]
        colour = (40, 180, 40) if c.status == "piece" else (40, 40, 220)
        label = str(c.number) if c.number is not None else "?"
        cv2.circle(out, (int(x), int(y)), 18, colour, 2, cv2.LINE_AA)
        cv2.putText(out, label, (int(x) + 20, int(y) - 10), cv2.FONT_HERSHEY_SIMPLEX, 0.8, colour, 2,
                    cv2.LINE_AA)
    return out


ADAPTER = GridAdapter()
