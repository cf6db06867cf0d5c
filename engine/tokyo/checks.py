"""Where a new road and support meet what already stands: contacts, column footprints, buildings,
and the crossings (with heights) that earn cars.

`TableIndex` holds the bars and padded plan boxes of one table state, built once per state. Each check
first compares plan bounding boxes (the spatial pre-filter) and only runs the exact geometry on pieces
whose boxes overlap; `PREFILTER = False` runs it on every piece (the benchmark's naive baseline).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from engine.tokyo.config import Block, SetGeometry
from engine.tokyo.geometry import (
    Bar,
    bars_contact,
    clip_near_support,
    clip_to_rect,
    point_segment,
    segment_intersection,
)
from engine.tokyo.model import Car, Stick, Support

PREFILTER = True


@dataclass(frozen=True)
class Problem:
    rule: str
    reason: str
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Crossing:
    road: int  # the existing road crossed
    owner: int
    over: bool  # True: the new road passes over it
    x: float
    y: float
    z_new: float  # centreline heights at the crossing point (mm)
    z_old: float

    def to_json(self) -> dict[str, Any]:
        return {
            "road": self.road,
            "owner": self.owner,
            "new_on_top": self.over,
            "at": [_r(self.x), _r(self.y)],
            "z_new": _r(self.z_new),
            "z_old": _r(self.z_old),
        }


def _r(v: float) -> float:
    return round(v, 1)


def pt(x: float, y: float) -> str:
    return f"({x:.0f}, {y:.0f})"


def stick_bar(stick: Stick, g: SetGeometry) -> Bar:
    rests = tuple(s for s in (stick.base, stick.end) if s is not None)
    (x1, y1, z1), (x2, y2, z2) = stick.a, stick.b
    return Bar(
        x1,
        y1,
        z1,
        x2,
        y2,
        z2,
        g.stick_width_mm / 2,
        g.stick_thickness_mm / 2,
        stick.owner,
        "road",
        stick.id,
        rests,
    )


def car_bar(car: Car, host: Bar, g: SetGeometry) -> Bar | None:
    """A car whose place on its road is known, as a short bar riding on the road's top."""
    n = math.hypot(host.plan_length, host.z2 - host.z1)
    if car.at is None or n <= 0:
        return None
    half = g.car_length_mm / 2 / n
    t0, t1 = max(0.0, car.at / n - half), min(1.0, car.at / n + half)
    lift = host.half_thick + g.car_height_mm / 2
    (xa, ya), (xb, yb) = host.xy_at(t0), host.xy_at(t1)
    return Bar(
        xa,
        ya,
        host.z_at(t0) + lift,
        xb,
        yb,
        host.z_at(t1) + lift,
        host.half_width,
        g.car_height_mm / 2,
        car.owner,
        "car",
        host.ref,
        host.rests,
    )


Box = tuple[float, float, float, float]


def _overlapping(items: list[Any], box: Box) -> list[Any]:
    """The (piece, box) pairs whose plan box overlaps `box`: one inline comparison per piece, which
    for the few dozen pieces of a table beats any index structure in Python."""
    x0, y0, x1, y1 = box
    return [it for it in items if it[1][0] <= x1 and x0 <= it[1][2] and it[1][1] <= y1 and y0 <= it[1][3]]


