"""Objects on the 4x4 top view split into pieces, object by object on crops round each.

Every step here is local to one connected object of the foreground mask: its cores (an erosion, so
inside the object), the nearest-core assignment of its pixels (among its own cores only) and the
deeper split of an object the size of two pieces. So each is computed on the object's bounding box
(one pixel wider, clipped to the view) instead of the whole view, and only objects with two or more
cores need a distance transform at all. The result equals the whole-view computation pixel for pixel
(tests/test_vision_tiles_split.py against tests/grid_reference.py, main's code):
- an erosion of a mask on a crop with a ring of background round it (or the view's edge) is the
  erosion on the whole view, as the disc is symmetric and orthogonally convex: a disc reaching past
  the crop covers a ring pixel;
- OpenCV's 5x5 chamfer transform is a two-pass DP whose candidates are compared strictly; a path
  leaving a box that holds the pixel and its core is not monotone, so costs strictly more than a
  monotone one inside the box (the mask's steps obey a strict triangle inequality for vectors of
  opposite signs): no value or tie inside the crop changes, and a pixel whose nearest core over
  the whole view is one of its object's keeps that core when the other objects' cores are left out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache

import cv2
import numpy as np

from vision.tiles import geometry as g

# area of one piece's footprint over a flat piece's (PIECE_MM square) above which a cell's object is
# more than one piece: a piece seen at a tilt shows its sides too, and a piece lying on another (an
# illegal placement, read as its top piece) up to 1.2 flat pieces at 600 mm / 30 degrees
MAX_PIECE_AREA = 1.35

Box = tuple[int, int, int, int]  # x0, y0, x1, y1 (end exclusive)


def box_round(stat: np.ndarray, shape: tuple[int, ...], margin: int = 1) -> Box:
    """A stats row's (x, y, w, h) box widened by `margin` pixels, clipped to an image of `shape`."""
    x, y, w, h = (int(v) for v in stat[:4])
    h_img, w_img = shape[:2]
    return max(0, x - margin), max(0, y - margin), min(w_img, x + w + margin), min(h_img, y + h + margin)


def split_touching(fg: np.ndarray, px_per_mm: float) -> tuple[np.ndarray, np.ndarray]:
    """Connected objects, with pieces that merely touch (turned pieces meeting at a corner) split:
    cores are found on the mask eroded by 5 mm, then every object pixel joins its nearest core. An
    object still the size of two whole pieces (pieces touching along a side on a crowded board) is
    split on deeper cores (7.5, then 10 mm) when it has two or more there and every part is a whole
    piece. Returns (labels, stats): stats rows as `label_stats` gives them for every label in use."""
    labels, stats = _nearest_core_stats(fg, _core(fg, 5.0 * px_per_mm))
    piece = (g.PIECE_MM * px_per_mm) ** 2
    for k in np.nonzero(stats[:, 4] >= 1.85 * piece)[0]:
        if k == 0:
            continue
        x0, y0, x1, y1 = box_round(stats[k], labels.shape)
        obj = (labels[y0:y1, x0:x1] == k).astype(np.uint8)
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
                0.8 * piece <= (parts == j).sum() <= MAX_PIECE_AREA * piece
                and solidity(parts == j, (x0, y0)) >= 0.92
                for j in range(1, n + 1)
            )
            if whole:
                top = int(stats.shape[0]) - 1  # the highest label in use (see `_nearest_core_stats`)
                window = labels[y0:y1, x0:x1]
                window[parts > 1] = top + parts[parts > 1] - 1
                new = {j: top + j - 1 for j in range(2, int(parts.max()) + 1)}
                stats = _with_rows(stats, parts, (x0, y0), {1: int(k), **new})
            break
    return labels, stats


