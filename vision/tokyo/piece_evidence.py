"""Evidence for a hypothesised piece: how much likelier the image is if a column or a stick stands where
the hypothesis puts it than if the table showed there. Vision knows no rules: the caller (the
referee's Tokyo adapter) says which columns and sticks to test, in millimetres on the mat.

Why this and not the reader's own pieces: the reader must find a stick against the table from the
image alone, and a natural-wood road on the yellow printed mat differs from it by a chromaticity of
about 0.02 (its masks ask 0.024; see faint_sticks.py), so whole roads go unseen. A hypothesis only
has to be *compared*: a road's band where the camera says it must lie is either a little off the
table's colour or not, and a column of height h predicts exactly where its grey body ends and the road
on its top begins. The colours are measured against the table's own local colour (a coarse median of
the frame), so a lamp's gradient, a tinted mat or a colour cast across the table change nothing.

Per pixel two probabilities: `grey` (column plastic, or a junction's yellow) and `piece` (neither the
table's colour nor grey: a road). A hypothesis's score is the sum over the pixels it covers of the
log-likelihood ratio piece-there against table-there; pixels the caller marks as known pieces count
for nothing (they look like pieces whatever is tested), except a column's side where a standing road
is drawn: that is scored column against bare road when the caller gives the roads (under_roads.py).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Any, Protocol

import cv2
import numpy as np

from vision.tokyo.calibration import PinholeCamera, TokyoCalibration
from vision.tokyo.labels import blobs_off
from vision.tokyo.pixels import nonzero_yx


class HiddenRoads(Protocol):
    """The match's roads in one view, as build scoring needs them (vision.tokyo.under_roads.RoadPixels;
    a protocol here because that module builds on this one): `label` is 0 off the roads, and
    `column_llr` scores a column's side hidden under them against bare road (`llr_of_counts` the
    same from the compiled pass's per-road sums)."""

    label: np.ndarray
    count: np.ndarray  # pixels per label (the compiled pass sizes its per-road sums by it)

    def column_llr(self, grey: np.ndarray, hidden: np.ndarray, win: tuple[slice, slice]) -> float: ...

    def llr_of_counts(self, hidden_px: float, k_in: np.ndarray, n_in: np.ndarray) -> float: ...


GREY_SATURATION = (30.0, 75.0)  # HSV saturation: grey plastic below the first, a tinted mat above the second
GREY_SPAN_MIN = 10.0  # HSV saturation: the grey ramp's least width when a pale table lowers its top
GREY_DARKEST = 25  # HSV value: darker than this the saturation is noise, nothing is called grey
JUNCTION_SATURATION = 150.0  # junction yellow is far more saturated than the yellow mat (about 92)
# chromaticity distance from the local table colour: noise stays under the first (5x5 blur, renders
# and webcams alike: about 0.003), a natural road on the yellow mat reaches 0.016-0.023
PIECE_CHROMA = (0.006, 0.016)
GLARE_LEVEL = 240  # every channel this bright: a highlight, not a piece's colour
GLARE_GROW = 9  # px: the washed-out rim around a highlight's core
# a highlight short of blowing out: the table's colour with at least this much light added to every
# channel alike, within this many grey levels in each (blur and the local table estimate's error; a
# piece's own colour lies tens of levels off); a channel this bright is clipped
HIGHLIGHT_ADDED = 20.0
HIGHLIGHT_OFF = 10.0
CLIP_LEVEL = 250
LLR_SCALE = 2.0  # nats per pixel for a sure pixel: log-ratio of a clear piece pixel against table


def _ramp(v: np.ndarray, lo: float, hi: float) -> np.ndarray:
    return np.clip((v - lo) / (hi - lo), 0.0, 1.0)


@dataclass
class PieceMaps:
    """Per-pixel log-likelihood ratios (float32, image size) of a piece there against the table."""

    grey: np.ndarray  # grey column plastic
    road: np.ndarray  # a road: neither the table's colour nor grey nor junction yellow
    yellow: np.ndarray  # junction yellow (the top unit of a junction column)


