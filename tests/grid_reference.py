"""The 4x4 reader's segmentation and piece classification as main had them at 74b5ad9 (whole-view masks,
one distance transform over every core, np.percentile, Lab of the whole crop), verbatim: the reference
the faster code in vision/tiles/ (reader.py, split.py, patch.py) must equal exactly
(tests/test_vision_tiles_split.py)."""

# ruff: noqa
from __future__ import annotations

import cv2
import numpy as np

from vision.tiles import geometry as g
from vision.tiles.patch import ANGLES, board_mask, patches
from vision.tiles.reader import (MIN_CONFIDENCE, REFINE, RIM_INK_DOUBT, SHAPE_FIT, TWO_TONE, CellReading,
                                 PieceCut, _region_mm, model)
from vision.tiles.split import MAX_PIECE_AREA
from vision.tiles.rectify import TopView


def ink_map(gray: np.ndarray, mask: np.ndarray) -> np.ndarray | None:
    """0..1 ink strength inside `mask` (the piece face, eroded); None when the face has no marks.
    Dark-on-light and light-on-dark pieces both give ink = the minority tone."""
    vals = gray[mask]
    if vals.size < 30:
        return None
    lo, med, hi = np.percentile(vals, [2, 50, 98])
    if hi - lo < 28:
        return None
    g = gray.astype(np.float32)
    if hi - med > med - lo:  # the face is mostly dark: light ink
        ink = (g - med) / max(hi - med, 1.0)
    else:
        ink = (med - g) / max(med - lo, 1.0)
    ink = np.clip(ink * 1.25 - 0.15, 0, 1)
    ink[~mask] = 0
    return ink


def ink_frame(ink: np.ndarray) -> tuple[float, float, float] | None:
    """Centroid (x, y) and radius of the ink; None when there is too little."""
    ys, xs = np.nonzero(ink > 0.5)
    if len(xs) < 12:
        return None
    cx, cy = float(xs.mean()), float(ys.mean())
    r = float(np.percentile(np.hypot(xs - cx, ys - cy), 98)) + 1.0
    return cx, cy, r


def piece_ink(bgr: np.ndarray, blob: np.ndarray, erode_px: int, keep_rim: bool = False) -> np.ndarray | None:
    """Ink map of one piece: `blob` is its boolean footprint in `bgr` (same size). Unless
    `keep_rim`, marks touching the face's rim are dropped: mostly the piece's own side seen at a
    tilt, a neighbour's edge or a shadow through blur, which would pull the centroid and radius the
    patch is normalised by; but a big number on a small token can reach the rim too, so the reader
    checks the reading with them kept (see `reader.classify_piece`)."""
    gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    k = max(1, erode_px)
    face = cv2.erode(blob.astype(np.uint8), np.ones((2 * k + 1, 2 * k + 1), np.uint8))
    ink = ink_map(gray, face > 0)
    if ink is None or keep_rim:
        return ink
    rim = (face > 0) & (cv2.erode(face, np.ones((5, 5), np.uint8)) == 0)
    count, marks = cv2.connectedComponents((ink > 0.15).astype(np.uint8), connectivity=8)
    if count > 1:
        touching = np.unique(marks[rim & (marks > 0)])
        ink[np.isin(marks, touching[touching > 0])] = 0
    return ink


def two_tone(bgr: np.ndarray, blob: np.ndarray, erode_px: int, ink: np.ndarray | None = None) -> float:
    """Share of the face (away from ink) whose colour is far from the face's median colour. A piece
    is one colour; a piece partly lying on another of a different colour is two. Lab chroma only,
    so uneven light and shadow bands, which change lightness, do not count. `ink`: the piece's
    `piece_ink(bgr, blob, erode_px)` when the caller has it already."""
    k = max(1, erode_px)
    face = cv2.erode(blob.astype(np.uint8), np.ones((2 * k + 1, 2 * k + 1), np.uint8)) > 0
    if ink is None:
        ink = piece_ink(bgr, blob, erode_px)
    if ink is not None:
        face &= cv2.dilate((ink > 0.1).astype(np.uint8), np.ones((5, 5), np.uint8)) == 0
    ab = cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB)[face][:, 1:].astype(np.float32)
    if len(ab) < 20:
        return 0.0
    return float((np.linalg.norm(ab - np.median(ab, axis=0), axis=1) > 18).mean())