def split_grown(fg: np.ndarray, old_fg: np.ndarray, old: tuple[np.ndarray, np.ndarray],
                px_per_mm: float) -> tuple[np.ndarray, np.ndarray]:
    """`split_touching(fg)` (partition and stats) for a mask that only grew from `old_fg`, whose split
    is `old`: an object of `fg` with no new pixel is an object of `old_fg`, and every step of the
    split is the object's own, so it keeps its parts; only objects that grew are split again."""
    grown = cv2.compare(fg, old_fg, cv2.CMP_NE)
    if not grown.any():
        return old
    if cv2.countNonZero(cv2.bitwise_and(old_fg, cv2.bitwise_not(fg))):  # not grown only: split all
        return split_touching(fg, px_per_mm)
    n, objects = cv2.connectedComponents(fg, connectivity=8)
    redo = np.zeros(n, bool)
    redo[objects[grown > 0]] = True
    redo[0] = False
    again = redo[objects]
    parts, part_stats = split_touching(fg * again, px_per_mm)
    old_labels, old_stats = old
    top = old_stats.shape[0] - 1  # the highest label of `old`
    labels = old_labels.copy()
    labels[again] = 0
    mine = parts > 0
    labels[mine] = parts[mine] + top
    return labels, np.concatenate([old_stats, part_stats[1:]])


def _with_rows(stats: np.ndarray, parts: np.ndarray, origin: tuple[int, int],
               to: dict[int, int]) -> np.ndarray:
    """`stats` with the rows of `parts`' labels (a crop's, at `origin`) written as the labels `to`
    maps them to (grown to the highest)."""
    rows = label_stats(parts)
    rows[:, 0] += origin[0]
    rows[:, 1] += origin[1]
    out = np.zeros((max(stats.shape[0], max(to.values()) + 1), 5), np.int32)
    out[: stats.shape[0]] = stats
    for j, k in to.items():
        if j < rows.shape[0]:
            out[k] = rows[j]
    return out


def label_stats(labels: np.ndarray) -> np.ndarray:
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


def solidity(blob: np.ndarray, offset: tuple[int, int] = (0, 0),
             outlines: Sequence[np.ndarray] | None = None) -> float:
    """Area over convex hull area of a boolean footprint. The hull is taken of its outer outlines'
    points (the same polygon as the hull of all its pixels: an extreme pixel is on an outer outline,
    and the polygon area is exact integer arithmetic in doubles), in view coordinates: `offset` is a
    crop's place in the view. `outlines`: the footprint's RETR_EXTERNAL contours at that offset, when
    the caller has them (`outer_outlines`)."""
    if outlines is None:
        outlines = outer_outlines(blob, offset)
    if not outlines:
        return float(blob.sum())
    return float(blob.sum()) / max(cv2.contourArea(cv2.convexHull(np.concatenate(outlines))), 1.0)


def outer_outlines(blob: np.ndarray, offset: tuple[int, int] = (0, 0)) -> Sequence[np.ndarray]:
    """A boolean footprint's outer contours (CHAIN_APPROX_SIMPLE), in view coordinates."""
    mask = blob.astype(np.uint8)
    return cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE, offset=offset)[0]


def _core(fg: np.ndarray, r: float) -> np.ndarray:
    return disc_erode(fg, max(1, round(r)))


@cache
def _disc_steps(r: int) -> tuple[tuple[int, int], ...]:
    """OpenCV's elliptic (2r+1)-square structuring element as the union of centred rectangles
    (half width, half height), widths rising and heights falling: each row of the element is one
    centred run, and a run is no narrower than those farther from the middle row."""
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    half = (disc.sum(1).astype(int) - 1) // 2  # each row's half width
    steps: dict[int, int] = {}
    for dy in range(-r, r + 1):
        steps[int(half[dy + r])] = max(steps.get(int(half[dy + r]), 0), abs(dy))
    out = tuple(sorted((w, h) for w, h in steps.items()
                       if not any(w2 > w and h2 >= h for w2, h2 in steps.items())))
    union = np.zeros_like(disc)
    for w, h in out:
        union[r - h : r + h + 1, r - w : r + w + 1] = 1
    if not np.array_equal(union, disc):  # never seen; the plain element then (same result, slower)
        return ()
    return out


