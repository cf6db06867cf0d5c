"""Drawing of a Railroad Ink sheet with its score: networks coloured, longest routes traced,
open ends marked, the breakdown beside the board. One drawing, two outputs (SVG in mm, PNG)."""

from __future__ import annotations

from drawing.canvas import Canvas, Color, SvgCanvas, draw_both
from engine.railroad_ink.board import CENTRE, ROW_NAMES, SIZE, Sheet
from engine.railroad_ink.scoring import Score, score_sheet

CELL = 20.0  # mm per square
MARGIN = 12.0
PANEL = 64.0
WIDTH = MARGIN * 2 + CELL * SIZE + PANEL
HEIGHT = MARGIN * 2 + CELL * SIZE
GREY: Color = (120, 120, 120)
INK: Color = (30, 30, 30)
NETWORK_COLOURS: tuple[Color, ...] = ((31, 119, 180), (44, 160, 44), (214, 39, 40), (148, 103, 189),
                                      (255, 127, 14), (23, 190, 207), (140, 86, 75), (227, 119, 194))
WATER: Color = (150, 200, 240)
RIVER: Color = (40, 110, 210)
LAVA: Color = (230, 90, 30)
HIGHWAY_TRACE: Color = (255, 170, 0)
RAILWAY_TRACE: Color = (170, 0, 170)


def _centre(cell: int) -> tuple[float, float]:
    r, c = divmod(cell, SIZE)
    return MARGIN + (c + 0.5) * CELL, MARGIN + (r + 0.5) * CELL


def _side_point(cell: int, side: int, frac: float = 0.5) -> tuple[float, float]:
    x, y = _centre(cell)
    dx, dy = ((0, -1), (1, 0), (0, 1), (-1, 0))[side]
    return x + dx * CELL * frac, y + dy * CELL * frac


def _corner(cell: int, which: int) -> tuple[float, float]:
    """Corners clockwise from top-left: 0 NW, 1 NE, 2 SE, 3 SW."""
    x, y = _centre(cell)
    h = CELL / 2
    return ((x - h, y - h), (x + h, y - h), (x + h, y + h), (x - h, y + h))[which]


def draw_sheet(canvas: Canvas, sheet: Sheet, score: Score) -> None:
    canvas.rect(0, 0, WIDTH, HEIGHT, fill=(255, 255, 255))
    colour_of: dict[int, Color] = {}
    k = 0
    for cells, exits in score.networks:
        if exits >= 2:
            for c in cells:
                colour_of.setdefault(c, NETWORK_COLOURS[k % len(NETWORK_COLOURS)])
            k += 1
    for cell in range(SIZE * SIZE):
        x, y = _corner(cell, 0)
        fill = (245, 240, 225) if cell in CENTRE else (252, 252, 252)
        canvas.rect(x, y, CELL, CELL, fill=fill, stroke=(200, 200, 200), stroke_width=0.3)
    for i in range(SIZE):
        canvas.text(MARGIN / 2, MARGIN + (i + 0.6) * CELL, ROW_NAMES[i], size=3.5, fill=GREY)
        canvas.text(MARGIN + (i + 0.5) * CELL, MARGIN / 2 + 1.5, str(i), size=3.5, fill=GREY)
    for cell, side, kind in sheet.exits:
        a, b = _side_point(cell, side, 0.5), _side_point(cell, side, 0.5 + MARGIN / CELL * 0.8)
        _route_line(canvas, a, b, kind, GREY)
    for cell in sheet.craters:
        x, y = _centre(cell)
        canvas.circle(x, y, CELL * 0.35, fill=(120, 90, 60), stroke=INK, stroke_width=0.4)
    for cell, sq in sheet.placed():
        _draw_square(canvas, cell, sq.sides, sq.overpass, colour_of.get(cell, GREY))
        x, y = _corner(cell, 0)
        if sq.round:
            canvas.text(x + CELL - 1.2, y + 3.6, str(sq.round), size=3.0, fill=GREY, anchor="end")
        if sq.special:
            canvas.text(x + 1.2, y + 3.6, "S", size=3.0, fill=(200, 0, 0), anchor="start")
    for route, colour in ((score.highway_route, HIGHWAY_TRACE), (score.railway_route, RAILWAY_TRACE)):
        if len(route) >= 2:
            canvas.polyline([_centre(c) for c in route], colour, 1.2, dash=2.5)
    for cell, side in score.error_sides:
        x, y = _side_point(cell, side, 0.42)
        d = 1.6
        canvas.line((x - d, y - d), (x + d, y + d), (220, 0, 0), 0.7)
        canvas.line((x - d, y + d), (x + d, y - d), (220, 0, 0), 0.7)
    _panel(canvas, score)