def piece_maps(image: np.ndarray) -> PieceMaps:
    h, w = image.shape[:2]
    f = cv2.GaussianBlur(image, (5, 5), 1.2)
    hsv = cv2.cvtColor(f, cv2.COLOR_BGR2HSV).astype(np.float32)
    sat, hue, val = hsv[..., 1], hsv[..., 0], hsv[..., 2]
    yellow = ((hue >= 14) & (hue <= 36) & (sat >= JUNCTION_SATURATION)).astype(np.float32)
    # the table's local colour: a coarse median (pieces are thin, a median of 15 cells passes over them)
    small = cv2.resize(f, (max(16, w // 8), max(9, h // 8)), interpolation=cv2.INTER_AREA)
    small_table = cv2.medianBlur(cv2.medianBlur(small, 15), 15)
    table = cv2.resize(small_table, (w, h), interpolation=cv2.INTER_LINEAR)
    # grey is less saturated than the table: where the table itself shows under GREY_SATURATION's top
    # (the green mat under a warm lamp: saturation about 50), a pixel as saturated as the table is
    # table, not partly grey (tuning seed 38: the whole mat read as grey plastic, so the known pieces
    # aligned with a knocked camera anywhere, and seed 49's mat gave hundreds of grey spots)
    table_sat = cv2.cvtColor(small_table, cv2.COLOR_BGR2HSV)[..., 1].astype(np.float32)
    top = cv2.resize(np.clip(table_sat, GREY_SATURATION[0] + GREY_SPAN_MIN, GREY_SATURATION[1]), (w, h),
                     interpolation=cv2.INTER_LINEAR)
    grey = np.clip((top - sat) / (top - GREY_SATURATION[0]), 0.0, 1.0)
    grey *= val > GREY_DARKEST
    # a channel plane at a time (+ 4 while converting to float: the same exact sums, one pass): the
    # same divisions and differences as over the 3-channel frames, no merges, contiguous planes
    fc = [cv2.add(c, 4.0, dtype=cv2.CV_32F) for c in cv2.split(f)]
    tc = [cv2.add(c, 4.0, dtype=cv2.CV_32F) for c in cv2.split(table)]
    sf, st = (fc[0] + fc[1]) + fc[2], (tc[0] + tc[1]) + tc[2]
    chroma = None
    for a, b in zip(fc, tc, strict=True):
        np.divide(a, sf, out=a)
        np.divide(b, st, out=b)
        np.subtract(a, b, out=a)
        np.abs(a, out=a)
        chroma = a if chroma is None else np.maximum(chroma, a, out=chroma)
    piece = _ramp(chroma, *PIECE_CHROMA) * (1.0 - np.maximum(grey, yellow))
    s = LLR_SCALE
    # a glare spot washes every colour out towards white: there the image says nothing either way
    grow = np.ones((GLARE_GROW, GLARE_GROW), np.uint8)
    level = (GLARE_LEVEL,) * 3
    blind = cv2.dilate(cv2.inRange(image, level, (255, 255, 255)) >> 7, grow)  # every channel >= the level
    care = ((blind == 0) & ~whitened(f, table)).astype(np.float32)
    return PieceMaps((s * (2 * grey - 1) * care).astype(np.float32),
                     (s * (2 * piece - 1) * care).astype(np.float32),
                     (s * (2 * yellow - 1) * care).astype(np.float32))


def whitened(f: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Pixels that are the local table colour with light added (a lamp's highlight short of blowing
    out: every channel raised by the same amount, those that reach the top clipped there): low in
    saturation like grey plastic, but no piece. Plastic darker than the table, a brightness gradient
    (every channel scaled alike, not raised alike) or a piece's own colour lie off that line. Tested
    only where every channel rose by at least what the test asks (few pixels: it costs little)."""
    rose = None
    for a, b in zip(cv2.split(f), cv2.split(table), strict=True):
        up = cv2.max(cv2.subtract(a, b), cv2.threshold(a, CLIP_LEVEL - 1, 255, cv2.THRESH_BINARY)[1])
        rose = up if rose is None else cv2.min(rose, up)
    out = np.zeros(f.shape[:2], bool)
    ys, xs = np.nonzero(rose >= HIGHLIGHT_ADDED - HIGHLIGHT_OFF)
    if len(ys) == 0:
        return out
    p = f[ys, xs].astype(np.float32)
    t0 = table[ys, xs].astype(np.float32)
    d = p - t0
    added = d.max(axis=1)  # a clipped channel rose less than the light added
    off = np.where(p >= CLIP_LEVEL, np.maximum(CLIP_LEVEL - (t0 + added[:, None]), 0.0), added[:, None] - d)
    out[ys, xs] = (added >= HIGHLIGHT_ADDED) & (off.max(axis=1) <= HIGHLIGHT_OFF)
    return out


def scaled(calib: TokyoCalibration, factor: float) -> TokyoCalibration:
    """The same camera for frames resized by `factor` with cv2.resize (the maps are made at half
    size: a road is still nine pixels wide there). Pixel centres sit at whole coordinates, so a
    resized pixel i covers the full-size pixels around (i + 0.5) / factor - 0.5: the principal point
    moves by half a pixel times (factor - 1) besides scaling (a quarter of a half-size pixel up and
    left: scaling K alone drew every candidate that far off the maps' pieces, and on tuning seed 51
    camera 2's start road fitted the column a grid step along its road better than where it stands)."""
    cam = calib.camera
    K = cam.K.copy()
    K[:2] *= factor
    K[:2, 2] += 0.5 * (factor - 1.0)
    camera = PinholeCamera(K, cam.R, cam.t, int(round(cam.width * factor)), int(round(cam.height * factor)))
    return TokyoCalibration(camera, calib.sizes)


def column_hull(calib: TokyoCalibration, x: float, y: float, z0: float, z1: float, n: int = 16) -> np.ndarray:
    """Pixel polygon (int32) of a column's side from height z0 to z1 (mm)."""
    # the ring's offsets (r cos, r sin of n angles) made once per radius and count, the points written
    # into place: the same sums as stacking x + r cos(angle) beside the heights (a build's candidates
    # ask for about a thousand outlines a new scene, most of their cost NumPy's array building)
    rc, rs = _ring(calib.sizes.column_diameter_mm / 2, n)
    pts = np.empty((2 * n, 3))
    pts[:n, 0] = x + rc
    pts[:n, 1] = y + rs
    pts[n:, :2] = pts[:n, :2]
    pts[:n, 2] = z0
    pts[n:, 2] = z1
    uv, _ = calib.camera.project(pts)
    return cv2.convexHull(np.round(uv).astype(np.int32))


def column_hulls(calib: TokyoCalibration, xs: np.ndarray, ys: np.ndarray, z0: float, z1: float,
                 n: int = 16) -> list[np.ndarray]:
    """`column_hull` of a column at each (xs[k], ys[k]): the same points written for all at once and
    projected in one stacked call (PinholeCamera.project_each), the same outlines for less of NumPy's
    array building."""
    rc, rs = _ring(calib.sizes.column_diameter_mm / 2, n)
    pts = np.empty((len(xs), 2 * n, 3))
    pts[:, :n, 0] = xs[:, None] + rc
    pts[:, :n, 1] = ys[:, None] + rs
    pts[:, n:, :2] = pts[:, :n, :2]
    pts[:, :n, 2] = z0
    pts[:, n:, 2] = z1
    uv = np.round(calib.camera.project_each(pts)).astype(np.int32)
    return [cv2.convexHull(u) for u in uv]


_RINGS: dict[tuple[float, int], tuple[np.ndarray, np.ndarray]] = {}


def _ring(r: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(r cos a, r sin a) for n angles a evenly round the circle from 0 (read-only, kept)."""
    key = (r, n)
    if key not in _RINGS:
        ang = np.linspace(0, 2 * np.pi, n, endpoint=False)
        rc, rs = r * np.cos(ang), r * np.sin(ang)
        rc.setflags(write=False)
        rs.setflags(write=False)
        _RINGS[key] = rc, rs
    return _RINGS[key]


def stick_axis(calib: TokyoCalibration, a: np.ndarray, b: np.ndarray, a_table: bool = False,
               b_table: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The two ends (mm) of a stick's lower edge resting on rests `a` and `b` (a column top, or a point
    on the table when `a_table` / `b_table`): a stick is longer than the span between its rests and
    overhangs them, equally at two columns, all at its column end when the other lies on the table."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    d = b - a
    length = max(float(np.linalg.norm(d)), 1e-9)
    u = d / length
    extra = max(0.0, calib.sizes.stick_length_mm - length)
    ext_a = 0.0 if a_table else (extra if b_table else extra / 2)
    ext_b = 0.0 if b_table else (extra if a_table else extra / 2)
    return a - u * ext_a, b + u * ext_b


def stick_quad(calib: TokyoCalibration, p0: np.ndarray, p1: np.ndarray) -> np.ndarray:
    """Pixel polygon (int32) of a stick whose lower edge runs from `p0` to `p1` (mm; see stick_axis):
    its top face and sides."""
    s = calib.sizes
    p0, p1 = np.asarray(p0, np.float64), np.asarray(p1, np.float64)
    d = p1 - p0
    u = d / max(math.sqrt(d.dot(d)), 1e-9)  # np.linalg.norm of a vector is the root of its dot product
    # np.cross([0, 0, 1], u) term by term, in Python floats (the same IEEE products and differences)
    ux, uy, uz = (float(v) for v in u)
    side = np.array([0.0 * uz - 1.0 * uy, 1.0 * ux - 0.0 * uz, 0.0 * uy - 0.0 * ux])
    side = side / max(math.sqrt(side.dot(side)), 1e-9) * s.stick_width_mm / 2
    # the eight corners p + sb side + z (p0 then p1, sb -1 then 1, z 0 then up), all at once: the same
    # two additions per coordinate
    pts = (np.repeat(np.stack([p0, p1]), 4, axis=0) + _QUAD_SIGNS * side) + _QUAD_UP * s.stick_thickness_mm
    uv, _ = calib.camera.project(pts)
    return cv2.convexHull(np.round(uv).astype(np.int32))


_QUAD_SIGNS = np.array([-1, -1, 1, 1, -1, -1, 1, 1], np.float64)[:, None]
# 0 or 1 times the thickness on z only: 0 * up is +0.0 in every coordinate, as the addition of 0 * up was
_QUAD_UP = np.array([[0.0, 0.0, z] for _ in range(2) for _ in range(2) for z in (0.0, 1.0)])


def known_mask(calib: TokyoCalibration, shape: tuple[int, int], columns: list[tuple[float, float, float]],
               sticks: list[tuple[np.ndarray, np.ndarray]], grow_px: int = 3) -> np.ndarray:
    """uint8 mask of pieces already on the table (columns: x, y, top z; sticks: their lower edges'
    ends, see stick_axis), grown by `grow_px` for the camera's few pixels of drift."""
    out = np.zeros(shape, np.uint8)
    for x, y, z in columns:
        cv2.fillConvexPoly(out, column_hull(calib, x, y, 0.0, z), 1)
    for a, b in sticks:
        cv2.fillConvexPoly(out, stick_quad(calib, a, b), 1)
    if grow_px > 0:
        out = cv2.dilate(out, np.ones((2 * grow_px + 1, 2 * grow_px + 1), np.uint8))
    return out


@dataclass
class BuildScore:
    total: float
    column: float
    road: float


def _hull(cache: dict | None, calib: TokyoCalibration, x: float, y: float, z0: float,
          z1: float) -> np.ndarray:
    if cache is None:
        return column_hull(calib, x, y, z0, z1)
    key = (x, y, z0, z1)
    if key not in cache:
        cache[key] = column_hull(calib, x, y, z0, z1)
    return cache[key]


def score_build(maps: PieceMaps, calib: TokyoCalibration, known: np.ndarray, x: float, y: float, height: int,
                junction: bool, base_top: np.ndarray, base_on_table: bool = False,
                hulls: dict | None = None) -> BuildScore:
    """The evidence for a new column at (x, y) of `height` units (its top unit yellow when `junction`)
    carrying a road from the column top `base_top` (mm; a point on the table when `base_on_table`: a
    start road) to its own top: the road's band drawn over the column (it rests on its top), pixels
    of `known` pieces left out. `hulls`: a dict to keep the columns' outlines in between calls (the
    same column is tried with every base; and the roads' outlines: a caller that keeps it over frames
    of one camera scores the same candidates again without projecting them)."""
    return score_builds(maps, calib, known, x, y, height, (junction,), base_top, base_on_table, hulls)[0]


def score_builds(maps: PieceMaps, calib: TokyoCalibration, known: np.ndarray, x: float, y: float,
                 height: int, junctions: tuple[bool, ...], base_top: np.ndarray, base_on_table: bool = False,
                 hulls: dict | None = None, roads: HiddenRoads | None = None,
                 yellow_known: np.ndarray | None = None) -> list[BuildScore]:
    """`score_build` for the same column and road with each of `junctions`, from one drawing of the
    outlines: a candidate is tried plain and as a junction. Each score is the one `score_build` gives:
    the sums run over the same pixels in the same (raster) order, whatever the window's size. With
    `roads` (the match's roads in this view, vision.tokyo.under_roads) the column's grey side where
    a standing road is drawn is scored too, both hypotheses (column there, bare road) weighed.

    With `hulls` the candidate's pixels (its `Footprint`: outlines drawn, known pieces left out) are
    kept there too, for as long as `known` shows the same pieces: the frames of one state, and a
    knocked view's maps moved by each residual shift, score the same candidates on other pixels."""
    fp = kept_footprint(calib, known, x, y, height, junctions, base_top, base_on_table, hulls)
    return footprint_scores(maps, fp, junctions, roads, yellow_known)


def kept_footprint(calib: TokyoCalibration, known: np.ndarray, x: float, y: float, height: int,
                   junctions: tuple[bool, ...], base_top: np.ndarray, base_on_table: bool = False,
                   hulls: dict | None = None) -> Footprint:
    """The candidate's `Footprint`, kept in `hulls` as `score_builds` keeps it (drawn when not kept)."""
    key = (x, y, height, np.asarray(base_top, np.float64).tobytes(), base_on_table, any(junctions))
    kept = footprints(hulls, known)
    if kept is None:
        return footprint(calib, known, x, y, height, junctions, base_top, base_on_table, hulls)
    fp = kept.get(key)
    if fp is None:
        if len(kept) >= FOOTPRINTS_KEPT:
            kept.clear()
        fp = kept[key] = footprint(calib, known, x, y, height, junctions, base_top, base_on_table, hulls)
    return fp


FOOTPRINTS_KEPT = 20_000  # candidates' pixels kept per camera (a few hundred bytes to a few kB each)
_FOOTPRINTS = "footprints"  # their key in a caller's `hulls`


@dataclass(frozen=True)
class Footprint:
    """A build candidate's pixels in one view, pure geometry given the known pieces: the window `win`
    of the picture its outlines span (None: outside the picture) and boolean masks over it. `band`:
    its road's band, `column`: its column's side off the band, both with the known pieces' pixels
    left out; for a junction (else None) `side` and `top`: the column's pixels below and in its top
    unit; `under`: the column's side off its band, known pieces or not (where a standing road may
    hide it), and `under_side` the same below the top unit."""

    win: tuple[slice, slice] | None
    band: np.ndarray | None = None
    column: np.ndarray | None = None
    side: np.ndarray | None = None
    top: np.ndarray | None = None
    under: np.ndarray | None = None
    under_side: np.ndarray | None = None
    # for a junction, its top unit's pixels where the known pieces are drawn (off its own road's
    # band): the new column may stand in front of them (the known mask knows no depth)
    top_known: np.ndarray | None = None
    # for a junction, its own road's band over its top unit, known pieces left out: the road resting
    # on the top, or the top unit beside and under it (the band is drawn a little wide)
    band_top: np.ndarray | None = None


def footprints(hulls: dict | None, known: np.ndarray) -> dict | None:
    """The candidates' footprints kept in `hulls` for the known pieces `known` (a fresh dict when
    they differ from those the kept ones were drawn with); None without `hulls`."""
    if hulls is None:
        return None
    kept = hulls.get(_FOOTPRINTS)
    if kept is not None and kept[0] is known:
        return kept[2]
    digest = (known.shape, known.dtype.str, hashlib.blake2b(np.ascontiguousarray(known).tobytes(),
                                                            digest_size=16).digest())
    fresh = kept[2] if kept is not None and kept[1] == digest else {}
    hulls[_FOOTPRINTS] = (known, digest, fresh)
    return fresh


def footprint(calib: TokyoCalibration, known: np.ndarray, x: float, y: float, height: int,
              junctions: tuple[bool, ...], base_top: np.ndarray, base_on_table: bool = False,
              hulls: dict | None = None) -> Footprint:
    """The candidate's `Footprint` (score_builds' outlines; `hulls` keeps them as there)."""
    unit = calib.sizes.unit_mm
    road_key = ("road", x, y, height, np.asarray(base_top, np.float64).tobytes(), base_on_table)
    quad = None if hulls is None else hulls.get(road_key)
    if quad is None:
        top = np.array([x, y, height * unit])
        quad = stick_quad(calib, *stick_axis(calib, base_top, top, a_table=base_on_table))
        if hulls is not None:
            hulls[road_key] = quad
    body = _hull(hulls, calib, x, y, 0.0, height * unit)
    polys = [quad, body]
    if any(junctions):
        polys.append(_hull(hulls, calib, x, y, (height - 1) * unit, height * unit))
    pts = np.vstack([p.reshape(-1, 2) for p in polys])
    H, W = known.shape
    x0, y0 = np.maximum(pts.min(0), 0)
    x1, y1 = np.minimum(pts.max(0) + 1, [W, H])
    if x1 <= x0 or y1 <= y0:
        return Footprint(None)
    win = (slice(int(y0), int(y1)), slice(int(x0), int(x1)))
    shift = np.array([x0, y0], np.int32)
    band = np.zeros((int(y1 - y0), int(x1 - x0)), np.uint8)
    col = np.zeros_like(band)
    cv2.fillConvexPoly(band, quad - shift, 1)
    cv2.fillConvexPoly(col, body - shift, 1)
    free = known[win] == 0
    col_px = (col > 0) & (band == 0) & free
    under = (col > 0) & (band == 0)
    side = top_px = under_side = None
    if len(polys) > 2:
        topu = np.zeros_like(band)
        cv2.fillConvexPoly(topu, polys[2] - shift, 1)
        top_px = col_px & (topu > 0)
        side = col_px & ~top_px
        under_side = under & (topu == 0)
        top_known = under & (topu > 0) & ~free
        band_top = (band > 0) & (topu > 0) & free
    else:
        top_known = band_top = None
    return Footprint(win, (band > 0) & free, col_px, side, top_px, under, under_side, top_known, band_top)


def footprint_scores(maps: PieceMaps, fp: Footprint, junctions: tuple[bool, ...],
                     roads: HiddenRoads | None = None,
                     yellow_known: np.ndarray | None = None) -> list[BuildScore]:
    """score_builds' scores of the candidate whose pixels are `fp` on the maps `maps`. With
    `yellow_known` (bool, the view's shape: where the known pieces may show junction yellow, their
    junctions' top units) a junction also takes the yellow of its top unit where the known pieces are
    drawn elsewhere (`junction_in_front`)."""
    win = fp.win
    if win is None:
        return [BuildScore(0.0, 0.0, 0.0) for _ in junctions]
    compiled = _compiled_sums()
    if compiled is not None:
        return _compiled_scores(compiled, maps, fp, junctions, roads, yellow_known)
    road = float(maps.road[win][fp.band].sum())
    grey = maps.grey[win]
    out = []
    # the column's side where the match's roads are drawn (its own road's band taken out): scored
    # column against bare road (vision.tokyo.under_roads), a junction's yellow top unit left out
    on_roads = None if roads is None else roads.label[win] > 0
    hidden = None if on_roads is None else fp.under & on_roads
    for junction in junctions:
        if junction:
            column = float(grey[fp.side].sum() + maps.yellow[win][fp.top].sum())
            if yellow_known is not None:
                column += junction_in_front(maps, fp, yellow_known)
        else:
            column = float(grey[fp.column].sum())
        if hidden is not None and roads is not None and hidden.any():
            column += roads.column_llr(grey, fp.under_side & on_roads if junction else hidden, win)
        out.append(BuildScore(road + column, column, road))
    return out


def _compiled_sums() -> Any:
    from vision.tokyo.score_jit import compiled_sums

    return compiled_sums()


def _compiled_scores(sums: Any, maps: PieceMaps, fp: Footprint, junctions: tuple[bool, ...],
                     roads: HiddenRoads | None, yellow_known: np.ndarray | None) -> list[BuildScore]:
    """footprint_scores' scores from one compiled pass over the candidate's window
    (vision.tokyo.score_jit: the same float32 sums, per-road counts and float64 sums; `roads` a
    vision.tokyo.under_roads.RoadPixels or None), the same floats."""
    from vision.tokyo.score_jit import COLUMN, FRONT, ROAD, SIDE, TOP, candidate_sums

    out, counts, per_road = candidate_sums(sums, maps, fp, any(junctions), roads, yellow_known)
    road = float(out[ROAD])
    scores = []
    for junction in junctions:
        if junction:
            column = float(out[SIDE] + out[TOP])
            if yellow_known is not None:
                column += float(out[FRONT])
        else:
            column = float(out[COLUMN])
        if roads is not None and counts[0] > 0:  # some of the column's side on a road: scored under it
            row = 2 if junction else 0
            column += roads.llr_of_counts(counts[1 if junction else 0], per_road[row], per_road[row + 1])
        scores.append(BuildScore(road + column, column, road))
    return scores


def junction_in_front(maps: PieceMaps, fp: Footprint, yellow_known: np.ndarray) -> float:
    """A junction's yellow where the known pieces are drawn: nats for its top unit in front of them.
    The build scores leave the known pieces' pixels (grown for drift) out, whatever stands nearer the
    camera; a new column in front of a standing road hides it, and its top unit's yellow there is
    left out (tuning seed 8's seventh move at 550/40, two cameras: camera 2 shows 68 yellow pixels
    of the junction's top, 79 of its 82 in the known pieces' mask, 3 scored). Only yellow counts, at
    the map's own +LLR_SCALE, and nothing else is scored there: no known piece is junction yellow
    but a standing junction's top (`yellow_known`, left out), and none of a plain column's top pixels
    read yellow (tuning seeds 1-10 and 31-34 at 550/40, two cameras: 0 of 9 390), so a yellow pixel
    there is the new junction's; any other colour may be the known piece in front, and says nothing."""
    win = fp.win
    if win is None or fp.top_known is None:
        return 0.0
    px = fp.top_known & ~yellow_known[win]
    if not px.any():
        return 0.0
    return float(np.maximum(maps.yellow[win][px], 0.0).sum())


def top_yellow(maps: PieceMaps, fp: Footprint,
               yellow_known: np.ndarray | None = None) -> tuple[float, float, float]:
    """A junction candidate's top unit's yellow pixels (sure ones, summed from the yellow map's positive
    part in units of LLR_SCALE) where the build scores weigh it against the plain twin at 2, 0 and 1
    LLR_SCALE a pixel: its free pixels (yellow map for the junction, grey map for the plain column),
    its own road's band over it (road for both) and the known pieces' pixels it may stand in front
    of (`junction_in_front`, the junction only; a standing junction's top, `yellow_known`, left out)."""
    win = fp.win
    if win is None or fp.top is None:
        return 0.0, 0.0, 0.0
    y = np.maximum(maps.yellow[win], 0.0) / LLR_SCALE
    known = 0.0
    if fp.top_known is not None:
        px = fp.top_known if yellow_known is None else fp.top_known & ~yellow_known[win]
        known = float(y[px].sum())
    band = 0.0 if fp.band_top is None else float(y[fp.band_top].sum())
    return float(y[fp.top].sum()), band, known


ALIGN_SHIFT_PX = 24  # the most a knocked camera moves the image of the mat (a 1.5 degree turn at 720p)
ALIGN_TURN_DEG = 2.0
ALIGN_GAIN = 0.005  # share of the known pieces' pixels a correction must add to be taken (less is noise)


def _known_points(known: np.ndarray, max_points: int) -> np.ndarray | None:
    ys, xs = nonzero_yx(known)
    if len(xs) < 200:
        return None
    pick = np.linspace(0, len(xs) - 1, min(max_points, len(xs))).astype(int)
    return np.stack([xs[pick], ys[pick]], 1).astype(np.float32)


def _evidence(maps: PieceMaps) -> np.ndarray:
    ev = (np.maximum(np.maximum(maps.grey, maps.road), maps.yellow) > 0).astype(np.float32)
    return cv2.blur(ev, (3, 3))


def alignment_score(maps: PieceMaps, known: np.ndarray, drift: np.ndarray | None,
                    max_points: int = 2000) -> float:
    """Share of the known pieces' pixels (moved by `drift`, None: not moved) that show piece evidence:
    what `align_to_known` maximises, for checking that a drift found earlier still holds."""
    pts = _known_points(known, max_points)
    if pts is None:
        return 0.0
    if drift is not None:
        pts = pts @ drift[:, :2].T.astype(np.float32) + drift[:, 2].astype(np.float32)
    return float(_mean_at(_evidence(maps), pts[:, 0], pts[:, 1]))


def _mean_at(ev: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The mean of `ev` at the pixels nearest (x, y) (clipped to the map) over the last axis: one
    flat gather, three times quicker than indexing by row and column."""
    H, W = ev.shape
    xi = np.round(x).astype(np.int32)
    np.clip(xi, 0, W - 1, out=xi)
    yi = np.round(y).astype(np.int32)
    np.clip(yi, 0, H - 1, out=yi)
    yi *= W
    yi += xi
    return ev.ravel()[yi].mean(-1)


def _mean_shifted(ev: np.ndarray, rot: np.ndarray, shifts: np.ndarray,
                  padded: dict[int, np.ndarray]) -> np.ndarray:
    """`_mean_at(ev, rot x + shift x, rot y + shift y)` for each of the (S, 2) whole-pixel `shifts`: a
    point moved by a whole number of pixels rounds to its own rounding moved so (none lies within a
    hair of a half, where the float64 sum's last bit could tip the rounding: then, or for points not
    in float64, the plain sums are taken), and
    the clip to the map is the map padded with its edge, so each shift's pixels are one index offset
    of the points' own: the same pixels gathered in the same order, so the same means. `padded` keeps
    the padded map between calls."""
    whole = bool(np.all(shifts == np.round(shifts)))
    frac = rot - np.floor(rot)
    if rot.dtype != np.float64 or not whole or bool((np.abs(frac - 0.5) < 1e-6).any()):
        return _mean_at(ev, rot[None, :, 0] + shifts[:, 0, None], rot[None, :, 1] + shifts[:, 1, None])
    H, W = ev.shape
    reach = int(np.abs(shifts).max())
    if reach not in padded:
        padded[reach] = np.pad(ev, 2 * reach, mode="edge")
    big = padded[reach]
    # clipped to within `reach` of the map: beyond it every shift's clip lands on the edge anyway
    x = np.clip(np.round(rot[:, 0]), -reach, W - 1 + reach).astype(np.int64) + 2 * reach
    y = np.clip(np.round(rot[:, 1]), -reach, H - 1 + reach).astype(np.int64) + 2 * reach
    sx, sy = shifts[:, 0].astype(np.int64), shifts[:, 1].astype(np.int64)
    wide = big.shape[1]
    idx = (y * wide + x)[None, :] + (sy * wide + sx)[:, None]
    return big.ravel()[idx].mean(-1)


def align_to_known(maps: PieceMaps, known: np.ndarray, max_points: int = 2000) -> np.ndarray | None:
    """The image's drift from the calibrated view, found from the pieces already standing: the
    rotation about their middle and shift (2x3, calibrated pixel -> frame pixel) under which the
    most of their predicted pixels (`known`, not grown) show piece evidence. None when no
    correction does clearly better than none (or there is too little to align on). A camera knocked
    by a degree moves the mat's image by ten or twenty pixels, more than a road is wide; the
    calibration is not redone, so the frame is brought back to it instead."""
    pts = _known_points(known, max_points)
    if pts is None:
        return None
    centre = pts.mean(0)
    ev = _evidence(maps)

    padded: dict[int, np.ndarray] = {}  # ev edge-padded, by pad width (see _mean_shifted)

    def scores(theta: float, shifts: np.ndarray) -> np.ndarray:
        c, s = np.cos(theta), np.sin(theta)
        rel = pts - centre
        rot = np.stack([c * rel[:, 0] - s * rel[:, 1], s * rel[:, 0] + c * rel[:, 1]], 1) + centre
        return _mean_shifted(ev, rot, shifts, padded)

    zero = float(scores(0.0, np.zeros((1, 2), np.float32))[0])
    r = np.arange(-ALIGN_SHIFT_PX, ALIGN_SHIFT_PX + 1, 4, dtype=np.float32)
    coarse = np.stack(np.meshgrid(r, r), -1).reshape(-1, 2)
    best = (zero, 0.0, np.zeros(2, np.float32))
    for theta in np.radians(np.linspace(-ALIGN_TURN_DEG, ALIGN_TURN_DEG, 9)):
        sc = scores(float(theta), coarse)
        k = int(np.argmax(sc))
        if sc[k] > best[0]:
            best = (float(sc[k]), float(theta), coarse[k])
    f = np.arange(-3, 4, 1, dtype=np.float32)
    fine = np.stack(np.meshgrid(f, f), -1).reshape(-1, 2)
    step = np.radians(2 * ALIGN_TURN_DEG / 8)
    for theta in best[1] + step * np.array([-0.5, -0.25, 0.0, 0.25, 0.5]):
        sc = scores(float(theta), best[2][None] + fine)
        k = int(np.argmax(sc))
        if sc[k] > best[0]:
            best = (float(sc[k]), float(theta), best[2] + fine[k])
    if best[0] < zero + ALIGN_GAIN:
        return None
    _, theta, shift = best
    c, s = np.cos(theta), np.sin(theta)
    rot = np.array([[c, -s], [s, c]])
    return np.hstack([rot, (centre - rot @ centre + shift)[:, None]]).astype(np.float64)


def warp_to_calibrated(image: np.ndarray, drift: np.ndarray) -> np.ndarray:
    """The frame (or a piece map) as the calibrated camera would see it, given `align_to_known`'s
    drift."""
    h, w = image.shape[:2]
    return cv2.warpAffine(image, drift, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)


def warp_maps(maps: PieceMaps, drift: np.ndarray) -> PieceMaps:
    return PieceMaps(*(warp_to_calibrated(m, drift) for m in (maps.grey, maps.road, maps.yellow)))


GREY_SPOT_PX = 12  # grey pixels (half size) an unexplained blob needs to be a column's place: a one-unit
# column under its road still shows about twice this much at 550 mm (noise specks are a few pixels)


def grey_spots(maps: PieceMaps, calib: TokyoCalibration, known: np.ndarray,
               min_px: int = GREY_SPOT_PX) -> list[tuple[float, float]]:
    """Where on the table (mm) grey plastic shows that no known piece explains: each blob's lowest
    pixels put back onto the table, moved half a column away from the camera (the lowest pixels are
    the column's near side). The reader misses a short column whose road covers most of its body;
    the candidates drawn there are scored like any other, so a spurious blob costs time, not a move."""
    cam, r = calib.camera, calib.sizes.column_diameter_mm / 2
    out = []
    for xs, ys in blobs_off(maps.grey, known, min_px):
        low = ys >= ys.max() - 1
        uv = np.array([[xs[low].mean(), ys.max() + 0.5]])
        p = cam.ray_to_plane(uv, 0.0)[0]
        away = p[:2] - cam.centre[:2]
        p2 = p[:2] + r * away / max(float(np.linalg.norm(away)), 1e-9)
        out.append((float(p2[0]), float(p2[1])))
    return out