def disc_erode(mask: np.ndarray, r: int) -> np.ndarray:
    """`cv2.erode(mask, ELLIPSE (2r+1)^2)` exactly, as the AND of erosions by the element's
    rectangles (`_disc_steps`); each is separable, and the rows are eroded step by step, widest
    last (eroding by two centred runs one after the other is eroding by their sum). Outside the
    image counts as set, as for cv2.erode. About half the CPU of the elliptic element at r = 15."""
    return _by_steps(mask, r, cv2.erode, cv2.bitwise_and)


def disc_dilate(mask: np.ndarray, r: int) -> np.ndarray:
    """`cv2.dilate(mask, ELLIPSE (2r+1)^2)` exactly, as `disc_erode` does erosion (the element is
    symmetric; outside the image counts as unset, as for cv2.dilate)."""
    return _by_steps(mask, r, cv2.dilate, cv2.bitwise_or)


def _by_steps(mask: np.ndarray, r: int, op: Callable[..., np.ndarray],
              join: Callable[..., np.ndarray]) -> np.ndarray:
    steps = _disc_steps(r)
    if not steps:
        return op(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1)))
    rows, done = mask, 0
    out: np.ndarray | None = None
    for w, h in steps:
        if w > done:
            rows, done = op(rows, _run(2 * (w - done) + 1, True)), w
        part = op(rows, _run(2 * h + 1, False)) if h else rows.copy()
        out = part if out is None else join(out, part, dst=out)
    assert out is not None
    return out


@cache
def _run(n: int, across: bool) -> np.ndarray:
    """A structuring element of `n` pixels in a row (`across`) or a column."""
    return np.ones((1, n) if across else (n, 1), np.uint8)


def _nearest_core(fg: np.ndarray, core: np.ndarray) -> np.ndarray:
    """Labels 1.. of `fg` pixels by their nearest connected part of `core` within their own object
    (connected part of `fg`); an object without a core keeps a label of its own (plain connected
    components where there is no core at all). Nearest over the whole view would give a speck with
    no core of its own (a sliver of a marker or of the sheet's white at the view's corner, there in
    some frames only) to the nearest piece: that piece's cell then held an odd, far-flung shape.
    Core parts keep their connected-component numbers 1..; objects without one get numbers above."""
    return _nearest_core_stats(fg, core)[0]


def _nearest_core_stats(fg: np.ndarray, core: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`_nearest_core` and its labels' stats rows (`label_stats`, numbered alike; labels 1..max all
    in use). An object with one core is that core's label whole, with the object's stats; only
    objects with several need the distance transform, on their own box (see the module's note)."""
    count, core_labels = cv2.connectedComponents(core, connectivity=8)
    n_objects, objects, ostats, _ = cv2.connectedComponentsWithStats(fg, connectivity=8)
    if count <= 1:
        ostats[0] = 0
        return objects.astype(np.int32), ostats.astype(np.int32)
    in_core = core_labels > 0
    object_of = np.zeros(count, np.int32)  # the object each core lies in (an erosion of it)
    object_of[core_labels[in_core]] = objects[in_core]
    cores_in = np.bincount(object_of[1:], minlength=n_objects)
    cores_in[0] = 0
    lut = np.zeros(n_objects, np.int32)
    ids = np.arange(1, count, dtype=np.int32)
    single = cores_in[object_of[1:]] == 1
    lut[object_of[1:][single]] = ids[single]
    coreless = np.nonzero(cores_in[1:] == 0)[0] + 1
    lut[coreless] = count + np.arange(len(coreless), dtype=np.int32)
    labels = lut[objects]
    stats = np.zeros((count + len(coreless), 5), np.int32)
    whole = np.nonzero(lut)[0]  # objects labelled whole
    stats[lut[whole]] = ostats[whole]
    for o in np.nonzero(cores_in >= 2)[0]:
        x0, y0, x1, y1 = box_round(ostats[o], fg.shape)
        inside = objects[y0:y1, x0:x1] == o
        window = core_labels[y0:y1, x0:x1]
        near = _by_nearest(inside, window, inside & (window > 0))
        labels[y0:y1, x0:x1][inside] = near[inside]
        rows = label_stats(near)
        used = np.nonzero(rows[:, 4])[0]
        stats[used] = rows[used] + np.array([x0, y0, 0, 0, 0], np.int32)
    return labels, stats


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
