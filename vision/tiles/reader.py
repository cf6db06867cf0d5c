"""Read the 4x4 board: for every cell, empty, a number 1..16, or "cannot read" with the region.

Top view of the grid (3 px/mm) -> everything that is not board blue is an object -> objects are
assigned to cells -> a cell holding exactly one piece-sized, piece-shaped object that stays inside
the cell is read by the classifier at 24 candidate turns; anything else is "cannot read".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from vision.localise import Calibration, LocaliseError
from vision.tiles import geometry as g
from vision.tiles.mlp import MLP
from vision.tiles.patch import ANGLES, PieceInks, board_mask, ink_frame, patches, piece_inks, two_tone
from vision.tiles.rectify import TopView, calibrate, top_view
from vision.tiles.reuse import changed_regions
from vision.tiles.split import (
    MAX_PIECE_AREA,
    box_round,
    disc_dilate,
    disc_erode,
    outer_outlines,
    solidity,
    split_grown,
    split_touching,
)
from vision.types import Detections, check_image

PX_PER_MM = 3.0
MARGIN_MM = 6.0  # inside the board's 6 mm blue bleed, so the sheet's white never enters the view
MIN_CONFIDENCE = 0.5  # below this a read number is reported as "cannot read"
MODEL_PATH = Path(__file__).with_name("digits.npz")
# share of a piece's face off its main colour above which it is two pieces, one on the other (single
# pieces measured up to 0.15 on the evaluation sets, overlapping pairs 0.35 and more)
TWO_TONE = 0.25
RIM_INK_DOUBT = 0.2  # share of a piece's ink touching its rim above which a changed reading is refused
# area of a piece's footprint over that of its best-fitting square (min-area rectangle) or circle:
# single square, rounded or round tokens measured 0.87 and up on the tuning sets, a token lying on
# another that hides all but a sliver of it 0.82 and below (the sliver widens the fitted shape)
SHAPE_FIT = 0.84
REFINE = np.arange(-7.5, 7.6, 2.5)  # turns (degrees) tried around a candidate's best grid turn


@cache
def model() -> MLP:
    return MLP.load(MODEL_PATH)


@dataclass
class CellReading:
    cell: str
    status: str  # "empty" | "piece" | "unreadable"
    number: int | None
    confidence: float
    reason: str = ""
    region_mm: tuple[float, float, float, float] | None = None  # sheet mm of what was seen
    angle: float | None = None  # turn of the piece (degrees) when read


@dataclass
class GridReading:
    cells: dict[str, CellReading]
    view: TopView
    calibration: Calibration
    blobs: list[dict] = field(default_factory=list)

    def board(self) -> dict[str, tuple[int | None, float]]:
        return {name: (c.number, c.confidence) for name, c in self.cells.items()}


def classify_piece(
    bgr: np.ndarray, blob: np.ndarray, px_per_mm: float, inks: PieceInks | None = None
) -> tuple[int | None, float, float, str]:
    """(number, confidence, angle, reason) for one piece footprint `blob` in `bgr`. The ink is read
    without the marks touching the piece's rim; when that dropped ink, it is also read with them.
    Differing readings: with a fifth or more of the ink dropped, the number itself may reach the rim
    (a big number on a small token), so neither is trusted; with less, the clean one is taken when
    it is sure (measured on rendered boards: rim marks were then always the piece's side or edge).
    `inks`: both ink maps when the caller has them already (`PieceCut.inks`)."""
    erode = max(1, round(1.2 * px_per_mm))
    if inks is None:
        inks = piece_inks(bgr, blob, erode)
    clean_ink, full_ink = inks.clean, inks.full
    clean = read_ink(clean_ink)
    if full_ink is None or clean_ink is None:
        return clean
    dropped = float((full_ink - clean_ink).sum()) / max(float(full_ink.sum()), 1e-6)
    if dropped < 0.005:
        return clean
    full = read_ink(full_ink)
    if full[0] == clean[0]:
        return max(clean, full, key=lambda r: r[1])
    if clean[0] is None:  # all the ink touched the rim: a number filling a small token
        return full
    if dropped > RIM_INK_DOUBT:
        return clean[0], 0.0, clean[2], f"number unclear ({clean[0]}, or {full[0]} with the marks at its rim)"
    return clean if clean[1] >= MIN_CONFIDENCE else full


def read_ink(ink: np.ndarray | None) -> tuple[int | None, float, float, str]:
    """(number, confidence, angle, reason) of one piece's ink map."""
    if ink is None or (frame := ink_frame(ink)) is None:
        return None, 0.0, 0.0, "no number visible on the piece"
    seen: dict[float, np.ndarray] = {}  # turn -> its class probabilities, each turn scored once
    probs = _turned(ink, frame, ANGLES, seen)  # (angles, 17)
    per_class = probs[:, 1:].max(0)  # best turn for each number
    # A true reading holds over the +-9 degrees the classifier was trained on; a number glimpsed at
    # an in-between turn does not. So each leading candidate's turn is first refined on a 2.5 degree
    # grid around its best candidate turn, then re-scored 6 degrees either side of that peak.
    lead = [int(k) for k in np.argsort(per_class)[::-1][:3]]
    starts = [float(ANGLES[int(np.argmax(probs[:, 1 + k]))]) for k in lead]
    fine = np.concatenate([a + REFINE for a in starts])
    p_fine = _turned(ink, frame, fine, seen).reshape(len(lead), len(REFINE), -1)
    peaks = [float(starts[i] + REFINE[int(np.argmax(p_fine[i, :, 1 + k]))]) for i, k in enumerate(lead)]
    sides = np.array([[a - 6.0, a + 6.0] for a in peaks]).ravel()
    p_side = _turned(ink, frame, sides, seen).reshape(len(lead), 2, -1)
    scores: dict[int, tuple[float, float]] = {}
    for i, k in enumerate(lead):
        held = min(float(p_fine[i, :, 1 + k].max()), float(p_side[i, :, 1 + k].min()))
        scores[k] = (held, peaks[i] % 360)
    ranked = sorted(scores, key=lambda k: -scores[k][0])
    best, second = ranked[0], ranked[1]
    conf = scores[best][0] * (1.0 - scores[second][0])
    return best + 1, conf, scores[best][1], ""


def _turned(ink: np.ndarray, frame: tuple[float, float, float], angles: np.ndarray,
            seen: dict[float, np.ndarray]) -> np.ndarray:
    """The classifier's probabilities (len(angles), 17) for the ink at each turn; turns already in
    `seen` (one piece's earlier batches: the refinement grid holds each start turn, leads share
    starts) are not scored again. The same rows as one batch of every turn: the classifier scores
    each row apart (`MLP`: row by row up to SMALL_BATCH, softmax per row)."""
    new = list(dict.fromkeys(float(a) for a in angles if float(a) not in seen))
    if new:
        for a, row in zip(new, model().predict_proba(patches(ink, frame, np.array(new))), strict=True):
            seen[a] = row
    return np.stack([seen[float(a)] for a in angles])


@dataclass
class PieceCut:
    """One cell's single piece, ready for the classifier: the top-view crop around the cell, the
    piece's footprint in it, and the sheet-mm region it covers."""

    cell: str
    crop: np.ndarray
    blob: np.ndarray
    region_mm: tuple[float, float, float, float]
    ink: np.ndarray | None = None  # the piece's rim-less ink map, made for the two-tone test
    inks: PieceInks | None = None  # ... with the map the classifier reads beside it and the face


def foreground(img: np.ndarray, px_per_mm: float, fill_holes: bool = False) -> np.ndarray:
    """Everything on the top view that is not board blue, without thin structures: an opening by a
    3 mm disc removes the strip of white sheet that a slightly-off localisation puts along the view's
    edge (it would merge with the pieces next to it) and stray specks. With `fill_holes`, holes
    smaller than half a piece are filled first: ink in the board's own blue cuts a piece apart, but
    so filled, the small gap between pieces meeting round a point closes too."""
    closed = _closed_foreground(img)
    return _opened(_holes_filled(closed, px_per_mm) if fill_holes else closed, px_per_mm)


def _closed_foreground(img: np.ndarray) -> np.ndarray:
    """Not board blue, opened by 3 px and closed by 5 px: what both of `foreground`'s masks start from."""
    fg = (~board_mask(img)).astype(np.uint8)
    fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    return cv2.morphologyEx(fg, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))


