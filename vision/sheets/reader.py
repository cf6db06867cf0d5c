"""Read a photographed Railroad Ink sheet square by square.

Top view of the grid (5 px/mm) -> pen ink = pixels much darker than the paper around them (the
paper's brightness is estimated by a wide closing, so uneven light and the light print drop out)
-> per square: for each side a strip from near the centre to the edge, which a small learned
classifier names nothing / highway (a bold stroke) / railway (a thin line with ties); a second one
tells from the centre whether there is a station (a filled box); opposite highway and railway
sides without a station are an overpass; the top-left corner box holds the round number, read by
a small digit classifier. The side and station classifiers learned from rendered photos
(`datasets.sheets.train_squares`): a width rule could not tell a railway whose ties blur along the
line from a highway.
Squares under something that is neither paper nor pen (a hand, a die) are "cannot read", and the
whole sheet is refused when it is seen at too steep an angle.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from vision.localise import Calibration
from vision.morph import close_disc, open_disc
from vision.sheets import geometry as g
from vision.sheets.features import SIDES, centre_patches, darkness, side_patches, smoothed
from vision.tiles.mlp import MLP
from vision.tiles.rectify import TopView, calibrate, top_view
from vision.tiles.reuse import changed_regions
from vision.types import check_image

PX_PER_MM = 5.0
MAX_SKEW = 0.8  # side-length spread of the grid in the image above which the view is too steep
DIGIT_INK = 0.7
DIGIT_PX = 20
MIN_DIGIT_CONFIDENCE = 0.95
MODEL_PATH = Path(__file__).with_name("round_digits.npz")
SIDES_PATH = Path(__file__).with_name("sides.npz")
STATION_PATH = Path(__file__).with_name("station.npz")
# Reuse of the last frame's reading: a square is read again when its pixels, or those this close
# round it, changed; it is then read on a crop reaching this far past it, which covers everything
# its reading depends on (paper estimate: 7 mm closing + 2 mm blur to 3 sigma, 10.5 mm; covered
# test: an 8 mm opening on top, 18.5 mm; the strips' blur, under 1 mm), with room to spare.
CHANGE_MARGIN_MM = 3.0
READ_MARGIN_MM = 25.0


@cache
def digit_model() -> MLP:
    return MLP.load(MODEL_PATH)


@cache
def side_model() -> MLP:
    return MLP.load(SIDES_PATH)


@cache
def station_model() -> MLP:
    return MLP.load(STATION_PATH)


@dataclass
class SquareReading:
    square: str
    status: str  # "read" | "unreadable"
    sides: str | None  # N,E,S,W each H, R or -
    overpass: bool
    station: bool
    round_number: int | None
    confidence: float
    number_confidence: float = 0.0
    reason: str = ""
    region_mm: tuple[float, float, float, float] | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "square": self.square,
            "status": self.status,
            "sides": self.sides,
            "overpass": self.overpass,
            "station": self.station,
            "round": self.round_number,
            "confidence": round(self.confidence, 4),
            "reason": self.reason,
            "region_mm": list(self.region_mm) if self.region_mm else None,
        }


def ink_mask(view: np.ndarray, ppm: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(pen ink mask, brightness relative to the paper, covered mask) of the top view."""
    gray8 = cv2.cvtColor(view, cv2.COLOR_BGR2GRAY)
    gray = gray8.astype(np.float32)
    # closed on the 8-bit image: the same values (a closing only picks among them), 4x faster; by a
    # disc's rectangles (vision.morph): the same values again, 2-3x faster still
    paper8 = close_disc(gray8, int(round(7 * ppm)) | 1)
    paper = cv2.GaussianBlur(paper8.astype(np.float32), (0, 0), 2 * ppm)
    # paper seen very dark (the sheet is in deep shadow or not there at all)
    gone = (paper < 35).astype(np.uint8)
    # (in place, on arrays of this call only: the same values with fewer frame-sized temporaries)
    ratio = np.divide(gray, np.maximum(paper, 1.0, out=paper), out=gray)
    ink = ratio < 0.62
    # covered: large dark areas (wider than any stroke or station box) or strongly coloured areas
    dark = _open_wide(ink.astype(np.uint8), int(round(8.0 * ppm)) | 1)
    hsv = cv2.cvtColor(view, cv2.COLOR_BGR2HSV)
    coloured = cv2.inRange(hsv, (0, 56, 41), (255, 255, 255))  # saturation > 55 and value > 40 ...
    coloured[ink] = 0  # ... and not ink: coloured pens are ink
    coloured = cv2.morphologyEx(coloured, cv2.MORPH_OPEN, np.ones((int(3 * ppm), int(3 * ppm)), np.uint8))
    covered = (dark | coloured | gone) > 0
    return ink, ratio, covered


