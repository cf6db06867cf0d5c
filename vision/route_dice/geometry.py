"""The printed Railroad Ink dice tray as plain data (mm on the sheet).

A 200 x 150 mm sheet in felt green (dice faces are white with a dark frame, so they stand out by
brightness and by hue) with the "railroad-ink-dice-tray" markers in its corners.
"""

from __future__ import annotations

SHEET = "railroad-ink-dice-tray"
SHEET_MM = (200.0, 150.0)
MARKER_MM = 20.0
MARKER_MARGIN_MM = 8.0
TRAY_RGB = (38, 112, 72)
DIE_MM = 16.0


def marker_boxes_mm() -> list[tuple[float, float, float, float]]:
    """The four marker squares with their white quiet zones (where no die face is looked for)."""
    w, h = SHEET_MM
    m, s, q = MARKER_MARGIN_MM, MARKER_MM, MARKER_MM / 6
    return [
        (x - q, y - q, x + s + q, y + s + q)
        for x, y in ((m, m), (w - m - s, m), (w - m - s, h - m - s), (m, h - m - s))
    ]


def tray_geometry() -> dict[str, object]:
    return {
        "sheet": SHEET,
        "sheet_mm": list(SHEET_MM),
        "die_mm": DIE_MM,
        "markers_mm": [list(b) for b in marker_boxes_mm()],
    }
