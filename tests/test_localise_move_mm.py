"""Movement is judged in millimetres on the sheet, not in pixels: the same few pixels are a real move
to a coarse camera and jitter to a fine one."""

from __future__ import annotations

import cv2
import numpy as np

from datasets.camera import random_pose, render_sheet
from drawing.dice_tray import tray_rgb
from vision.dice.tray import TRAY_SHEET, TRAY_SIZE_MM
from vision.localise import MOVE_MM, Localiser, SheetSpec

SPEC = SheetSpec(TRAY_SHEET, *TRAY_SIZE_MM)


def _shifted(img: np.ndarray, dx: float) -> np.ndarray:
    M = np.float32([[1, 0, dx], [0, 1, 0]])
    return cv2.warpAffine(img, M, (img.shape[1], img.shape[0]), borderMode=cv2.BORDER_REPLICATE)


def test_the_same_pixel_shift_is_a_move_for_a_coarse_camera_and_jitter_for_a_fine_one() -> None:
    rng = np.random.default_rng(12)
    pose = random_pose(rng, TRAY_SIZE_MM, tilt_deg=(0, 5), fill=(0.9, 0.92))
    coarse, _ = render_sheet(tray_rgb(4.0), TRAY_SIZE_MM, pose, rng=rng, effects=0.2)  # ~2.4 px/mm
    fine = cv2.resize(coarse, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC)  # the same view, ~4.8 px/mm
    shift_px = 5.0  # over the old fixed 4 px
    for image, status in ((fine, "steady"), (coarse, "moved")):
        loc = Localiser(SPEC)
        assert loc.update(image).status == "located"
        res = loc.update(_shifted(image, shift_px))
        assert res.status == status, (status, res.shift_mm)
        assert abs(res.shift_px - shift_px) < 1.0
        assert (res.shift_mm <= MOVE_MM) == (status == "steady")