def _open_wide(mask: np.ndarray, size: int) -> np.ndarray:
    """Opening of a 0/1 mask by a `size` disc. Most frames have nothing that wide: the erosion by the
    largest square inside the disc, which is fast and keeps at least what the disc's erosion keeps,
    is then empty, and so is the opening."""
    if not cv2.erode(mask, np.ones((_inner_square(size),) * 2, np.uint8)).any():
        return np.zeros_like(mask)
    return open_disc(mask, size)


@cache
def _disc(size: int) -> np.ndarray:
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))


@cache
def _inner_square(size: int) -> int:
    """Side of the largest centred square of ones in `_disc(size)` (odd, so it stays centred)."""
    disc, c = _disc(size), size // 2
    h = 0
    while h < c and disc[c - h - 1 : c + h + 2, c - h - 1 : c + h + 2].all():
        h += 1
    return 2 * h + 1


def classify_squares(
    dark: np.ndarray, centres: list[np.ndarray], ppm: float
) -> list[tuple[str, bool, list[float]]]:
    """Per square centred at view pixel c: (sides N,E,S,W as H/R/-, station, confidence of each of
    the five decisions), by the learned side and station classifiers, all squares in one batch."""
    if not centres:
        return []
    side_src, centre_src = smoothed(dark, ppm)
    at = np.asarray(centres, np.float64)
    sides = side_model().predict_proba(side_patches(side_src, at, ppm)).reshape(len(centres), len(SIDES), -1)
    station = station_model().predict_proba(centre_patches(centre_src, at, ppm))
    labels = side_model().labels
    return [
        (
            "".join(labels[int(k)] for k in sides[i].argmax(1)),
            bool(station[i, 1] > 0.5),
            [float(v) for v in sides[i].max(1)] + [float(station[i].max())],
        )
        for i in range(len(centres))
    ]


def classify_square(dark: np.ndarray, c: np.ndarray, ppm: float) -> tuple[str, bool, list[float]]:
    """`classify_squares` for one square."""
    return classify_squares(dark, [c], ppm)[0]


