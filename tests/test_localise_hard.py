"""Localisation on hard frames: blurred markers recovered by the second-chance passes, markers that
disagree with the others dropped, fits that would extrapolate from too little refused (never a wrong
homography), and the refusal reaching the user through `highway-referee eval route-dice`."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

import vision.localise as loc
from datasets.camera import project, random_pose, render_sheet
from datasets.route_dice.scenes import dice_scene
from drawing.dice_tray import tray_rgb
from referee_app.cli import main
from vision.dice.tray import TRAY_SHEET, TRAY_SIZE_MM
from vision.localise import (
    LocaliseError,
    Localiser,
    SheetSpec,
    detect_markers,
    detect_sheet_markers,
    localise,
)

SPEC = SheetSpec(TRAY_SHEET, *TRAY_SIZE_MM)
PROBES = np.array([[148.5, 105.0], [20.0, 20.0], [277.0, 190.0], [277.0, 20.0]])  # incl. far corners


@pytest.fixture(scope="module")
def sheet() -> np.ndarray:
    return tray_rgb(3.0)


def _photo(sheet: np.ndarray, seed: int):
    rng = np.random.default_rng(seed)
    pose = random_pose(rng, TRAY_SIZE_MM, tilt_deg=(0, 25))
    img, _ = render_sheet(sheet, TRAY_SIZE_MM, pose, rng=rng, effects=0.4)
    return img, pose


def _smear(img: np.ndarray, pose, marker: int, length: int) -> np.ndarray:
    """Horizontal motion blur over one marker only, as when that corner of the sheet was moving."""
    x, y = project(pose, [SPEC.marker_centres()[marker]])[0].astype(int)
    kernel = np.zeros((length, length))
    kernel[length // 2, :] = 1 / length
    out = img.copy()
    y0, x0 = max(y - 60, 0), max(x - 60, 0)
    out[y0:y + 60, x0:x + 60] = cv2.filter2D(img[y0:y + 60, x0:x + 60], -1, kernel)
    return out


def _error_mm(cal, pose) -> float:
    return float(np.abs(cal.to_sheet(project(pose, PROBES)) - PROBES).max())


@pytest.mark.parametrize(("seed", "marker", "length"), [(3, 16, 7), (4, 19, 9)])
def test_blurred_marker_is_found_by_a_second_pass(sheet: np.ndarray, seed: int, marker: int,
                                                   length: int) -> None:
    img, pose = _photo(sheet, seed)
    img = _smear(img, pose, marker, length)
    assert marker not in detect_markers(img)  # the plain pass loses it ...
    found = detect_sheet_markers(img, SPEC)
    assert marker in found and len(found) == 4  # ... the rescue passes bring it back
    cal = localise(img, SPEC)
    assert cal.markers_used == sorted(SPEC.marker_corners())
    assert _error_mm(cal, pose) < 1.5
    assert Localiser(SPEC).update(img).markers_seen == sorted(SPEC.marker_corners())


def test_rescued_marker_that_disagrees_is_not_used(sheet: np.ndarray, monkeypatch) -> None:
    img, pose = _photo(sheet, 6)
    truth = project(pose, SPEC.marker_corners()[18])
    x, y = truth.mean(0)
    cv2.circle(img, (int(x), int(y)), int(np.ptp(truth[:, 0])), (40, 90, 160), -1)  # a hand over marker 18
    assert sorted(detect_markers(img)) == [16, 17, 19]
    # a later pass that reads marker 18 turned a quarter (corners in the wrong order) is not believed
    monkeypatch.setattr(loc, "_rescue_passes", lambda gray: [lambda: {18: np.roll(truth, 1, axis=0)}])
    assert sorted(detect_sheet_markers(img, SPEC)) == [16, 17, 19]
    monkeypatch.setattr(loc, "_rescue_passes", lambda gray: [lambda: {18: truth + 0.5}])
    assert sorted(detect_sheet_markers(img, SPEC)) == [16, 17, 18, 19]


def test_one_misread_marker_is_dropped_from_the_fit(sheet: np.ndarray) -> None:
    img, pose = _photo(sheet, 6)
    markers = detect_markers(img)
    assert sorted(markers) == [16, 17, 18, 19]
    markers[17] = np.roll(markers[17], 1, axis=0)  # its orientation misread: corners a quarter turn off
    cal = localise(img, SPEC, markers=markers)
    assert cal.markers_used == [16, 18, 19]
    assert cal.error_mm < loc.MAX_ERROR_MM and _error_mm(cal, pose) < 1.5


def test_markers_that_disagree_are_refused_when_none_can_be_dropped(sheet: np.ndarray) -> None:
    img, _ = _photo(sheet, 6)
    markers = {m: c for m, c in detect_markers(img).items() if m in (16, 17, 18)}
    markers[18] = np.roll(markers[18], 1, axis=0)
    with pytest.raises(LocaliseError, match=r"markers \[16, 17, 18\] disagree .*mm RMS"):
        localise(img, SPEC, min_markers=3, markers=markers)


def test_two_markers_on_one_edge_are_refused_not_extrapolated(sheet: np.ndarray) -> None:
    img, _ = _photo(sheet, 3)
    markers = {m: c for m, c in detect_markers(img).items() if m in (16, 17)}  # the top edge only
    with pytest.raises(LocaliseError, match=r"too few or too close together.*need more markers"):
        localise(img, SPEC, markers=markers)
    # the same two markers pass with the check switched off: it is the check that refuses
    assert localise(img, SPEC, markers=markers, max_spread_mm=1e9).markers_used == [16, 17]


def test_refusal_reaches_the_user_through_eval(tmp_path) -> None:
    """A route-dice frame with two tray markers under a hand: eval reports the refusal by file name
    instead of reading dice through a guessed tray."""
    faces = ["lake_quarter", "highway_straight", "river_straight"]
    image, objects = dice_scene(faces, 2, 0, 0.3)
    spec = SheetSpec("railroad-ink-dice-tray", 200.0, 150.0)
    found = detect_markers(image)
    assert {20, 21, 22, 23} <= set(found)
    for m in (22, 23):  # hide the bottom edge's markers
        cx, cy = found[m].mean(0).astype(int)
        cv2.circle(image, (int(cx), int(cy)), int(np.ptp(found[m][:, 0])) + 12, (60, 110, 170), -1)
    assert sorted(detect_sheet_markers(image, spec)) == [20, 21]
    cv2.imwrite(str(tmp_path / "dice_0000.jpg"), image)
    h, w = image.shape[:2]
    labels = {"source": "test", "license": "CC0", "attribution": "", "notes": "",
              "items": [{"image": "dice_0000.jpg", "width": w, "height": h, "objects": objects}]}
    (tmp_path / "labels.json").write_text(json.dumps(labels), encoding="utf-8")
    out = tmp_path / "report.json"
    assert main(["eval", "route-dice", str(tmp_path), "--json", str(out)]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["detections"] == 0
    assert len(report["errors"]) == 1
    assert report["errors"][0].startswith("dice_0000.jpg:") and "too few or too close" in report["errors"][0]


def _hard_photo(sheet: np.ndarray, seed: int):
    """A small, tilted, strongly motion-blurred view of the tray (blur 5-12 px in any direction)."""
    rng = np.random.default_rng(seed)
    pose = random_pose(rng, TRAY_SIZE_MM, tilt_deg=(0, 40), fill=(0.3, 0.7))
    img, _ = render_sheet(sheet, TRAY_SIZE_MM, pose, rng=rng, effects=0.6)
    length = int(rng.integers(5, 13))
    kernel = np.zeros((length, length))
    kernel[length // 2, :] = 1
    turn = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), rng.uniform(0, 180), 1)
    kernel = cv2.warpAffine(kernel, turn, (length, length))
    return cv2.filter2D(img, -1, kernel / kernel.sum()), pose


@pytest.mark.parametrize("seed", [100, 105, 111, 112, 117, 129, 136])
def test_hard_views_give_a_right_homography_or_none(sheet: np.ndarray, seed: int) -> None:
    """Seeds 112-136: three blurred markers whose fit put the fourth corner 2-9 mm off before the spread
    check used the corners' own misfit (now refused); 100-111 localise. Within 1.5 mm or refused."""
    img, pose = _hard_photo(sheet, seed)
    corners = np.array([[0, 0], [297, 0], [297, 210], [0, 210]], np.float64)
    try:
        cal = localise(img, SPEC)
    except LocaliseError as exc:
        assert "need more markers" in str(exc) or "disagree" in str(exc) or "found" in str(exc)
        return
    assert np.abs(cal.to_sheet(project(pose, corners)) - corners).max() < 1.5
