"""The printable dice tray's geometry, as the dice reader sees it: an A4 landscape sheet with the
"dice-tray" corner markers and a framed rolling area (drawn by `drawing.dice_tray`)."""

from __future__ import annotations

import numpy as np

TRAY_SHEET = "dice-tray"
TRAY_SIZE_MM = (297.0, 210.0)
ROLL_AREA_MM = (40.0, 36.0, 257.0, 174.0)  # x0, y0, x1, y1 of the framed area dice are read in


def reading_window(calibration, die_mm: tuple[float, float] = (12.0, 20.0),
                   area_mm: tuple[float, float, float, float] = ROLL_AREA_MM,
                   ) -> tuple[tuple[float, float, float, float], tuple[float, float]]:
    """From a sheet calibration (vision.localise.Calibration): the image region to read dice in (the
    roll area's bounding box, pixels) and the die box sizes to expect there (pixels), for
    DiceReader(die_px=...).read(image, roi=...). Boxes include the visible sides, hence the margin."""
    x0, y0, x1, y1 = area_mm
    corners = calibration.to_image(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float))
    roi = (*corners.min(axis=0), *corners.max(axis=0))
    # pixels per mm anywhere in the area: the shortest and longest image length of a 1 mm step
    probe = np.array([[x, y] for x in (x0, x1) for y in (y0, y1)] + [[(x0 + x1) / 2, (y0 + y1) / 2]], float)
    steps = []
    for p in probe:
        a = calibration.to_image(np.array([p, p + [1.0, 0.0], p + [0.0, 1.0]]))
        steps += [np.linalg.norm(a[1] - a[0]), np.linalg.norm(a[2] - a[0])]
    die_px = (0.9 * die_mm[0] * min(steps), 1.3 * die_mm[1] * max(steps))
    return tuple(float(v) for v in roi), (float(die_px[0]), float(die_px[1]))
