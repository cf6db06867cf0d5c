"""Over/under at views[0]'s fused crossings, voted by every view that reads both sticks.

One view's decision (`crossings.decide_top`) is rarely wrong, and when it is, the other views, which
see the crossing from elsewhere (other light, other edges behind it, the sticks crossing at another
angle), usually read it right. So every view that reads both sticks of a crossing and reports their
crossing votes for its top, weighted by its own confidence (which that view's height check has already
halved where its heights disagree); the fused 3D heights where the sticks cross in plan add a smaller
vote of their own when they differ by most of a unit. A crossing only one view reads keeps its reading.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vision.tokyo.observation import CrossingReading, TokyoObservation

# The fused heights' vote: a fifth to a third of a unit apart they are seldom wrong about which stick
# is higher, but one misplaced column end still flips them (on the tuning renders the fused heights
# named the labelled top at 464 of 487 found crossings); at 0.5 they outvoted right views.
HEIGHT_WEIGHT = 0.3
HEIGHT_GAP_MM = 8.0
MIN_WEIGHT = 0.01  # a vote at confidence 0 still counts a little (it breaks a tie its way)

Ends3D = tuple[tuple[float, float, float], tuple[float, float, float]]


def segment_params(p: np.ndarray, q: np.ndarray) -> tuple[float, float] | None:
    """Where segments p and q (each two points; their first two coordinates are used) cross: the
    fractions (s along p, t along q), both in [0, 1]; None where they are parallel or miss."""
    da, db = p[1] - p[0], q[1] - q[0]
    den = float(da[0] * db[1] - da[1] * db[0])
    if abs(den) < 1e-9:
        return None
    w = q[0] - p[0]
    s = float(w[0] * db[1] - w[1] * db[0]) / den
    t = float(w[0] * da[1] - w[1] * da[0]) / den
    return (s, t) if 0 <= s <= 1 and 0 <= t <= 1 else None


def plan_crossing(a_mm: Ends3D | None, b_mm: Ends3D | None) -> tuple[float, float, float, float] | None:
    """Where sticks a and b (3D ends, mm) cross in plan: (x, y, a's height, b's height) in mm; None where
    they do not cross in plan or an end's place is unknown."""
    if a_mm is None or b_mm is None:
        return None
    pa, pb = np.array(a_mm, np.float64), np.array(b_mm, np.float64)
    st = segment_params(pa, pb)
    if st is None:
        return None
    (s, t), da, db = st, pa[1] - pa[0], pb[1] - pb[0]
    x, y = pa[0, :2] + s * da[:2]
    return float(x), float(y), float(pa[0, 2] + s * da[2]), float(pb[0, 2] + t * db[2])


def plan_heights(a_mm: Ends3D | None, b_mm: Ends3D | None) -> tuple[float, float] | None:
    """The heights (mm) of sticks a and b where they cross in plan; None where they do not cross in
    plan or an end's place is unknown."""
    p = plan_crossing(a_mm, b_mm)
    return None if p is None else (p[2], p[3])


def _readings(
    c: CrossingReading,
    observations: Sequence[TokyoObservation],
    in_view: Sequence[dict[int, int]],
    own: bool,
) -> list[tuple[bool, float, str]]:
    """Each view's reading of crossing c as (c.a on top, weight, cue)."""
    out = [(c.top == c.a, max(c.confidence, MIN_WEIGHT), c.cue)] if own else []
    for v in range(1, len(observations)):
        ja, jb = in_view[v].get(c.a), in_view[v].get(c.b)
        if ja is None or jb is None:
            continue
        r = next((r for r in observations[v].crossings if {r.a, r.b} == {ja, jb}), None)
        if r is not None:
            out.append((r.top == ja, max(r.confidence, MIN_WEIGHT), r.cue))
    return out


def vote_tops(
    a: TokyoObservation,
    observations: Sequence[TokyoObservation],
    in_view: Sequence[dict[int, int]],
    own: set[int],
) -> int:
    """Re-decide the top of each of views[0]'s crossings (`a`, after the fusion) by the views' votes.
    `in_view[v]`: views[0]'s stick -> the same stick in view v; `own`: indices into `a.crossings` of
    views[0]'s own readings (the others were taken from another view, whose vote is counted there).
    A crossing's confidence becomes the mean signed vote; its cue, the strongest vote's. Returns how
    many tops changed."""
    changed = 0
    for n, c in enumerate(a.crossings):
        votes = _readings(c, observations, in_view, n in own)
        z = plan_heights(a.sticks[c.a].endpoints_mm, a.sticks[c.b].endpoints_mm)
        if z is not None and abs(z[0] - z[1]) >= HEIGHT_GAP_MM:
            votes.append((z[0] > z[1], HEIGHT_WEIGHT, "heights"))
        if len(votes) < 2:
            continue  # one reading: it stands as read
        score = sum(w if up else -w for up, w, _ in votes)  # > 0: c.a on top
        if score == 0:
            continue  # a tie: views[0]'s reading stands
        top = c.a if score > 0 else c.b
        if top != c.top:
            changed += 1
            c.top = top
            c.cue = max((w, cue) for up, w, cue in votes if up == (score > 0))[1]
        c.confidence = round(min(1.0, abs(score) / len(votes)), 3)
    return changed
