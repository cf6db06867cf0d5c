"""Drawing of a 4x4 Highway position: numbers on the board and every best path of both players.

One drawing routine feeds both back-ends (SVG text for the web page and files, PNG via OpenCV).
Units are millimetres: the SVG prints at a real size of a 20 mm cell.
"""

from __future__ import annotations

from drawing.canvas import Canvas, Color, RasterCanvas, SvgCanvas
from engine.grid.paths import SIZE, cell_name
from engine.grid.state import PLAYER_NAMES, GridState

CELL = 20.0
MARGIN = 10.0
LEGEND = 26.0
WIDTH = SIZE * CELL + 2 * MARGIN
HEIGHT = SIZE * CELL + MARGIN + LEGEND
SEAT_COLORS: tuple[Color, Color] = ((30, 90, 200), (200, 40, 40))  # Player 1 blue, Player 2 red
SEAT_TINTS: tuple[Color, Color] = ((214, 226, 250), (250, 216, 216))
BOTH_TINT: Color = (232, 214, 240)
GRID_COLOR: Color = (60, 60, 60)


def _center(cell: int, offset: float) -> tuple[float, float]:
    r, c = divmod(cell, SIZE)
    return MARGIN + c * CELL + CELL / 2 + offset, MARGIN + r * CELL + CELL / 2 + offset


def draw_grid(canvas: Canvas, state: GridState) -> None:
    paths = state.best_paths()
    on_best = [set(c for p in pv.paths for c in p) for pv in paths]
    canvas.rect(0, 0, canvas.width, canvas.height, fill=(255, 255, 255))
    for cell in range(SIZE * SIZE):
        r, c = divmod(cell, SIZE)
        x, y = MARGIN + c * CELL, MARGIN + r * CELL
        tint = (BOTH_TINT if cell in on_best[0] and cell in on_best[1]
                else SEAT_TINTS[0] if cell in on_best[0] else SEAT_TINTS[1] if cell in on_best[1] else None)
        canvas.rect(x, y, CELL, CELL, fill=tint or (255, 255, 255), stroke=GRID_COLOR, stroke_width=0.5)
        if not state.board[cell]:
            canvas.text(x + CELL - 1.5, y + CELL - 1.5, cell_name(cell), size=3.0, fill=(150, 150, 150),
                        anchor="end")
    for c in range(SIZE):
        canvas.text(MARGIN + c * CELL + CELL / 2, MARGIN - 3, "abcd"[c], size=4.0, fill=(90, 90, 90))
    for r in range(SIZE):
        canvas.text(MARGIN - 4, MARGIN + r * CELL + CELL / 2 + 1.5, str(r + 1), size=4.0, fill=(90, 90, 90))
    # Player 1's lines sit up-left of the centres, Player 2's down-right, so shared cells show both.
    for seat, offset in ((0, -2.0), (1, 2.0)):
        for k, path in enumerate(paths[seat].paths):
            canvas.polyline([_center(cell, offset) for cell in path], SEAT_COLORS[seat],
                            stroke_width=1.2 if k == 0 else 0.7, dash=None if k == 0 else 2.0)
    # Pieces go on top of the lines as round tokens, so the numbers stay readable.
    for cell, piece in enumerate(state.board):
        if piece:
            cx, cy = _center(cell, 0.0)
            canvas.circle(cx, cy, 6.5, fill=(255, 255, 255), stroke=GRID_COLOR, stroke_width=0.4)
            canvas.text(cx, cy + 2.6, str(piece), size=5.5)
    top = MARGIN + SIZE * CELL + 7
    for seat in (0, 1):
        pv = paths[seat]
        ties = f", {len(pv.paths)} tied" if len(pv.paths) > 1 else ""
        partial = "" if state.is_terminal() else " so far"
        canvas.text(MARGIN, top + seat * 6, f"{PLAYER_NAMES[seat]}: {pv.value}{partial}{ties}",
                    size=3.5, fill=SEAT_COLORS[seat], anchor="start")
    outcome = state.outcome()
    if outcome is not None:
        line = ("Draw" if outcome.draw else f"{PLAYER_NAMES[outcome.winners[0]]} wins")
    else:
        line = f"{PLAYER_NAMES[state.current_player()]} to move, {state.placed} pieces placed"
    canvas.text(MARGIN, top + 13, line, size=3.5, anchor="start")


def grid_svg(state: GridState) -> str:
    """The position as an SVG document (real size: 20 mm cells)."""
    canvas = SvgCanvas(WIDTH, HEIGHT)
    canvas.raw(f"<title>Highway 4x4 position, {state.placed} pieces placed</title>")
    draw_grid(canvas, state)
    return canvas.to_svg()


def grid_png(state: GridState, scale: float = 6.0) -> bytes:
    """The position as a PNG (scale = pixels per millimetre)."""
    canvas = RasterCanvas(WIDTH, HEIGHT, scale)
    draw_grid(canvas, state)
    return canvas.to_png()
