"""Thin-rod detection: centre ridges of the foreground, Hough line candidates, greedy gap-tolerant runs.

Works on any rods that differ from the table (no set colours assumed): the foreground's distance
transform gives the rod half-width and a one-pixel centre ridge; each Hough line, best first, keeps the
longest run of unclaimed ridge pixels along it (gaps up to a few widths bridge crossings, cars and
occlusion), then a least-squares fit and a walk along the rod over the foreground fix its two ends.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.tokyo import line_band, line_fit
from vision.tokyo.pixels import distance_l2, mask_box, nonzero_yx


@dataclass
class RawStick:
    p0: np.ndarray
    p1: np.ndarray
    half_width: float
    support: int  # ridge pixels explaining it
    bgr: np.ndarray
    completed: bool = False  # one end hidden (glare, hand) and put at the set's stick length
    # where p0 / p1 showed before being carried under a road stacked on them at a shared column (the
    # overhang there is assumed); None where the end shows
    shown_end: list[np.ndarray | None] = field(default_factory=lambda: [None, None])

    @property
    def shown(self) -> tuple[np.ndarray, np.ndarray]:
        """The ends as seen: what the stick's band covers in the image."""
        a, b = self.shown_end
        return (self.p0 if a is None else a, self.p1 if b is None else b)

    @property
    def length(self) -> float:
        return float(np.linalg.norm(self.p1 - self.p0))


def rod_half_width(dist: np.ndarray, ridge: np.ndarray, box: tuple[slice, slice] | None = None) -> float:
    """The commonest ridge width; `box`: a box holding every ridge pixel, read alone (the same values
    in the same order)."""
    if box is not None:
        dist, ridge = dist[box], ridge[box]
    vals = dist[ridge > 0]
    vals = vals[vals >= 1.5]
    if len(vals) < 20:
        return 3.0
    hist, edges = np.histogram(vals, bins=np.arange(1.5, 40.5, 1.0))
    return float(edges[int(np.argmax(hist))] + 0.5)  # the commonest ridge width is the rods'


