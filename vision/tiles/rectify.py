"""A rectified top view of one region of a located sheet (on top of `vision.localise`)."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.localise import Calibration, SheetSpec, localise
from vision.types import VisionError, check_image


@dataclass
class TopView:
    image: np.ndarray  # BGR top view of the region
    px_per_mm: float
    origin_mm: tuple[float, float]  # sheet mm at the top view's pixel (0, 0)
    to_image: np.ndarray  # 3x3: top-view pixels -> camera image pixels
    skew: float  # spread of the region's side lengths in the image (0 = seen straight down)

    def mm_to_px(self, x: float, y: float) -> tuple[float, float]:
        return ((x - self.origin_mm[0]) * self.px_per_mm, (y - self.origin_mm[1]) * self.px_per_mm)

    def top_to_image(self, pts: np.ndarray) -> np.ndarray:
        p = np.asarray(pts, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(p, self.to_image).reshape(-1, 2)

    def box_to_image(self, x0: float, y0: float, x1: float, y1: float) -> list[float]:
        p = self.top_to_image(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]))
        return [float(p[:, 0].min()), float(p[:, 1].min()), float(p[:, 0].max()), float(p[:, 1].max())]


def calibrate(
    image: np.ndarray, sheet: str, sheet_mm: tuple[float, float], calibration: Calibration | None = None
) -> Calibration:
    """The given calibration when it fits this frame, else a fresh one from the sheet's markers."""
    check_image(image)
    h, w = image.shape[:2]
    if calibration is not None:
        if calibration.sheet != sheet:
            raise VisionError(f"calibration is for sheet {calibration.sheet!r}, this reader needs {sheet!r}")
        if tuple(calibration.image_size) == (w, h):
            return calibration
    return localise(image, SheetSpec(sheet, *sheet_mm))


def top_view(
    image: np.ndarray, cal: Calibration, region_mm: tuple[float, float, float, float], px_per_mm: float
) -> TopView:
    """Warp sheet region (x0, y0, x1, y1) in mm to a top view at `px_per_mm`."""
    x0, y0, x1, y1 = region_mm
    to_mm = np.array([[1 / px_per_mm, 0, x0], [0, 1 / px_per_mm, y0], [0, 0, 1]])
    to_image = np.linalg.inv(cal.homography) @ to_mm
    size = (round((x1 - x0) * px_per_mm), round((y1 - y0) * px_per_mm))
    out = cv2.warpPerspective(
        image, to_image, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE
    )
    corners = cv2.perspectiveTransform(
        np.array([[[0, 0]], [[size[0], 0]], [[size[0], size[1]]], [[0, size[1]]]], np.float64), to_image
    )
    p = corners.reshape(4, 2)
    sides = [np.linalg.norm(p[(i + 1) % 4] - p[i]) / (size[0] if i % 2 == 0 else size[1]) for i in range(4)]
    skew = float(max(sides) / max(min(sides), 1e-9) - 1.0)
    return TopView(out, px_per_mm, (x0, y0), to_image, skew)
