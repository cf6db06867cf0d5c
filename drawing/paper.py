"""Large sheets on home paper: split a drawing into tiles that fit A4 and Letter pages, each page with
cut marks, a label saying where the tile goes, and (optionally) markers of its own so the camera can
locate every tile by itself once the tiles are taped together (vision/tiled.py).

One plan serves both papers: tiles are sized to what both A4 and Letter print (5 mm margins and a
label band), so a board printed on either is read with the same marker positions. The page format
and the assembly are described in docs/formats/printing-tiles.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np

from drawing.canvas import Canvas, Color, draw_both
from vision.markers import TILE_MARKER_IDS, draw_marker
from vision.tiled import TiledSheet, TileSpec

PAPERS: dict[str, tuple[float, float]] = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}  # portrait, mm
PAGE_MARGIN = 5.0  # what home printers leave blank at each edge
LABEL_BAND = 14.0  # above the tile: the two lines of the tile's label
EDGE_CLEAR = 5.0  # a tile marker keeps this far from its tile's cut lines (gaps, ragged cuts)
GAP_CLEAR = 2.0  # ... and this far from anything drawn
CUT: Color = (150, 150, 150)
Rect = tuple[float, float, float, float]  # x0, y0, x1, y1 in sheet mm


def tile_limits() -> tuple[tuple[float, float], tuple[float, float]]:
    """The largest tile (w, h) on a portrait page and on a landscape one, on every paper."""
    pw = min(p[0] for p in PAPERS.values()) - 2 * PAGE_MARGIN
    ph = min(p[1] for p in PAPERS.values()) - 2 * PAGE_MARGIN
    return (pw, ph - LABEL_BAND), (ph, pw - LABEL_BAND)


def tile_grid(width: float, height: float) -> tuple[int, int, bool]:
    """(rows, cols, landscape pages) with the fewest tiles; portrait on a tie."""
    options = []
    for landscape, (tw, th) in zip((False, True), tile_limits(), strict=True):
        cols, rows = math.ceil(width / tw - 1e-9), math.ceil(height / th - 1e-9)
        options.append((rows * cols, landscape, rows, cols))
    _, landscape, rows, cols = min(options)
    return rows, cols, landscape


def _free_spot(tile: Rect, corner: tuple[float, float], foot: float, taken: Sequence[Rect]) -> Rect | None:
    """The marker footprint (quiet zone included) nearest to a tile corner that stays clear of the cut
    lines and of everything taken; marker origins are tried on a 1 mm grid."""
    x0, y0, x1, y1 = tile
    xs = np.arange(math.ceil(x0 + EDGE_CLEAR), math.floor(x1 - EDGE_CLEAR - foot) + 1, dtype=float)
    ys = np.arange(math.ceil(y0 + EDGE_CLEAR), math.floor(y1 - EDGE_CLEAR - foot) + 1, dtype=float)
    if not len(xs) or not len(ys):
        return None
    gx, gy = np.meshgrid(xs, ys)
    free = np.ones(gx.shape, bool)
    near = [t for t in taken if t[0] < x1 and x0 < t[2] and t[1] < y1 and y0 < t[3]]
    for t in near:  # an origin is blocked when the grown footprint would overlap t
        free &= ~((gx - GAP_CLEAR < t[2]) & (t[0] < gx + foot + GAP_CLEAR)
                  & (gy - GAP_CLEAR < t[3]) & (t[1] < gy + foot + GAP_CLEAR))
    if not free.any():
        return None
    d = np.hypot(gx + foot / 2 - corner[0], gy + foot / 2 - corner[1])
    d[~free] = np.inf
    i = np.unravel_index(int(np.argmin(d)), d.shape)
    x, y = float(gx[i]), float(gy[i])
    return (x, y, x + foot, y + foot)


def plan_tiles(kind: str, width: float, height: float, drawn: Sequence[Rect] = (),
               corner_markers: dict[int, tuple[float, float]] | None = None, marker_mm: float = 20.0,
               tile_markers: bool = True) -> TiledSheet:
    """Split a `width` x `height` mm sheet into tiles. With `tile_markers`, each tile gets a marker
    near each of its corners where the drawing (`drawn` rectangles) leaves room; the sheet's own
    corner markers (`corner_markers`: id -> centre) count for the tile they lie on."""
    rows, cols, _ = tile_grid(width, height)
    tw, th = width / cols, height / rows
    corner_markers = corner_markers or {}
    quiet = marker_mm / 6  # one marker bit of white around it
    foot = marker_mm + 2 * quiet
    ids = iter(TILE_MARKER_IDS)
    taken = [*drawn, *((x - foot / 2, y - foot / 2, x + foot / 2, y + foot / 2)
                       for x, y in corner_markers.values())]
    tiles = []
    for r in range(rows):
        for c in range(cols):
            rect = (c * tw, r * th, (c + 1) * tw, (r + 1) * th)
            markers = [(m, x, y) for m, (x, y) in corner_markers.items()
                       if rect[0] <= x < rect[2] and rect[1] <= y < rect[3]]
            if tile_markers:
                corners = ((rect[0], rect[1]), (rect[2], rect[1]), (rect[2], rect[3]), (rect[0], rect[3]))
                for corner in corners:
                    if any(math.hypot(x - corner[0], y - corner[1]) < 2 * foot for _, x, y in markers):
                        continue  # a sheet corner marker already holds this corner
                    spot = _free_spot(rect, corner, foot, taken)
                    if spot is None:
                        continue
                    mid = next(ids, None)
                    if mid is None:
                        raise ValueError(f"{kind}: needs more tile markers than {len(TILE_MARKER_IDS)}")
                    taken.append(spot)
                    markers.append((mid, spot[0] + foot / 2, spot[1] + foot / 2))
            tiles.append(TileSpec(kind, width, height, marker_mm, name=f"r{r + 1}c{c + 1}", rect=rect,
                                  markers=tuple(markers)))
    return TiledSheet(kind, width, height, tuple(tiles))


class _Offset(Canvas):
    """Draws on `base` with every point moved by (dx, dy): the sheet drawn in its own mm on a page."""

    def __init__(self, base: Canvas, dx: float, dy: float) -> None:
        super().__init__(base.width, base.height)
        self.base, self.dx, self.dy = base, dx, dy

    def rect(self, x, y, w, h, fill=None, stroke=None, stroke_width=0.5) -> None:
        self.base.rect(x + self.dx, y + self.dy, w, h, fill, stroke, stroke_width)

    def circle(self, cx, cy, r, fill=None, stroke=None, stroke_width=0.5) -> None:
        self.base.circle(cx + self.dx, cy + self.dy, r, fill, stroke, stroke_width)

    def polyline(self, points, stroke, stroke_width=0.5, closed=False, fill=None, dash=None) -> None:
        self.base.polyline([(x + self.dx, y + self.dy) for x, y in points], stroke, stroke_width, closed,
                           fill, dash)

    def text(self, x, y, s, size=4.0, fill=(0, 0, 0), anchor="middle") -> None:
        self.base.text(x + self.dx, y + self.dy, s, size, fill, anchor)


def _neighbours(tile: TileSpec) -> str:
    """Where the tile goes, said by its left and upper neighbours (the first tile: the top-left)."""
    r, c = (int(v) for v in tile.name[1:].split("c"))
    parts = []
    if c > 1:
        parts.append(f"tape to the right of row {r} col {c - 1}")
    if r > 1:
        parts.append(f"below row {r - 1} col {c}")
    return "; ".join(parts) if parts else "top-left tile: start here"


Mm2 = tuple[float, float]


def page_offset(plan: TiledSheet, tile: TileSpec, paper: str) -> tuple[Mm2, Mm2]:
    """(page size, where the tile's top-left corner lies on the page), in mm."""
    _, _, landscape = tile_grid(plan.width_mm, plan.height_mm)
    pw, ph = PAPERS[paper][::-1] if landscape else PAPERS[paper]
    return (pw, ph), ((pw - (tile.rect[2] - tile.rect[0])) / 2, PAGE_MARGIN + LABEL_BAND)


def _draw_page(canvas: Canvas, plan: TiledSheet, tile: TileSpec, paper: str,
               draw_sheet: Callable[[Canvas], Any], title: str) -> None:
    (pw, ph), (ox, oy) = page_offset(plan, tile, paper)
    tw, th = tile.rect[2] - tile.rect[0], tile.rect[3] - tile.rect[1]
    sheet = _Offset(canvas, ox - tile.rect[0], oy - tile.rect[1])
    draw_sheet(sheet)
    white = (255, 255, 255)  # the neighbours' parts of the drawing are masked off the page
    canvas.rect(0, 0, pw, oy, fill=white)
    canvas.rect(0, oy + th, pw, ph - oy - th, fill=white)
    canvas.rect(0, oy, ox, th, fill=white)
    canvas.rect(ox + tw, oy, pw - ox - tw, th, fill=white)
    for mid, x, y in tile.markers:
        h = tile.marker_size_mm / 2
        draw_marker(sheet, x - h, y - h, tile.marker_size_mm, mid)
    _cut_marks(canvas, ox, oy, tw, th)
    r, c = tile.name[1:].split("c")
    rows, cols = grid_shape(plan)
    canvas.text(pw / 2, PAGE_MARGIN + 4.5, f"{title} - tile row {r} col {c} of {rows} x {cols} - "
                "print at 100 %", size=3.6, fill=(60, 60, 60))
    canvas.text(pw / 2, PAGE_MARGIN + 9.5, f"cut along the grey lines; {_neighbours(tile)}", size=3.2,
                fill=(90, 90, 90))


def grid_shape(plan: TiledSheet) -> tuple[int, int]:
    """(rows, cols) of a plan's tiles."""
    return (max(int(t.name[1:].split("c")[0]) for t in plan.tiles),
            max(int(t.name.split("c")[1]) for t in plan.tiles))


def tile_pages(plan: TiledSheet, paper: str, draw_sheet: Callable[[Canvas], Any], title: str,
               scale: float) -> dict[str, tuple[str, bytes]]:
    """Every tile's page: name -> (SVG at real size, PNG at `scale` px/mm)."""
    if paper not in PAPERS:
        raise ValueError(f"paper must be one of {', '.join(PAPERS)}, got {paper!r}")
    pages = {}
    for tile in plan.tiles:
        (pw, ph), _ = page_offset(plan, tile, paper)
        pages[tile.name] = draw_both(pw, ph, partial(_draw_page, plan=plan, tile=tile, paper=paper,
                                                     draw_sheet=draw_sheet, title=title), scale=scale)
    return pages


def _cut_marks(canvas: Canvas, ox: float, oy: float, tw: float, th: float) -> None:
    """A thin dashed line along the tile's edges and crop marks beyond its corners."""
    canvas.polyline([(ox, oy), (ox + tw, oy), (ox + tw, oy + th), (ox, oy + th)], CUT, 0.2, closed=True,
                    dash=1.5)
    for x, y in ((ox, oy), (ox + tw, oy), (ox + tw, oy + th), (ox, oy + th)):
        sx = -1 if x == ox else 1
        sy = -1 if y == oy else 1
        canvas.line((x + sx * 1.0, y), (x + sx * 4.0, y), CUT, 0.3)
        canvas.line((x, y + sy * 1.0), (x, y + sy * 4.0), CUT, 0.3)


def plan_json(plan: TiledSheet, paper: str) -> dict[str, Any]:
    """What the pages hold, for a person or a program: each tile's rectangle, page and markers."""
    tiles = []
    for t in plan.tiles:
        (pw, ph), (ox, oy) = page_offset(plan, t, paper)
        tiles.append({"tile": t.name, "rect_mm": [round(v, 3) for v in t.rect], "page_mm": [pw, ph],
                      "tile_on_page_mm": [round(ox, 3), round(oy, 3)],
                      "markers": {str(m): [round(x, 3), round(y, 3)] for m, x, y in t.markers}})
    return {"sheet": plan.kind, "paper": paper, "size_mm": [plan.width_mm, plan.height_mm],
            "marker_size_mm": plan.tiles[0].marker_size_mm, "tiles": tiles}