def _ridge(fg: np.ndarray, dist: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(distance transform of `fg`, its one-pixel centre ridge); `dist`: that transform, if the
    caller has it already."""
    dist, ridge, _ = _ridge_boxed(fg, dist)
    return dist, ridge


def _ridge_boxed(
    fg: np.ndarray, dist: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, tuple[slice, slice] | None]:
    """`_ridge` and a box holding every ridge pixel (None: no ridge). The ridge is worked out on the
    mask's box grown by a pixel: outside it the transform is 0, so no ridge, and inside it every
    pixel's 3x3 neighbourhood (a ridge pixel lies in the mask) is the whole frame's."""
    if dist is None:
        dist = distance_l2(fg)
    ridge = np.zeros(fg.shape, np.uint8)
    box = mask_box(fg, 1)
    if box is not None:
        d = dist[box]
        peak = cv2.dilate(d, np.ones((3, 3), np.uint8))
        ridge[box] = (d >= peak - 0.35) & (d >= 1.5)
    return dist, ridge, box


Gradients = Callable[[], tuple[np.ndarray, np.ndarray]]


def image_gradients(image: np.ndarray) -> Gradients:
    """The grey image's Sobel x and y gradients (float32, 3x3), worked out on the first call and kept:
    a view's stick passes and its crossing tests read the same two planes, and a pass that finds no
    stick reads none."""
    kept: list[tuple[np.ndarray, np.ndarray]] = []

    def get() -> tuple[np.ndarray, np.ndarray]:
        if not kept:
            grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
            kept.append((cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3),
                         cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)))
        return kept[0]

    return get


def detect_sticks(
    image: np.ndarray,
    fg: np.ndarray,
    min_len_widths: float = 5.0,
    max_candidates: int = 400,
    upright: Callable[[np.ndarray, np.ndarray, float, float], bool] | None = None,
    longest: Callable[[np.ndarray, np.ndarray], float] | None = None,
    min_half_width: float = 0.0,
    gradients: Gradients | None = None,
) -> tuple[list[RawStick], float]:
    """Rods in the frame and the rods' half-width (never under `min_half_width`: a calibrated camera's
    rod, where the table's texture fills the mask with specks thinner than any rod).
    `upright(p0, p1, half_width, rod_half_width)`, when given, says whether a candidate is an upright
    column seen side on (its core is claimed, no stick is made); both half-widths are measured on the
    foreground, blur included. `longest(p0, p1)`, when given, is the most pixels a whole stick can
    span there along that segment (a camera and the set's stick length): a run longer than that is two
    sticks meeting nearly in line, and is left unclaimed for their own lines to find. `gradients`:
    `image_gradients(image)`, when the caller reads them too."""
    line_fit.load()  # the compiled line fit and band counts, loaded before the first line (once per process)
    line_band.load()
    dist, ridge, box = _ridge_boxed(fg)
    hw = max(rod_half_width(dist, ridge, box), min_half_width)
    # the middle half of every rod, not much wider than a rod (drops the middle of supports, cars, hands)
    core = np.zeros(fg.shape, np.uint8)
    if box is not None:  # outside the mask's box the transform is 0: no core
        d = dist[box]
        core[box] = (d >= hw * 0.5) & (d <= hw * 1.45)
    ys, xs = nonzero_yx(core)
    pts = np.stack([xs, ys], 1).astype(np.float32)
    if len(pts) < 10:
        return [], hw
    min_len = min_len_widths * 2 * hw
    # the transform of the core cut at its right and bottom edge: rho is measured from the top-left
    # corner, so every pixel votes into the same bins; only the accumulator is smaller (its rho bins
    # run to the cut's width plus height, an odd count centred alike), so the same lines come out in
    # the same order
    cut = core[: ys[-1] + 1, : xs.max() + 1] * 255
    lines = cv2.HoughLines(cut, 1, np.pi / 360, int(max(10, min_len * 0.7)))
    sticks: list[RawStick] = []
    claimed = np.zeros(len(pts), bool)
    taken: list[tuple[np.ndarray, np.ndarray, float, float]] = []  # lines found: point, direction, span
    pix = image[ys, xs].astype(np.float32)  # the colour of every core pixel
    cols = line_band.columns(pts)  # for the compiled band counts (None without them)
    if lines is None:
        return [], hw
    for rho, theta in _distinct_lines(lines[:, 0], 0.6 * hw, np.radians(1.5))[:max_candidates]:
        n = np.array([np.cos(theta), np.sin(theta)], np.float32)
        found = _run_on_line(
            pts, claimed, fg, rho * n, np.array([-n[1], n[0]], np.float32), hw, min_len, (taken, pix), cols
        )
        if found is None:
            continue
        # a Hough peak a little off the rod's angle leaves the band part way along: take the run again
        # along the fitted line, and keep it when it is longer
        c, u2, run = found
        again = _run_on_line(pts, claimed, fg, c, u2, hw, min_len, (taken, pix), cols)
        if again is not None and len(again[2]) > len(run):
            c, u2, run = again
        pieces = [(c, u2, run)]
        tt = (pts[run] - c) @ u2
        if longest is not None and tt.max() - tt.min() > longest(c + tt.min() * u2, c + tt.max() * u2):
            # longer than any stick there: two sticks meeting nearly in line, one bend between them
            pieces = _split_bent_run(pts, run, c, u2, hw, min_len) or pieces
        for c, u2, run in pieces:
            tt = (pts[run] - c) @ u2
            p0, p1 = c + tt.min() * u2, c + tt.max() * u2
            # claim everything within the rod's width along the fitted segment
            n2 = np.array([-u2[1], u2[0]])
            dd = np.abs((pts - c) @ n2)
            ta = (pts - c) @ u2
            claimed |= (dd <= hw * 1.2) & (ta >= tt.min() - hw) & (ta <= tt.max() + hw)
            taken.append((c, u2, float(tt.min()), float(tt.max())))
            wide = _axis_half_width(dist, p0, p1, max(2.0, 0.7 * hw))
            if upright is not None and upright(p0, p1, wide, hw):
                continue
            sticks.append(RawStick(p0, p1, hw, len(run), np.zeros(3)))
    if sticks:
        gx, gy = (gradients or image_gradients(image))()
    for s in sticks:
        _refine_axis(gx, gy, s)
        before = s.p0.copy(), s.p1.copy()
        _extend_ends(image, fg, s)
        if longest is not None and s.length > longest(s.p0, s.p1):
            s.p0, s.p1 = before  # the walk ran on into a stick in line with this one
    return _drop_contained(sticks), hw


def _drop_contained(sticks: list[RawStick]) -> list[RawStick]:
    """Two pieces of one rod split by a car each walk across it to the rod's ends: keep one. A stick
    lying inside a longer one's band (both ends within a width of its axis and span) is dropped."""
    order = sorted(range(len(sticks)), key=lambda k: -sticks[k].length)
    kept: list[RawStick] = []
    for k in order:
        s = sticks[k]
        inside = False
        for big in kept:
            u = (big.p1 - big.p0) / max(big.length, 1e-6)
            n = np.array([-u[1], u[0]])
            rel = np.array([s.p0 - big.p0, s.p1 - big.p0])
            along, across = rel @ u, np.abs(rel @ n)
            if (
                (across <= big.half_width).all()
                and (along >= -big.half_width).all()
                and (along <= big.length + big.half_width).all()
            ):
                inside = True
                break
        if not inside:
            kept.append(s)
    return kept


def _split_bent_run(
    pts: np.ndarray, run: np.ndarray, c: np.ndarray, u: np.ndarray, hw: float, min_len: float
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]] | None:
    """Split a run of core pixels into two straight pieces at the break where two lines fit the run's
    centre far better than one; None when one line fits about as well (no bend) or a piece would be
    too short. The centre is the median across the core in bins of a half-width: the core spreads
    over half the rod's width, which would hide a bend of a few pixels."""
    n = np.array([-u[1], u[0]])
    tr = (pts[run] - c) @ u
    # all the core near the run, not only the band it was found in: the band cuts off the bend
    t_all, o_all = (pts - c) @ u, (pts - c) @ n
    near = np.nonzero((np.abs(o_all) <= 1.5 * hw) & (t_all >= tr.min()) & (t_all <= tr.max()))[0]
    t, o = t_all[near], o_all[near]
    k = ((t - t.min()) / max(hw, 1.0)).astype(int)
    bins = [b for b in range(int(k.max()) + 1) if np.count_nonzero(k == b) >= 3]
    if len(bins) < 8:
        return None
    bt = np.array([np.median(t[k == b]) for b in bins])
    bo = np.array([np.median(o[k == b]) for b in bins])

    def sse(x: np.ndarray, y: np.ndarray) -> float:
        return float(np.sum((y - np.polyval(np.polyfit(x, y, 1), x)) ** 2))

    one = sse(bt, bo)
    costs = [(sse(bt[:j], bo[:j]) + sse(bt[j:], bo[j:]), j) for j in range(3, len(bt) - 2)]
    cost, j = min(costs)
    if cost > BEND_GAIN * one or one < len(bt) * 0.25:  # no bend beyond a pixel's wobble
        return None
    cut = (bt[j - 1] + bt[j]) / 2
    out = []
    for part in (near[t < cut], near[t >= cut]):
        q = pts[part].astype(np.float64)
        m = q.mean(0)
        d = np.linalg.svd(q - m, full_matrices=False)[2][0]
        tp = (q - m) @ d
        if tp.max() - tp.min() < min_len:
            return None
        out.append((m.astype(np.float32), d.astype(np.float32), part))
    return out


BEND_GAIN = 0.5  # two lines must leave at most this share of one line's squared residual


def _axis_half_width(dist: np.ndarray, p0: np.ndarray, p1: np.ndarray, reach: float = 2.0) -> float:
    """Median half-width of the foreground along a segment (the distance transform's peak across it,
    within `reach` pixels of the segment: a fitted axis can sit off a wide band's middle)."""
    d = p1 - p0
    length = float(np.linalg.norm(d))
    u = d / max(length, 1e-6)
    n = np.array([-u[1], u[0]], np.float32)
    ts = np.arange(0.2 * length, 0.8 * length, 1.0, dtype=np.float32)
    offs = np.arange(-int(np.ceil(reach)), int(np.ceil(reach)) + 1)
    if not len(ts):
        return 0.0
    # every offset's samples in one gather: the points one offset at a time made, element by element
    # (the float32 axis points plus the int64 offsets times n, added in float64)
    pts = (p0[None] + ts[:, None] * u[None])[None] + offs[:, None, None] * n[None, None]
    across = _sample(dist, pts.reshape(-1, 2)).reshape(len(offs), len(ts))
    return float(np.median(np.max(across, axis=0)))


def _run_on_line(
    pts: np.ndarray,
    claimed: np.ndarray,
    fg: np.ndarray,
    base: np.ndarray,
    u: np.ndarray,
    hw: float,
    min_len: float,
    found: tuple[list[tuple[np.ndarray, np.ndarray, float, float]], np.ndarray] | None = None,
    cols: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The best run of unclaimed rod core along the line base + t u -> (point, direction, indices of
    its core pixels) of the least-squares line through the run, or None. A run mostly on claimed core,
    or with less than a stick's worth of new core (but at least half), is a stick found already unless
    (`found`: the lines found so far and every core pixel's colour) no found line runs along it and its
    new core has the claimed part's colour: a stick crossing another at a shallow angle, or sharing a
    column with it, has much of its core inside the other's claim, while a line grazing a found stick
    picks up columns and other sticks beside it. `cols`: `line_band.columns(pts)`, for the compiled
    counts that give up a line early."""
    n = np.array([-u[1], u[0]], np.float32)
    offset, width, need = float(base @ n), max(1.5, hw * 0.6), min_len * 0.5 * hw
    # a line whose band cannot hold enough core, or enough unclaimed core, is given up below at once:
    # told first from compiled counts of a slightly wider band (never fewer; line_band.py)
    if cols is not None:
        most = line_band.band_counts(cols, claimed, n, offset, width)
        if most[0] < need or most[1] < min(SHARED_RUN_NEW, 1.0) * need:
            return None
    band = np.abs(pts @ n - offset) <= width

    def on_fg(t0: float, step: float, k: int) -> np.ndarray:
        ts = t0 + np.arange(k * 4) * step / 4
        hit = _sample(fg, base[None] + ts[:, None] * u[None]) > 0
        return hit.reshape(k, 4).mean(1)

    # first with the core other sticks have claimed (the ends of a short stick lie in its neighbours'
    # claims where they share a column), kept when mostly new; then with unclaimed core only (taken
    # only when needed: it is part of the first, so never long enough when the first is not)
    whole = np.nonzero(band)[0]
    if len(whole) < min_len * 0.5 * hw:
        return None
    # a run's new core is part of the band's unclaimed core, and the second pass takes only that: with
    # less of it than either pass asks for, neither finds a stick (most Hough lines of a busy table
    # run along sticks found already: nine in ten, which the run search would reject one by one)
    free = band & ~claimed
    if np.count_nonzero(free) < min(SHARED_RUN_NEW, 1.0) * min_len * 0.5 * hw:
        return None
    for sel in (whole, None):
        if sel is None:
            sel = np.nonzero(free)[0]
        if len(sel) < min_len * 0.5 * hw:
            continue
        t = pts[sel] @ u - float(base @ u)
        span = _best_run(t, hw, 3.0 * 2 * hw, min_len, on_fg)
        if span is None:
            continue
        run = sel[(t >= span[0]) & (t <= span[1])]
        fresh, need = int((~claimed[run]).sum()), min_len * 0.5 * hw  # new core, and a stick's worth
        if fresh < SHARED_RUN_NEW * need:
            continue
        if (claimed[run].mean() > 0.5 or fresh < need) and (
            found is None
            or _along_taken(pts[run], u, found[0], hw)
            or not _one_colour(found[1][run[~claimed[run]]], found[1][run[claimed[run]]])
        ):
            continue
        vx, vy, x0, y0 = _fit_line(pts[run])
        return np.array([x0, y0], np.float32), np.array([vx, vy], np.float32), run
    return None


def _fit_line(q: np.ndarray) -> tuple[float, float, float, float]:
    """`cv2.fitLine`'s robust (Huber) line through the points q (N,2 float32; compiled where numba is,
    the same floats: vision/tokyo/line_fit.py), remembered by the points' bytes in the memo `fit_memo`
    set (a referee adapter's, over its frames): the fit's 20 random restarts cost 4-14 ms on a stick's
    2000-3000 core pixels, and the same run is fitted again when the refit along the fitted line keeps
    the same pixels, or a later frame shows the stick's core unchanged. The fit is deterministic (a
    fixed seed), so a remembered answer is exact."""
    memo = _FIT_MEMO.get()
    if memo is None:
        return line_fit.huber_fit(q)
    key = hashlib.blake2b(q.tobytes(), digest_size=16).digest() + q.shape[0].to_bytes(4, "little")
    got = memo.get(key)
    if got is None:
        got = line_fit.huber_fit(q)
        memo[key] = got
        while len(memo) > FIT_MEMO:
            memo.popitem(last=False)
    return got  # type: ignore[return-value]


FIT_MEMO = 1024  # fits a memo keeps (oldest forgotten first): a table's sticks over many frames
FitMemo = OrderedDict[bytes, tuple[float, float, float, float]]
_FIT_MEMO: ContextVar[FitMemo | None] = ContextVar("tokyo_fit_memo", default=None)


@contextmanager
def fit_memo(memo: FitMemo) -> Iterator[None]:
    """Stick fits inside this block are remembered in `memo` (one per reader of a frame sequence: the
    thread's own; a fresh adapter starts with none remembered)."""
    token = _FIT_MEMO.set(memo)
    try:
        yield
    finally:
        _FIT_MEMO.reset(token)


def _along_taken(
    q: np.ndarray, u: np.ndarray, taken: list[tuple[np.ndarray, np.ndarray, float, float]], hw: float
) -> bool:
    """Whether the core pixels q (direction u) lie along a line already found: within a few degrees of
    it, its middle within a half-width of it and inside its span."""
    m = q.mean(0)
    for c, d, t0, t1 in taken:
        if abs(float(np.dot(u, d))) < ALONG_COS:
            continue
        rel = m - c
        if abs(float(rel[0] * d[1] - rel[1] * d[0])) <= hw and t0 - hw <= float(rel @ d) <= t1 + hw:
            return True
    return False


ALONG_COS = float(np.cos(np.radians(4.0)))
SHARED_RUN_NEW = 0.5  # a run sharing core with found sticks needs half a stick's worth of new core


def _one_colour(new: np.ndarray, old: np.ndarray, tol: float = 45.0, share: float = 0.85) -> bool:
    """Whether the new pixels (N,3) are of one colour (most within `tol`, summed over channels, of
    their median), the same as the old ones' median: one rod, not a rod and the column beside it."""
    if len(new) == 0 or len(old) == 0:
        return False
    mid = np.median(new, 0)
    return bool(
        (np.abs(new - mid).sum(1) < tol).mean() >= share and np.abs(mid - np.median(old, 0)).sum() < tol
    )


def _refine_axis(gx: np.ndarray, gy: np.ndarray, s: RawStick) -> None:
    """Move the axis to the middle of the rod's two long edges (gradient peaks across it), sampled
    along its length: the mask's core is pulled by blur, side faces and whatever touches the rod."""
    u = (s.p1 - s.p0) / max(s.length, 1e-6)
    n = np.array([-u[1], u[0]], np.float32)
    offs = np.arange(-1.7 * s.half_width, 1.7 * s.half_width + 0.01, 0.5, dtype=np.float32)
    ts = np.linspace(0.08, 0.92, 31)
    # every cross-section sampled at once (the same points, element by element, as one at a time)
    centres = s.p0 + ts[:, None] * (s.p1 - s.p0)
    pts = (centres[:, None, :] + (offs[:, None] * n[None])[None]).reshape(-1, 2)
    g_all = (_sample(gx, pts) * n[0] + _sample(gy, pts) * n[1]).reshape(len(ts), len(offs))
    neg, pos = offs < -0.5, offs > 0.5
    g_neg, g_pos, o_neg, o_pos = g_all[:, neg], g_all[:, pos], offs[neg], offs[pos]
    first = np.argmax(np.abs(g_neg), axis=1)
    second = np.argmax(np.abs(g_pos), axis=1)
    # every cross-section's edges at once (the float32 values and tests one at a time gave)
    rows = np.arange(len(ts))
    a, b = g_neg[rows, first], g_pos[rows, second]
    e0, e1 = o_neg[first], o_pos[second]
    width = e1 - e0
    # a rod's two edges have opposite gradient signs (into the rod, then out of it)
    ok = (np.sign(a) != np.sign(b)) & (0.8 * s.half_width < width) & (width < 2.6 * s.half_width)
    if np.count_nonzero(ok) < 6:
        return
    mids_a = (e0[ok] + e1[ok]) / np.float32(2)
    w_a = np.minimum(np.abs(a[ok]), np.abs(b[ok]))
    at = ts[ok] * s.length
    keep = w_a >= 0.3 * np.median(w_a)
    for _ in range(2):  # fit, drop outliers (crossings, cars), refit
        if keep.sum() < 6:
            return
        a, b = np.polyfit(at[keep], mids_a[keep], 1)
        resid = np.abs(mids_a - (a * at + b))
        keep &= resid <= max(1.0, 2.5 * float(np.median(resid[keep])))
    a, b = np.polyfit(at[keep], mids_a[keep], 1)
    s.p0 = (s.p0 + n * b).astype(np.float32)
    s.p1 = (s.p1 + n * (a * s.length + b)).astype(np.float32)


def _distinct_lines(lines: np.ndarray, rho_tol: float, theta_tol: float) -> np.ndarray:
    """Hough peaks best first, dropping those within (rho_tol, theta_tol) of a stronger one: a rod's
    wide core gives a cluster of peaks, and weaker rods must not be crowded out of the candidates."""
    # cells of (rho_tol, theta_tol): a peak is dropped when a stronger one holds its cell or a neighbour
    # the cells in one array operation each (the same divisions, element by element), the walk on
    # Python ints: thousands of peaks a frame
    cells = zip(np.floor(lines[:, 0] / rho_tol).astype(np.int64).tolist(),
                np.floor(lines[:, 1] / theta_tol).astype(np.int64).tolist(), strict=True)
    # a kept peak blocks its cell and the eight around it (being neighbours is symmetric), so each
    # peak is one set look-up instead of nine
    blocked: set[tuple[int, int]] = set()
    keep = []
    for k, cell in enumerate(cells):
        if cell in blocked:
            continue
        ri, ti = cell
        blocked.update((ri + a, ti + b) for a in (-1, 0, 1) for b in (-1, 0, 1))
        keep.append(k)
    return np.asarray(lines, np.float32).reshape(-1, 2)[keep]


def _best_run(
    t: np.ndarray, hw: float, gap: float, min_len: float, on_fg: np.ndarray
) -> tuple[float, float] | None:
    """The longest stretch along a line where the rod's core fills the band (bins of one half-width).
    Stretches without core are bridged only where something covers the line (a stick on top, a car, a
    support: foreground) and for at most `gap`; bare table ends the run. `on_fg(t0, t1)` gives the share
    of foreground on the line between t0 and t1. None unless the run is long and mostly full."""
    bin_len = max(2.0, hw)
    lo = float(t.min())
    counts = np.bincount(((t - lo) / bin_len).astype(int))
    full = counts >= 0.3 * hw * bin_len  # low enough for thinner (further) rods than the commonest
    covered = on_fg(lo, bin_len, len(counts)) >= 0.75
    ok = (full | covered).tolist()  # the walk reads Python bools: numpy scalars are slow to index
    is_full = full.tolist()
    best: tuple[int, int] | None = None
    i, n = 0, len(full)
    max_skip = int(gap / bin_len)
    while i < n:
        if not is_full[i]:
            i += 1
            continue
        j, last_full, skip = i, i, 0
        while j + 1 < n:
            j += 1
            if is_full[j]:
                last_full, skip = j, 0
            elif ok[j] and skip < max_skip:
                skip += 1
            else:
                break
        if best is None or last_full - i > best[1] - best[0]:
            best = (i, last_full)
        i = last_full + 1
    if best is None:
        return None
    i0, i1 = best
    if (i1 - i0 + 1) * bin_len < min_len or full[i0 : i1 + 1].mean() < 0.6:
        return None
    return lo + i0 * bin_len, lo + (i1 + 1) * bin_len


def _sample(image: np.ndarray, pts: np.ndarray) -> np.ndarray:
    h, w = image.shape[:2]
    # np.minimum/np.maximum, not np.clip: the same integers without np.clip's per-call overhead
    # (this runs tens of thousands of times a frame on a few points each)
    xi = np.minimum(np.maximum(np.round(pts[:, 0]).astype(int), 0), w - 1)
    yi = np.minimum(np.maximum(np.round(pts[:, 1]).astype(int), 0), h - 1)
    return image[yi, xi]


def _rod_colour(image: np.ndarray, fg: np.ndarray, s: RawStick) -> float:
    """Sets the rod's median colour (its middle, foreground only) and returns the colour tolerance."""
    ts = np.linspace(0.15, 0.85, 25)
    body = s.p0 + ts[:, None] * (s.p1 - s.p0)
    fgb = _sample(fg, body) > 0
    cols = _sample(image, body[fgb] if fgb.any() else body).astype(np.float32)
    s.bgr = np.median(cols, 0)
    return max(24.0, float(np.median(np.abs(cols - s.bgr).sum(1))) * 2)


def _pull_back(image: np.ndarray, fg: np.ndarray, s: RawStick, tol: float) -> None:
    """Pull each end back onto the rod's own colour: the core run can continue along a column that
    hangs below the end in the image (about as wide as a rod), as far as a tall column reaches."""
    u = (s.p1 - s.p0) / max(s.length, 1e-6)
    for sign, attr in ((-1, "p0"), (1, "p1")):
        p = getattr(s, attr).astype(np.float32)
        back = np.arange(0, max(int(4 * s.half_width), int(PULL_BACK_SHARE * s.length)))
        qs = p[None] - sign * u[None] * back[:, None]
        good = (_sample(fg, qs) > 0) & (np.abs(_sample(image, qs).astype(np.float32) - s.bgr).sum(1) < tol)
        need = max(3, int(0.5 * s.half_width))
        run = np.convolve(good.astype(float), np.ones(need), mode="valid")
        first = np.nonzero(run >= need)[0]
        if len(first) and first[0] > 0:
            setattr(s, attr, qs[first[0]].astype(np.float32))


PULL_BACK_SHARE = 0.35  # how much of a stick's length the pull-back may take from one end


def _extend_ends(image: np.ndarray, fg: np.ndarray, s: RawStick) -> None:
    """Walk outwards from each end while the foreground continues with the rod's own colour (the end
    resting on a support top is hidden from the ridge by the support's width)."""
    u = (s.p1 - s.p0) / max(s.length, 1e-6)
    tol = _rod_colour(image, fg, s)
    _pull_back(image, fg, s, tol)
    for sign, attr in ((-1, "p0"), (1, "p1")):
        p = getattr(s, attr).astype(np.float32)
        setattr(s, attr, _walk(image, fg, p, sign * u, s.bgr, tol, s.half_width))


def _walk(
    image: np.ndarray, fg: np.ndarray, p: np.ndarray, d: np.ndarray, bgr: np.ndarray, tol: float, hw: float
) -> np.ndarray:
    """The last point of the rod's colour going from p along d. Gaps of other colours up to 0.6 widths
    (outlines, seams) are crossed; so is one longer one, up to a car's length, when all of it is
    foreground and the rod's colour then resumes for over a width (a car, or a stick lying across)."""
    reach = int(14 * hw)
    steps = np.arange(1, reach + 1, dtype=np.float32)
    qs = p[None] + steps[:, None] * d[None]
    on_fg = _sample(fg, qs) > 0
    good = on_fg & (np.abs(_sample(image, qs).astype(np.float32) - bgr).sum(1) < tol)
    max_miss = max(3, int(0.6 * hw))
    last, misses, jumped, k = -1, 0, False, 0
    limit = int(3 * hw)  # an end overhangs its column by under ~1.5 widths
    while k < reach:
        if good[k]:
            last, misses = k, 0
        else:
            misses += 1
        if misses >= max_miss or (k > limit and last < k - max_miss):
            if jumped:
                break
            jumped = True
            start = last + 1
            resume = _resumes(good, on_fg, start, int(4.5 * hw), int(1.5 * hw))
            if resume is None:
                break
            last, misses, k = resume, 0, resume
            limit = reach
        k += 1
    return (p + d * (last + 1)).astype(np.float32) if last >= 0 else p.astype(np.float32)


def _resumes(good: np.ndarray, on_fg: np.ndarray, start: int, gap: int, need: int) -> int | None:
    """Index where the rod's colour resumes for `need` steps within `gap` after `start`, with only
    foreground in between; None if it does not."""
    n = len(good)
    # running counts: a window's mean is its count over its length, as numpy's mean gives it
    ok = np.concatenate(([0], np.cumsum(good))).tolist()
    fg = np.concatenate(([0], np.cumsum(on_fg))).tolist()
    for k in range(start, min(start + gap, n - need)):
        if (ok[k + need] - ok[k]) / need >= 0.8:
            return k if k == start or (fg[k] - fg[start]) / (k - start) >= 0.8 else None
    return None