def _holes_filled(fg: np.ndarray, px_per_mm: float) -> np.ndarray:
    """A copy of `fg` with its holes smaller than half a piece filled."""
    fg = fg.copy()
    contours, hierarchy = cv2.findContours(fg, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hierarchy is not None:
        max_hole = 0.5 * (g.PIECE_MM * px_per_mm) ** 2
        holes = [c for c, h in zip(contours, hierarchy[0], strict=True) if h[3] >= 0]
        cv2.drawContours(fg, [c for c in holes if cv2.contourArea(c) < max_hole], -1, 1, -1)
    return fg


def _opened(fg: np.ndarray, px_per_mm: float) -> np.ndarray:
    """Opened by a 3 mm disc (OpenCV's elliptic element, by its rectangles: `split.disc_erode`)."""
    r = max(1, round(3.0 * px_per_mm))
    return disc_dilate(disc_erode(fg, r), r)


def segment_cells(view: TopView) -> dict[str, CellReading | PieceCut]:
    """Per cell: a finished reading (empty, or a fault that cannot be read) or the one piece to read.
    A cell that is a fault as segmented is tried again with the foreground's small holes filled,
    and takes that when it is one clean piece there (a piece with ink in board blue)."""
    ppm = view.px_per_mm
    closed = _closed_foreground(view.image)
    plain_fg = _opened(closed, ppm)
    plain = split_touching(plain_fg, ppm)
    filled: tuple[np.ndarray, np.ndarray] | None = None
    out: dict[str, CellReading | PieceCut] = {}
    for name in g.cell_names():
        seg = _segment_cell(view, name, *plain)
        if isinstance(seg, CellReading) and seg.status == "unreadable":
            # filling holes only adds pixels: objects it left alone keep their parts (split_grown)
            filled = filled or split_grown(_opened(_holes_filled(closed, ppm), ppm), plain_fg, plain, ppm)
            again = _segment_cell(view, name, *filled)
            seg = again if isinstance(again, PieceCut) else seg
        out[name] = seg
    return out


def _segment_cell(view: TopView, name: str, labels: np.ndarray, stats: np.ndarray) -> CellReading | PieceCut:
    img = view.image
    ppm = view.px_per_mm
    piece_area = (g.PIECE_MM * ppm) ** 2
    cell_px = g.CELL_MM * ppm
    cx, cy = view.mm_to_px(*g.cell_centre_mm(name))
    x0, y0 = int(round(cx - cell_px / 2)), int(round(cy - cell_px / 2))
    x1, y1 = x0 + int(round(cell_px)), y0 + int(round(cell_px))
    sub = labels[y0:y1, x0:x1]
    counts = np.bincount(sub.ravel())  # pixels of each label on the cell (the view's labels are few)
    counts[0] = 0
    present = [(int(i), int(counts[i])) for i in np.nonzero(counts > 0.12 * piece_area)[0]]
    if not present:
        stray = float((sub > 0).mean())
        return CellReading(name, "empty", None, float(np.clip(1.0 - stray * 8, 0.5, 1.0)))
    regions = [_region_mm(view, stats[i]) for i, _ in present]
    union = (
        min(r[0] for r in regions),
        min(r[1] for r in regions),
        max(r[2] for r in regions),
        max(r[3] for r in regions),
    )
    if len(present) > 1:
        return CellReading(name, "unreadable", None, 0.0, "more than one object on the cell", union)
    k = present[0][0]
    # the object's own box (one pixel wider) instead of the whole view: `box_round`, vision/tiles/split.py
    bx0, by0, bx1, by1 = box_round(stats[k], labels.shape)
    origin = (bx0, by0)  # where `blob` lies in the view
    blob = _filled(labels[by0:by1, bx0:bx1] == k)  # ink in the board's blue would leave holes in the piece
    area, inside = int(blob.sum()), int(_paste(blob, origin, (x0, y0, x1, y1)).sum())
    if inside < 0.85 * area:
        # Merged with a neighbour through a blurred gap? Keep the part on this cell when it is a
        # whole piece by itself; a piece pushed off its cell leaves only part of one here.
        blob, origin = _paste(blob, origin, (0, 0, labels.shape[1], labels.shape[0])), (0, 0)
        m = round(1.5 * ppm)
        clip = np.zeros_like(blob)
        ys, xs = slice(max(0, y0 - m), y1 + m), slice(max(0, x0 - m), x1 + m)
        clip[ys, xs] = blob[ys, xs]
        clip = cv2.morphologyEx(clip.astype(np.uint8), cv2.MORPH_OPEN, np.ones((5, 5), np.uint8)) > 0
        c_area = int(clip.sum())
        whole_here = 0.9 * piece_area <= c_area <= 1.12 * piece_area and solidity(clip) >= 0.95
        whole_there = area - c_area >= 0.8 * piece_area  # the rest is whole pieces, not a stray part
        if not (whole_here and whole_there):
            return CellReading(
                name, "unreadable", None, 0.0, "piece off its cell (crosses the cell edge)", union
            )
        blob, area = clip, c_area
        union = _blob_region_mm(view, blob)
    outlines = outer_outlines(blob, origin)
    if area > MAX_PIECE_AREA * piece_area or solidity(blob, origin, outlines) < 0.86:
        return CellReading(
            name, "unreadable", None, 0.0, "overlapping pieces or an odd shape on the cell", union
        )
    if _shape_fit(blob, origin, outlines) < SHAPE_FIT:
        return CellReading(
            name, "unreadable", None, 0.0, "overlapping pieces (outline neither a square nor a circle)", union
        )
    if area < 0.4 * piece_area:
        return CellReading(name, "unreadable", None, 0.0, "object too small for a piece (covered?)", union)
    pad = 4
    cx0, cy0 = max(0, x0 - pad), max(0, y0 - pad)
    crop = img[cy0 : y1 + pad, cx0 : x1 + pad]
    blob = _paste(blob, origin, (cx0, cy0, cx0 + crop.shape[1], cy0 + crop.shape[0]))
    erode = max(1, round(1.2 * ppm))
    inks = piece_inks(crop, blob, erode)
    if two_tone(crop, blob, erode, inks.clean, inks.face) > TWO_TONE:
        return CellReading(
            name, "unreadable", None, 0.0, "two pieces of different colours on the cell", union
        )
    return PieceCut(name, crop, blob, union, inks.clean, inks)


def read_cells_in_view(view: TopView, previous: GridReading | None = None) -> dict[str, CellReading]:
    """Every cell's reading. With the last frame's reading, cells whose pixels did not change keep
    theirs: when none changed nothing is segmented; otherwise the view is segmented again (an object
    can reach across cells) and only pieces on changed cells, or cut differently, are classified."""
    changed = set(g.cell_names())
    if previous is not None:
        changed = changed_regions(view, previous.view, cell_windows(view))
        if not changed:
            return dict(previous.cells)
    out: dict[str, CellReading] = {}
    for name, seg in segment_cells(view).items():
        if isinstance(seg, CellReading):
            out[name] = seg
            continue
        last = previous.cells.get(name) if previous is not None and name not in changed else None
        if last is not None and last.status != "empty" and last.region_mm == seg.region_mm:
            out[name] = last  # the same piece, cut the same way, on unchanged pixels
            continue
        number, conf, angle, why = classify_piece(seg.crop, seg.blob, view.px_per_mm, seg.inks)
        if number is None or conf < MIN_CONFIDENCE:
            out[name] = CellReading(
                name, "unreadable", None, conf, why or f"number unclear (best guess {number})", seg.region_mm
            )
        else:
            out[name] = CellReading(name, "piece", number, conf, "", seg.region_mm, angle)
    return out


def cell_windows(view: TopView) -> dict[str, tuple[int, int, int, int]]:
    """Each cell's square in top-view pixels, widened by the crop padding the classifier sees and a
    little more (a piece can overhang its cell)."""
    half = g.CELL_MM * view.px_per_mm / 2 + 8
    out = {}
    for name in g.cell_names():
        cx, cy = view.mm_to_px(*g.cell_centre_mm(name))
        out[name] = (int(cx - half), int(cy - half), int(np.ceil(cx + half)), int(np.ceil(cy + half)))
    return out


def _paste(blob: np.ndarray, origin: tuple[int, int], box: tuple[int, int, int, int]) -> np.ndarray:
    """The view's box (x0, y0, x1, y1) of a boolean mask that is `blob` at `origin` and False elsewhere."""
    x0, y0, x1, y1 = box
    out = np.zeros((y1 - y0, x1 - x0), bool)
    ox, oy = origin
    h, w = blob.shape
    ix0, iy0, ix1, iy1 = max(x0, ox), max(y0, oy), min(x1, ox + w), min(y1, oy + h)
    if ix1 > ix0 and iy1 > iy0:
        out[iy0 - y0 : iy1 - y0, ix0 - x0 : ix1 - x0] = blob[iy0 - oy : iy1 - oy, ix0 - ox : ix1 - ox]
    return out


def _filled(blob: np.ndarray) -> np.ndarray:
    contours, _ = cv2.findContours(blob.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = np.zeros(blob.shape, np.uint8)
    cv2.drawContours(out, contours, -1, 1, -1)
    return out > 0


def _shape_fit(blob: np.ndarray, offset: tuple[int, int] = (0, 0),
               outlines: Sequence[np.ndarray] | None = None) -> float:
    """How well the footprint fills its best fitted token shape: area over the min-area rectangle's
    (square and rounded tokens) or the min enclosing circle's (round ones), whichever is larger.
    `offset`: the crop's place in the view (the shapes are fitted in view coordinates, as on the
    whole view); `outlines`: the footprint's `outer_outlines` there, when the caller has them."""
    if outlines is None:
        outlines = outer_outlines(blob, offset)
    outline = max(outlines, key=cv2.contourArea)
    area = float(blob.sum())
    w, h = cv2.minAreaRect(outline)[1]
    _, r = cv2.minEnclosingCircle(outline)
    return max(area / max(w * h, 1.0), area / max(np.pi * r * r, 1.0))


def _blob_region_mm(view: TopView, blob: np.ndarray) -> tuple[float, float, float, float]:
    ys, xs = np.nonzero(blob)
    stat = np.array([xs.min(), ys.min(), xs.max() - xs.min() + 1, ys.max() - ys.min() + 1])
    return _region_mm(view, stat)


def _region_mm(view: TopView, stat: np.ndarray) -> tuple[float, float, float, float]:
    x, y, w, h = (int(v) for v in stat[:4])
    p = view.px_per_mm
    return (
        x / p + view.origin_mm[0],
        y / p + view.origin_mm[1],
        (x + w) / p + view.origin_mm[0],
        (y + h) / p + view.origin_mm[1],
    )


def grid_view(image: np.ndarray, calibration: Calibration | None = None) -> tuple[TopView, Calibration]:
    cal = calibrate(image, g.SHEET, g.SHEET_MM, calibration)
    ox, oy = g.GRID_ORIGIN_MM
    span = 4 * g.CELL_MM
    region = (ox - MARGIN_MM, oy - MARGIN_MM, ox + span + MARGIN_MM, oy + span + MARGIN_MM)
    return top_view(image, cal, region, PX_PER_MM), cal


def read_grid_cells(
    image: np.ndarray, calibration: Calibration | None = None, previous: GridReading | None = None
) -> GridReading:
    """Full reading with status, reason and region per cell. Raises VisionError (LocaliseError)
    when the board's markers cannot be found and no usable calibration is given. `previous` (the
    last frame's reading from the same camera) lets unchanged cells keep their reading."""
    check_image(image)
    view, cal = grid_view(image, calibration)
    cells = read_cells_in_view(view, previous)
    if previous is not None and all(cells[k] is previous.cells[k] for k in cells):
        view = previous.view  # nothing read again: the last view stays the reference (drift adds up)
    return GridReading(cells, view, cal)


def read_grid_board(
    image: np.ndarray, calibration: Calibration | None = None
) -> dict[str, tuple[int | None, float]]:
    """{cell: (number or None, confidence)} for a1..d4. None with a high confidence is an empty cell;
    None with confidence 0 is "cannot read" (see `read_grid_cells` for the reason and region)."""
    return read_grid_cells(image, calibration).board()


def loose_tiles(image: np.ndarray, min_frac: float = 0.002, max_frac: float = 0.2) -> Detections:
    """Numbered tokens lying on a plain surface without the printed board: everything that differs
    from the surface colour (the median of the image border) and is token-sized is read as a piece.
    Perspective is ignored, so this suits photos taken from above."""
    check_image(image)
    h, w = image.shape[:2]
    lab = cv2.cvtColor(cv2.GaussianBlur(image, (5, 5), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    border = np.concatenate(
        [
            lab[:4].reshape(-1, 3),
            lab[-4:].reshape(-1, 3),
            lab[:, :4].reshape(-1, 3),
            lab[:, -4:].reshape(-1, 3),
        ]
    )
    surface = np.median(border, axis=0)
    spread = np.percentile(np.linalg.norm(border - surface, axis=1), 90)
    fg = (np.linalg.norm(lab - surface, axis=2) > max(18.0, 2.5 * spread)).astype(np.uint8)
    k = max(3, round(min(h, w) / 150)) | 1
    fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(fg, connectivity=8)
    boxes, conf, values = [], [], []
    for i in range(1, count):
        x, y, bw, bh, area = (int(v) for v in stats[i])
        if not (min_frac * h * w <= area <= max_frac * h * w) or max(bw, bh) > 2.2 * min(bw, bh):
            continue
        blob = labels[y : y + bh, x : x + bw] == i
        blob = cv2.morphologyEx(blob.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((k, k), np.uint8)) > 0
        number, c, _, _ = classify_piece(image[y : y + bh, x : x + bw], blob, max(bw, bh) / g.PIECE_MM)
        boxes.append([x, y, x + bw, y + bh])
        ok = number is not None and c >= MIN_CONFIDENCE
        conf.append(c if ok else 0.0)
        values.append(number if ok else -1)
    return Detections.from_lists(boxes, conf, values, "tile")


def read_tiles(image: np.ndarray, calibration: Calibration | None = None) -> Detections:
    """Numbered pieces as `Detections` (kind "tile") in image pixels; a piece that cannot be read
    has value -1 and confidence 0. On the printed board (its markers seen, or a calibration given)
    pieces are read cell by cell; without a board, tokens on a plain surface (`loose_tiles`)."""
    try:
        return tiles_from_reading(read_grid_cells(image, calibration))
    except LocaliseError:
        return loose_tiles(image)


def tiles_from_reading(reading: GridReading) -> Detections:
    """The non-empty cells of a grid reading as `Detections` in camera-image pixels."""
    boxes, conf, values = [], [], []
    cells = []
    for name, c in reading.cells.items():
        if c.status == "empty" or c.region_mm is None:
            continue
        x0, y0, x1, y1 = c.region_mm
        ox, oy = reading.view.origin_mm
        p = reading.view.px_per_mm
        boxes.append(reading.view.box_to_image((x0 - ox) * p, (y0 - oy) * p, (x1 - ox) * p, (y1 - oy) * p))
        conf.append(c.confidence)
        values.append(c.number if c.number is not None else -1)
        cells.append(name)
    return Detections.from_lists(boxes, conf, values, "tile", {"cell": np.array(cells, dtype=object)})
