"""Read a photographed Railroad Ink sheet square by square.

Top view of the grid (5 px/mm) -> pen ink = pixels much darker than the paper around them (the
paper's brightness is estimated by a wide closing, so uneven light and the light print drop out)
-> per square: for each side a strip from near the centre to the edge, whose ink width profile
tells nothing / highway (a bold stroke) / railway (a thin line with wider ties); the centre tells
station (a filled box); opposite highway and railway sides without a station are an overpass;
the top-left corner box holds the round number, read by a small digit classifier.
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
from vision.sheets import geometry as g
from vision.tiles.mlp import MLP
from vision.tiles.rectify import TopView, calibrate, top_view
from vision.types import check_image

PX_PER_MM = 5.0
MAX_SKEW = 0.8  # side-length spread of the grid in the image above which the view is too steep
STRIP = (3.8, 9.2)  # a side's strip runs this far from the square's centre (mm)
STRIP_HALF = 3.0  # and is this wide on each side of the axis (mm)
THIN_ROWS = 0.15  # share of a side's stroke much thinner than its widest parts: ties, so a railway
STATION_DIAG_MM = 3.2
MERGED_TIES_MM = 3.4  # a stroke this wide all along is a railway whose ties blur together
FAINT = 0.8  # paper-relative brightness below which a pixel is (maybe faint) pen
DIGIT_INK = 0.7
DIGIT_PX = 20
MIN_DIGIT_CONFIDENCE = 0.95
MODEL_PATH = Path(__file__).with_name("round_digits.npz")


@cache
def digit_model() -> MLP:
    return MLP.load(MODEL_PATH)


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
    gray = cv2.cvtColor(view, cv2.COLOR_BGR2GRAY).astype(np.float32)
    k = int(round(7 * ppm)) | 1
    paper = cv2.morphologyEx(gray, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    paper = cv2.GaussianBlur(paper, (0, 0), 2 * ppm)
    ratio = gray / np.maximum(paper, 1.0)
    ink = ratio < 0.62
    # covered: large dark areas (wider than any stroke or station box) or strongly coloured areas
    big = int(round(8.0 * ppm)) | 1
    dark = cv2.morphologyEx(
        ink.astype(np.uint8), cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (big, big))
    )
    hsv = cv2.cvtColor(view, cv2.COLOR_BGR2HSV)
    coloured = ((hsv[..., 1] > 55) & (hsv[..., 2] > 40) & ~ink).astype(np.uint8)  # coloured pens are ink
    coloured = cv2.morphologyEx(coloured, cv2.MORPH_OPEN, np.ones((int(3 * ppm), int(3 * ppm)), np.uint8))
    # paper seen very dark (the sheet is in deep shadow or not there at all)
    gone = (paper < 35).astype(np.uint8)
    covered = (dark | coloured | gone) > 0
    return ink, ratio, covered


def _strip(ink: np.ndarray, c: np.ndarray, side: str, ppm: float) -> np.ndarray:
    """Ink of one side's strip as rows (along the side axis, centre outwards) x columns (across)."""
    d = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}[side]
    r0, r1 = (int(round(v * ppm)) for v in STRIP)
    w = int(round(STRIP_HALF * ppm))
    cx, cy = int(round(c[0])), int(round(c[1]))
    if side in "NS":
        ys = cy + d[1] * np.arange(r0, r1)
        return ink[ys[:, None], cx + np.arange(-w, w + 1)[None, :]]
    xs = cx + d[0] * np.arange(r0, r1)
    return ink[cy + np.arange(-w, w + 1)[None, :], xs[:, None]]


def classify_side(strip: np.ndarray, faint: np.ndarray, ppm: float) -> tuple[str, float]:
    """'H', 'R' or '-' with a margin-based confidence, from the ink and faint-ink strips."""
    w = int(round(2.0 * ppm))
    mid = faint.shape[1] // 2
    present = float(faint[:, mid - w : mid + w + 1].any(1).mean())
    if present < 0.6:
        return "-", float(np.clip((0.6 - present) / 0.3, 0, 1))
    rows = faint[:, mid - w : mid + w + 1].any(1)
    widths = strip.sum(1)[rows] / ppm  # ink across the strip, mm, on rows where there is a stroke
    top = float(np.percentile(widths, 90))
    if top < 0.3:
        return "R", 0.3  # only a faint thin line
    # a railway's ties make the stroke much wider in places and leave it thin (or too faint to
    # count as ink) between them; a highway is one even bold stroke
    thin = float((widths < 0.55 * top).mean())
    score = thin - THIN_ROWS
    if score <= 0 and float(np.median(widths)) >= MERGED_TIES_MM:
        score = 0.1
    conf_presence = float(np.clip((present - 0.6) / 0.25, 0, 1))
    return ("R" if score > 0 else "H"), min(conf_presence, float(np.clip(abs(score) / 0.15, 0, 1)))


