"""Which regions of a rectified top view changed since the last frame, so a reader re-reads only those.

A camera watching a still table sees the same pixels frame after frame, up to sensor noise; a hand or
a new piece changes a few cells. A region counts as changed when enough of its pixels moved by more
than noise does (a number's strokes, a hand's edge) or when its mean brightness moved (the light
changed: every reading there may shift). A view warped with a different homography (the board was
moved, or found again) changes everything.
"""

from __future__ import annotations

from collections.abc import Mapping

import cv2
import numpy as np

from vision.localise import Calibration
from vision.tiles.rectify import TopView

PIXEL_STEP = 24  # grey levels (any colour channel) a pixel must move to count; sensor noise stays under
CHANGED_SHARE = 0.002  # share of a region's pixels that moved above which the region changed
MIN_CHANGED_PX = 4  # ... and never fewer than this many (a tiny region is not flipped by one pixel)
BRIGHTNESS_STEP = 4.0  # mean grey-level shift of a region above which the light changed there
HOMOGRAPHY_TOL = 1e-6  # relative change of the view's warp above which the board moved
STEADY_PX = 0.75  # a sheet found again this close to where it was (image px) has not moved
# `markers_still(blur_px=...)`: blurred by this sigma, a black-and-white marker edge moved by 0.75 px
# still moves 34-41 grey levels (over PIXEL_STEP; 0.5 px: 23-28) while the blur of most defocused or
# shaken frames and the sensor noise stay at 5-11 (the bundled Railroad Ink recording against its
# first frame; strong motion blur: 35-57, searched). A marker moved less than STEADY_PX, where
# `steady` keeps the calibration anyway.
MARKER_BLUR_PX = 1.5

Box = tuple[int, int, int, int]  # x0, y0, x1, y1 in top-view pixels, end exclusive


def same_warp(view: TopView, last: TopView) -> bool:
    """Whether both views were warped the same way from camera images of the same size."""
    if view.image.shape != last.image.shape or view.px_per_mm != last.px_per_mm:
        return False
    if view.origin_mm != last.origin_mm:
        return False
    a, b = view.to_image / view.to_image[2, 2], last.to_image / last.to_image[2, 2]
    return bool(np.abs(a - b).max() <= HOMOGRAPHY_TOL * max(1.0, float(np.abs(b).max())))


def steady(found: Calibration, last: Calibration | None, tol_px: float = STEADY_PX) -> Calibration:
    """`last` when `found` (this frame's localisation of the same sheet) puts the sheet's corners
    within `tol_px` of where `last` does, else `found`. Marker corners jitter by a fraction of a pixel
    between frames; keeping one warp while the sheet stays put lets the views be compared pixel for
    pixel, so unchanged regions keep their reading."""
    if last is None or last.sheet != found.sheet or tuple(last.image_size) != tuple(found.image_size):
        return found
    w, h = found.sheet_size_mm
    corners = np.array([[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]])
    moved = np.linalg.norm(found.to_image(corners) - last.to_image(corners), axis=1).max()
    return last if moved <= tol_px else found


def patch_changed(now: np.ndarray, last: np.ndarray, blur_px: float = 0.0) -> bool:
    """Whether one BGR patch differs from the last frame's by the rule `changed_regions` applies;
    with `blur_px`, only when both patches blurred by that sigma differ too (see `markers_still`)."""
    if now.shape != last.shape:
        return True
    if blur_px > 0:  # unchanged as they are, or blurred
        return patch_changed(now, last) and patch_changed(
            cv2.GaussianBlur(now, (0, 0), blur_px), cv2.GaussianBlur(last, (0, 0), blur_px))
    diff = cv2.absdiff(now, last)
    if not diff.any():
        return False
    # (the largest channel difference per pixel, by OpenCV: numpy's per-axis max costs ~10x more on
    # these small patches)
    most = cv2.reduce(diff.reshape(-1, 3), 1, cv2.REDUCE_MAX)
    moved = int(np.count_nonzero(most > PIXEL_STEP))
    if moved > max(MIN_CHANGED_PX, CHANGED_SHARE * now.shape[0] * now.shape[1]):
        return True
    # mean brightness shift over the pixels and channels, from exact integer sums
    shift = (int(now.sum(dtype=np.int64)) - int(last.sum(dtype=np.int64))) / now.size
    return abs(shift) > BRIGHTNESS_STEP


