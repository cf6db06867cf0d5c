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
TIE_RATIO = 1.7  # widest / thinnest stroke width along a side above which it has ties (railway)
STATION_OPEN_MM = 4.0
FAINT = 0.8  # paper-relative brightness below which a pixel is (maybe faint) pen
DIGIT_PX = 20
MIN_DIGIT_CONFIDENCE = 0.6
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
        return {"square": self.square, "status": self.status, "sides": self.sides, "overpass": self.overpass,
                "station": self.station, "round": self.round_number, "confidence": round(self.confidence, 4),
                "reason": self.reason, "region_mm": list(self.region_mm) if self.region_mm else None}


def ink_mask(view: np.ndarray, ppm: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(pen ink, faint ink, covered) boolean masks of the top view. Faint ink also catches thin or
    blurred strokes; it decides whether something is there, ink decides how wide it is."""
    gray = cv2.cvtColor(view, cv2.COLOR_BGR2GRAY).astype(np.float32)
    k = int(round(7 * ppm)) | 1
    paper = cv2.morphologyEx(gray, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    paper = cv2.GaussianBlur(paper, (0, 0), 2 * ppm)
    ratio = gray / np.maximum(paper, 1.0)
    ink = ratio < 0.62
    # covered: large dark areas (wider than any stroke or station box) or strongly coloured areas
    big = int(round(8.0 * ppm)) | 1
    dark = cv2.morphologyEx(ink.astype(np.uint8), cv2.MORPH_OPEN,
                            cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (big, big)))
    hsv = cv2.cvtColor(view, cv2.COLOR_BGR2HSV)
    coloured = ((hsv[..., 1] > 90) & (hsv[..., 2] > 40) & ~ink).astype(np.uint8)  # coloured pens are ink
    coloured = cv2.morphologyEx(coloured, cv2.MORPH_OPEN, np.ones((int(3 * ppm), int(3 * ppm)), np.uint8))
    # paper seen very dark (the sheet is in deep shadow or not there at all)
    gone = (paper < 35).astype(np.uint8)
    covered = (dark | coloured | gone) > 0
    return ink, ratio < FAINT, covered


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
    present = float(faint[:, mid - w:mid + w + 1].any(1).mean())
    if present < 0.6:
        return "-", float(np.clip((0.6 - present) / 0.3, 0, 1))
    widths = strip.sum(1) / ppm  # ink across the strip per row, mm
    inked = widths[widths > 0.2]
    if len(inked) < 3:
        return "R", 0.3  # a faint thin line
    line = float(np.percentile(inked, 25))  # between a railway's ties: the thin line
    ties = float(np.percentile(inked, 90))
    # a railway's ties make the stroke much wider in places; a highway is one even bold stroke
    score = ties / max(line, 0.2) - TIE_RATIO
    conf_presence = float(np.clip((present - 0.6) / 0.25, 0, 1))
    return ("R" if score > 0 else "H"), min(conf_presence, float(np.clip(abs(score) / 0.4, 0, 1)))


def station_mask(ink: np.ndarray, ppm: float) -> np.ndarray:
    """Ink that survives an opening by a 4 mm disc: station boxes (>= 4.8 mm) do, pen strokes
    (<= 3 mm, also where two of them meet) do not."""
    k = int(round(STATION_OPEN_MM * ppm)) | 1
    return cv2.morphologyEx(ink.astype(np.uint8), cv2.MORPH_OPEN,
                            cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))) > 0


def has_station(boxes: np.ndarray, c: np.ndarray, ppm: float) -> tuple[bool, float]:
    h = int(round(2.5 * ppm))
    cx, cy = int(round(c[0])), int(round(c[1]))
    frac = float(boxes[cy - h:cy + h + 1, cx - h:cx + h + 1].mean())
    return frac > 0.15, float(np.clip(abs(frac - 0.15) / 0.1, 0, 1))


def read_digit(ink: np.ndarray, x0: int, y0: int, ppm: float) -> tuple[int | None, float]:
    n = int(round(g.NUMBER_BOX_MM * ppm))
    box = ink[y0:y0 + n, x0:x0 + n].astype(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(box, 8)
    keep = [k for k in range(1, count) if stats[k, cv2.CC_STAT_AREA] >= 0.3 * ppm * ppm]
    if not keep:
        return None, 1.0
    mask = np.isin(labels, keep)
    ys, xs = np.nonzero(mask)
    if ys.max() - ys.min() < 2.0 * ppm:
        return None, 0.5  # a dot or a smudge, not a digit
    return classify_digit(mask[ys.min():ys.max() + 1, xs.min():xs.max() + 1].astype(np.float32))


def digit_patch(crop: np.ndarray) -> np.ndarray:
    """Ink crop (tight box) -> DIGIT_PX x DIGIT_PX, height-normalised, centred."""
    h, w = crop.shape
    s = (DIGIT_PX - 4) / max(h, w)
    small = cv2.resize(crop, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA)
    out = np.zeros((DIGIT_PX, DIGIT_PX), np.float32)
    y, x = (DIGIT_PX - small.shape[0]) // 2, (DIGIT_PX - small.shape[1]) // 2
    out[y:y + small.shape[0], x:x + small.shape[1]] = small
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
    ink, faint, covered = ink_mask(view.image, ppm)
    boxes = station_mask(ink, ppm)
    out: dict[str, SquareReading] = {}
    for name in g.square_names():
        sx, sy = g.square_origin_mm(name)
        region = (sx, sy, sx + g.SQUARE_MM, sy + g.SQUARE_MM)
        x0, y0 = (int(round(v)) for v in view.mm_to_px(sx, sy))
        n = int(round(g.SQUARE_MM * ppm))
        if covered[y0:y0 + n, x0:x0 + n].mean() > 0.01:
            out[name] = SquareReading(name, "unreadable", None, False, False, None, 0.0, 0.0,
                                      "square covered by something that is not pen on paper", region)
            continue
        c = np.array([x0 + n / 2, y0 + n / 2])
        station, st_conf = has_station(boxes, c, ppm)
        sides, confs = "", [st_conf]
        for side in "NESW":
            kind, conf = classify_side(_strip(ink, c, side, ppm), _strip(faint, c, side, ppm), ppm)
            sides += kind
            confs.append(conf)
        overpass = (not station and sides[0] == sides[2] and sides[1] == sides[3] and sides[0] != sides[1]
                    and "-" not in sides)
        m = int(round(0.4 * ppm))
        number, n_conf = read_digit(faint, x0 + m, y0 + m, ppm) if sides != "----" or station else (None, 1.0)
        out[name] = SquareReading(name, "read", sides, overpass, station, number, float(min(confs)), n_conf,
                                  "", region)
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
        return {name: SquareReading(name, "unreadable", None, False, False, None, 0.0, 0.0, why,
                                    (*g.square_origin_mm(name), g.square_origin_mm(name)[0] + g.SQUARE_MM,
                                     g.square_origin_mm(name)[1] + g.SQUARE_MM))
                for name in g.square_names()}
    return read_squares_in_view(view)
