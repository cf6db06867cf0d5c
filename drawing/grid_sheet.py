"""The printable 4x4 Highway board (with corner markers) and its 16 numbered pieces, at real size.

Every piece carries a bar under its number: the bar marks "down", so 6 and 9 (and 16 and 91) differ
however the piece is turned. Geometry comes from `vision.tiles.geometry`, which the reader uses too.
"""

from __future__ import annotations

from drawing.canvas import Canvas, print_files
from vision.markers import draw_corner_markers
from vision.tiles import geometry as g

PIECES_SHEET_MM = (4 * (g.PIECE_MM + 8) + 12, 4 * (g.PIECE_MM + 8) + 24)
TEXT_FRAC = 0.42  # number height / piece size (datasets.tiles.tokens.PRINTED matches this)


def draw_board(c: Canvas) -> None:
    w, h = g.SHEET_MM
    c.rect(0, 0, w, h, fill=(255, 255, 255))
    ox, oy = g.GRID_ORIGIN_MM
    span = 4 * g.CELL_MM
    bleed = 6.0  # blue around the grid, so a piece pushed off its cell still shows against blue
    c.rect(ox - bleed, oy - bleed, span + 2 * bleed, span + 2 * bleed, fill=g.BOARD_RGB)
    for i in range(5):
        c.line((ox + i * g.CELL_MM, oy), (ox + i * g.CELL_MM, oy + span), g.LINE_RGB, 0.8)
        c.line((ox, oy + i * g.CELL_MM), (ox + span, oy + i * g.CELL_MM), g.LINE_RGB, 0.8)
    for col in range(4):
        c.text(ox + (col + 0.5) * g.CELL_MM, oy - bleed - 2.5, g.COLS[col], 4.0, (60, 60, 60))
    for row in range(4):
        c.text(ox - bleed - 3.5, oy + (row + 0.5) * g.CELL_MM + 1.5, str(row + 1), 4.0, (60, 60, 60))
    c.text(w / 2, h - 5, "Highway 4x4 - print at 100 % (the grid is 144 mm wide)", 3.0, (90, 90, 90))
    draw_corner_markers(c, g.SHEET, w, h, g.MARKER_MM, g.MARKER_MARGIN_MM)


def draw_piece(c: Canvas, x: float, y: float, number: int, size: float = g.PIECE_MM) -> None:
    """Piece `number` with its top-left corner at (x, y): the number and the bar that marks its foot."""
    c.rect(x, y, size, size, fill=(250, 250, 246), stroke=(200, 200, 200), stroke_width=0.2)
    text_h = TEXT_FRAC * size
    bar_h, gap = 0.16 * text_h, 0.22 * text_h
    block = text_h + gap + bar_h
    base = y + (size - block) / 2 + text_h
    c.text(x + size / 2, base, str(number), text_h, (20, 20, 20))
    bar_w = (0.55 if number < 10 else 0.85) * size * 0.8
    c.rect(x + (size - bar_w) / 2, base + gap, bar_w, bar_h, fill=(20, 20, 20))


def draw_pieces(c: Canvas) -> None:
    w, h = PIECES_SHEET_MM
    c.rect(0, 0, w, h, fill=(255, 255, 255))
    step = g.PIECE_MM + 8
    for k in range(16):
        draw_piece(c, 10 + (k % 4) * step, 10 + (k // 4) * step, k + 1)
    c.text(
        w / 2, h - 6, "Cut along the grey edges; the bar under each number marks its foot.", 3.0, (90, 90, 90)
    )


def board_files(scale: float = 300 / 25.4) -> dict[str, str | bytes]:
    """{file name: content} for the board and the pieces, SVG at real size and PNG at `scale` px/mm."""
    return print_files({"highway-grid-board": (g.SHEET_MM, draw_board),
                        "highway-grid-pieces": (PIECES_SHEET_MM, draw_pieces)}, scale)
