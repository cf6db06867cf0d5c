"""Plan-view and 3D geometry of roads, columns, cars and buildings (pure Python floats, mm).

A road stick is a `Bar`: a straight centreline between two rest points, with a half width seen from
above and a half thickness seen from the side. A car standing on a road is a short bar lifted above
it. Contact is decided where two bars' plan outlines (plus the clearance) overlap: there the heights
must differ by at least both half thicknesses plus the clearance (plus what the slopes add across
the width). The functions are written for speed: a placement is judged against 30 sticks in tens
of microseconds, after a bounding-box pre-filter.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

Point2 = tuple[float, float]
EPS = 1e-9


@dataclass(slots=True)
class Bar:
    """A straight piece lying above the table: a road stick or a car on one. Treat as immutable
    (not frozen only because frozen dataclasses are slow to build, and judging builds many)."""

    x1: float
    y1: float
    z1: float
    x2: float
    y2: float
    z2: float
    half_width: float
    half_thick: float
    owner: int
    kind: str  # "road" | "car"
    ref: int  # stick id (a car: the stick it stands on)
    rests: tuple[int, ...] = ()  # ids of the supports it rests on (near them, contact is allowed)
    plan_length: float = field(init=False)
    slope: float = field(init=False)  # rise per mm of plan length (height change across the width)

    def __post_init__(self) -> None:
        self.plan_length = n = math.hypot(self.x2 - self.x1, self.y2 - self.y1)
        self.slope = abs(self.z2 - self.z1) / n if n > EPS else 0.0

    def z_at(self, t: float) -> float:
        return self.z1 + (self.z2 - self.z1) * t

    def xy_at(self, t: float) -> Point2:
        return self.x1 + (self.x2 - self.x1) * t, self.y1 + (self.y2 - self.y1) * t

    def bbox(self, pad: float) -> tuple[float, float, float, float]:
        return (
            min(self.x1, self.x2) - pad,
            min(self.y1, self.y2) - pad,
            max(self.x1, self.x2) + pad,
            max(self.y1, self.y2) + pad,
        )


def point_segment(px: float, py: float, ax: float, ay: float, bx: float, by: float) -> tuple[float, float]:
    """Plan distance from a point to a segment, and the segment parameter of the nearest point."""
    dx, dy = bx - ax, by - ay
    n2 = dx * dx + dy * dy
    t = 0.0 if n2 < EPS else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / n2))
    return math.hypot(ax + dx * t - px, ay + dy * t - py), t


def segment_intersection(a: Bar, b: Bar) -> tuple[float, float] | None:
    """Parameters (s on a, u on b) where two plan segments meet at one point; None when they miss
    or are parallel (collinear overlaps have no single crossing point)."""
    rx, ry = a.x2 - a.x1, a.y2 - a.y1
    sx, sy = b.x2 - b.x1, b.y2 - b.y1
    den = rx * sy - ry * sx
    if abs(den) <= EPS * (math.hypot(rx, ry) * math.hypot(sx, sy) + EPS):
        return None
    qx, qy = b.x1 - a.x1, b.y1 - a.y1
    s = (qx * sy - qy * sx) / den
    u = (qx * ry - qy * rx) / den
    if -EPS <= s <= 1 + EPS and -EPS <= u <= 1 + EPS:
        return min(1.0, max(0.0, s)), min(1.0, max(0.0, u))
    return None


def near_pairs(a: Bar, b: Bar, reach: float) -> list[tuple[float, float, float]]:
    """Candidate places (s, u, plan distance) where the two plan segments come within `reach`:
    the crossing point if any, and each end projected on the other bar. The height difference is
    linear between them, so checking these (and a change of sign) finds the closest approach."""
    out = []
    hit = segment_intersection(a, b)
    if hit is not None:
        out.append((hit[0], hit[1], 0.0))
    for px, py, on_a, t_self in (
        (a.x1, a.y1, True, 0.0),
        (a.x2, a.y2, True, 1.0),
        (b.x1, b.y1, False, 0.0),
        (b.x2, b.y2, False, 1.0),
    ):
        if on_a:
            d, u = point_segment(px, py, b.x1, b.y1, b.x2, b.y2)
            if d < reach:
                out.append((t_self, u, d))
        else:
            d, s = point_segment(px, py, a.x1, a.y1, a.x2, a.y2)
            if d < reach:
                out.append((s, t_self, d))
    return out


def bars_contact(a: Bar, b: Bar, clearance: float) -> tuple[float, float, float] | None:
    """(x, y, vertical gap) of a contact between two bars, or None when they clear each other."""
    reach = a.half_width + b.half_width + clearance
    cands = near_pairs(a, b, reach)
    if not cands:
        return None
    need = a.half_thick + b.half_thick + clearance + a.half_width * a.slope + b.half_width * b.slope
    signs = set()
    best: tuple[float, float, float] | None = None
    for s, u, _d in cands:
        dz = a.z_at(s) - b.z_at(u)
        signs.add(dz > 0)
        if abs(dz) < need and (best is None or abs(dz) < best[2]):
            x, y = a.xy_at(s)
            best = (x, y, abs(dz))
    if best is None and len(signs) == 2:
        # the heights pass each other between two candidate places: contact where dz = 0
        s0 = min(cands, key=lambda c: abs(a.z_at(c[0]) - b.z_at(c[1])))
        x, y = a.xy_at(s0[0])
        best = (x, y, 0.0)
    return best


def clip_near_support(bar: Bar, sx: float, sy: float, radius: float) -> Bar | None:
    """The part of `bar` farther than `radius` (plan) from a support at (sx, sy) it rests on:
    two roads meeting on one support top touch there by design, so only the rest is checked."""
    d1 = math.hypot(bar.x1 - sx, bar.y1 - sy)
    d2 = math.hypot(bar.x2 - sx, bar.y2 - sy)
    n = bar.plan_length
    if n < EPS or max(d1, d2) <= radius:
        return None
    if d1 >= radius and d2 >= radius:
        return bar
    # the support lies on the bar's line near one end: cut that end back to `radius`
    if d1 < d2:
        t = min(1.0, (radius - d1) / n) if d1 < radius else 0.0
        t0, t1 = t, 1.0
    else:
        t = min(1.0, (radius - d2) / n)
        t0, t1 = 0.0, 1.0 - t
    (xa, ya), (xb, yb) = bar.xy_at(t0), bar.xy_at(t1)
    return Bar(
        xa,
        ya,
        bar.z_at(t0),
        xb,
        yb,
        bar.z_at(t1),
        bar.half_width,
        bar.half_thick,
        bar.owner,
        bar.kind,
        bar.ref,
        bar.rests,
    )


def clip_to_rect(bar: Bar, x0: float, y0: float, x1: float, y1: float) -> tuple[float, float] | None:
    """Liang-Barsky: the parameter interval of the plan segment inside the rectangle, or None."""
    t0, t1 = 0.0, 1.0
    dx, dy = bar.x2 - bar.x1, bar.y2 - bar.y1
    for p, q in ((-dx, bar.x1 - x0), (dx, x1 - bar.x1), (-dy, bar.y1 - y0), (dy, y1 - bar.y1)):
        if abs(p) < EPS:
            if q < 0:
                return None
            continue
        r = q / p
        if p < 0:
            t0 = max(t0, r)
        else:
            t1 = min(t1, r)
        if t0 > t1:
            return None
    return t0, t1
