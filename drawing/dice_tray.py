"""The printable dice tray: an A4 landscape sheet with the "dice-tray" corner markers and a framed
rolling area (geometry in `vision.dice.tray`). Drawn on the canvas so one drawing gives the SVG (real
size) and the PNG."""

from __future__ import annotations

import numpy as np

from drawing.canvas import Canvas, RasterCanvas, draw_both
from vision.dice.tray import ROLL_AREA_MM, TRAY_SHEET, TRAY_SIZE_MM
from vision.markers import draw_corner_markers


def draw_tray(canvas: Canvas) -> dict[int, tuple[float, float]]:
    """Draw the tray; returns the marker centres (mm)."""
    w, h = TRAY_SIZE_MM
    centres = draw_corner_markers(canvas, TRAY_SHEET, w, h)
    x0, y0, x1, y1 = ROLL_AREA_MM
    canvas.rect(x0, y0, x1 - x0, y1 - y0, fill=(236, 236, 232), stroke=(90, 90, 90), stroke_width=0.8)
    canvas.text(w / 2, 18, "Highway Referee - dice tray", size=6, fill=(60, 60, 60))
    canvas.text(w / 2, h - 12, "roll dice inside the frame; keep the four corner markers uncovered",
                size=3.5, fill=(110, 110, 110))
    return centres


def tray_files(scale: float = 300 / 25.4) -> tuple[str, bytes]:
    """(SVG text at real size in mm, PNG bytes at `scale` px/mm, 300 dpi by default)."""
    return draw_both(*TRAY_SIZE_MM, draw_tray, scale=scale)


def tray_rgb(px_per_mm: float = 4.0) -> np.ndarray:
    """The tray as an RGB image, for synthetic scenes."""
    canvas = RasterCanvas(*TRAY_SIZE_MM, scale=px_per_mm)
    draw_tray(canvas)
    return canvas.image[..., ::-1].copy()
