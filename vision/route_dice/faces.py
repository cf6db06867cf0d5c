"""Railroad Ink dice faces: names (shared with the Railroad Ink engine) and how the project prints
them, as plain drawing instructions on any canvas with rect/circle/polyline (`referee_app.render`).

Sides follow the engine's canonical orientation (N, E, S, W). Orientation does not matter to the
rules, so the reader only names the face.
"""

from __future__ import annotations

import math
from typing import Any

ROUTE_FACES = (
    "railway_curve",
    "railway_straight",
    "railway_t",
    "highway_t",
    "highway_straight",
    "highway_curve",
)
JUNCTION_FACES = ("station_straight", "station_curve", "overpass")
RIVER_FACES = ("river_straight", "river_curve", "river_bridge_highway", "river_bridge_railway")
LAKE_FACES = (
    "lake_half",
    "lake_three_quarter",
    "lake_quarter",
    "lake_half_pier_highway_railway",
    "lake_quarter_pier_highway",
    "lake_quarter_pier_railway",
)
LAVA_FACES = (
    "lava_half_diagonal",
    "lava_half_opposite",
    "lava_three_quarter",
    "lava_quarter_highway",
    "lava_quarter_railway",
)
FACES = ROUTE_FACES + JUNCTION_FACES + RIVER_FACES + LAKE_FACES + LAVA_FACES
# The short name for the lake die's half-lake-with-two-piers face; the engine spells it out.
ALIASES = {"lake_half_pier": "lake_half_pier_highway_railway"}

FACE_MM = 16.0
MARGIN = 0.07  # white margin around the frame / face size
FRAME_W = 0.06  # frame width / face size
WINDOW = 1 - 2 * (MARGIN + FRAME_W)  # the picture inside the frame / face size
OUTER = 1 - 2 * MARGIN  # the frame's outer edge / face size
WHITE = (246, 246, 240)
FRAME = (30, 30, 30)
HIGHWAY = (95, 95, 100)
RAIL = (20, 20, 20)
RIVER = (50, 130, 215)
LAKE = (120, 185, 235)
LAVA = (225, 85, 30)

# Unit-square geometry: side midpoints and corners (y down).
MID = {"N": (0.5, 0.0), "E": (1.0, 0.5), "S": (0.5, 1.0), "W": (0.0, 0.5)}


def _seg(a: tuple[float, float], b: tuple[float, float], n: int = 12) -> list[tuple[float, float]]:
    return [(a[0] + (b[0] - a[0]) * t / n, a[1] + (b[1] - a[1]) * t / n) for t in range(n + 1)]


def _arc(s1: str, s2: str, n: int = 16) -> list[tuple[float, float]]:
    """Quarter circle joining two adjacent sides' midpoints around their shared corner."""
    corner = (1.0 if "E" in (s1, s2) else 0.0, 1.0 if "S" in (s1, s2) else 0.0)
    a0 = math.atan2(MID[s1][1] - corner[1], MID[s1][0] - corner[0])
    a1 = math.atan2(MID[s2][1] - corner[1], MID[s2][0] - corner[0])
    if abs(a1 - a0) > math.pi:
        a1 += -2 * math.pi if a1 > a0 else 2 * math.pi
    return [
        (
            corner[0] + 0.5 * math.cos(a0 + (a1 - a0) * t / n),
            corner[1] + 0.5 * math.sin(a0 + (a1 - a0) * t / n),
        )
        for t in range(n + 1)
    ]


def _path(sides: str) -> list[tuple[float, float]]:
    a, b = sides[0], sides[1]
    if {a, b} in ({"N", "S"}, {"E", "W"}):
        return _seg(MID[a], MID[b])
    if a == "C":
        return _seg((0.5, 0.5), MID[b])
    return _arc(a, b)


class _Pen:
    """Draws in face units (0..1) onto a canvas at (x, y) with size s."""

    def __init__(self, c: Any, x: float, y: float, s: float) -> None:
        self.c, self.x, self.y, self.s = c, x, y, s

    def p(self, pts: list[tuple[float, float]], inset: float = 0.0) -> list[tuple[float, float]]:
        """Face units -> canvas; `inset` keeps round line caps inside the face."""
        lo, hi = inset, 1.0 - inset
        return [
            (self.x + min(max(u, lo), hi) * self.s, self.y + min(max(v, lo), hi) * self.s) for u, v in pts
        ]

    def highway(self, path: list[tuple[float, float]]) -> None:
        self.c.polyline(self.p(path, 0.12), HIGHWAY, 0.24 * self.s)

    def railway(self, path: list[tuple[float, float]], gap: tuple[float, float] | None = None) -> None:
        pts = path
        total = sum(math.dist(pts[i], pts[i + 1]) for i in range(len(pts) - 1))
        d, k = 0.06, 0
        for i in range(len(pts) - 1):
            seg = math.dist(pts[i], pts[i + 1])
            while d <= seg and seg > 0:
                t = d / seg
                px = pts[i][0] + (pts[i + 1][0] - pts[i][0]) * t
                py = pts[i][1] + (pts[i + 1][1] - pts[i][1]) * t
                nx, ny = -(pts[i + 1][1] - pts[i][1]) / seg, (pts[i + 1][0] - pts[i][0]) / seg
                if gap is None or not (gap[0] <= (k * 0.14 + 0.06) / total <= gap[1]):
                    self.c.polyline(
                        self.p([(px - 0.09 * nx, py - 0.09 * ny), (px + 0.09 * nx, py + 0.09 * ny)], 0.03),
                        RAIL,
                        0.035 * self.s,
                    )
                d += 0.14
                k += 1
            d -= seg
        if gap is None:
            self.c.polyline(self.p(pts, 0.03), RAIL, 0.045 * self.s)
        else:
            n = len(pts) - 1
            self.c.polyline(self.p(pts[: int(n * gap[0]) + 1]), RAIL, 0.045 * self.s)
            self.c.polyline(self.p(pts[int(math.ceil(n * gap[1])) :]), RAIL, 0.045 * self.s)

    def river(self, path: list[tuple[float, float]]) -> None:
        self.c.polyline(self.p(path, 0.1), RIVER, 0.2 * self.s)
        self.c.polyline(self.p(path, 0.1), (150, 200, 245), 0.04 * self.s)

    def area(self, pts: list[tuple[float, float]], colour: tuple[int, int, int]) -> None:
        self.c.polyline(self.p(pts), colour, 0.001, closed=True, fill=colour)

    def station(self) -> None:
        h = 0.13
        self.c.rect(
            self.x + (0.5 - h) * self.s,
            self.y + (0.5 - h) * self.s,
            2 * h * self.s,
            2 * h * self.s,
            fill=(20, 20, 20),
        )


