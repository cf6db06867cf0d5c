"""Junction flags across calibrated views.

One view reads a junction from the yellow side of a column's top unit; the road ends resting on the
column, or the sticks in front of it, often hide that side, and the one-view height it is read at can
be a unit off. With the fused column's place and height, every view's image is asked again where that
top unit's side shows, and the shares of yellow of the views that see it are averaged. Where no view
sees the side, the views' own flags vote, weighted by their confidence.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.tokyo.calibration import TokyoCalibration
from vision.tokyo.observation import TokyoObservation
from vision.tokyo.reader import JUNCTION_SHARE, _top_unit_yellow


def fuse_junctions(
    observations: Sequence[TokyoObservation],
    calibs: Sequence[TokyoCalibration],
    columns: Sequence,
    images: Sequence[np.ndarray],
) -> None:
    """Set each fused column's `junction` (and its supports' in every view) from all views."""
    care = [stick_bands(obs, im.shape) == 0 for obs, im in zip(observations, images, strict=True)]
    for col in columns:
        seen = [(v, k) for v, k in enumerate(col.supports) if k is not None]
        if col.height is None or col.x_mm is None or col.y_mm is None:
            continue
        shares = [
            _top_unit_yellow(calibs[v], images[v], care[v], col.x_mm, col.y_mm, col.height)
            for v in range(len(observations))
        ]
        measured = [s for s in shares if s is not None]
        if measured:
            junction = float(np.mean(measured)) >= JUNCTION_SHARE
        else:
            votes = [
                (observations[v].supports[k].junction, observations[v].supports[k].confidence)
                for v, k in seen
            ]
            yes = sum(c for j, c in votes if j)
            junction = yes > sum(c for j, c in votes if not j)
        col.junction = junction
        for v, k in seen:
            observations[v].supports[k].junction = junction


def stick_bands(obs: TokyoObservation, shape: tuple[int, ...]) -> np.ndarray:
    """Where a view's sticks lie (their bands, a stick's width), as a mask."""
    out = np.zeros(shape[:2], np.uint8)
    for st in obs.sticks:
        p0, p1 = (tuple(int(round(v)) for v in p) for p in st.endpoints)
        cv2.line(out, p0, p1, 255, max(3, int(round(st.width_px))))
    return out