def classify_piece(
    bgr: np.ndarray, blob: np.ndarray, px_per_mm: float, clean_ink: np.ndarray | None = None
) -> tuple[int | None, float, float, str]:
    """(number, confidence, angle, reason) for one piece footprint `blob` in `bgr`. The ink is read
    without the marks touching the piece's rim; when that dropped ink, it is also read with them.
    Differing readings: with a fifth or more of the ink dropped, the number itself may reach the rim
    (a big number on a small token), so neither is trusted; with less, the clean one is taken when
    it is sure (measured on rendered boards: rim marks were then always the piece's side or edge).
    `clean_ink`: the rim-less ink map when the caller has it already (`PieceCut.ink`)."""
    erode = max(1, round(1.2 * px_per_mm))
    if clean_ink is None:
        clean_ink = piece_ink(bgr, blob, erode)
    clean = read_ink(clean_ink)
    full_ink = piece_ink(bgr, blob, erode, keep_rim=True)
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
    probs = model().predict_proba(patches(ink, frame, ANGLES))  # (angles, 17)
    per_class = probs[:, 1:].max(0)  # best turn for each number
    # A true reading holds over the +-9 degrees the classifier was trained on; a number glimpsed at
    # an in-between turn does not. So each leading candidate's turn is first refined on a 2.5 degree
    # grid around its best candidate turn, then re-scored 6 degrees either side of that peak.
    lead = [int(k) for k in np.argsort(per_class)[::-1][:3]]
    starts = [float(ANGLES[int(np.argmax(probs[:, 1 + k]))]) for k in lead]
    fine = np.concatenate([a + REFINE for a in starts])
    p_fine = model().predict_proba(patches(ink, frame, fine)).reshape(len(lead), len(REFINE), -1)
    peaks = [float(starts[i] + REFINE[int(np.argmax(p_fine[i, :, 1 + k]))]) for i, k in enumerate(lead)]
    sides = np.array([[a - 6.0, a + 6.0] for a in peaks]).ravel()
    p_side = model().predict_proba(patches(ink, frame, sides)).reshape(len(lead), 2, -1)
    scores: dict[int, tuple[float, float]] = {}
    for i, k in enumerate(lead):
        held = min(float(p_fine[i, :, 1 + k].max()), float(p_side[i, :, 1 + k].min()))
        scores[k] = (held, peaks[i] % 360)
    ranked = sorted(scores, key=lambda k: -scores[k][0])
    best, second = ranked[0], ranked[1]
    conf = scores[best][0] * (1.0 - scores[second][0])
    return best + 1, conf, scores[best][1], ""


