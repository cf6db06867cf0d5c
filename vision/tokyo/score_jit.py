"""A build candidate's pixel sums in one compiled pass (numba, optional), the same floats bit for bit.

`piece_evidence.footprint_scores` scores a candidate's footprint on one view's piece maps: the road
map over its road's band, the grey map over its column's side, for a junction the grey map below its
top unit and the yellow map over it (and the top's yellow where the known pieces are drawn), and where
a standing road is drawn over the column's side the hidden pixels' grey counted per road
(`under_roads.hidden_column_llr`). Each is a NumPy gather and reduction on a small window, some twenty
calls a candidate, run for every candidate of every view of every frame (about 630 a two-camera frame
of a match): their call overhead was most of the build scoring's CPU. `sums` makes every one of those
numbers in one call and one pass over the window, with NumPy's own arithmetic:

- a float32 masked sum (`a[win][mask].sum()`) is NumPy's pairwise summation of the gathered pixels in
  raster order (blocks of eight accumulators up to 128 values, halves split on a multiple of eight
  above), added to +0.0 as NumPy's reduction starts from the identity (`_pairwise`);
- a junction's yellow in front of known pieces is `np.maximum(yellow, 0.0)` of those pixels, summed so;
- the hidden pixels' grey share is the float32 `grey / 4 + 0.5` clipped to 0..1 (`grey_share`), summed
  per road in float64 in raster order as `np.bincount` with weights sums it, with the pixels' count.

The rest of `hidden_column_llr` (a few values per road, logarithms) stays NumPy's. Without numba, or
with PURE_ENV set, the NumPy code runs. tests/test_tokyo_score_jit.py compares the two.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from vision.compiled import compiled_once
from vision.tokyo.line_fit import PURE_ENV

_loaded: dict[str, Any] = {}
# the compiled helpers, module globals once _compile made them: numba's cache keys a closure by its
# cells' pickled bytes, which differ in every process for a compiled function (vision.tokyo.line_fit)
_block: Any = None
_tree: Any = None
_pairwise: Any = None
_gathered: Any = None

# what `sums` writes into its float32 output, by index
ROAD, COLUMN, SIDE, TOP, FRONT = range(5)


def _compile() -> Any:
    try:  # numba is an optional speed-up, never a requirement
        import numba
    except ImportError:  # pragma: no cover - exercised where numba is absent
        return None
    global _block, _tree, _pairwise, _gathered
    f32 = np.float32
    opts = {"cache": True, "nogil": True, "boundscheck": False, "error_model": "numpy"}

    @numba.njit(**opts)
    def _block(a: Any, lo: int, n: int) -> Any:  # pragma: no cover - compiled
        """NumPy's pairwise sum of a[lo:lo + n] for n <= 128 (float32 accumulators)."""
        if n < 8:
            res = f32(0.0)
            for i in range(lo, lo + n):
                res += a[i]
            return res
        r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
        r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
        i = 8
        end = n - n % 8
        while i < end:
            j = lo + i
            r0 += a[j]
            r1 += a[j + 1]
            r2 += a[j + 2]
            r3 += a[j + 3]
            r4 += a[j + 4]
            r5 += a[j + 5]
            r6 += a[j + 6]
            r7 += a[j + 7]
            i += 8
        res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            res += a[lo + i]
            i += 1
        return res

    @numba.njit(**opts)
    def _tree(a: Any, n: int) -> Any:  # pragma: no cover - compiled
        """NumPy's pairwise sum of a[:n]: above 128 values, halves split on a multiple of 8, each
        node left + right. Walked with a stack of pending nodes (numba's cache fails on recursion)."""
        if n <= 128:
            return _block(a, 0, n)
        los = np.empty(64, np.int64)
        ns = np.empty(64, np.int64)
        stage = np.zeros(64, np.int64)  # 0: left half to do, 1: right half to do, 2: both done
        left = np.empty(64, f32)
        right = np.empty(64, f32)
        d = 0
        los[0], ns[0] = 0, n
        out = f32(0.0)
        while d >= 0:
            lo, m = los[d], ns[d]
            if m <= 128:
                v = _block(a, lo, m)
            else:
                n2 = m // 2
                n2 -= n2 % 8
                if stage[d] < 2:
                    first = stage[d] == 0
                    stage[d] += 1
                    d += 1
                    los[d], ns[d], stage[d] = (lo, n2, 0) if first else (lo + n2, m - n2, 0)
                    continue
                v = left[d] + right[d]
            d -= 1
            if d < 0:
                out = v
            elif stage[d] == 1:
                left[d] = v
            else:
                right[d] = v
        return out

    @numba.njit(**opts)
    def _pairwise(a: Any, n: int) -> Any:  # pragma: no cover - compiled
        """`a[:n].sum()` as NumPy adds float32: its reduction's identity, 0.0, plus the pairwise sum."""
        return f32(0.0) + _tree(a, n)

    @numba.njit(**opts)
    def _gathered(values: Any, mask: Any, buf: Any) -> Any:  # pragma: no cover - compiled
        n = 0
        h, w = mask.shape
        for y in range(h):
            for x in range(w):
                if mask[y, x]:
                    buf[n] = values[y, x]
                    n += 1
        return _pairwise(buf, n)

    f2, b2 = numba.float32[:, :], numba.boolean[:, :]  # any layout: one compiled signature for all
    signature = numba.void(f2, f2, f2, b2, b2, b2, b2, b2, b2, numba.uint16[:, :], b2, b2, numba.boolean,
                           numba.boolean, numba.boolean, numba.float32[:], numba.float32[:], numba.int64[:],
                           numba.float64[:, :])

    @numba.njit(signature, **opts)
    def sums(road: Any, grey: Any, yellow: Any, band: Any, column: Any, side: Any,  # pragma: no cover
             top: Any, top_known: Any, yellow_known: Any, label: Any, under: Any, under_side: Any,
             junction: bool, front: bool, hidden: bool, buf: Any, out: Any, counts: Any,
             per_road: Any) -> None:
        """The candidate's sums (see the module's doc) over the window's maps (road, grey, yellow) and
        masks: `out[ROAD..FRONT]` float32; with `hidden`, `counts[0]` / `counts[1]` the pixels of
        `under` / `under_side` (a junction's) on a road (`label` > 0), and `per_road[0..3]` their grey
        shares and counts per road label (plain: rows 0, 1; junction's: rows 2, 3)."""
        out[0] = _gathered(road, band, buf)
        out[1] = _gathered(grey, column, buf)
        if junction:
            out[2] = _gathered(grey, side, buf)
            out[3] = _gathered(yellow, top, buf)
            if front:
                n = 0
                h, w = top_known.shape
                for y in range(h):
                    for x in range(w):
                        if top_known[y, x] and not yellow_known[y, x]:
                            v = yellow[y, x]
                            buf[n] = v if v >= f32(0.0) else f32(0.0)
                            n += 1
                out[4] = _pairwise(buf, n)
        if hidden:
            counts[0] = 0
            counts[1] = 0
            per_road[:] = 0.0
            quarter, half, one = f32(4.0), f32(0.5), f32(1.0)
            h, w = under.shape
            for y in range(h):
                for x in range(w):
                    lab = label[y, x]
                    plain = under[y, x]
                    side_px = junction and under_side[y, x]
                    if lab == 0 or not (plain or side_px):
                        continue
                    s = grey[y, x] / quarter + half
                    s = f32(0.0) if s < f32(0.0) else (one if s > one else s)
                    if plain:
                        counts[0] += 1
                        per_road[0, lab] += np.float64(s)
                        per_road[1, lab] += 1.0
                    if side_px:
                        counts[1] += 1
                        per_road[2, lab] += np.float64(s)
                        per_road[3, lab] += 1.0

    return sums


