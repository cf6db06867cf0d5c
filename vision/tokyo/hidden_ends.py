"""Road ends hidden under the road that rests on top of them at a shared column.

Roads meeting on one column are stacked: each later road lies over the ends of the earlier ones, so an
earlier road shows only up to the edge of the one on top and its visible end stops short of the column's
centre. A road resting on a column always reaches past the column's centre (the top point, where the
meeting roads' axes cross) by its overhang. So an end that stops short of its group's top point, with
pieces covering the stretch beyond it, is carried under the cover to the top point plus the overhang:
the stick's other end's overhang when that end is known (a stick overhangs its two columns alike),
else a rod width.
"""

from __future__ import annotations

import numpy as np

from vision.tokyo.columns import _axes_meet, _split_group, group_ends
from vision.tokyo.sticks import RawStick, _sample

SHORT_OF_TOP = 0.5  # an end reaching less than this many half-widths past the top point is cut short


def extend_hidden_ends(raw: list[RawStick], fg: np.ndarray, hw: float) -> int:
    """Carry cut-short ends under the covering road (in place); returns how many moved."""
    groups = [g for ends in group_ends(raw, hw) for g in _split_group(raw, ends, hw)]
    top_of: dict[tuple[int, int], np.ndarray] = {}
    for ends in groups:
        meet = _axes_meet(raw, ends) if len(ends) >= 2 else None
        if meet is not None:
            for e in ends:
                top_of[e] = meet
    overhang = {e: _overhang(raw, e, t) for e, t in top_of.items()}
    moves = []
    for (i, k), top in top_of.items():
        if overhang[(i, k)] >= SHORT_OF_TOP * hw:
            continue
        own = overhang.get((i, 1 - k))
        reach = own if own is not None and SHORT_OF_TOP * hw <= own <= 5 * hw else 2 * hw
        s = raw[i]
        end = s.p0 if k == 0 else s.p1
        u = _outwards(s, k)
        want = float(np.dot(top - end, u)) + reach
        # only under a road lying across the end, and no further than its far edge: beyond it the end
        # would show
        cover = _cover_exit(raw, i, end, u, hw)
        if cover is None:
            continue
        go = min(want, cover)
        steps = np.arange(1.0, go + 1e-6, 1.0)
        if len(steps) == 0 or (_sample(fg, end[None] + steps[:, None] * u[None]) > 0).mean() < 0.9:
            continue
        moves.append((i, k, (end + u * go).astype(np.float32)))
    for i, k, new in moves:
        if k == 0:
            raw[i].shown_end[0], raw[i].p0 = raw[i].p0, new
        else:
            raw[i].shown_end[1], raw[i].p1 = raw[i].p1, new
    return len(moves)


def _cover_exit(raw: list[RawStick], i: int, end: np.ndarray, u: np.ndarray, hw: float) -> float | None:
    """Where the line from `end` along u leaves the band of a stick lying across it at the end (the
    end inside or at the edge of that band), or None when no stick covers the end."""
    best = None
    for j, c in enumerate(raw):
        if j == i:
            continue
        cu = (c.p1 - c.p0) / max(c.length, 1e-6)
        cn = np.array([-cu[1], cu[0]])
        along = float(np.dot(end - c.p0, cu))
        if not -hw <= along <= c.length + hw:
            continue
        d0, slope = float(np.dot(end - c.p0, cn)), float(np.dot(u, cn))
        if abs(d0) > c.half_width * 1.6 or abs(slope) < 0.3:  # not at its band, or running alongside
            continue
        exit_t = (np.sign(slope) * c.half_width - d0) / slope  # the far edge, going along u
        if exit_t > 0:
            best = exit_t if best is None else max(best, exit_t)
    return best


def _outwards(s: RawStick, k: int) -> np.ndarray:
    u = (s.p1 - s.p0) / max(s.length, 1e-6)
    return -u if k == 0 else u


def _overhang(raw: list[RawStick], e: tuple[int, int], top: np.ndarray) -> float:
    """How far the visible end reaches past the top point along the stick (negative: short of it)."""
    i, k = e
    s = raw[i]
    end = s.p0 if k == 0 else s.p1
    return float(np.dot(end - top, _outwards(s, k)))