def foreground(img: np.ndarray, px_per_mm: float, fill_holes: bool = False) -> np.ndarray:
    """Everything on the top view that is not board blue, without thin structures: an opening by a
    3 mm disc removes the strip of white sheet that a slightly-off localisation puts along the view's
    edge (it would merge with the pieces next to it) and stray specks. With `fill_holes`, holes
    smaller than half a piece are filled first: ink in the board's own blue cuts a piece apart, but
    so filled, the small gap between pieces meeting round a point closes too."""
    fg = (~board_mask(img)).astype(np.uint8)
    fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    contours, hierarchy = cv2.findContours(fg, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if fill_holes and hierarchy is not None:
        max_hole = 0.5 * (g.PIECE_MM * px_per_mm) ** 2
        holes = [c for c, h in zip(contours, hierarchy[0], strict=True) if h[3] >= 0]
        cv2.drawContours(fg, [c for c in holes if cv2.contourArea(c) < max_hole], -1, 1, -1)
    r = max(1, round(3.0 * px_per_mm))
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    return cv2.morphologyEx(fg, cv2.MORPH_OPEN, disc)


def segment_cells(view: TopView) -> dict[str, CellReading | PieceCut]:
    """Per cell: a finished reading (empty, or a fault that cannot be read) or the one piece to read.
    A cell that is a fault as segmented is tried again with the foreground's small holes filled,
    and takes that when it is one clean piece there (a piece with ink in board blue)."""
    ppm = view.px_per_mm
    plain = split_touching(foreground(view.image, ppm), ppm)
    filled: tuple[np.ndarray, np.ndarray] | None = None
    out: dict[str, CellReading | PieceCut] = {}
    for name in g.cell_names():
        seg = _segment_cell(view, name, *plain)
        if isinstance(seg, CellReading) and seg.status == "unreadable":
            filled = filled or split_touching(foreground(view.image, ppm, fill_holes=True), ppm)
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
    ids, counts = np.unique(sub[sub > 0], return_counts=True)
    present = [(int(i), int(c)) for i, c in zip(ids, counts, strict=True) if c > 0.12 * piece_area]
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
    blob = _filled(labels == k)  # ink in the board's own blue would leave holes in the piece
    area, inside = int(blob.sum()), int(blob[y0:y1, x0:x1].sum())
    if inside < 0.85 * area:
        # Merged with a neighbour through a blurred gap? Keep the part on this cell when it is a
        # whole piece by itself; a piece pushed off its cell leaves only part of one here.
        m = round(1.5 * ppm)
        clip = np.zeros_like(blob)
        ys, xs = slice(max(0, y0 - m), y1 + m), slice(max(0, x0 - m), x1 + m)
        clip[ys, xs] = blob[ys, xs]
        clip = cv2.morphologyEx(clip.astype(np.uint8), cv2.MORPH_OPEN, np.ones((5, 5), np.uint8)) > 0
        c_area = int(clip.sum())
        whole_here = 0.9 * piece_area <= c_area <= 1.12 * piece_area and _solidity(clip) >= 0.95
        whole_there = area - c_area >= 0.8 * piece_area  # the rest is whole pieces, not a stray part
        if not (whole_here and whole_there):
            return CellReading(
                name, "unreadable", None, 0.0, "piece off its cell (crosses the cell edge)", union
            )
        blob, area = clip, c_area
        union = _blob_region_mm(view, blob)
    if area > MAX_PIECE_AREA * piece_area or _solidity(blob) < 0.86:
        return CellReading(
            name, "unreadable", None, 0.0, "overlapping pieces or an odd shape on the cell", union
        )
    if _shape_fit(blob) < SHAPE_FIT:
        return CellReading(
            name, "unreadable", None, 0.0, "overlapping pieces (outline neither a square nor a circle)", union
        )
    if area < 0.4 * piece_area:
        return CellReading(name, "unreadable", None, 0.0, "object too small for a piece (covered?)", union)
    pad = 4
    bx0, by0 = max(0, x0 - pad), max(0, y0 - pad)
    crop, blob = img[by0 : y1 + pad, bx0 : x1 + pad], blob[by0 : y1 + pad, bx0 : x1 + pad]
    erode = max(1, round(1.2 * ppm))
    ink = piece_ink(crop, blob, erode)
    if two_tone(crop, blob, erode, ink) > TWO_TONE:
        return CellReading(
            name, "unreadable", None, 0.0, "two pieces of different colours on the cell", union
        )
    return PieceCut(name, crop, blob, union, ink)


def _filled(blob: np.ndarray) -> np.ndarray:
    contours, _ = cv2.findContours(blob.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = np.zeros(blob.shape, np.uint8)
    cv2.drawContours(out, contours, -1, 1, -1)
    return out > 0


def _solidity(blob: np.ndarray) -> float:
    pts = cv2.findNonZero(blob.astype(np.uint8))
    return float(blob.sum()) / max(cv2.contourArea(cv2.convexHull(pts)), 1.0)


def _shape_fit(blob: np.ndarray) -> float:
    """How well the footprint fills its best fitted token shape: area over the min-area rectangle's
    (square and rounded tokens) or the min enclosing circle's (round ones), whichever is larger."""
    contours, _ = cv2.findContours(blob.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    outline = max(contours, key=cv2.contourArea)
    area = float(blob.sum())
    w, h = cv2.minAreaRect(outline)[1]
    _, r = cv2.minEnclosingCircle(outline)
    return max(area / max(w * h, 1.0), area / max(np.pi * r * r, 1.0))


def _blob_region_mm(view: TopView, blob: np.ndarray) -> tuple[float, float, float, float]:
    ys, xs = np.nonzero(blob)
    stat = np.array([xs.min(), ys.min(), xs.max() - xs.min() + 1, ys.max() - ys.min() + 1])
    return _region_mm(view, stat)


def split_touching(fg: np.ndarray, px_per_mm: float) -> tuple[np.ndarray, np.ndarray]:
    """Connected objects, with pieces that merely touch (turned pieces meeting at a corner) split:
    cores are found on the mask eroded by 5 mm, then every object pixel joins its nearest core. An
    object still the size of two whole pieces (pieces touching along a side on a crowded board) is
    split on deeper cores (7.5, then 10 mm) when it has two or more there and every part is a whole
    piece."""
    labels = _nearest_core(fg, _core(fg, 5.0 * px_per_mm))
    piece = (g.PIECE_MM * px_per_mm) ** 2
    sizes = np.bincount(labels.ravel())
    for k in np.nonzero(sizes >= 1.85 * piece)[0]:
        if k == 0:
            continue
        obj = (labels == k).astype(np.uint8)
        for depth in (7.5, 10.0):
            core = _core(obj, depth * px_per_mm)
            n = cv2.connectedComponents(core, connectivity=8)[0] - 1
            if n < 2:
                continue
            parts = _nearest_core(obj, core)
            # only whole pieces side by side: a piece lying on another leaves an odd part (the
            # covered piece's visible rest joins the top one), and the object stays one, refused.
            # A part may be as large as one cell's piece may be (MAX_PIECE_AREA): a stack seen at a
            # tilt is larger than a flat piece, and its cell's checks judge it as if it lay alone
            whole = all(
                0.8 * piece <= (parts == j).sum() <= MAX_PIECE_AREA * piece and _solidity(parts == j) >= 0.92
                for j in range(1, n + 1)
            )
            if whole:
                labels[parts > 1] = labels.max() + parts[parts > 1] - 1
            break
    return labels, _label_stats(labels)


def _label_stats(labels: np.ndarray) -> np.ndarray:
    """connectedComponentsWithStats-style rows (x, y, w, h, area) for labels 0..max, in one pass."""
    count = int(labels.max()) + 1
    stats = np.zeros((count, 5), np.int32)
    ys, xs = np.nonzero(labels)
    if not len(xs):
        return stats
    lab = labels[ys, xs]
    order = np.argsort(lab, kind="stable")
    lab, xs, ys = lab[order], xs[order], ys[order]
    ks, starts, counts = np.unique(lab, return_index=True, return_counts=True)
    x0, x1 = np.minimum.reduceat(xs, starts), np.maximum.reduceat(xs, starts)
    y0, y1 = np.minimum.reduceat(ys, starts), np.maximum.reduceat(ys, starts)
    stats[ks] = np.column_stack([x0, y0, x1 - x0 + 1, y1 - y0 + 1, counts])
    return stats


def _core(fg: np.ndarray, r: float) -> np.ndarray:
    r = max(1, round(r))
    return cv2.erode(fg, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1)))


def _nearest_core(fg: np.ndarray, core: np.ndarray) -> np.ndarray:
    """Labels 1.. of `fg` pixels by their nearest connected part of `core` within their own object
    (connected part of `fg`); an object without a core keeps a label of its own (plain connected
    components where there is no core at all). Nearest over the whole view would give a speck with
    no core of its own (a sliver of a marker or of the sheet's white at the view's corner, there in
    some frames only) to the nearest piece: that piece's cell then held an odd, far-flung shape."""
    count, core_labels = cv2.connectedComponents(core, connectivity=8)
    n_objects, objects = cv2.connectedComponents(fg, connectivity=8)
    if count <= 1:
        return objects.astype(np.int32)
    labels = _by_nearest(fg, core_labels, core > 0)
    # the object each core lies in (a core is inside its object: an erosion of it)
    ys, xs = np.nonzero(core)
    object_of = np.zeros(count, np.int32)
    object_of[core_labels[ys, xs]] = objects[ys, xs]
    astray = (fg > 0) & (object_of[labels] != objects)
    if not astray.any():
        return labels
    for obj in np.unique(objects[astray]):
        inside = objects == obj
        own = np.nonzero(object_of == obj)[0]
        own = own[own > 0]
        if not len(own):
            labels[inside] = labels.max() + 1
        else:
            labels[inside] = _by_nearest(inside, core_labels, np.isin(core_labels, own))[inside]
    return labels


def _by_nearest(fg: np.ndarray, core_labels: np.ndarray, cores: np.ndarray) -> np.ndarray:
    """Each `fg` pixel's label in `core_labels` of the nearest pixel of `cores` (0 off `fg`)."""
    _, nearest = cv2.distanceTransformWithLabels(
        (~cores).astype(np.uint8), cv2.DIST_L2, 5, labelType=cv2.DIST_LABEL_PIXEL
    )
    # DIST_LABEL_PIXEL numbers every zero pixel; map those numbers back to their core component
    ys, xs = np.nonzero(cores)
    lut = np.zeros(nearest.max() + 1, np.int32)
    lut[nearest[ys, xs]] = core_labels[ys, xs]
    return np.where(fg > 0, lut[nearest], 0).astype(np.int32)
