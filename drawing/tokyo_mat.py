"""The printable Tokyo Highway play mat: a light tint that grey columns and sticks stand out from (grey
pieces on a grey table differ from shadows only in brightness), a faint 50 mm grid for placing by eye,
and the sheet's four ArUco corner markers for locating the table."""

from __future__ import annotations

from drawing.canvas import Canvas
from vision.markers import draw_corner_markers

MAT_SIZES = {"a3": (420.0, 297.0), "a4": (297.0, 210.0), "a2": (594.0, 420.0)}
MAT_MARKER_MM = 30.0  # the corner markers' size and their margin from the mat's edges
MAT_MARKER_MARGIN_MM = 10.0
MAT_TINTS = {"blue": (150, 205, 240), "green": (170, 225, 165), "yellow": (235, 215, 150)}  # RGB


def draw_mat(
    canvas: Canvas, width: float, height: float, tint: str = "blue", marker_mm: float = MAT_MARKER_MM
) -> dict[int, tuple[float, float]]:
    """Draw the mat; returns marker id -> centre (mm from the top-left corner)."""
    rgb = MAT_TINTS[tint]
    canvas.rect(0, 0, width, height, fill=rgb)
    grid = tuple(max(0, c - 25) for c in rgb)
    x = 50.0
    while x < width:
        canvas.line((x, 0), (x, height), grid, 0.3)
        x += 50.0
    y = 50.0
    while y < height:
        canvas.line((0, y), (width, y), grid, 0.3)
        y += 50.0
    centres = draw_corner_markers(canvas, "tokyo-highway", width, height, size=marker_mm,
                                  margin=MAT_MARKER_MARGIN_MM)
    canvas.text(
        width / 2,
        height - 6,
        "Highway Referee - Tokyo Highway mat - print at 100 %",
        size=4,
        fill=(60, 60, 60),
    )
    return centres
