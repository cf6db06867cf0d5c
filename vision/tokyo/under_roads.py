"""Evidence for a new column where the match's roads are drawn: both hypotheses scored.

The build scores (piece_evidence.score_builds) leave out every pixel of the pieces already standing:
there a road looks like a piece whatever is tested. But a column put under a standing road (a build
the rules forbid: the simulated players put one under their own start road) lies mostly in those
pixels - 85 % of its outline in one camera of tuning seed 31 - so it scored next to nothing and the
move was missed.

Counting grey there as column evidence alone (tried: a one-sided bonus) read washed-out road pixels as
columns. Here the pixels are compared under two hypotheses. Bare road: each pixel looks grey as often
as the same road's own pixels elsewhere in this picture do (`RoadPixels`, measured per road and per
frame, so a pale road under a lamp explains its own grey). A column there: a share `v` of its pixels
shows the column (it stands in front of the road, or pokes through it) and looks grey as a column
does, the rest shows the road; `v` is not known (the road may hide all of it), so the likelihood is
averaged over `v` from 0 to 1. Grey the road explains gives a small negative score (the column
hypothesis spreads its odds over every `v`); grey far beyond the road's own share gives a large
positive one; a road with no grey showing where the column would stand says nothing much either way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.tokyo.calibration import TokyoCalibration
from vision.tokyo.labels import components
from vision.tokyo.piece_evidence import (
    GREY_SPOT_PX,
    LLR_SCALE,
    PieceMaps,
    column_hull,
    column_hulls,
    grey_spots,
    stick_quad,
)

COLUMN_GREY = 0.85  # share of a column's visible side pixels that the grey map takes for plastic
# the bare road's grey share is measured on its other pixels; a road's pale patch (a lamp, a glare
# rim) is greyer than its mean, so the share is raised before it is compared: this factor and floor
ROAD_GREY_SLACK = 1.5
ROAD_GREY_FLOOR = 0.03
MIN_HIDDEN_PX = 12  # fewer hidden pixels than this (half size) say nothing: noise
MIN_ROAD_PX = 40  # a road with fewer pixels of its own has no measured grey share: its pixels are left out
_VISIBLE = np.linspace(0.0, 1.0, 41)  # the shares v the column hypothesis averages over
try:  # np.clip's own ufunc, called without its Python wrapper's checks (a few microseconds a call)
    from numpy._core.umath import clip as _clip
except ImportError:  # pragma: no cover - an older NumPy
    _clip = np.clip


@dataclass
class RoadPixels:
    """The match's roads in one view (the piece maps' size): `label` is 0 off the roads, k + 1 on road
    k's pixels (grown as the known-pieces mask is, standing columns' pixels taken out, glare-blind
    pixels too); `grey_sum` and `count` per label: the road's soft grey count and pixels."""

    label: np.ndarray  # uint16
    grey_sum: np.ndarray  # float64, per label (index 0 unused)
    count: np.ndarray  # float64, per label

    def column_llr(self, grey: np.ndarray, hidden: np.ndarray, win: tuple[slice, slice]) -> float:
        """hidden_column_llr on these roads (piece_evidence.HiddenRoads)."""
        return hidden_column_llr(self, grey, hidden, win)

    def llr_of_counts(self, hidden_px: float, k_in: np.ndarray, n_in: np.ndarray) -> float:
        """hidden_llr_of_counts on these roads, 0 under MIN_HIDDEN_PX hidden pixels (for
        piece_evidence's compiled path, which must not import this module: it imports piece_evidence)."""
        return hidden_llr_of_counts(self, k_in, n_in) if hidden_px >= MIN_HIDDEN_PX else 0.0


def grey_share(grey: np.ndarray) -> np.ndarray:
    """A grey map's log-likelihood ratios (piece_evidence.PieceMaps.grey) back to the soft share of
    grey plastic each pixel shows, 0..1."""
    return _clip(grey / (2 * LLR_SCALE) + 0.5, 0.0, 1.0)


