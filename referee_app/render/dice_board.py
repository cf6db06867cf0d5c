"""The page's diagram of the Highway dice-road board: the printed board (`drawing.dice_board`) with the
stones, holes, pools and roll of a position on it, in millimetres of the sheet."""

from __future__ import annotations

from drawing.canvas import Canvas, Color, SvgCanvas
from drawing.dice_board import INK, SEAT_RGB, WARNING, draw_board
from engine.dice_road import Board, DiceState, load_board


def _text_on(seat: int) -> Color:
    return (255, 255, 255) if seat in (1, 2) else (20, 20, 20)


def _die(canvas: Canvas, x: float, y: float, value: int, seat: int, size: float = 15.0) -> None:
    h = size / 2
    canvas.rect(x - h, y - h, size, size, fill=SEAT_RGB[seat], stroke=INK, stroke_width=0.6)
    canvas.text(x, y + size * 0.22, str(value), size=size * 0.55, fill=_text_on(seat))


def _draw_state(canvas: Canvas, board: Board, state: DiceState) -> None:
    for trail in state.trails:
        for s in trail:
            cell = board.cells[s.cell]
            if s.kind == "hole":  # the seed: the hole shows the value that repairs it
                canvas.circle(cell.x, cell.y, 6.5, stroke=WARNING, stroke_width=0.6)
                canvas.text(cell.x, cell.y + 2.0, str(s.value), size=5.5, fill=WARNING)
            else:
                _die(canvas, cell.x, cell.y, s.value, s.seat)
    for stones in state.bridges:
        for s in stones:
            cell = board.cells[s.cell]
            _die(canvas, cell.x, cell.y, s.value, s.seat)
    for seat, value in enumerate(state.pools):
        if value is not None:
            p = board.pools[seat]
            _die(canvas, p.x + p.w / 2, p.y + p.h / 2 - 2, value, seat)
    if state.roll:
        t = board.tray
        for k, value in enumerate(state.roll):
            _die(canvas, t.x + t.w * (0.33 + 0.34 * k), t.y + t.h / 2, value, state.turn)
    if state.winner is None:  # ring the cells where the player to move must pave
        for cid in state.status(state.turn).needed_cells:
            cell = board.cells[cid]
            canvas.rect(cell.x - cell.w / 2 - 0.8, cell.y - cell.h / 2 - 0.8, cell.w + 1.6, cell.h + 1.6,
                        stroke=WARNING, stroke_width=0.5)


def dice_board_svg(state_or_board: DiceState | Board | None = None) -> str:
    """The page's diagram: the board (default when None) and, for a state, its stones."""
    if isinstance(state_or_board, DiceState):
        board, state = state_or_board.board, state_or_board
    else:
        board, state = state_or_board or load_board(), None
    canvas = SvgCanvas(board.width, board.height)
    draw_board(canvas, board)
    if state is not None:
        _draw_state(canvas, board, state)
    return canvas.to_svg()