def has_station(ink: np.ndarray, c: np.ndarray, ppm: float) -> tuple[bool, float]:
    """A filled box at the centre: ink on the diagonals 3.2 mm out from the centre, where a box of
    5.5 mm or more has ink and crossing or meeting strokes (at most 3 mm wide) leave paper."""
    r = STATION_DIAG_MM * ppm / np.sqrt(2)
    h = max(1, int(round(0.4 * ppm)))
    hits = 0
    for dx, dy in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
        x, y = int(round(c[0] + dx * r)), int(round(c[1] + dy * r))
        hits += int(ink[y - h : y + h + 1, x - h : x + h + 1].mean() > 0.5)
    return hits >= 3, (1.0 if hits in (0, 4) else 0.5)


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


def read_squares_in_view(view: TopView) -> dict[str, SquareReading]:
    ppm = view.px_per_mm
    ink, ratio, covered = ink_mask(view.image, ppm)
    faint = ratio < FAINT  # also thin or blurred strokes: decides whether a side has a stroke
    digits = ratio < DIGIT_INK  # darker than the printed grid lines
    out: dict[str, SquareReading] = {}
    for name in g.square_names():
        sx, sy = g.square_origin_mm(name)
        region = (sx, sy, sx + g.SQUARE_MM, sy + g.SQUARE_MM)
        x0, y0 = (int(round(v)) for v in view.mm_to_px(sx, sy))
        n = int(round(g.SQUARE_MM * ppm))
        if covered[y0 : y0 + n, x0 : x0 + n].mean() > 0.01:
            out[name] = SquareReading(
                name,
                "unreadable",
                None,
                False,
                False,
                None,
                0.0,
                0.0,
                "square covered by something that is not pen on paper",
                region,
            )
            continue
        c = np.array([x0 + n / 2, y0 + n / 2])
        station, st_conf = has_station(ink, c, ppm)
        sides, confs = "", [st_conf]
        for side in "NESW":
            kind, conf = classify_side(_strip(ink, c, side, ppm), _strip(faint, c, side, ppm), ppm)
            sides += kind
            confs.append(conf)
        overpass = (
            not station
            and sides[0] == sides[2]
            and sides[1] == sides[3]
            and sides[0] != sides[1]
            and "-" not in sides
        )
        m = int(round(0.4 * ppm))
        number, n_conf = (
            read_digit(digits, x0 + m, y0 + m, ppm) if sides != "----" or station else (None, 1.0)
        )
        out[name] = SquareReading(
            name, "read", sides, overpass, station, number, float(min(confs)), n_conf, "", region
        )
    return out


def sheet_view(image: np.ndarray, calibration: Calibration | None = None) -> tuple[TopView, Calibration]:
    cal = calibrate(image, g.SHEET, g.SHEET_MM, calibration)
    ox, oy = g.GRID_ORIGIN_MM
    span = g.SQUARES * g.SQUARE_MM
    return top_view(image, cal, (ox - 2, oy - 2, ox + span + 2, oy + span + 2), PX_PER_MM), cal


def read_sheet(image: np.ndarray, calibration: Calibration | None = None) -> dict[str, SquareReading]:
    """{square a1..g7: SquareReading}. Raises VisionError when the sheet's markers are not found."""
    check_image(image)
    view, _ = sheet_view(image, calibration)
    if view.skew > MAX_SKEW:
        why = f"sheet seen at too steep an angle (side lengths differ by {view.skew:.0%})"
        return {
            name: SquareReading(
                name,
                "unreadable",
                None,
                False,
                False,
                None,
                0.0,
                0.0,
                why,
                (
                    *g.square_origin_mm(name),
                    g.square_origin_mm(name)[0] + g.SQUARE_MM,
                    g.square_origin_mm(name)[1] + g.SQUARE_MM,
                ),
            )
            for name in g.square_names()
        }
    return read_squares_in_view(view)
