"""Printable Railroad Ink material: the dice tray (with markers), the dice faces (to glue on blank
16 mm dice) and the player sheet (7 x 7 squares with exits, with markers)."""

from __future__ import annotations

from drawing.canvas import Canvas, print_files
from vision.markers import draw_corner_markers
from vision.route_dice import geometry as tray
from vision.route_dice.faces import FACES, draw_face


def draw_tray(c: Canvas) -> None:
    w, h = tray.SHEET_MM
    c.rect(0, 0, w, h, fill=tray.TRAY_RGB)
    c.text(w / 2, h - 4, "Railroad Ink dice tray - roll the dice onto the green", 3.0, (200, 230, 210))
    draw_corner_markers(c, tray.SHEET, w, h, tray.MARKER_MM, tray.MARKER_MARGIN_MM)


DICE_SHEET_MM = (6 * 24 + 12, 4 * 30 + 20)


def draw_dice_faces(c: Canvas) -> None:
    c.rect(0, 0, *DICE_SHEET_MM, fill=(255, 255, 255))
    for i, name in enumerate(FACES):
        x, y = 8 + (i % 6) * 24, 8 + (i // 6) * 30
        draw_face(c, x, y, name, tray.DIE_MM)
        c.text(x + tray.DIE_MM / 2, y + tray.DIE_MM + 4, name.replace("_", " ")[:22], 2.0, (60, 60, 60))


def dice_files(scale: float = 300 / 25.4) -> dict[str, str | bytes]:
    return print_files({"railroad-ink-dice-tray": (tray.SHEET_MM, draw_tray),
                        "railroad-ink-dice-faces": (DICE_SHEET_MM, draw_dice_faces)}, scale)


def draw_sheet(c: Canvas) -> None:
    """The player sheet: light grid, tinted centre, exits, corner markers."""
    from vision.sheets import geometry as sg

    w, h = sg.SHEET_MM
    c.rect(0, 0, w, h, fill=(255, 255, 255))
    ox, oy = sg.GRID_ORIGIN_MM
    n, s = sg.SQUARES, sg.SQUARE_MM
    c.rect(ox + 2 * s, oy + 2 * s, 3 * s, 3 * s, fill=sg.CENTRE_RGB)
    for i in range(n + 1):
        c.line((ox + i * s, oy), (ox + i * s, oy + n * s), sg.GRID_RGB, 0.4)
        c.line((ox, oy + i * s), (ox + n * s, oy + i * s), sg.GRID_RGB, 0.4)
    for edge, k, kind in sg.EXITS:
        mid = (k + 0.5) * s
        if edge == "N":
            a, b = (ox + mid, oy - 6), (ox + mid, oy)
        elif edge == "S":
            a, b = (ox + mid, oy + n * s), (ox + mid, oy + n * s + 6)
        elif edge == "W":
            a, b = (ox - 6, oy + mid), (ox, oy + mid)
        else:
            a, b = (ox + n * s, oy + mid), (ox + n * s + 6, oy + mid)
        colour = (150, 150, 160) if kind == "H" else (120, 150, 200)
        c.line(a, b, colour, 2.4 if kind == "H" else 0.8)
    c.text(
        w / 2,
        h - 5,
        "Railroad Ink sheet - draw routes in dark pen; round number in the top-left corner",
        2.6,
        (150, 150, 150),
    )
    draw_corner_markers(c, sg.SHEET, w, h, sg.MARKER_MM, sg.MARKER_MARGIN_MM)


def sheet_files(scale: float = 300 / 25.4) -> dict[str, str | bytes]:
    from vision.sheets import geometry as sg

    return print_files({"railroad-ink-sheet": (sg.SHEET_MM, draw_sheet)}, scale)
