"""fit_height draws each candidate column outline into the outline's own box, cut to the blob's window,
instead of a mask the size of the whole window (issue #24): the same pixel counts, so the same heights,
places, confidences and IoUs, bit for bit, as the plain computation copied here from before the change.
The blobs are the recorded scene's, whole and cut by the frame's right and bottom edges (outlines that
leave the frame), with and without stick bands to ignore."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from referee_app.demo import DEMO_ROOT
from referee_app.games.tokyo import load_calibration
from vision.tokyo.calibration import TokyoCalibration
from vision.tokyo.foreground import BRIGHT, pieces_masks
from vision.tokyo.piece_evidence import column_hull
from vision.tokyo.supports import _column_hulls, find_blobs, fit_height
from vision.tokyo.supports import _line_dist as line_dist

DEMO = DEMO_ROOT / "tokyo-highway"
HW = 6.0


def _fit_height_plain(
    calib: TokyoCalibration,
    blob_mask: np.ndarray,
    bbox: tuple[int, int, int, int],
    ignore: np.ndarray | None = None,
    max_height: int = 9,
    lines: list[tuple[np.ndarray, np.ndarray]] | None = None,
    hw: float = 5.0,
) -> tuple[int, float, float, float, float]:
    x0, y0, x1, y1 = bbox
    pad = 40
    ox, oy = max(0, x0 - pad), max(0, y0 - pad)
    roi = blob_mask[oy : y1 + pad, ox : x1 + pad] > 0
    care = np.ones(roi.shape, bool) if ignore is None else ignore[oy : y1 + pad, ox : x1 + pad] == 0
    roi &= care
    area = roi.sum()
    ys, xs = np.nonzero(roi)
    cen = np.array([[xs.mean() + ox, ys.mean() + oy]])
    scores = []
    for h in range(1, max_height + 1):
        guess = calib.camera.ray_to_plane(cen, h * calib.sizes.unit_mm / 2)[0]
        best = (-1.0, 0.0, 0.0)
        for step in (4.0, 1.5):
            cx, cy = (guess[0], guess[1]) if best[0] < 0 else (best[1], best[2])
            for dx in np.arange(-2, 3) * step:
                for dy in np.arange(-2, 3) * step:
                    hull = column_hull(calib, cx + dx, cy + dy, 0.0, h * calib.sizes.unit_mm) - [ox, oy]
                    pm = np.zeros(roi.shape, np.uint8)
                    cv2.fillConvexPoly(pm, hull, 1)
                    inter = np.count_nonzero(pm[roi])
                    iou = inter / max(area + np.count_nonzero(pm[care]) - inter, 1)
                    if lines:
                        z = h * calib.sizes.unit_mm + calib.sizes.stick_thickness_mm / 2
                        top = calib.camera.project(np.array([[cx + dx, cy + dy, z]]))[0][0]
                        iou -= 0.15 * float(np.mean([min(line_dist(top, a, b), 3 * hw) / hw for a, b in lines]))
                    if iou > best[0]:
                        best = (iou, cx + dx, cy + dy)
        scores.append((best[0], h, best[1], best[2]))
    scores.sort(reverse=True)
    iou, h, x, y = scores[0]
    margin = iou - scores[1][0] if len(scores) > 1 else iou
    conf = float(np.clip(margin * 10, 0, 1) * np.clip(iou * 1.4, 0, 1))
    return h, conf, float(x), float(y), float(iou)


@pytest.fixture(scope="module")
def scenes():
    """(calibration, pieces mask, bands, blobs) of three recorded frames: eight blobs, a column's
    side alone up to a whole build, three of them running off the frame's bottom."""
    calib = load_calibration(DEMO / "calibration.json")[0]
    out = []
    for name in ("003.jpg", "009.jpg", "018.jpg"):
        image = cv2.imread(str(DEMO / name))
        if image is None:
            pytest.skip("the recorded Tokyo scene is not bundled")
        (fg,), _ = pieces_masks(image, (BRIGHT,))
        rods = np.zeros(fg.shape, np.uint8)
        h, w = fg.shape
        cv2.line(rods, (0, h // 3), (w, h // 2), 255, int(2 * HW))  # bands crossing the scene
        cv2.line(rods, (w // 3, 0), (w // 2, h), 255, int(2 * HW))
        out.append((calib, fg, rods, find_blobs(image, fg, HW, np.zeros(fg.shape, np.uint8))))
    assert sum(len(b) for *_, b in out) >= 6
    return out


def _same(calib, fg, bbox, rods, **kw) -> None:
    assert fit_height(calib, fg, bbox, rods, hw=HW, **kw) == _fit_height_plain(calib, fg, bbox, rods, hw=HW, **kw)


@pytest.mark.parametrize("with_bands", [False, True])
def test_fit_height_equals_the_plain_fit_on_recorded_blobs(scenes, with_bands: bool) -> None:
    for calib, fg, rods, blobs in scenes:
        for b in blobs:
            _same(calib, fg, b.bbox, rods if with_bands else None)


def test_fit_height_equals_the_plain_fit_with_lines(scenes) -> None:
    calib, fg, rods, blobs = scenes[2]
    x0, y0, x1, y1 = blobs[0].bbox
    lines = [(np.array([x0 - 30.0, y0]), np.array([x1 + 30.0, y0 + 5.0]))]
    _same(calib, fg, blobs[0].bbox, rods, lines=lines)


def test_fit_height_equals_the_plain_fit_at_the_frame_edges(scenes) -> None:
    # the frame cut through a blob's middle: its window and many outlines run off the right or bottom
    for calib, fg, rods, blobs in scenes[1:]:
        x0, y0, x1, y1 = blobs[0].bbox
        cx, cy = (x0 + x1) // 2 + 1, (y0 + y1) // 2 + 1
        for cut in ((fg[:, :cx], rods[:, :cx]), (fg[:cy], rods[:cy])):
            cut_fg, cut_rods = (np.ascontiguousarray(a) for a in cut)
            box = (x0, y0, min(x1, cut_fg.shape[1]), min(y1, cut_fg.shape[0]))
            _same(calib, cut_fg, box, cut_rods)


def test_fit_height_equals_the_plain_fit_on_part_of_a_blob(scenes) -> None:
    # the window round a blob's lower right quarter: the taller outlines run off its top and left
    for calib, fg, rods, blobs in scenes:
        x0, y0, x1, y1 = blobs[0].bbox
        _same(calib, fg, ((x0 + x1) // 2, (y0 + y1) // 2, x1, y1), rods)


@pytest.mark.parametrize("b,n", [(1, 32), (25, 32), (7, 5)])
def test_project_each_equals_project_set_by_set(scenes, b: int, n: int) -> None:
    cam = scenes[0][0].camera
    rng = np.random.default_rng(b * 100 + n)
    pts = rng.uniform(-200, 200, (b, n, 3))
    pts[..., 2] = rng.uniform(0, 90, (b, n))
    each = cam.project_each(pts)
    for k in range(b):
        assert np.array_equal(each[k], cam.project(pts[k])[0])


def test_column_hulls_equal_column_hull(scenes) -> None:
    calib = scenes[0][0]
    rng = np.random.default_rng(5)
    xs, ys = rng.uniform(-150, 150, 25), rng.uniform(-150, 150, 25)
    for h in (1, 4, 9):
        for k, hull in enumerate(_column_hulls(calib, xs, ys, h)):
            assert np.array_equal(hull, column_hull(calib, xs[k], ys[k], 0.0, h * calib.sizes.unit_mm))
