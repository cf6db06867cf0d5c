"""A tiny drawing surface with two back-ends: SVG text (printable at real size, units = mm)
and an OpenCV raster (PNG for the page and for tests). Renderers draw once on the `Canvas`
interface and get both outputs.
"""

from __future__ import annotations

import html
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence

import cv2
import numpy as np

Color = tuple[int, int, int]  # RGB 0..255
Point = tuple[float, float]


def hex_color(c: Color) -> str:
    return "#{:02x}{:02x}{:02x}".format(*c)


class Canvas(ABC):
    """Coordinates in user units (millimetres for printable sheets), origin top-left, y down."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    @abstractmethod
    def rect(self, x: float, y: float, w: float, h: float, fill: Color | None = None,
             stroke: Color | None = None, stroke_width: float = 0.5) -> None: ...

    @abstractmethod
    def circle(self, cx: float, cy: float, r: float, fill: Color | None = None,
               stroke: Color | None = None, stroke_width: float = 0.5) -> None: ...

    @abstractmethod
    def polyline(self, points: Sequence[Point], stroke: Color, stroke_width: float = 0.5,
                 closed: bool = False, fill: Color | None = None, dash: float | None = None) -> None: ...

    @abstractmethod
    def text(self, x: float, y: float, s: str, size: float = 4.0, fill: Color = (0, 0, 0),
             anchor: str = "middle") -> None:
        """`size` is the text height; (x, y) is the baseline point; anchor start|middle|end."""

    def line(self, a: Point, b: Point, stroke: Color, stroke_width: float = 0.5,
             dash: float | None = None) -> None:
        self.polyline([a, b], stroke, stroke_width, dash=dash)


class SvgCanvas(Canvas):
    def __init__(self, width: float, height: float, unit: str = "mm") -> None:
        super().__init__(width, height)
        self.unit = unit
        self._parts: list[str] = []

    @staticmethod
    def _paint(fill: Color | None, stroke: Color | None, stroke_width: float) -> str:
        out = f'fill="{hex_color(fill)}"' if fill else 'fill="none"'
        if stroke:
            out += f' stroke="{hex_color(stroke)}" stroke-width="{stroke_width:g}"'
        return out

    def rect(self, x, y, w, h, fill=None, stroke=None, stroke_width=0.5) -> None:
        self._parts.append(f'<rect x="{x:.3f}" y="{y:.3f}" width="{w:.3f}" height="{h:.3f}" '
                           f'{self._paint(fill, stroke, stroke_width)}/>')

    def circle(self, cx, cy, r, fill=None, stroke=None, stroke_width=0.5) -> None:
        self._parts.append(f'<circle cx="{cx:.3f}" cy="{cy:.3f}" r="{r:.3f}" '
                           f'{self._paint(fill, stroke, stroke_width)}/>')

    def polyline(self, points, stroke, stroke_width=0.5, closed=False, fill=None, dash=None) -> None:
        pts = " ".join(f"{x:.3f},{y:.3f}" for x, y in points)
        tag = "polygon" if closed else "polyline"
        extra = f' stroke-dasharray="{dash:g}"' if dash else ""
        self._parts.append(f'<{tag} points="{pts}" {self._paint(fill, stroke, stroke_width)}'
                           f' stroke-linecap="round" stroke-linejoin="round"{extra}/>')

    def text(self, x, y, s, size=4.0, fill=(0, 0, 0), anchor="middle") -> None:
        self._parts.append(f'<text x="{x:.3f}" y="{y:.3f}" font-size="{size:g}" text-anchor="{anchor}" '
                           f'font-family="sans-serif" fill="{hex_color(fill)}">{html.escape(s)}</text>')

    def raw(self, fragment: str) -> None:
        """Append trusted SVG markup (ids, titles for the page's scripts)."""
        self._parts.append(fragment)

    def to_svg(self) -> str:
        w, h = self.width, self.height
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w:g}{self.unit}" height="{h:g}{self.unit}" '
                f'viewBox="0 0 {w:g} {h:g}">\n' + "\n".join(self._parts) + "\n</svg>\n")


