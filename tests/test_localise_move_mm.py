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


def test_a_covered_marker_is_not_searched_for_while_the_others_hold_still(monkeypatch) -> None:  # noqa: ANN001
    """Three markers where the kept calibration expects them: the sheet has not moved and the fourth
    is covered. The rescue passes (sharpened, wide-threshold, upscaled: most of a frame's CPU) must not
    run to find it; with no calibration kept they still do."""
    import vision.localise as localise

    rng = np.random.default_rng(12)
    pose = random_pose(rng, TRAY_SIZE_MM, tilt_deg=(0, 5), fill=(0.9, 0.92))
    image, _ = render_sheet(tray_rgb(4.0), TRAY_SIZE_MM, pose, rng=rng, effects=0.2)
    loc = Localiser(SPEC)
    first = loc.update(image)
    assert first.status == "located" and len(first.markers_seen) == 4
    covered = image.copy()
    corners = loc.calibration.to_image(SPEC.marker_corners()[first.markers_seen[0]])
    x0, y0 = (int(v) - 6 for v in corners.min(0))
    x1, y1 = (int(v) + 6 for v in corners.max(0))
    covered[max(0, y0):y1, max(0, x0):x1] = (60, 90, 140)  # a hand over one corner marker
    passes: list[int] = []
    real = localise._rescue_passes

    def counted(gray: np.ndarray):  # noqa: ANN202
        return [lambda run=run: (passes.append(1), run())[1] for run in real(gray)]

    monkeypatch.setattr(localise, "_rescue_passes", counted)
    res = loc.update(covered)
    assert res.status == "steady" and len(res.markers_seen) == 3
    assert res.calibration is first.calibration
    assert passes == []
    assert Localiser(SPEC).update(covered).status == "located"  # no calibration: the passes search
    assert passes, "without a kept calibration the rescue passes must look for the missing marker"