def _cap(side: str, depth: float = 0.38) -> list[tuple[float, float]]:
    """A rounded area against one side (a quarter of a lake or of lava)."""
    n = 16
    pts = [(0.08 + 0.84 * t / n, depth * math.sin(math.pi * t / n)) for t in range(n + 1)]
    pts = [(0.08, 0.0)] + pts + [(0.92, 0.0)]
    rot = {
        "N": lambda u, v: (u, v),
        "E": lambda u, v: (1 - v, u),
        "S": lambda u, v: (1 - u, 1 - v),
        "W": lambda u, v: (v, 1 - u),
    }[side]
    return [rot(u, v) for u, v in pts]


HALF_NE = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0)]
THREE_Q = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.55, 1.0), (0.0, 0.45)]


def draw_face(c: Any, x: float, y: float, name: str, s: float = FACE_MM) -> None:
    """Draw face `name` with its top-left corner at (x, y), `s` wide, frame included."""
    name = ALIASES.get(name, name)
    if name not in FACES:
        raise ValueError(f"unknown die face {name!r}")
    c.rect(x, y, s, s, fill=WHITE)
    # white margin, dark frame, then the picture inside the frame: the frame's outer edge always has
    # white around it, so the reader finds the face as a dark square ring whatever lies around the die
    m, f = MARGIN * s, FRAME_W * s
    inner = s - 2 * (m + f)
    pen = _Pen(c, x + m + f, y + m + f, inner)
    kind, _, shape = name.partition("_")
    if name == "station_straight":
        pen.highway(_path("CN"))
        pen.railway(_path("CS"))
        pen.station()
    elif name == "station_curve":
        pen.highway(_path("CN"))
        pen.railway(_path("CE"))
        pen.station()
    elif name == "overpass":
        pen.railway(_path("EW"), gap=(0.3, 0.7))
        pen.highway(_path("NS"))
    elif kind in ("highway", "railway"):
        draw = pen.highway if kind == "highway" else pen.railway
        if shape == "curve":
            draw(_path("NW"))
        elif shape == "straight":
            draw(_path("NS"))
        else:  # t: N, E, S
            draw(_path("NS"))
            draw(_path("CE"))
    elif kind == "river":
        if shape == "curve":
            pen.river(_path("NW"))
        else:
            pen.river(_path("NS"))
            if shape == "bridge_highway":
                pen.highway(_path("EW"))
            elif shape == "bridge_railway":
                pen.railway(_path("EW"))
    elif kind == "lake":
        if shape.startswith("half"):
            pen.area(HALF_NE, LAKE)
        elif shape.startswith("three"):
            pen.area(THREE_Q, LAKE)
        else:
            pen.area(_cap("N"), LAKE)
        if shape == "half_pier_highway_railway":
            pen.railway(_seg((0.5, 1.0), (0.5, 0.5)))
            pen.highway(_seg((0.0, 0.5), (0.5, 0.5)))
        elif shape.endswith("pier_highway"):
            pen.highway(_seg((0.5, 1.0), (0.5, 0.35)))
        elif shape.endswith("pier_railway"):
            pen.railway(_seg((0.5, 1.0), (0.5, 0.35)))
    else:  # lava
        if shape == "half_diagonal":
            pen.area(HALF_NE, LAVA)
        elif shape == "half_opposite":
            pen.area(_cap("N", 0.3), LAVA)
            pen.area(_cap("S", 0.3), LAVA)
        elif shape == "three_quarter":
            pen.area(THREE_Q, LAVA)
        else:
            pen.area(_cap("N", 0.3), LAVA)
            (pen.highway if shape.endswith("highway") else pen.railway)(_path("EW"))
    c.rect(x + m + f / 2, y + m + f / 2, s - 2 * m - f, s - 2 * m - f, stroke=FRAME, stroke_width=f)
