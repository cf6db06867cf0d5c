"""Grey pieces lying on the table, checked in the other calibrated views.

The reader warns of a grey blob no upright column explains ("knocked over?"), and the referee asks the
players to stand the support back up. A lamp's highlight on a tinted mat is grey to that test too:
washed towards white, its saturation falls under the grey plastic's (tuning seed 47 at 550/40, two
cameras: a halo in camera 1's picture of the empty table, read as a lying piece in every frame, raised
"stand the support back up" before the first move). A highlight is where the lamp's reflection meets
one camera's eye: another camera on another side of the table sees plain mat at that table point. A
piece lying there is grey in every view that sees the spot. So a lying piece one view reads is left
out when another view holds the spot whole in its picture and sees almost no grey plastic there; a
view that holds the spot only in part, or not at all, says nothing (the piece stays).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import cv2
import numpy as np

from vision.tokyo.calibration import TokyoCalibration

LYING_WARNING = "grey piece near ({u:.0f}, {v:.0f}) px is no upright column (knocked over?)"
_LYING_AT = re.compile(r"grey piece near \((-?\d+), (-?\d+)\) px is no upright column")
# the spot checked in another view: a disc of this many column diameters round the table point under
# the blob's top pixel (the top pixel lies on the piece's far side, up to a diameter from its middle)
SPOT_DIAMETERS = 1.5
# share of the spot's pixels grey in another view under which that view sees bare table: a lying
# column of the smallest size (one unit long, 15 mm wide) covers a third of the spot or more, a
# highlight in the first view leaves the other's mat tinted (none of it grey)
BARE_SHARE = 0.08
MARGIN_PX = 4  # the spot must lie this far inside the other picture: its edge is blurred and cut
LIT_SHARE = 0.5  # of a grey blob's pixels that are lit mat for the blob to be a highlight


def lit_mat(image: np.ndarray, table: np.ndarray, mask: np.ndarray, bbox: tuple[int, int, int, int]) -> bool:
    """Most of a grey blob (`mask`, full-image, within `bbox` x0 y0 x1 y1) is the table's own colour
    with light added (vision.tokyo.piece_evidence's highlight test, against `table`, the reader's
    table estimate): a lamp's halo, no piece. One camera's own test, where no other view can check.
    Only where the table estimate is more saturated than grey plastic ever is (HSV saturation above
    GREY_SATURATION[0]): a neutral table with light added is the colour of a light stick or column, so
    there the test says nothing and the blob is kept (light sticks crossing on a grey table were all
    dropped as halo otherwise). A halo washes the table estimate itself out (seed 50's reads
    saturation 67), so the bar is the plastic's, not the tinted mat's."""
    from vision.tokyo.piece_evidence import GREY_SATURATION, whitened

    x0, y0, x1, y1 = (int(v) for v in bbox)
    if x1 <= x0 or y1 <= y0:
        return False
    crop = cv2.GaussianBlur(image[y0:y1, x0:x1], (5, 5), 1.2)
    under = table[y0:y1, x0:x1]
    tinted = cv2.cvtColor(under, cv2.COLOR_BGR2HSV)[..., 1] > GREY_SATURATION[0]
    lit = whitened(crop, under) & tinted
    inside = mask[y0:y1, x0:x1] > 0
    return bool(inside.any()) and float(lit[inside].mean()) >= LIT_SHARE


def lying_at(warning: str) -> tuple[int, int] | None:
    """Where a lying-piece warning (as the reader writes it, LYING_WARNING) places the blob's top, in
    whole pixels; None for any other warning."""
    found = _LYING_AT.search(warning)
    return (int(found[1]), int(found[2])) if found else None


def _spot(calib: TokyoCalibration, uv: tuple[int, int]) -> np.ndarray:
    """Table points (N, 3) of the disc round the point under pixel `uv`, at half a column's height
    (a lying column's middle)."""
    s = calib.sizes
    z = s.column_diameter_mm / 2
    centre = calib.camera.ray_to_plane(np.array([uv], np.float64), z)[0]
    r = SPOT_DIAMETERS * s.column_diameter_mm
    g = np.linspace(-r, r, 13)
    dx, dy = np.meshgrid(g, g)
    keep = dx**2 + dy**2 <= r * r
    return np.column_stack([centre[0] + dx[keep], centre[1] + dy[keep], np.full(int(keep.sum()), z)])


def grey_share(image: np.ndarray, calib: TokyoCalibration, points: np.ndarray) -> float | None:
    """The share of `points` (table points, mm) that look like grey plastic in `image` (the piece maps'
    test: saturation under the grey plastic's, not dark); None when any point falls outside the
    picture or behind the camera (the view cannot see the whole spot)."""
    from vision.tokyo.piece_evidence import GREY_SATURATION

    uv, depth = calib.camera.project(points)
    h, w = image.shape[:2]
    inside = (depth > 0) & (uv[:, 0] >= MARGIN_PX) & (uv[:, 1] >= MARGIN_PX) & \
        (uv[:, 0] < w - MARGIN_PX) & (uv[:, 1] < h - MARGIN_PX)
    if not inside.all():
        return None
    x0, y0 = np.floor(uv.min(0)).astype(int) - 3
    x1, y1 = np.ceil(uv.max(0)).astype(int) + 4
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    crop = cv2.GaussianBlur(image[y0:y1, x0:x1], (5, 5), 1.2)
    hsv = cv2.cvtColor(crop, cv2.COLOR_BGR2HSV)
    # grey as piece_maps takes it (its grey ramp past one half), at each point's pixel
    grey = (hsv[..., 1] < (GREY_SATURATION[0] + GREY_SATURATION[1]) / 2) & (hsv[..., 2] > 45)
    px = np.clip(np.round(uv - [x0, y0]).astype(int), 0, [x1 - x0 - 1, y1 - y0 - 1])
    return float(grey[px[:, 1], px[:, 0]].mean())


def refute_lying(warnings: list[str], calib: TokyoCalibration, others: Sequence[tuple[np.ndarray,
                 TokyoCalibration]]) -> list[str]:
    """Take out of `warnings` (one view's, read through `calib`) each lying piece another view
    (`others`: (image, calibration) each) sees as bare table: the view's own glare or a mark on the
    mat. Returns the notes that say so (not lying-piece warnings: nothing counts them)."""
    notes = []
    for w in list(warnings):
        at = lying_at(w)
        if at is None:
            continue
        points = _spot(calib, at)
        for image, other in others:
            share = grey_share(image, other, points)
            if share is not None and share < BARE_SHARE:
                warnings.remove(w)
                notes.append(f"grey blob near ({at[0]}, {at[1]}) px: another view sees bare table there "
                             "(a highlight or a mark, not a piece)")
                break
    return notes