def _warm(sums: Any) -> None:
    """Compile for the arguments `candidate_sums` passes: window views of the maps, the road labels and
    the known junction tops (non-contiguous), masks of the footprint's own (contiguous)."""
    rng = np.random.default_rng(0)
    for h, w in ((3, 4), (30, 40)):  # the block path and the split path
        m = [(rng.random((h + 2, w + 2), np.float32) * 4 - 2)[1:-1, 1:-1] for _ in range(3)]
        b = rng.random((h, w)) < 0.5
        lab = (rng.random((h + 2, w + 2)) * 3).astype(np.uint16)[1:-1, 1:-1]
        yk = (rng.random((h + 2, w + 2)) < 0.5)[1:-1, 1:-1]
        sums(m[0], m[1], m[2], b, b, b, b, b, yk, lab, b, b, True, True, True, np.empty(h * w, np.float32),
             np.zeros(5, np.float32), np.zeros(2, np.int64), np.zeros((4, 3)))


def compiled_sums() -> Any:
    """The compiled `sums`, or None (no numba, or PURE_ENV set)."""
    return compiled_once(_loaded, "sums", PURE_ENV, _compile, _warm)


_NONE_MASK = np.zeros((0, 0), bool)
_NONE_YK = np.zeros((2, 2), bool)[:0, :0]  # a non-contiguous view: the type of a window of the view's
_NONE_LABEL = np.zeros((2, 2), np.uint16)[:0, :0]
_work: dict[str, np.ndarray] = {}


def _buffer(size: int) -> np.ndarray:
    buf = _work.get("buf")
    if buf is None or len(buf) < size:
        buf = _work["buf"] = np.empty(max(size, 4096), np.float32)
    return buf


def candidate_sums(sums: Any, maps: Any, fp: Any, junction: bool, roads: Any,
                   yellow_known: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`sums` run on the candidate's footprint `fp` (window and masks, piece_evidence.Footprint) over
    `maps`: (the float32 sums by ROAD..FRONT, the hidden pixels' counts, their per-road sums), for the
    plain column and, with `junction`, the junction too. `roads`: the view's RoadPixels or None."""
    win = fp.win
    band = fp.band
    buf = _buffer(band.size)
    out = np.zeros(5, np.float32)
    counts = np.zeros(2, np.int64)
    hidden = roads is not None
    per_road = np.zeros((4, len(roads.count) if hidden else 1))
    front = junction and yellow_known is not None and fp.top_known is not None
    none = _NONE_MASK
    sums(maps.road[win], maps.grey[win], maps.yellow[win], band, fp.column,
         fp.side if junction else none, fp.top if junction else none, fp.top_known if front else none,
         yellow_known[win] if front else _NONE_YK, roads.label[win] if hidden else _NONE_LABEL,
         fp.under if hidden else none, fp.under_side if hidden and junction else none,
         junction, front, hidden, buf, out, counts, per_road)
    return out, counts, per_road