def digit_crop(mask: np.ndarray, x0: int, y0: int, ppm: float) -> np.ndarray | None | str:
    """The ink of the top-left number box, cropped tight; None when the box is empty and a
    reason string when what is there is no digit."""
    n = int(round(g.NUMBER_BOX_MM * ppm))
    box = mask[y0 : y0 + n, x0 : x0 + n].astype(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(box, 8)
    thin, long = 1.5 * ppm, 0.8 * n  # a grid line or a route's end along the box edge, not a digit
    keep = [
        k
        for k in range(1, count)
        if stats[k, cv2.CC_STAT_AREA] >= 0.3 * ppm * ppm
        and not (max(stats[k, 2], stats[k, 3]) >= long and min(stats[k, 2], stats[k, 3]) <= thin)
    ]
    if not keep:
        return None
    sel = np.isin(labels, keep)
    ys, xs = np.nonzero(sel)
    if ys.max() - ys.min() < 2.0 * ppm:
        return "a dot or a smudge"
    return sel[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1].astype(np.float32)


def read_digit(mask: np.ndarray, x0: int, y0: int, ppm: float) -> tuple[int | None, float]:
    crop = digit_crop(mask, x0, y0, ppm)
    if crop is None:
        return None, 1.0
    if isinstance(crop, str):
        return None, 0.5
    return classify_digit(crop)


def digit_patch(crop: np.ndarray) -> np.ndarray:
    """Ink crop (tight box) -> DIGIT_PX x DIGIT_PX, height-normalised, centred."""
    h, w = crop.shape
    s = (DIGIT_PX - 4) / max(h, w)
    small = cv2.resize(crop, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA)
    out = np.zeros((DIGIT_PX, DIGIT_PX), np.float32)
    y, x = (DIGIT_PX - small.shape[0]) // 2, (DIGIT_PX - small.shape[1]) // 2
    out[y : y + small.shape[0], x : x + small.shape[1]] = small
    return out


def classify_digit(crop: np.ndarray) -> tuple[int | None, float]:
    probs = digit_model().predict_proba(digit_patch(crop).reshape(1, -1))[0]
    k = int(np.argmax(probs))
    label = digit_model().labels[k]
    conf = float(probs[k])
    if label == "none" or conf < MIN_DIGIT_CONFIDENCE:
        return None, conf
    return int(label), conf


def read_squares_in_view(view: TopView, previous: SheetReading | None = None) -> dict[str, SquareReading]:
    """Every square's reading. With the last frame's reading (same sheet, same camera), squares whose
    pixels did not change keep theirs, and the changed ones are read on a crop of the view around
    them, wide enough that the paper estimate and the covered test there see what they see on the
    whole view."""
    names = g.square_names()
    changed = set(names)
    if previous is not None:
        changed = changed_regions(view, previous.view, square_windows(view, CHANGE_MARGIN_MM))
    if previous is None or changed == set(names):
        return _read_squares(view.image, (0, 0), names, view)
    out = dict(previous.squares)
    if changed:
        boxes = square_windows(view, READ_MARGIN_MM)
        h, w = view.image.shape[:2]
        x0, y0 = max(0, min(boxes[n][0] for n in changed)), max(0, min(boxes[n][1] for n in changed))
        x1, y1 = min(w, max(boxes[n][2] for n in changed)), min(h, max(boxes[n][3] for n in changed))
        todo = [n for n in names if n in changed]
        out.update(_read_squares(view.image[y0:y1, x0:x1], (x0, y0), todo, view))
    return {name: out[name] for name in names}


def square_windows(view: TopView, margin_mm: float) -> dict[str, tuple[int, int, int, int]]:
    """Each square's box in view pixels, widened by `margin_mm` on every side."""
    out = {}
    for name in g.square_names():
        sx, sy = g.square_origin_mm(name)
        x0, y0 = view.mm_to_px(sx - margin_mm, sy - margin_mm)
        x1, y1 = view.mm_to_px(sx + g.SQUARE_MM + margin_mm, sy + g.SQUARE_MM + margin_mm)
        out[name] = (int(np.floor(x0)), int(np.floor(y0)), int(np.ceil(x1)), int(np.ceil(y1)))
    return out


def _read_squares(
    image: np.ndarray, offset: tuple[int, int], names: list[str], view: TopView
) -> dict[str, SquareReading]:
    """The squares `names` read from `image`, the part of the view whose top-left is view pixel
    `offset`."""
    ppm = view.px_per_mm
    _, ratio, covered = ink_mask(image, ppm)
    dark = darkness(ratio)
    digits = ratio < DIGIT_INK  # darker than the printed grid lines
    out: dict[str, SquareReading] = {}
    n = int(round(g.SQUARE_MM * ppm))
    todo: list[tuple[str, int, int]] = []
    for name in names:
        sx, sy = g.square_origin_mm(name)
        x0, y0 = (int(round(v)) for v in view.mm_to_px(sx, sy))
        x0, y0 = x0 - offset[0], y0 - offset[1]
        if covered[y0 : y0 + n, x0 : x0 + n].mean() > 0.01:
            out[name] = _unreadable(name, "square covered by something that is not pen on paper")
        else:
            todo.append((name, x0, y0))
    found = classify_squares(dark, [np.array([x0 + n / 2, y0 + n / 2]) for _, x0, y0 in todo], ppm)
    m = int(round(0.4 * ppm))
    for (name, x0, y0), (sides, station, confs) in zip(todo, found, strict=True):
        overpass = (
            not station
            and sides[0] == sides[2]
            and sides[1] == sides[3]
            and sides[0] != sides[1]
            and "-" not in sides
        )
        number, n_conf = (
            read_digit(digits, x0 + m, y0 + m, ppm) if sides != "----" or station else (None, 1.0)
        )
        out[name] = SquareReading(
            name, "read", sides, overpass, station, number, float(min(confs)), n_conf, "", _region(name)
        )
    return out


def _region(name: str) -> tuple[float, float, float, float]:
    sx, sy = g.square_origin_mm(name)
    return (sx, sy, sx + g.SQUARE_MM, sy + g.SQUARE_MM)


def _unreadable(name: str, why: str) -> SquareReading:
    """A square the reader will not guess at, with the reason and its region on the sheet (mm)."""
    return SquareReading(name, "unreadable", None, False, False, None, 0.0, 0.0, why, _region(name))


def sheet_view(image: np.ndarray, calibration: Calibration | None = None) -> tuple[TopView, Calibration]:
    cal = calibrate(image, g.SHEET, g.SHEET_MM, calibration)
    ox, oy = g.GRID_ORIGIN_MM
    span = g.SQUARES * g.SQUARE_MM
    return top_view(image, cal, (ox - 2, oy - 2, ox + span + 2, oy + span + 2), PX_PER_MM), cal


@dataclass
class SheetReading:
    """One frame's squares and the top view they were read from (what the next frame reuses)."""

    squares: dict[str, SquareReading]
    view: TopView


def read_sheet_reading(
    image: np.ndarray, calibration: Calibration | None = None, previous: SheetReading | None = None
) -> SheetReading:
    """`read_sheet` keeping the view; with `previous`, the last frame's reading from the same camera,
    unchanged squares keep their reading (see `read_squares_in_view`)."""
    check_image(image)
    view, _ = sheet_view(image, calibration)
    if view.skew > MAX_SKEW:
        why = f"sheet seen at too steep an angle (side lengths differ by {view.skew:.0%})"
        return SheetReading({name: _unreadable(name, why) for name in g.square_names()}, view)
    squares = read_squares_in_view(view, previous)
    if previous is not None and all(squares[k] is previous.squares[k] for k in squares):
        view = previous.view  # nothing read again: the last view stays the reference (drift adds up)
    return SheetReading(squares, view)


def read_sheet(image: np.ndarray, calibration: Calibration | None = None) -> dict[str, SquareReading]:
    """{square a1..g7: SquareReading}. Raises VisionError when the sheet's markers are not found."""
    return read_sheet_reading(image, calibration).squares
