"""Top view of a Tokyo Highway table at real size (mm): supports with their heights, roads in player
colours drawn lowest first with a white rim (so at a crossing the upper road visibly cuts the lower,
as in a knot diagram), each crossing labelled `upper>lower`, cars, ramp ends and buildings."""

from __future__ import annotations

import math

from drawing.canvas import Canvas, Color, RasterCanvas, SvgCanvas, draw_both
from engine.tokyo.state import TokyoState

PLAYER_RGB: dict[str, Color] = {
    "purple": (130, 60, 170),
    "green": (40, 150, 70),
    "pink": (230, 100, 170),
    "blue": (50, 100, 210),
    "orange": (240, 140, 30),
}
GREY: Color = (150, 150, 150)
YELLOW: Color = (240, 200, 40)
INK: Color = (20, 20, 20)
MARGIN = 20.0
LEGEND = 8.0  # mm per legend line


def _darker(c: Color) -> Color:
    return (c[0] * 6 // 10, c[1] * 6 // 10, c[2] * 6 // 10)


class _Frame:
    """Table mm (y away from the player) to canvas mm (y down), fitted around the pieces."""

    def __init__(self, state: TokyoState) -> None:
        g = state.rules.geometry
        xs: list[float] = []
        ys: list[float] = []
        for s in state.supports:
            xs += [s.x - g.column_radius, s.x + g.column_radius]
            ys += [s.y - g.column_radius, s.y + g.column_radius]
        for st in state.sticks:
            xs += [st.a[0], st.b[0]]
            ys += [st.a[1], st.b[1]]
        for b in state.rules.blocks:
            xs += [b.x - b.w / 2, b.x + b.w / 2]
            ys += [b.y - b.d / 2, b.y + b.d / 2]
        if not xs:
            xs, ys = [-100.0, 100.0], [-100.0, 100.0]
        self.x0, self.y1 = min(xs) - MARGIN, max(ys) + MARGIN
        self.width = max(max(xs) + MARGIN - self.x0, 160.0)
        self.plan_height = self.y1 - (min(ys) - MARGIN)
        self.height = self.plan_height + LEGEND * (state.rules.players + 2)

    def p(self, x: float, y: float) -> tuple[float, float]:
        return x - self.x0, self.y1 - y


def draw_tokyo(c: Canvas, state: TokyoState, f: _Frame) -> None:
    g = state.rules.geometry
    colors = state.rules.colors
    c.rect(0, 0, f.width, f.height, fill=(250, 248, 242))
    for i, b in enumerate(state.rules.blocks):
        x, y = f.p(b.x - b.w / 2, b.y + b.d / 2)
        c.rect(x, y, b.w, b.d, fill=(205, 200, 190), stroke=INK, stroke_width=0.4)
        c.text(x + b.w / 2, y + b.d / 2 + 2, f"B{i + 1} {b.h:.0f}mm", size=4)
    for s in state.supports:  # the columns' footprints, under the roads
        x, y = f.p(s.x, s.y)
        c.circle(x, y, g.column_radius, fill=YELLOW if s.junction else GREY, stroke=INK, stroke_width=0.3)
    order = sorted(state.sticks, key=lambda st: (st.a[2] + st.b[2]) / 2)
    for st in order:
        rgb = PLAYER_RGB.get(colors[st.owner], INK)
        a, b = f.p(st.a[0], st.a[1]), f.p(st.b[0], st.b[1])
        c.line(a, b, (255, 255, 255), g.stick_width_mm + 2.0)
        c.line(a, b, rgb, g.stick_width_mm)
        if st.kind in ("start", "ramp"):  # mark the end lying on the table
            tx, ty = a if st.base is None else b
            c.circle(tx, ty, 2.0, fill=INK)
        n = sum(1 for car in state.cars if car.stick == st.id)
        length = math.dist(a, b)
        for k in range(n):
            t = (k + 1) / (n + 1)
            cx, cy = a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t
            c.circle(
                cx, cy, min(3.5, length / 8), fill=_darker(rgb), stroke=(255, 255, 255), stroke_width=0.4
            )
        mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
        c.text(mx, my - g.stick_width_mm / 2 - 1.5, f"r{st.id}", size=4, fill=_darker(rgb))
    for s in state.supports:  # heights on top, so they stay readable
        x, y = f.p(s.x, s.y)
        c.circle(x, y, 3.2, fill=(255, 255, 255), stroke=INK, stroke_width=0.3)
        c.text(x, y + 1.4, str(s.height), size=3.8)
        c.text(x, y + g.column_radius + 4.5, f"s{s.id}", size=3.2, fill=(90, 90, 90))
    for cr in state.all_crossings():
        x, y = f.p(*cr["at"])
        c.circle(x, y, 1.6, stroke=INK, stroke_width=0.4)
        c.text(x + 3, y - 3, f"{cr['over']}>{cr['under']}", size=3.4, anchor="start")
    y = f.plan_height + LEGEND
    view = state.table_view()
    for p in view["players"]:
        rgb = PLAYER_RGB.get(p["color"], INK)
        c.rect(4, y - 4, 6, 5, fill=rgb)
        status = " (out)" if p["out"] else ""
        c.text(
            13,
            y,
            f"{p['color']}{status}: {p['cars']} cars to place, {p['grey']} grey, {p['junctions']} "
            f"junction, {p['sticks']} sticks; open ends {', '.join(f's{b}' for b in p['open_bases']) or '-'}",
            size=4,
            anchor="start",
        )
        y += LEGEND
    if state.winner is not None:
        line = f"winner: {colors[state.winner]}"
    else:
        line = f"{view['phase']}: {colors[view['to_move']]} to move; a>b = road a passes over road b"
    c.text(4, y, line, size=4, anchor="start")


def tokyo_drawing(state: TokyoState, scale: float = 4.0) -> tuple[str, bytes]:
    """(SVG text at real size in mm, PNG bytes) of the table's top view."""
    f = _Frame(state)
    return draw_both(f.width, f.height, lambda c: draw_tokyo(c, state, f), scale=scale)


def tokyo_svg(state: TokyoState) -> str:
    f = _Frame(state)
    svg = SvgCanvas(f.width, f.height)
    draw_tokyo(svg, state, f)
    return svg.to_svg()


def tokyo_png(state: TokyoState, scale: float = 4.0) -> bytes:
    f = _Frame(state)
    ras = RasterCanvas(f.width, f.height, scale)
    draw_tokyo(ras, state, f)
    return ras.to_png()
