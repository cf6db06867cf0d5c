"""Read the face of every die in the Railroad Ink dice tray.

Top view of the tray (4 px/mm) -> dark square rings (each printed face has a dark frame inside a white
margin) found by local thresholding -> a ring that is a clean square is a face lying flat: its
picture is cut out, white-balanced on the margin and classified at its four quarter turns (the
classifier's probabilities are averaged over the turns, since orientation does not matter). A ring
that is squashed or skewed, or a face smaller than the others next to another die, is a die
leaning on something: "cannot read". Dice whose frame motion blur wiped out are found as blobs on
the felt and searched for a face square of the known size (`read_blurred`, `search.py`), read only
when they stand alone and the blur measured on the markers (`blur.py`) is within the trained range.
Any die-sized object on the tray without a readable face is reported as "cannot read" too.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from vision.localise import Calibration
from vision.route_dice import geometry as g
from vision.route_dice.blur import blur_mm
from vision.route_dice.faces import FACE_MM, FACES, FRAME_W, MARGIN, OUTER
from vision.route_dice.search import Square, find_square
from vision.tiles.mlp import MLP
from vision.tiles.rectify import TopView, calibrate, top_view
from vision.tiles.reuse import changed_regions
from vision.types import Detections, check_image

PX_PER_MM = 4.0
PATCH = 48  # the whole face (margin included) is warped to PATCH x PATCH
FEATURE = 14  # the picture inside the frame is classified at FEATURE x FEATURE x 3
MIN_CONFIDENCE = 0.75  # below: "cannot read" (seeds 22-25: every wrong name scored under 0.73)
VIEW_MARGIN_MM = 12.0
# blobs reported as "cannot read" when no face is found in them (pixel area / face area)
MIN_BLOB_AREA, MAX_BLOB_AREA = 0.5, 4.0
# a face found by the size search: least margin-over-frame contrast, and how far the nearest other
# die must be for it to be read (a leaning die rests against another, flat dice are never that close
# without their frames showing)
MIN_SQUARE_CONTRAST = 0.15
ALONE_MM = 22.0
MIN_ON_BODY = 0.9
MAX_BLUR_MM = 2.9  # the size search is used up to this blur (`blur.py`), a little past the training's
TWO_DICE_AREA = 2.0
MIN_ASPECT = 0.85  # short/long side of the best rectangle there: a strongly squashed face is leaning
LEAN_SIZE = 0.965  # a face this much smaller than the typical one, next to another die, is leaning
NOT_FLAT = "die not lying flat (leaning or tilted)"
NO_FACE = "object on the tray without a readable face"
NEAR_ANOTHER = "face blurred and die touching another (it may be leaning on it)"
# (image, block size in mm, offset) of the local thresholds whose contours are frame candidates
THRESHOLDS = (("gray", 4.5, 8), ("value", 4.5, 8), ("gray", 3.0, 12))
MODEL_PATH = Path(__file__).with_name("faces.npz")


@cache
def model() -> MLP:
    return MLP.load(MODEL_PATH)


@dataclass
class DieReading:
    status: str  # "face" | "unreadable"
    face: str | None
    confidence: float
    quad_mm: np.ndarray  # 4x2 corners of what was seen, sheet mm
    reason: str = ""

    @property
    def region_mm(self) -> tuple[float, float, float, float]:
        q = self.quad_mm
        return (float(q[:, 0].min()), float(q[:, 1].min()), float(q[:, 0].max()), float(q[:, 1].max()))


def _order(quad: np.ndarray) -> np.ndarray:
    """Corners in a consistent turn order starting nearest the top-left."""
    c = quad.mean(0)
    ang = np.arctan2(quad[:, 1] - c[1], quad[:, 0] - c[0])
    q = quad[np.argsort(ang)]
    k = int(np.argmin(q.sum(1)))
    return np.roll(q, -k, axis=0)


def face_quads(view: np.ndarray, ppm: float) -> list[tuple[np.ndarray, bool]]:
    """(outer frame corners in view px, is a clean square) for every ring of die size.

    Every contour is a candidate (the frame ring may touch the dark outline that local
    thresholding draws around a bright die); of candidates sharing a centre, the one closest to
    the frame's printed size wins."""
    gray = cv2.cvtColor(view, cv2.COLOR_BGR2GRAY)
    side = FACE_MM * OUTER * ppm
    found: list[tuple[float, np.ndarray, bool]] = []
    # The frame is dark in every channel while a face's coloured picture is bright in its strongest
    # one, so the max-channel image keeps the frame apart from a picture that touches it; the grey
    # image at two block sizes finds frames that blur or a dark picture joins to the die's outline.
    b, gr, r = cv2.split(view)
    value = cv2.max(cv2.max(b, gr), r)
    for k, (img, block_mm, c) in enumerate(THRESHOLDS):
        src = gray if img == "gray" else value
        block = int(round(block_mm * ppm)) | 1
        dark = cv2.adaptiveThreshold(src, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, block, c)
        contours, _ = cv2.findContours(dark, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        # the extra thresholds only add clearly flat faces: a die's shadow or side seen through them
        # is no die, and a leaning die's face must not pass as flat through a kinder threshold
        found.extend(f for f in _quads(contours, dark, side) if k == 0 or (f[2] and _side_ratio(f[1]) < 1.08))
    found.sort(key=lambda f: f[0])
    out: list[tuple[np.ndarray, bool]] = []
    for _, q, square in found:
        if all(np.linalg.norm(q.mean(0) - o.mean(0)) > 0.5 * side for o, _ in out):
            out.append((q, square))
    return out


def _side_ratio(quad: np.ndarray) -> float:
    sides = np.linalg.norm(np.roll(quad, -1, 0) - quad, axis=1)
    return float(sides.max() / max(sides.min(), 1e-9))


def _quad_of(cnt: np.ndarray, dark: np.ndarray) -> np.ndarray | None:
    """The contour as a convex quadrilateral, or None. A frame that blur has notched at a corner or
    joined to the die's outline is found through the convex hull of a contour inside it, accepted
    only when the hull's edges run along dark frame all round."""
    approx = cv2.approxPolyDP(cnt, 0.05 * cv2.arcLength(cnt, True), True).reshape(-1, 2)
    if len(approx) == 4 and cv2.isContourConvex(approx):
        return approx.astype(np.float64)
    hull = cv2.convexHull(cnt)
    approx = cv2.approxPolyDP(hull, 0.06 * cv2.arcLength(hull, True), True).reshape(-1, 2)
    if len(approx) != 4 or cv2.contourArea(cnt) < 0.6 * cv2.contourArea(approx):
        return None
    quad = approx.astype(np.float64)
    return quad if _on_frame(quad, dark) >= 0.85 else None


def _on_frame(quad: np.ndarray, dark: np.ndarray) -> float:
    """Share of points along the quad's edges, a little inside them, that are dark."""
    c = quad.mean(0)
    inset = c + (quad - c) * (1 - FRAME_W / OUTER)  # half way into the printed frame
    t = np.linspace(0, 1, 12, endpoint=False)[:, None]
    pts = np.concatenate([inset[i] + (inset[(i + 1) % 4] - inset[i]) * t for i in range(4)])
    xs = np.clip(np.round(pts[:, 0]).astype(int), 0, dark.shape[1] - 1)
    ys = np.clip(np.round(pts[:, 1]).astype(int), 0, dark.shape[0] - 1)
    return float((dark[ys, xs] > 0).mean())


def _quads(contours: list[np.ndarray], dark: np.ndarray, side: float) -> list[tuple[float, np.ndarray, bool]]:
    """(size misfit, corners, is a clean square) of every contour that simplifies to a convex
    quadrilateral of about frame size."""
    found: list[tuple[float, np.ndarray, bool]] = []
    for cnt in contours:
        area = cv2.contourArea(cnt)
        if not (0.45 * side**2 <= area <= 1.6 * side**2):
            continue
        approx = _quad_of(cnt, dark)
        if approx is None:
            continue
        q = _order(approx)
        vecs = np.roll(q, -1, 0) - q
        sides = np.linalg.norm(vecs, axis=1)
        cosines = [
            abs(np.dot(vecs[i], vecs[(i + 1) % 4])) / (sides[i] * sides[(i + 1) % 4] + 1e-9) for i in range(4)
        ]
        square = sides.max() / max(sides.min(), 1e-9) < 1.12 and max(cosines) < 0.17
        square = square and 0.85 * side <= sides.mean() <= 1.12 * side
        found.append((abs(np.log(sides.mean() / side)), q, bool(square)))
    return found


def face_features(view: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """(4, FEATURE*FEATURE*3) white-balanced picture inside the frame at its four quarter turns."""
    c = quad.mean(0)
    face = c + (quad - c) / OUTER  # the whole face, margin included
    dst = np.float32([[0, 0], [PATCH, 0], [PATCH, PATCH], [0, PATCH]])
    M = cv2.getPerspectiveTransform(face.astype(np.float32), dst)
    patch = cv2.warpPerspective(view, M, (PATCH, PATCH), flags=cv2.INTER_LINEAR).astype(np.float32)
    ring = max(1, int(MARGIN * PATCH * 0.8))
    margin = np.concatenate(
        [
            patch[:ring].reshape(-1, 3),
            patch[-ring:].reshape(-1, 3),
            patch[:, :ring].reshape(-1, 3),
            patch[:, -ring:].reshape(-1, 3),
        ]
    )
    white = np.maximum(np.percentile(margin, 75, axis=0), 20.0)
    a = int(round((MARGIN + FRAME_W) * PATCH)) + 1
    inner = patch[a : PATCH - a, a : PATCH - a] / white
    small = cv2.resize(np.clip(inner, 0, 1.3), (FEATURE, FEATURE), interpolation=cv2.INTER_AREA)
    return np.stack([np.rot90(small, k).ravel() for k in range(4)])


def classify(features: np.ndarray) -> tuple[str, float]:
    probs = model().predict_proba(features).mean(0)
    order = np.argsort(probs)[::-1]
    return FACES[int(order[0])], float(probs[order[0]] - 0.5 * probs[order[1]])


def _in_markers(pt_mm: np.ndarray) -> bool:
    """Inside a marker's black square: the marker's own bits can look like a small framed face."""
    q = g.MARKER_MM / 6 + 3.0
    return any(
        x0 + q <= pt_mm[0] <= x1 - q and y0 + q <= pt_mm[1] <= y1 - q
        for x0, y0, x1, y1 in g.marker_boxes_mm()
    )


def read_view(view: TopView) -> list[DieReading]:
    ppm = view.px_per_mm
    readings: list[DieReading] = []
    for quad, square in face_quads(view.image, ppm):
        quad_mm = quad / ppm + np.asarray(view.origin_mm)
        if _in_markers(quad_mm.mean(0)):
            continue
        if not square:
            readings.append(DieReading("unreadable", None, 0.0, quad_mm, NOT_FLAT))
            continue
        face, conf = classify(face_features(view.image, quad))
        if conf < MIN_CONFIDENCE:
            readings.append(
                DieReading("unreadable", None, conf, quad_mm, f"face unclear (best guess {face})")
            )
        else:
            readings.append(DieReading("face", face, conf, quad_mm))
    _refuse_small_neighbours(readings)
    readings += read_blurred(view, readings)
    _refuse_small_neighbours(readings)  # again, now that dice found in blur are neighbours too
    return readings


def _side_mm(r: DieReading) -> float:
    return float(np.linalg.norm(np.roll(r.quad_mm, -1, 0) - r.quad_mm, axis=1).mean())


def _refuse_small_neighbours(readings: list[DieReading]) -> None:
    """A die leaning on another shows its face tilted, so smaller than the flat faces around it; a
    slight lean can still look square. A face next to another die (closer than flat dice ever lie
    without touching) that is smaller than the frame's typical face is refused as leaning."""
    sides = [_side_mm(r) for r in readings if r.status == "face"]
    if len(sides) < 2:
        return
    typical = float(np.median(sides))
    centres = [r.quad_mm.mean(0) for r in readings]
    for k, r in enumerate(readings):
        if r.status != "face" or _side_mm(r) >= LEAN_SIZE * typical:
            continue
        if any(0 < np.linalg.norm(centres[k] - c) < ALONE_MM for j, c in enumerate(centres) if j != k):
            readings[k] = DieReading("unreadable", None, 0.0, r.quad_mm, NOT_FLAT)


def read_blurred(view: TopView, found: list[DieReading]) -> list[DieReading]:
    """Dice whose frame contour blur wiped out (or bent, so the die looked tilted): the die's body
    still stands out from the felt, so each die-sized blob is searched for face squares of the known
    size (`search.find_square`). A face found that way is read only when its die stands alone: a die
    touching another may be leaning on it, and its squashed face can pass for a blurred square.
    Blobs where no face is found are reported as "cannot read", never silently ignored."""
    ppm = view.px_per_mm
    side = FACE_MM * ppm
    origin = np.asarray(view.origin_mm)
    gray = cv2.cvtColor(view.image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    centres = [r.quad_mm.mean(0) for r in found]
    squares: list[Square] = []
    leftovers: list[DieReading] = []
    blobs, body = die_blobs(view)
    blur = blur_mm(view, gray)
    search = blur is not None and blur <= MAX_BLUR_MM  # beyond it a face may be smeared into another
    for box, area in blobs:
        x0, y0, x1, y1 = box
        inside = [c for c in centres if x0 - 2 * ppm <= (c[0] - origin[0]) * ppm <= x1 + 2 * ppm
                  and y0 - 2 * ppm <= (c[1] - origin[1]) * ppm <= y1 + 2 * ppm]
        expected = 1 if area < TWO_DICE_AREA else 2 if area < 5.5 else 3  # dice in the blob, by its area
        avoid = [(c - origin) * ppm for c in inside]
        search_box = _search_box(box, side, view.image.shape)
        new = 0
        while search and len(avoid) < expected:
            sq = find_square(gray, search_box, side, avoid=avoid)
            if sq is None or sq.score < MIN_SQUARE_CONTRAST or _on_body(body, sq.quad()) < MIN_ON_BODY:
                break  # (a square reaching into the felt between dice is none)
            squares.append(sq)
            avoid.append(sq.centre)
            new += 1
        if not inside and not new and MIN_BLOB_AREA <= area <= MAX_BLOB_AREA:
            quad = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float) / ppm + origin
            if not _in_markers(quad.mean(0)):
                leftovers.append(DieReading("unreadable", None, 0.0, quad, NO_FACE))
    # re-check dice the contour reader called tilted: a blurred frame can bend its contour
    tilted = [k for k, r in enumerate(found) if r.reason == NOT_FLAT]
    for k in tilted if search else []:
        c = (found[k].quad_mm.mean(0) - origin) * ppm
        r = 0.25 * side
        sq = find_square(gray, (int(c[0] - r), int(c[1] - r), int(c[0] + r), int(c[1] + r)), side)
        if sq is not None and sq.score >= MIN_SQUARE_CONTRAST and _on_body(body, sq.quad()) >= MIN_ON_BODY:
            squares.append(sq)
    everything = [c for c in centres] + [s.centre / ppm + origin for s in squares]
    everything += [r.quad_mm.mean(0) for r in leftovers]
    out: list[DieReading] = []
    replaced: set[int] = set()
    for sq in squares:
        quad_mm = sq.quad() / ppm + origin
        c = quad_mm.mean(0)
        near = [d for d in (np.linalg.norm(c - o) for o in everything) if d > 0.4 * FACE_MM]
        alone = all(d >= ALONE_MM for d in near)
        twin = [k for k in tilted if np.linalg.norm(found[k].quad_mm.mean(0) - c) <= 0.4 * FACE_MM]
        if not alone or sq.aspect < MIN_ASPECT:
            if not twin:  # a tilted reading already stands for this die
                why = NEAR_ANOTHER if not alone else NOT_FLAT
                out.append(DieReading("unreadable", None, 0.0, quad_mm, why))
            continue
        face, conf = classify(face_features(view.image, sq.quad()))
        if twin:
            if conf < MIN_CONFIDENCE:
                continue
            replaced.update(twin)
        if conf < MIN_CONFIDENCE:
            out.append(DieReading("unreadable", None, conf, quad_mm, f"face unclear (best guess {face})"))
        else:
            out.append(DieReading("face", face, conf, quad_mm, "found by its size (frame blurred)"))
    # a tilted reading replaced by a face read stands no more: drop it from the caller's list in place
    for k in sorted(replaced, reverse=True):
        del found[k]
    return out + leftovers


def _on_body(body: np.ndarray, quad: np.ndarray) -> float:
    """Share of the face inside its frame that lies on a die's body rather than the felt (the margin
    is left out: blur mixes its edge with the felt)."""
    mask = np.zeros_like(body)
    cv2.fillConvexPoly(mask, np.round(quad).astype(np.int32), 1)
    return float((body & mask).sum() / max(int(mask.sum()), 1))


def _search_box(
    box: tuple[int, int, int, int], side: float, shape: tuple[int, ...]
) -> tuple[int, int, int, int]:
    """Where a face's centre can lie in a die's blob: well inside it, except on a side cut by the
    tray's edge (the face of a die at the edge may stand out past it)."""
    x0, y0, x1, y1 = box
    lo_x, lo_y, hi_x, hi_y = _tray_px(shape)
    inset, out = 0.4 * side, -0.3 * side
    return (
        int(x0 + (out if x0 <= lo_x else inset)),
        int(y0 + (out if y0 <= lo_y else inset)),
        int(x1 - (out if x1 >= hi_x - 1 else inset)),
        int(y1 - (out if y1 >= hi_y - 1 else inset)),
    )


def _tray_px(shape: tuple[int, ...]) -> tuple[int, int, int, int]:
    m = int(round(VIEW_MARGIN_MM * PX_PER_MM))
    return m, m, shape[1] - m, shape[0] - m


def die_blobs(view: TopView) -> tuple[list[tuple[tuple[int, int, int, int], float]], np.ndarray]:
    """(bounding box in view px, pixel area / face area) of every blob on the tray that is not felt
    (dice bodies; blur does not hide them), cut at the tray's edge so that a die at the edge does
    not join whatever lies around the tray; and the mask of those blobs."""
    ppm = view.px_per_mm
    hsv = cv2.cvtColor(view.image, cv2.COLOR_BGR2HSV)
    tray_hue = int(cv2.cvtColor(np.uint8([[g.TRAY_RGB[::-1]]]), cv2.COLOR_BGR2HSV)[0, 0, 0])
    dh = np.abs(hsv[..., 0].astype(np.int16) - tray_hue)
    felt = (np.minimum(dh, 180 - dh) <= 18) & (hsv[..., 1] >= 60)
    fg = (~felt).astype(np.uint8)
    x0, y0, x1, y1 = _tray_px(fg.shape)
    cut = np.zeros_like(fg)
    cut[y0:y1, x0:x1] = fg[y0:y1, x0:x1]
    for box in g.marker_boxes_mm():  # the markers and their white quiet zones are no dice
        (mx0, my0), (mx1, my1) = ((np.reshape(box, (2, 2)) - np.asarray(view.origin_mm)) * ppm).astype(int)
        cut[max(my0 - 4, 0) : my1 + 4, max(mx0 - 4, 0) : mx1 + 4] = 0
    fg = cv2.morphologyEx(cut, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    # Grana's labelling: the same labels and stats as the default, its statistics pass 2-3x faster
    count, _, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(fg, 8, cv2.CV_32S, cv2.CCL_GRANA)
    face_area = (FACE_MM * ppm) ** 2
    out = []
    for k in range(1, count):
        x, y, w, h, area = (int(v) for v in stats[k])
        if area < MIN_BLOB_AREA * face_area or max(w, h) > 4.0 * FACE_MM * ppm:
            continue
        centre_mm = np.array([x + w / 2, y + h / 2]) / ppm + np.asarray(view.origin_mm)
        if _in_markers(centre_mm):
            continue
        out.append(((x, y, x + w, y + h), area / face_area))
    return out, fg


def tray_view(image: np.ndarray, calibration: Calibration | None = None) -> tuple[TopView, Calibration]:
    cal = calibrate(image, g.SHEET, g.SHEET_MM, calibration)
    # a die's top face is 16 mm up, so a die at the tray's edge shows its face beyond the edge
    m = VIEW_MARGIN_MM
    return top_view(image, cal, (-m, -m, g.SHEET_MM[0] + m, g.SHEET_MM[1] + m), PX_PER_MM), cal


def read_dice(
    image: np.ndarray,
    calibration: Calibration | None = None,
    previous: tuple[list[DieReading], TopView] | None = None,
) -> tuple[list[DieReading], TopView]:
    """Every die on the tray and the tray's top view. With `previous`, the last frame's result from
    the same camera, a tray whose pixels did not change keeps its reading (dice are rolled and taken
    all together, so the tray is one region; the blur test reads its markers, inside it too)."""
    check_image(image)
    view, _ = tray_view(image, calibration)
    if previous is not None:
        h, w = view.image.shape[:2]
        if not changed_regions(view, previous[1], {"tray": (0, 0, w, h)}):
            return list(previous[0]), previous[1]  # its view stays the reference: slow drift adds up
    return read_view(view), view


def read_route_dice(
    image: np.ndarray, calibration: Calibration | None = None
) -> list[tuple[str | None, float]]:
    """[(face name or None, confidence)] for every die seen, left to right; None = "cannot read"
    (see `read_dice` for the reason and region of each)."""
    readings, _ = read_dice(image, calibration)
    readings.sort(key=lambda r: (r.quad_mm[:, 0].mean(), r.quad_mm[:, 1].mean()))
    return [(r.face, r.confidence) for r in readings]


def dice_detections(readings: list[DieReading], view: TopView) -> Detections:
    """Readings as `Detections` (kind "route-die", value = index into FACES, -1 = cannot read)."""
    boxes, conf, values = [], [], []
    for r in readings:
        p = view.top_to_image((r.quad_mm - np.asarray(view.origin_mm)) * view.px_per_mm)
        boxes.append([p[:, 0].min(), p[:, 1].min(), p[:, 0].max(), p[:, 1].max()])
        conf.append(r.confidence)
        values.append(FACES.index(r.face) if r.face else -1)
    return Detections.from_lists(boxes, conf, values, "route-die")
