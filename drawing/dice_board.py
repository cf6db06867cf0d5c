"""The Highway dice-road board as printed: the empty board at real size with its four ArUco corner
markers (the page's diagram with the stones of a position is drawn on top of it by
`referee_app.render.dice_board`).

All coordinates are millimetres on the board's sheet, so the same drawing prints at 100 % and maps
the camera's rectified view to cells. `printable_board(board)` -> (svg_text, png_bytes, meta), where
meta["markers"] maps each marker id to its centre in mm (what vision localises the sheet with).
"""

from __future__ import annotations

from typing import Any

from drawing.canvas import Canvas, Color, draw_both
from drawing.paper import plan_json, plan_tiles, tile_pages
from engine.dice_road import SEAT_NAMES, Board, load_board
from vision.localise import SheetSpec
from vision.markers import draw_corner_markers
from vision.tiled import TiledSheet

SEAT_RGB: tuple[Color, ...] = ((250, 250, 250), (35, 90, 205), (30, 150, 70), (240, 200, 20))
SEAT_TINT: tuple[Color, ...] = ((236, 236, 236), (214, 226, 250), (214, 240, 220), (252, 244, 200))
INK: Color = (40, 40, 40)
GREY: Color = (150, 150, 150)
ROUNDABOUT: Color = (225, 225, 225)
WARNING: Color = (220, 60, 40)
MARKER_SIZE = 20.0
MARKER_MARGIN = 8.0


def draw_board(canvas: Canvas, board: Board, labels: bool = True) -> None:
    """Draw the empty board: roads, roundabout, special cells, tray and pools."""
    canvas.rect(0, 0, board.width, board.height, fill=(255, 255, 255))
    c = board.cells[board.centre]
    canvas.circle(c.x, c.y, 2.5 * board.pitch, fill=ROUNDABOUT, stroke=GREY, stroke_width=0.6)
    seat_of: dict[str, int] = {}
    special: dict[str, str] = {}
    for road in board.roads:
        for cid in road.cells:
            seat_of[cid] = road.seat
        for cid in road.flanks:
            seat_of[cid], special[cid] = road.seat, "flank"
        for cid in road.detour:
            seat_of[cid], special[cid] = road.seat, "detour"
        special[road.bridge] = "bridge"
        special[road.warning] = "warning"
    for cell in board.cells.values():
        x0, y0 = cell.x - cell.w / 2, cell.y - cell.h / 2
        seat = seat_of.get(cell.id)
        kind = special.get(cell.id)
        if seat is None:  # roundabout lanes and centre
            fill: Color = (255, 255, 255) if cell.id != board.centre else (255, 236, 170)
            canvas.rect(x0, y0, cell.w, cell.h, fill=fill, stroke=GREY, stroke_width=0.5)
        elif kind in ("flank", "detour"):
            canvas.rect(x0, y0, cell.w, cell.h, fill=(255, 255, 255))
            canvas.polyline([(x0, y0), (x0 + cell.w, y0), (x0 + cell.w, y0 + cell.h), (x0, y0 + cell.h)],
                            SEAT_RGB[seat] if seat else GREY, 0.6, closed=True, dash=2.0)
        else:
            canvas.rect(x0, y0, cell.w, cell.h, fill=SEAT_TINT[seat], stroke=SEAT_RGB[seat] if seat else GREY,
                        stroke_width=0.6)
        if kind == "bridge":  # two rails along the cell
            canvas.rect(x0 + 1, y0 + 1, cell.w - 2, cell.h - 2, stroke=INK, stroke_width=0.8)
        if kind == "warning":
            tx, ty = x0 + cell.w - 4.5, y0 + 1.2
            canvas.polyline([(tx, ty + 3.6), (tx + 2, ty), (tx + 4, ty + 3.6)], WARNING, 0.4, closed=True,
                            fill=WARNING)
        if cell.id == board.centre:
            canvas.circle(cell.x, cell.y, 3.0, fill=WARNING)
        if labels:
            canvas.text(x0 + 1.0, y0 + cell.h - 1.2, cell.id, size=2.4, fill=GREY, anchor="start")
    for rect, label in [(board.tray, "dice tray"),
                        *((p, f"{SEAT_NAMES[s]} pool") for s, p in enumerate(board.pools))]:
        canvas.rect(rect.x, rect.y, rect.w, rect.h, fill=(250, 250, 250), stroke=INK, stroke_width=0.6)
        canvas.text(rect.x + rect.w / 2, rect.y + rect.h - 2.0, label, size=3.2, fill=GREY)
    canvas.text(board.width / 2, board.height - 12.0, board.title, size=5.0, fill=GREY)