def road_pixels(calib: TokyoCalibration, grey: np.ndarray, columns: list[tuple[float, float, float]],
                sticks: list, grow_px: int = 3) -> RoadPixels:
    """The roads `sticks` (their lower edges' ends, as piece_evidence.known_mask takes them) drawn in
    the view of `calib` over the grey map `grey`, without the `columns` (x, y, top z) they stand on."""
    shape = grey.shape
    label = np.zeros(shape, np.uint16)  # a match stands far fewer roads than 65535
    for k, (a, b) in enumerate(sticks):
        cv2.fillConvexPoly(label, stick_quad(calib, a, b), k + 1)
    cols = np.zeros(shape, np.uint8)
    for x, y, z in columns:
        cv2.fillConvexPoly(cols, column_hull(calib, x, y, 0.0, z), 1)
    if grow_px > 0:
        kernel = np.ones((2 * grow_px + 1, 2 * grow_px + 1), np.uint8)
        label = cv2.dilate(label, kernel)
        cols = cv2.dilate(cols, kernel)
    label[(cols > 0) | (grey == 0)] = 0  # a column's grey is no road's; a blind pixel says nothing
    n = len(sticks) + 1
    on = np.flatnonzero(label)  # the sums over the roads' pixels only
    labels = label.ravel()[on]
    grey_sum = np.bincount(labels, weights=grey_share(grey.ravel()[on]), minlength=n).astype(np.float64)
    grey_sum[0] = 0.0
    count = np.bincount(labels, minlength=n).astype(np.float64)
    return RoadPixels(label, grey_sum, count)


def hidden_column_llr(roads: RoadPixels, grey: np.ndarray, hidden: np.ndarray,
                      win: tuple[slice, slice]) -> float:
    """Nats for a column whose side covers the road pixels `hidden` (a boolean mask over the window
    `win` of the view; `grey` is the grey map's same window): log P(pixels | column there, visible
    share v uniform on 0..1) - log P(pixels | bare road). Each road's grey share is measured on its
    pixels outside `hidden`; 0 when too few pixels are hidden or their roads have too few of their
    own."""
    if np.count_nonzero(hidden) < MIN_HIDDEN_PX:
        return 0.0  # the usable pixels are fewer still
    labels = roads.label[win][hidden]
    shares = grey_share(grey[hidden])
    n_lab = len(roads.count)
    k_in = np.bincount(labels, weights=shares, minlength=n_lab)
    n_in = np.bincount(labels, minlength=n_lab).astype(np.float64)
    return hidden_llr_of_counts(roads, k_in, n_in)


def hidden_llr_of_counts(roads: RoadPixels, k_in: np.ndarray, n_in: np.ndarray) -> float:
    """`hidden_column_llr` from the hidden pixels' grey shares summed per road label (`k_in`) and their
    count (`n_in`; float64 each, one entry a label, label 0 unused), once at least MIN_HIDDEN_PX pixels
    are hidden (vision.tokyo.score_jit sums them so in its pass)."""
    own_n = roads.count - n_in
    usable = (n_in > 0) & (own_n >= MIN_ROAD_PX)
    usable[0] = False
    # each usable road's counts picked out once (the same values, summed in the same order)
    n_use, k_use = n_in[usable], k_in[usable]
    n = float(n_use.sum())
    if n < MIN_HIDDEN_PX:
        return 0.0
    k = float(k_use.sum())
    rate = (roads.grey_sum[usable] - k_use) / own_n[usable]
    q0 = _clip_float(float((rate * n_use).sum() / n * ROAD_GREY_SLACK + ROAD_GREY_FLOOR), 0.0, 0.5)
    q = _Q_COLUMN + _Q_ROAD * q0
    ll = k * np.log(q) + (n - k) * np.log1p(-q)
    top = float(ll.max())
    tail = np.exp(ll - top)
    mean_column = top + float(np.log(tail.sum() / tail.size))  # ndarray.mean's sum and division
    road = k * np.log(q0) + (n - k) * np.log1p(-q0)
    return mean_column - float(road)


# the column hypothesis's grey share at each visible share v: these two terms, then q0's
_Q_COLUMN = _VISIBLE * COLUMN_GREY
_Q_ROAD = 1.0 - _VISIBLE


