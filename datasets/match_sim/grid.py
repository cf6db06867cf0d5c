"""A simulated Highway 4x4 match: two players put numbered pieces from the reserve on the printed
grid; now and then one puts a piece on a cell that already holds one (it lies on top of the other
until it is taken back); sleeves nudge pieces a few mm; shadows, glare, hands and one camera bump.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from datasets.match_sim.core import Photographer, Script, Setup, SimMatch, TrueMove, camera_pose

GAME = "highway-grid"
ILLEGAL_SHARE = 0.12  # of placements that go onto an occupied cell
FRAMES_NEEDED = 3
PIECE_MM_HIGH = 2.0  # a piece's thickness


class _Pieces:
    """Each piece keeps its look, offset and turn on the table; a nudge moves it a few mm."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.rng = np.random.default_rng([seed, 3])
        self.looks: dict[int, tuple[np.ndarray, float]] = {}
        self.offsets: dict[int, tuple[float, float, float]] = {}

    def place(self, number: int) -> None:
        r = self.rng
        self.offsets[number] = (r.uniform(-2, 2), r.uniform(-2, 2), r.uniform(0, 360))

    def nudge(self, number: int) -> None:
        dx, dy, angle = self.offsets[number]
        step, direction = self.rng.uniform(1.5, 2.5), self.rng.uniform(0, 2 * np.pi)
        # a 28 mm piece in a 36 mm cell: pushed at most 3 mm off the middle, it stays inside its cell
        self.offsets[number] = (float(np.clip(dx + step * np.cos(direction), -3, 3)),
                                float(np.clip(dy + step * np.sin(direction), -3, 3)),
                                angle + self.rng.uniform(-15, 15))

    def objects(self, board: dict[str, int], on_top: tuple[str, int] | None = None) -> list[Any]:
        from datasets.camera import SheetObject
        from datasets.tiles.scenes import piece_top
        from vision.tiles import geometry as g

        def piece(number: int, cell: str, height: float) -> SheetObject:
            if number not in self.looks:
                look = np.random.default_rng([self.seed, 4, number])
                top, side, _round = piece_top(look, number, "printed")
                self.looks[number] = (top, side)
            top, side = self.looks[number]
            dx, dy, angle = self.offsets.get(number, (0.0, 0.0, 0.0))
            cx, cy = g.cell_centre_mm(cell)
            return SheetObject(top, (cx + dx, cy + dy), (side, side), angle, height, side_bgr=(190, 200, 205))

        out = [piece(n, c, PIECE_MM_HIGH) for c, n in board.items() if not (on_top and on_top[0] == c)]
        if on_top is not None:  # the wrong piece lies on the one already there: a taller stack, its top
            out.append(piece(on_top[1], on_top[0], 2 * PIECE_MM_HIGH))
        return out


def simulate(seed: int, setup: Setup, turns: int = 16) -> SimMatch:
    """A match of up to 16 placements (`turns`), scripted from `seed`."""
    import engine
    from engine.grid import parse_cell
    from engine.grid.state import Place
    from vision.tiles import geometry as g

    game = engine.get_game(GAME)
    rng = np.random.default_rng([seed, 1])
    photographer = Photographer(setup, camera_pose(setup, g.SHEET_MM, np.random.default_rng([seed, 2])), seed)
    pieces = _Pieces(seed)
    moves: list[TrueMove] = []
    film = Script(setup, rng, FRAMES_NEEDED)
    scenes, add, hand = film.scenes, film.still, film.hand
    board: dict[str, int] = {}
    bump_at = int(rng.integers(3, max(4, min(turns, 16) - 2)))

    state = game.new_state()
    add((dict(board), None), "empty board")
    placed = 0
    while placed < min(turns, 16) and not state.is_terminal():
        reserve = [n for n in range(1, 17) if n not in board.values()]
        empty = [c for c in (f"{col}{row}" for row in range(1, 5) for col in "abcd") if c not in board]
        hand((dict(board), None), "hand reaching for a piece")
        if board and rng.random() < ILLEGAL_SHARE:  # onto a cell that already holds a piece
            cell = sorted(board)[int(rng.integers(len(board)))]
            number = reserve[int(rng.integers(len(reserve)))]
            action = Place(number, parse_cell(cell))
            verdict = state.judge(action)
            moves.append(TrueMove(action.notation(), verdict.legal, verdict.rule, True))
            pieces.place(number)
            add((dict(board), (cell, number)), f"illegal {action.notation()}: {verdict.rule}", len(moves) - 1)
            state = state.apply(action, verdict)
            hand((dict(board), None), "taking the piece back")
            add((dict(board), None), "piece taken back")
            continue
        number = reserve[int(rng.integers(len(reserve)))]
        cell = empty[int(rng.integers(len(empty)))]
        action = Place(number, parse_cell(cell))
        state, verdict = engine.step(state, action)
        moves.append(TrueMove(action.notation(), verdict.legal, verdict.rule))
        board[cell] = number
        pieces.place(number)
        if len(board) > 1 and rng.random() < 0.2:  # a sleeve pushes another piece a few mm
            pieces.nudge(board[sorted(board)[int(rng.integers(len(board)))]])
        add((dict(board), None), f"after {action.notation()}", len(moves) - 1)
        if placed == bump_at:
            scenes[-1].bump = True
        placed += 1

    sheet = None

    def draw(content: Any, pose: Any) -> np.ndarray:
        nonlocal sheet
        from datasets.camera import render_sheet
        from datasets.tiles.scenes import board_rgb

        if sheet is None:
            sheet = board_rgb()
        on_board, on_top = content
        image, _ = render_sheet(sheet, g.SHEET_MM, pose, background=photographer.table,
                                objects=pieces.objects(on_board, on_top), effects=0.0)
        return image

    return SimMatch(GAME, ["Ann", "Bo"], moves, scenes, photographer, draw,
                    extra={"frames_needed": FRAMES_NEEDED})