def marker_patches(image: np.ndarray, cal: Calibration, pad_px: int = 4) -> list[tuple[Box, np.ndarray]]:
    """The camera-image boxes round the markers `cal` was fitted to, with their pixels (copies)."""
    corners = cal.spec().marker_corners()
    h, w = image.shape[:2]
    out = []
    for mid in cal.markers_used:
        if mid not in corners:
            continue
        p = cal.to_image(corners[mid])
        x0, y0 = (int(np.floor(v)) - pad_px for v in p.min(0))
        x1, y1 = (int(np.ceil(v)) + pad_px for v in p.max(0))
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        if x1 > x0 and y1 > y0:
            out.append(((x0, y0, x1, y1), image[y0:y1, x0:x1].copy()))
    return out


def markers_still(image: np.ndarray, patches: list[tuple[Box, np.ndarray]], spare: int = 0,
                  at_least: int = 3, blur_px: float = 0.0) -> bool:
    """Whether the marker patches of the last search look the same in `image` (the sheet has not
    moved, so its last calibration holds without searching for markers): all of them, or all but
    `spare` when at least `at_least` do. A board that moved moves all its markers, while a hand over
    one corner covers only that one, so `spare=1` spares a search whenever a hand covers a marker.
    `blur_px` (a sigma, pixels) compares the patches blurred: a frame that is only sharper or blurrier
    than the last (focus, a shake of the camera) then still counts as still, while a marker moved
    by half a pixel does not (MARKER_BLUR_PX)."""
    if not patches:
        return False
    still = sum(not patch_changed(image[y0:y1, x0:x1], last, blur_px) for (x0, y0, x1, y1), last in patches)
    return still == len(patches) or (spare > 0 and still >= max(at_least, len(patches) - spare))


def changed_regions(view: TopView, last: TopView | None, boxes: Mapping[str, Box]) -> set[str]:
    """Names of `boxes` whose pixels in `view` differ from `last` (every name when there is no last
    view or it was warped differently). Boxes are clipped to the view."""
    if last is None or not same_warp(view, last):
        return set(boxes)
    return changed_boxes(view.image, last.image, boxes)


def changed_boxes(now: np.ndarray, last: np.ndarray, boxes: Mapping[str, Box]) -> set[str]:
    """Names of `boxes` (pixel boxes of two BGR images of one size) where `now` differs from `last`:
    enough pixels moved by more than noise, or the mean brightness moved."""
    diff = cv2.absdiff(now, last)
    if not diff.any():
        return set()
    # a pixel moved when any channel did: grey of the thresholded difference is then at least 29
    # (one channel at 255), else 0. Fewer frame-sized temporaries than splitting the channels.
    moved = cv2.cvtColor(cv2.threshold(diff, PIXEL_STEP, 255, cv2.THRESH_BINARY)[1], cv2.COLOR_BGR2GRAY)
    moved = cv2.threshold(moved, 0, 1, cv2.THRESH_BINARY)[1]
    h, w = moved.shape
    names = list(boxes)
    xy = np.array([boxes[n] for n in names], np.int64).reshape(-1, 4)
    x0, y0 = np.maximum(xy[:, 0], 0), np.maximum(xy[:, 1], 0)
    x1, y1 = np.minimum(xy[:, 2], w), np.minimum(xy[:, 3], h)
    area = np.maximum(1, (x1 - x0) * (y1 - y0))
    moved_px = _box_sums(moved, x0, y0, x1, y1)
    now_gray, last_gray = (cv2.cvtColor(v, cv2.COLOR_BGR2GRAY) for v in (now, last))
    shift = np.abs(_box_sums(now_gray, x0, y0, x1, y1) - _box_sums(last_gray, x0, y0, x1, y1)) / area
    hit = (moved_px > np.maximum(MIN_CHANGED_PX, CHANGED_SHARE * area)) | (shift > BRIGHTNESS_STEP)
    return {n for n, k in zip(names, hit, strict=True) if k}