def _clip_float(v: float, lo: float, hi: float) -> float:
    """np.clip of one float, as its ufunc compares (NaN kept; equal values give the bound)."""
    if v != v:
        return v
    v = v if v > lo else lo
    return v if v < hi else hi


# a road's pale pixels gather in blobs by chance, larger the greyer the road: a place is tried where a
# blob holds more than GREY_SPOT_PX x (SPOT_BASE + SPOT_PER_SHARE x the road's grey share)
SPOT_BASE = 2.0
SPOT_PER_SHARE = 10.0
SPOT_OPEN_PX = 3  # the opening that takes those lines out (half-size pixels)


def road_grey_spots(grey: np.ndarray, calib: TokyoCalibration,
                    roads: RoadPixels) -> list[tuple[float, float]]:
    """Where on the table (mm) a column may stand under a standing road: blobs of grey on a road's
    pixels larger than that road's own grey share makes likely by chance, placed as
    piece_evidence.grey_spots places a blob. The column under its own start road shows there and
    nowhere else (tuning seed 36, fourth move: 31 grey pixels on a road whose share is 0.02)."""
    on = ((grey > 0) & (roads.label > 0)).astype(np.uint8)
    # a road's long edges blend into the table as thin pale lines: a column's side is a compact blob
    on = cv2.morphologyEx(on, cv2.MORPH_OPEN, np.ones((SPOT_OPEN_PX, SPOT_OPEN_PX), np.uint8))
    n, labels, stats, _ = components(on)
    share = roads.grey_sum / np.maximum(roads.count, 1.0)
    need = GREY_SPOT_PX * (SPOT_BASE + SPOT_PER_SHARE * share)
    picked: set[int] = set()
    for k in range(1, n):
        area = int(stats[k, cv2.CC_STAT_AREA])
        if area < GREY_SPOT_PX * SPOT_BASE:
            continue
        road = int(np.bincount(roads.label[labels == k]).argmax())
        if road > 0 and roads.count[road] >= MIN_ROAD_PX and area >= need[road]:
            picked.add(road)
    out: list[tuple[float, float]] = []
    maps = PieceMaps(grey, grey, grey)  # grey_spots reads the grey map only
    for road in sorted(picked):
        elsewhere = ((roads.label != road) | (on == 0)).astype(np.uint8)
        min_px = int(math.ceil(need[road]))
        out += grey_spots(maps, calib, elsewhere, min_px)
    return out


def column_evidence(grey: np.ndarray, calib: TokyoCalibration, known: np.ndarray, roads: RoadPixels,
                    xs: np.ndarray, ys: np.ndarray, height_mm: float) -> np.ndarray:
    """Nats, per table point (xs[k], ys[k]) in mm, for a bare column there up to `height_mm` in this
    view (`grey`: the grey map; `known`: the match's pieces' mask; `roads`: its roads): its side's grey
    off the known pieces, plus, where a standing road is drawn over it, column against bare road
    (`hidden_column_llr`), as a build's column is scored. A column under a road shows no blob the
    blob tests take for one in some frames (a few grey pixels either side of the road in one camera,
    a blob of 19-39 pixels against the 30 asked in the other: tuning seed 25's third move at 550/40),
    while this evidence for it is 30-50 nats in every frame and a few nats below 0 along bare roads."""
    out = np.zeros(len(xs))
    h, w = grey.shape
    for k, hull in enumerate(column_hulls(calib, xs, ys, 0.0, height_mm)):
        pts = hull.reshape(-1, 2)
        x0, y0 = np.maximum(pts.min(0), 0)
        x1, y1 = np.minimum(pts.max(0) + 1, [w, h])
        if x1 <= x0 or y1 <= y0:
            continue
        win = (slice(int(y0), int(y1)), slice(int(x0), int(x1)))
        col = np.zeros((int(y1 - y0), int(x1 - x0)), np.uint8)
        cv2.fillConvexPoly(col, hull - np.array([x0, y0], np.int32), 1)
        inside = col > 0
        g = grey[win]
        on = inside & (roads.label[win] > 0)
        hidden = roads.column_llr(g, on, win) if on.any() else 0.0
        out[k] = float(g[inside & (known[win] == 0)].sum()) + hidden
    return out