def printable_board(board: Board | None = None, dpi: float = 150.0) -> tuple[str, bytes, dict[str, Any]]:
    """The sheet to print at 100 %: SVG in mm and a PNG at `dpi`, with the corner markers."""
    board = board or load_board()
    centres: dict[int, tuple[float, float]] = {}

    def draw(canvas: Canvas) -> None:
        draw_board(canvas, board)
        centres.update(draw_corner_markers(canvas, "highway-dice", board.width, board.height,
                                           MARKER_SIZE, MARKER_MARGIN))

    svg, png = draw_both(board.width, board.height, draw, scale=dpi / 25.4)
    meta = {
        "sheet": "highway-dice",
        "board": board.name,
        "width_mm": board.width,
        "height_mm": board.height,
        "marker_size_mm": MARKER_SIZE,
        "markers": {str(k): [round(x, 3), round(y, 3)] for k, (x, y) in centres.items()},
        "dpi": dpi,
    }
    return svg, png, meta


def marker_keepout(board: Board) -> list[tuple[float, float, float, float]]:
    """The corner squares (markers plus their white quiet zone) that cells and rectangles avoid."""
    q = MARKER_SIZE / 6  # one marker bit
    lo, hi = MARKER_MARGIN - q, MARKER_MARGIN + MARKER_SIZE + q
    w, h = board.width, board.height
    return [(lo, lo, hi, hi), (w - hi, lo, w - lo, hi), (w - hi, h - hi, w - lo, h - lo),
            (lo, h - hi, hi, h - lo)]


def printed_areas(board: Board) -> list[tuple[float, float, float, float]]:
    """Everything `draw_board` puts on the sheet (x0, y0, x1, y1 in mm): cells, tray, pools, the
    roundabout and the title; tile markers of a tiled print keep off them."""
    areas = [(c.x - c.w / 2, c.y - c.h / 2, c.x + c.w / 2, c.y + c.h / 2) for c in board.cells.values()]
    areas += [(r.x, r.y, r.x + r.w, r.y + r.h) for r in (board.tray, *board.pools)]
    c = board.cells[board.centre]
    r = 2.5 * board.pitch
    areas.append((c.x - r, c.y - r, c.x + r, c.y + r))
    half = 0.32 * 5.0 * len(board.title)  # the title's half width at 5 mm type, generously
    areas.append((board.width / 2 - half, board.height - 18.0, board.width / 2 + half, board.height - 9.0))
    return areas


def board_tiles(board: Board | None = None) -> TiledSheet:
    """How the board splits into A4/Letter tiles, with each tile's markers (the reader uses the same)."""
    board = board or load_board()
    spec = SheetSpec("highway-dice", board.width, board.height, MARKER_SIZE, MARKER_MARGIN)
    corners = spec.marker_centres()
    return plan_tiles("highway-dice", board.width, board.height, printed_areas(board), corners, MARKER_SIZE)


def tiled_board(board: Board | None, paper: str, dpi: float = 150.0) -> tuple[dict[str, tuple[str, bytes]],
                                                                               dict[str, Any]]:
    """The board as tiles on `paper`: tile name -> (SVG, PNG), and the plan as JSON."""
    board = board or load_board()
    plan = board_tiles(board)

    def draw(canvas: Canvas) -> None:
        draw_board(canvas, board)
        draw_corner_markers(canvas, "highway-dice", board.width, board.height, MARKER_SIZE, MARKER_MARGIN)

    pages = tile_pages(plan, paper, draw, f"Highway dice road, {board.name} board", dpi / 25.4)
    return pages, {**plan_json(plan, paper), "board": board.name, "dpi": dpi}