class RasterCanvas(Canvas):
    """Draws with OpenCV at `scale` pixels per unit; `image` is RGB->BGR converted on write."""

    def __init__(self, width: float, height: float, scale: float = 4.0,
                 background: Color = (255, 255, 255)) -> None:
        super().__init__(width, height)
        self.scale = scale
        self.image = np.zeros((round(height * scale), round(width * scale), 3), np.uint8)
        self.image[:] = background[::-1]

    def _p(self, x: float, y: float) -> tuple[int, int]:
        return round(x * self.scale * 16), round(y * self.scale * 16)  # 4 fractional bits

    def _t(self, w: float) -> int:
        return max(1, round(w * self.scale))

    def rect(self, x, y, w, h, fill=None, stroke=None, stroke_width=0.5) -> None:
        pts = [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]
        self.polyline(pts, stroke or (0, 0, 0), stroke_width, closed=True, fill=fill) if stroke else \
            self.polyline(pts, fill or (0, 0, 0), 0, closed=True, fill=fill)

    def circle(self, cx, cy, r, fill=None, stroke=None, stroke_width=0.5) -> None:
        c, rr = self._p(cx, cy), round(r * self.scale * 16)
        if fill:
            cv2.circle(self.image, c, rr, fill[::-1], -1, cv2.LINE_AA, 4)
        if stroke:
            cv2.circle(self.image, c, rr, stroke[::-1], self._t(stroke_width), cv2.LINE_AA, 4)

    def polyline(self, points, stroke, stroke_width=0.5, closed=False, fill=None, dash=None) -> None:
        pts = np.array([self._p(x, y) for x, y in points], np.int32).reshape(-1, 1, 2)
        if fill:
            cv2.fillPoly(self.image, [pts], fill[::-1], cv2.LINE_AA, 4)
        if stroke_width > 0:
            cv2.polylines(self.image, [pts], closed, stroke[::-1], self._t(stroke_width), cv2.LINE_AA, 4)

    def text(self, x, y, s, size=4.0, fill=(0, 0, 0), anchor="middle") -> None:
        font = cv2.FONT_HERSHEY_SIMPLEX
        px = size * self.scale
        fs = px / 22.0  # Hershey simplex cap height is about 22 px at scale 1
        thick = max(1, round(fs * 1.6))
        (tw, _), _ = cv2.getTextSize(s, font, fs, thick)
        ox = {"start": 0, "middle": tw / 2, "end": tw}.get(anchor, tw / 2)
        org = (round(x * self.scale - ox), round(y * self.scale))
        cv2.putText(self.image, s, org, font, fs, fill[::-1], thick, cv2.LINE_AA)

    def to_png(self) -> bytes:
        ok, buf = cv2.imencode(".png", self.image)
        if not ok:
            raise RuntimeError("PNG encoding failed")
        return buf.tobytes()


def draw_both(width: float, height: float, draw, scale: float = 4.0) -> tuple[str, bytes]:
    """Run `draw(canvas)` on an SVG and a raster canvas; return (svg_text, png_bytes)."""
    svg = SvgCanvas(width, height)
    draw(svg)
    ras = RasterCanvas(width, height, scale)
    draw(ras)
    return svg.to_svg(), ras.to_png()


def print_files(sheets: dict[str, tuple[tuple[float, float], Callable[..., None]]],
                scale: float) -> dict[str, str | bytes]:
    """{stem: ((width, height) mm, draw)} -> {stem.svg: SVG at real size, stem.png: PNG at `scale` px/mm}."""
    files: dict[str, str | bytes] = {}
    for stem, (size, draw) in sheets.items():
        files[f"{stem}.svg"], files[f"{stem}.png"] = draw_both(*size, draw, scale)
    return files