def _route_line(canvas: Canvas, a: tuple[float, float], b: tuple[float, float], kind: str,
                colour: Color) -> None:
    if kind == "H":
        canvas.line(a, b, colour, 2.6)
    elif kind == "R":
        canvas.line(a, b, colour, 0.8)
        (ax, ay), (bx, by) = a, b
        length = max(1e-6, ((bx - ax) ** 2 + (by - ay) ** 2) ** 0.5)
        ux, uy = (bx - ax) / length, (by - ay) / length
        t = 1.5
        while t < length:  # sleepers across the rail, so a railway reads apart from a highway
            px, py = ax + ux * t, ay + uy * t
            canvas.line((px - uy * 1.4, py + ux * 1.4), (px + uy * 1.4, py - ux * 1.4), colour, 0.5)
            t += 2.5
    elif kind == "W":
        canvas.line(a, b, RIVER, 2.2)


def _draw_square(canvas: Canvas, cell: int, sides: str, overpass: bool, colour: Color) -> None:
    cx, cy = _centre(cell)
    for s, k in enumerate(sides):
        if k in "LV":  # a water or lava wedge from the centre to the side
            tint = WATER if k == "L" else LAVA
            canvas.polyline([(cx, cy), _corner(cell, s), _corner(cell, (s + 1) % 4)], tint, 0.2, closed=True,
                            fill=tint)
    for s, k in enumerate(sides):
        if k in "HRW":
            _route_line(canvas, (cx, cy), _side_point(cell, s), k, colour)
    if overpass:
        canvas.circle(cx, cy, 2.2, fill=(255, 255, 255), stroke=colour, stroke_width=0.5)
    elif "H" in sides and "R" in sides:
        canvas.rect(cx - 2.2, cy - 2.2, 4.4, 4.4, fill=INK)  # station


def _panel(canvas: Canvas, score: Score) -> None:
    x = MARGIN * 2 + CELL * SIZE
    y = MARGIN + 4
    counts = "+".join(str(n) for n in score.network_exit_counts if n >= 2) or "none"
    rows = [("Networks", score.exit_points), (f"  exits {counts}", None),
            ("Longest highway", score.longest_highway), ("Longest railway", score.longest_railway),
            ("Centre squares", score.center_squares)]
    rows += [(f"{name.capitalize()}", pts) for name, pts in score.expansion.items()]
    rows += [("Errors", -score.errors), ("Total", score.total)]
    canvas.text(x, y, "Score", size=5, anchor="start")
    for label, value in rows:
        y += 7
        canvas.text(x, y, label, size=3.6, anchor="start", fill=INK)
        if value is not None:
            canvas.text(x + PANEL - 6, y, str(value), size=3.6, anchor="end", fill=INK)
    y += 10
    canvas.text(x, y, f"longest read as {score.longest}", size=2.8, anchor="start", fill=GREY)
    canvas.line((x, y + 4), (x + 10, y + 4), HIGHWAY_TRACE, 1.2, dash=2.5)
    canvas.text(x + 12, y + 5, "highway", size=2.8, anchor="start", fill=GREY)
    canvas.line((x, y + 9), (x + 10, y + 9), RAILWAY_TRACE, 1.2, dash=2.5)
    canvas.text(x + 12, y + 10, "railway", size=2.8, anchor="start", fill=GREY)


def _scored(sheet: Sheet, score: Score | None) -> Score:
    if score is None or not score.networks and any(sq is not None for sq in sheet.cells):
        return score_sheet(sheet, score.longest if score else "trail",
                           tuple(score.expansion) if score else (),
                           trace=True)
    return score


def sheet_svg(sheet: Sheet, score: Score | None = None) -> str:
    """The sheet as SVG text at real size (mm). Without a score, the sheet is scored (trail reading)."""
    sc = _scored(sheet, score)
    canvas = SvgCanvas(WIDTH, HEIGHT)
    draw_sheet(canvas, sheet, sc)
    return canvas.to_svg()


def sheet_drawing(sheet: Sheet, score: Score | None = None, scale: float = 4.0) -> tuple[str, bytes]:
    """(SVG text, PNG bytes) of the same drawing."""
    sc = _scored(sheet, score)
    return draw_both(WIDTH, HEIGHT, lambda c: draw_sheet(c, sheet, sc), scale)


def sheet_png(sheet: Sheet, score: Score | None = None, scale: float = 4.0) -> bytes:
    """The same drawing as PNG bytes (`scale` pixels per mm)."""
    return sheet_drawing(sheet, score, scale)[1]