def image_changed(now: np.ndarray, last: np.ndarray | None, size: int = 32,
                  diff: np.ndarray | None = None) -> bool:
    """Whether a camera image differs from `last` anywhere: any `size`-pixel square of it (the last
    row and column cut short) changed by the rule `changed_boxes` applies; a different size, or no
    last image, is a change. All squares at once, the pixels that moved first (the usual answer).
    `diff`: `cv2.absdiff(now, last)`, when the caller has it already."""
    if last is None or now.shape != last.shape:
        return True
    if diff is None:
        diff = cv2.absdiff(now, last)
    if not diff.any():
        return False
    h, w = now.shape[:2]
    ys, xs = np.r_[0:h:size, h], np.r_[0:w:size, w]
    area = np.diff(ys)[:, None] * np.diff(xs)[None, :]
    # a pixel moved where any channel moved more than PIXEL_STEP: one inRange marks the others (255);
    # with at most MIN_CHANGED_PX moved in all, no square can pass its threshold (the usual still frame)
    still = cv2.inRange(diff, (0, 0, 0), (PIXEL_STEP,) * 3)
    depth = cv2.CV_32S if h * w * 255 < 2**31 else cv2.CV_64F  # sums of 8-bit pixels that cannot overflow
    if h * w - cv2.countNonZero(still) > MIN_CHANGED_PX:
        # sums of 255s: whole multiples of 255, so the division is exact
        moved = area - _grid_sums(cv2.integral(still, sdepth=depth), ys, xs) / 255
        if (moved > np.maximum(MIN_CHANGED_PX, CHANGED_SHARE * area)).any():
            return True
    # each square's grey sum in both pictures, from 8-bit integrals (exact integers, as the sum of the
    # signed differences was)
    now_sum, last_sum = (_grid_sums(cv2.integral(cv2.cvtColor(v, cv2.COLOR_BGR2GRAY), sdepth=depth), ys, xs)
                         for v in (now, last))
    return bool((np.abs(now_sum - last_sum) / area > BRIGHTNESS_STEP).any())


def _grid_sums(integral: np.ndarray, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
    """Sums over the grid cells between consecutive `ys` and `xs` (cell edges) of an integral image."""
    corners = integral[np.ix_(ys, xs)].astype(np.float64)
    return corners[1:, 1:] - corners[:-1, 1:] - corners[1:, :-1] + corners[:-1, :-1]


def _box_sums(image: np.ndarray, x0: np.ndarray, y0: np.ndarray, x1: np.ndarray,
              y1: np.ndarray) -> np.ndarray:
    """Exact sums of an 8-bit single-channel image over the boxes [x0, x1) x [y0, y1) (arrays; an
    empty box sums to 0): per distinct row band, its column sums, then running sums along the row
    (no frame-sized integral image: boxes here share a few bands)."""
    out = np.zeros(len(x0), np.int64)
    bands: dict[tuple[int, int], list[int]] = {}
    for k in range(len(x0)):
        if x1[k] > x0[k] and y1[k] > y0[k]:
            bands.setdefault((int(y0[k]), int(y1[k])), []).append(k)
    for (top, bottom), ks in bands.items():
        cols = cv2.reduce(image[top:bottom], 0, cv2.REDUCE_SUM, dtype=cv2.CV_32S).ravel()
        run = np.concatenate([[0], np.cumsum(cols, dtype=np.int64)])
        idx = np.array(ks)
        out[idx] = run[x1[idx]] - run[x0[idx]]
    return out
