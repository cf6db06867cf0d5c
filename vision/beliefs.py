"""Per-item beliefs: what a reader saw in one zone as a probability distribution over its states,
not only the most likely one.

A belief is a plain dict state -> probability (the states a reader can tell apart: `None` for an
empty zone, a die's (value, colour), a piece number, a square's drawing...). Probabilities need not
sum to one: states a belief does not list are "something else" and get the caller's floor. The
readers build them from what they already compute (a value's confidence, a presence test), so no
model is retrained; vision knows no rules, so a belief never says which states are legal.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any

Belief = dict[Any, float]
EMPTY = None  # the state of a zone with nothing in it
REST = "*"  # key of a belief's probability for each state it does not list (default: the caller's floor)


def clip(p: float, lo: float = 0.02, hi: float = 0.98) -> float:
    return min(hi, max(lo, float(p)))


def value_belief(value: Hashable, confidence: float, states: Iterable[Hashable],
                 near: dict[Hashable, Iterable[Hashable]] | None = None, near_share: float = 0.6) -> Belief:
    """`value` read with `confidence` among `states`: the rest of the mass goes to the other states,
    `near_share` of it to the values the reader confuses `value` with (`near[value]`: a pip count off
    by one), the remainder evenly."""
    p = clip(confidence)
    others = [s for s in states if s != value]
    close = [s for s in (near or {}).get(value, ()) if s in others]
    far = [s for s in others if s not in close]
    out: Belief = {value: p}
    rest = 1.0 - p
    if close and far:
        out.update({s: rest * near_share / len(close) for s in close})
        out.update({s: rest * (1 - near_share) / len(far) for s in far})
    elif others:
        out.update({s: rest / len(others) for s in others})
    return out


def present_belief(present: float, inner: Belief) -> Belief:
    """A zone holding something with probability `present`, distributed as `inner`, else empty."""
    p = clip(present, 0.01, 0.995)
    out = {s: p * q for s, q in inner.items()}
    out[EMPTY] = 1.0 - p
    return out


def joint(a: Belief, b: Belief) -> Belief:
    """Two independent readings of one item's parts (a die's value and its colour) as one belief
    over (a-state, b-state) pairs."""
    return {(x, y): p * q for x, p in a.items() for y, q in b.items()}


def multiset(beliefs: list[Belief], keep: int = 12) -> Belief:
    """Several dice in one zone (a tray): a belief over their sorted values, from each die's own
    belief; the `keep` likeliest combinations are listed (two dice: all 21)."""
    combos: Belief = {(): 1.0}
    for b in beliefs:
        top = sorted(b.items(), key=lambda kv: -kv[1])[:6]
        nxt: Belief = {}
        for combo, p in combos.items():
            for v, q in top:
                if v is EMPTY:
                    continue
                key = tuple(sorted((*combo, v)))
                nxt[key] = nxt.get(key, 0.0) + p * q
        combos = dict(sorted(nxt.items(), key=lambda kv: -kv[1])[: max(keep, 21)])
    return combos


PIPS = tuple(range(1, 7))
PIP_NEIGHBOURS = {v: tuple(n for n in (v - 1, v + 1) if 1 <= n <= 6) for v in PIPS}