class TableIndex:
    """Bars, supports and buildings of one table, with padded plan boxes for the pre-filter."""

    def __init__(
        self,
        supports: tuple[Support, ...],
        sticks: tuple[Stick, ...],
        cars: tuple[Car, ...],
        g: SetGeometry,
        blocks: tuple[Block, ...],
    ) -> None:
        self.g = g
        pad = g.stick_width_mm / 2 + g.clearance_mm
        self.supports = {s.id: s for s in supports}
        self.support_boxes = [
            (s, (s.x - g.column_radius, s.y - g.column_radius, s.x + g.column_radius, s.y + g.column_radius))
            for s in supports
        ]
        self.roads = [(b, b.bbox(pad)) for b in (stick_bar(s, g) for s in sticks)]
        by_id = {b.ref: b for b, _ in self.roads}
        cars_bars = (car_bar(c, by_id[c.stick], g) for c in cars if c.at is not None and c.stick in by_id)
        self.cars = [(b, b.bbox(pad)) for b in cars_bars if b is not None]
        self.blocks = blocks
        self.items = self.roads + self.cars

    def _items_near(self, box: Box, roads_only: bool = False) -> list[tuple[Bar, Box]]:
        items = self.roads if roads_only else self.items
        return _overlapping(items, box) if PREFILTER else items

    def _supports_near(self, box: Box) -> list[tuple[Support, Box]]:
        return _overlapping(self.support_boxes, box) if PREFILTER else self.support_boxes

    def bar_problems(
        self, new: Bar, colors: tuple[str, ...], what: str, host: int | None = None
    ) -> list[Problem]:
        """Contacts of a new bar (the new road, or a new car on it) with roads, cars, columns, buildings."""
        g = self.g
        out: list[Problem] = []
        box = new.bbox(new.half_width)
        exempt = g.column_radius + g.stick_width_mm
        for bar, _box in self._items_near(box):
            if host is not None and bar.ref == host and bar.kind == "road":
                continue  # a car stands on its own road
            a, b = new, bar
            for sid in [r for r in new.rests if r in bar.rests]:
                s = self.supports.get(sid)
                if s is None:
                    continue
                a = clip_near_support(a, s.x, s.y, exempt) if a is not None else None
                b = clip_near_support(b, s.x, s.y, exempt) if b is not None else None
            if a is None or b is None:
                continue
            hit = bars_contact(a, b, g.clearance_mm)
            if hit is None:
                continue
            x, y, gap = hit
            name = (
                f"{colors[bar.owner]} road {bar.ref}"
                if bar.kind == "road"
                else f"a {colors[bar.owner]} car on road {bar.ref}"
            )
            fix = (
                "raise or lower the new support, or move it"
                if what == "the new road"
                else "move the car along its road"
            )
            out.append(
                Problem(
                    "tokyo.no-contact",
                    f"{what} touches {name} at {pt(x, y)}: {fix}",
                    {
                        "touches": {"kind": bar.kind, "id": bar.ref, "owner": bar.owner},
                        "at": [_r(x), _r(y)],
                        "gap_mm": _r(gap),
                    },
                )
            )
        if new.kind == "road":
            out += self._footprints(new, colors, box)
        out += self._buildings(new, what)
        return out

    def _footprints(
        self, new: Bar, colors: tuple[str, ...], box: tuple[float, float, float, float]
    ) -> list[Problem]:
        g = self.g
        out = []
        reach = g.column_radius + new.half_width + g.clearance_mm
        c = g.clearance_mm
        for s, _box in self._supports_near((box[0] - c, box[1] - c, box[2] + c, box[3] + c)):
            if s.id in new.rests:
                continue
            d, _t = point_segment(s.x, s.y, new.x1, new.y1, new.x2, new.y2)
            if d < reach:
                out.append(
                    Problem(
                        "tokyo.footprint",
                        f"seen from above, the new road passes over {colors[s.owner]} support s{s.id} at "
                        f"{pt(s.x, s.y)}: move the new support so the road clears it by {reach - d:.0f} mm",
                        {
                            "support": s.id,
                            "owner": s.owner,
                            "at": [_r(s.x), _r(s.y)],
                            "miss_mm": _r(d - reach),
                        },
                    )
                )
        return out

    def _buildings(self, new: Bar, what: str) -> list[Problem]:
        out = []
        pad = new.half_width + self.g.clearance_mm
        for i, blk in enumerate(self.blocks):
            span = clip_to_rect(
                new,
                blk.x - blk.w / 2 - pad,
                blk.y - blk.d / 2 - pad,
                blk.x + blk.w / 2 + pad,
                blk.y + blk.d / 2 + pad,
            )
            if span is None:
                continue
            low = min(new.z_at(span[0]), new.z_at(span[1])) - new.half_thick
            if low < blk.h + self.g.clearance_mm:
                x, y = new.xy_at((span[0] + span[1]) / 2)
                out.append(
                    Problem(
                        "tokyo.no-contact",
                        f"{what} touches building {i + 1} at {pt(x, y)}: pass higher over it or go around it",
                        {"touches": {"kind": "building", "id": i + 1}, "at": [_r(x), _r(y)]},
                    )
                )
        return out

    def support_problems(self, x: float, y: float, owner: int, colors: tuple[str, ...]) -> list[Problem]:
        """A new support under an existing road, touching an opponent's support, or in a building."""
        g = self.g
        out = []
        reach = g.column_radius + g.stick_width_mm / 2 + g.clearance_mm
        r = max(reach, g.column_diameter_mm)  # wide enough for support-to-support contact too
        box = (x - r, y - r, x + r, y + r)
        for bar, _box in self._items_near(box, roads_only=True):
            d, _t = point_segment(x, y, bar.x1, bar.y1, bar.x2, bar.y2)
            if d < reach:
                out.append(
                    Problem(
                        "tokyo.footprint",
                        f"{colors[bar.owner]} road {bar.ref} passes over the place of the new support at "
                        f"{pt(x, y)}: move the support {reach - d:.0f} mm away from under it",
                        {"road": bar.ref, "owner": bar.owner, "at": [_r(x), _r(y)]},
                    )
                )
        for s, _ in self._supports_near(box):
            d = math.hypot(s.x - x, s.y - y)
            if s.owner != owner and d < g.column_diameter_mm + g.clearance_mm:
                out.append(
                    Problem(
                        "tokyo.no-contact",
                        f"the new support at {pt(x, y)} touches {colors[s.owner]} support s{s.id}: "
                        "move it away",
                        {"touches": {"kind": "support", "id": s.id, "owner": s.owner}, "at": [_r(x), _r(y)]},
                    )
                )
        for i, blk in enumerate(self.blocks):
            dx = max(abs(x - blk.x) - blk.w / 2, 0.0)
            dy = max(abs(y - blk.y) - blk.d / 2, 0.0)
            if math.hypot(dx, dy) < g.column_radius + g.clearance_mm:
                out.append(
                    Problem(
                        "tokyo.no-contact",
                        f"the new support at {pt(x, y)} touches building {i + 1}",
                        {"touches": {"kind": "building", "id": i + 1}, "at": [_r(x), _r(y)]},
                    )
                )
        return out

    def overlapping_support(self, x: float, y: float) -> Support | None:
        """A support standing where a new one would overlap it (physically impossible)."""
        g = self.g
        r = max(g.column_radius + g.stick_width_mm / 2 + g.clearance_mm, g.column_diameter_mm)
        for s, _ in self._supports_near((x - r, y - r, x + r, y + r)):
            if math.hypot(s.x - x, s.y - y) < self.g.column_diameter_mm - 1e-6:
                return s
        return None

    def crossings(self, new: Bar) -> list[Crossing]:
        """Every existing road the new road crosses in plan view, with the heights there."""
        out = []
        for bar, _box in self._items_near(new.bbox(0.0), roads_only=True):
            if any(r in bar.rests for r in new.rests):
                continue  # roads sharing a support meet there; they do not cross
            hit = segment_intersection(new, bar)
            if hit is None:
                continue
            s, u = hit
            x, y = new.xy_at(s)
            zn, zo = new.z_at(s), bar.z_at(u)
            out.append(Crossing(bar.ref, bar.owner, zn > zo, x, y, zn, zo))
        return out
