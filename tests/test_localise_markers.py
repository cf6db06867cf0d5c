"""Localisation on rendered photos of the printed dice tray: homography accuracy, calibration files,
hidden markers keep the last good calibration, movement is noticed, bad input gives clear errors."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from datasets.camera import project, random_pose, render_sheet
from drawing.dice_tray import tray_rgb
from referee_app.cli import main
from vision.dice.tray import TRAY_SHEET, TRAY_SIZE_MM
from vision.localise import Calibration, LocaliseError, Localiser, SheetSpec, localise
from vision.types import VisionError

SPEC = SheetSpec(TRAY_SHEET, *TRAY_SIZE_MM)


@pytest.fixture(scope="module")
def sheet() -> np.ndarray:
    return tray_rgb(3.0)


def _photo(sheet: np.ndarray, seed: int, effects: float = 0.4):
    rng = np.random.default_rng(seed)
    pose = random_pose(rng, TRAY_SIZE_MM, tilt_deg=(0, 25))
    img, _ = render_sheet(sheet, TRAY_SIZE_MM, pose, rng=rng, effects=effects)
    return img, pose


def _hide(img: np.ndarray, pose, centre_mm: tuple[float, float]) -> np.ndarray:
    out = img.copy()
    x, y = project(pose, [centre_mm])[0]
    cv2.circle(out, (int(x), int(y)), 45, (40, 90, 160), -1)  # a hand over the marker
    return out


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_homography_maps_pixels_to_sheet_mm(sheet: np.ndarray, seed: int) -> None:
    img, pose = _photo(sheet, seed)
    cal = localise(img, SPEC)
    probe = np.array([[148.5, 105.0], [60.0, 50.0], [240.0, 160.0]])
    back = cal.to_sheet(project(pose, probe))
    assert np.abs(back - probe).max() < 1.5  # mm
    top = cal.rectify(img, px_per_mm=2.0)
    assert top.shape == (420, 594, 3)


def test_calibration_round_trips_through_json(tmp_path, sheet: np.ndarray) -> None:
    img, _ = _photo(sheet, 6)
    cal = localise(img, SPEC)
    path = cal.save(tmp_path / "tables" / "kitchen.json")
    again = Calibration.load(path)
    assert np.allclose(again.homography, cal.homography) and again.sheet == TRAY_SHEET
    assert again.image_size == (1280, 720)


def test_bad_calibration_files_are_named(tmp_path) -> None:
    with pytest.raises(VisionError, match="no such calibration"):
        Calibration.load(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"sheet": "dice-tray", "homography": [[1, 2]]}))
    with pytest.raises(VisionError, match="bad.json: not a valid calibration"):
        Calibration.load(bad)


def test_no_markers_is_a_clear_error() -> None:
    blank = np.full((480, 640, 3), 200, np.uint8)
    with pytest.raises(LocaliseError, match=r"found 0 of its 4 markers \[16, 17, 18, 19\]"):
        localise(blank, SPEC)


def test_wrong_frames_are_rejected(sheet: np.ndarray) -> None:
    img, _ = _photo(sheet, 7)
    cal = localise(img, SPEC)
    with pytest.raises(VisionError, match="uint8"):
        cal.rectify(img.astype(np.float32))
    with pytest.raises(VisionError, match="re-localise"):
        cal.rectify(cv2.resize(img, (640, 360)))
    with pytest.raises(VisionError, match="HxWx3"):
        Localiser(SPEC).update(img[..., 0])


def test_localiser_keeps_last_good_and_notices_movement(sheet: np.ndarray) -> None:
    loc = Localiser(SPEC)
    img, pose = _photo(sheet, 8)
    assert loc.update(img).status == "located"
    first = loc.calibration
    assert loc.update(img).status == "steady"
    centres = SPEC.marker_centres()
    hidden = img
    for mid in (16, 17, 18):  # only one marker left: cannot re-localise, keep the old one
        hidden = _hide(hidden, pose, centres[mid])
    res = loc.update(hidden)
    assert res.status == "steady" and res.calibration is first and res.markers_seen == [19]
    res = loc.update(np.full_like(img, 128))
    assert res.status == "kept" and res.calibration is first and "[16, 17, 18, 19] not visible" in res.message
    moved, _ = _photo(sheet, 9)
    res = loc.update(moved)
    assert res.status == "moved" and res.calibration is not first and res.shift_px > 4


def test_two_markers_hidden_still_localise(sheet: np.ndarray) -> None:
    img, pose = _photo(sheet, 10)
    centres = SPEC.marker_centres()
    partly = _hide(_hide(img, pose, centres[16]), pose, centres[18])
    cal = localise(partly, SPEC)
    assert cal.markers_used == [17, 19]
    probe = np.array([[148.5, 105.0]])
    assert np.abs(cal.to_sheet(project(pose, probe)) - probe).max() < 2.0


def test_print_dice_tray_command(tmp_path) -> None:
    assert main(["print", "dice-tray", "--out", str(tmp_path), "--dpi", "100"]) == 0
    svg = (tmp_path / "dice-tray.svg").read_text()
    assert 'width="297mm"' in svg and 'height="210mm"' in svg
    png = cv2.imread(str(tmp_path / "dice-tray.png"))
    assert png.shape[1] == round(297 * 100 / 25.4)
    assert sorted(localise(cv2.copyMakeBorder(png, 20, 20, 20, 20, cv2.BORDER_CONSTANT,
                                               value=(255, 255, 255)), SPEC).markers_used) == [16, 17, 18, 19]


def test_print_dice_tray_bad_dpi(tmp_path, capsys) -> None:
    assert main(["print", "dice-tray", "--out", str(tmp_path), "--dpi", "5"]) == 2
    assert "--dpi must be between" in capsys.readouterr().err


def test_reading_window_covers_the_roll_area(sheet: np.ndarray) -> None:
    from vision.dice.tray import ROLL_AREA_MM, reading_window

    img, pose = _photo(sheet, 12)
    roi, die_px = reading_window(localise(img, SPEC))
    x0, y0, x1, y1 = ROLL_AREA_MM
    seen = project(pose, [[x0, y0], [x1, y1], [(x0 + x1) / 2, (y0 + y1) / 2]])
    assert all(roi[0] - 2 <= x <= roi[2] + 2 and roi[1] - 2 <= y <= roi[3] + 2 for x, y in seen)
    side = np.linalg.norm(np.diff(project(pose, [[150, 100], [166, 100]]), axis=0))  # a 16 mm die
    assert die_px[0] < side < die_px[1]
