"""ArUco markers for printed sheets: which dictionary, which ids, and their bit patterns.

Every sheet the project prints (game boards, the dice tray, Railroad Ink sheets) carries four
markers at its corners. Ids are allotted per sheet kind so a camera can tell sheets apart:
the sheet's base id + 0 top-left, +1 top-right, +2 bottom-right, +3 bottom-left.
"""

from __future__ import annotations

import cv2
import numpy as np

DICTIONARY = cv2.aruco.DICT_4X4_50
SHEET_BASE_IDS = {
    "highway-dice": 0,
    "highway-grid": 4,
    "tokyo-highway": 8,
    "railroad-ink": 12,
    "dice-tray": 16,
    "railroad-ink-dice-tray": 20,
}
CORNERS = ("top-left", "top-right", "bottom-right", "bottom-left")
# A large sheet printed in tiles on home paper (drawing/paper.py) carries extra markers inside each tile,
# so every tile can be located on its own: ids after the sheets' corner ids, numbered per sheet (only one
# tiled sheet is on the table at a time).
TILE_MARKER_IDS = tuple(range(24, 50))


def dictionary() -> cv2.aruco.Dictionary:
    return cv2.aruco.getPredefinedDictionary(DICTIONARY)


def marker_bits(marker_id: int) -> np.ndarray:
    """The marker as a 6x6 array of 0/1 (border included), 1 = white."""
    img = cv2.aruco.generateImageMarker(dictionary(), marker_id, 6)
    return (img > 127).astype(np.uint8)


def sheet_marker_ids(sheet: str) -> tuple[int, int, int, int]:
    base = SHEET_BASE_IDS[sheet]
    return base, base + 1, base + 2, base + 3


def draw_marker(canvas, x: float, y: float, size: float, marker_id: int) -> None:
    """Draw marker `marker_id` with its top-left corner at (x, y), `size` units wide, on any
    `drawing.canvas.Canvas`-like object (rect with fill)."""
    bits = marker_bits(marker_id)
    cell = size / bits.shape[0]
    canvas.rect(x - cell, y - cell, size + 2 * cell, size + 2 * cell, fill=(255, 255, 255))  # quiet zone
    canvas.rect(x, y, size, size, fill=(0, 0, 0))
    for r in range(bits.shape[0]):
        for c in range(bits.shape[1]):
            if bits[r, c]:
                canvas.rect(x + c * cell, y + r * cell, cell, cell, fill=(255, 255, 255))


def draw_corner_markers(canvas, sheet: str, width: float, height: float, size: float = 20.0,
                        margin: float = 8.0) -> dict[int, tuple[float, float]]:
    """Put the sheet's four markers in its corners; returns marker id -> its centre (sheet units),
    which is what localisation maps the detected marker centres to."""
    ids = sheet_marker_ids(sheet)
    origins = [(margin, margin), (width - margin - size, margin),
               (width - margin - size, height - margin - size), (margin, height - margin - size)]
    centres = {}
    for marker_id, (x, y) in zip(ids, origins, strict=True):
        draw_marker(canvas, x, y, size, marker_id)
        centres[marker_id] = (x + size / 2, y + size / 2)
    return centres
