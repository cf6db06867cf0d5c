"""Evidence over time: per item, an exponential moving average of each state's log-probability over
the usable frames since the last hand over the table.

Why an average and not a sum: the frames of one still table are far from independent (the same die
under the same light is misread the same way), so summing would turn one systematic misread into
certainty. The average says how the item has looked lately; the decoder asks for it to be stable
before it decides, and asks more (a penalty, persistence) before it lets evidence overturn a piece
already judged.
"""

from __future__ import annotations

import math
from typing import Any

from vision.beliefs import EMPTY, REST, Belief

FLOOR = 0.01  # probability of a state a belief does not list ("something else")
EMPTY_P = 0.98  # an item the reader reported nothing for: empty, most likely
_LOG_FLOOR = math.log(FLOOR)


def beliefs_from_items(items: dict[str, Any], confidence: dict[str, float]) -> dict[str, Belief]:
    """An observation without reader beliefs: each read item is its value with its confidence, the
    rest spread over a few unnamed alternatives (empty among them)."""
    out: dict[str, Belief] = {}
    for k, v in items.items():
        c = min(0.98, max(0.02, float(confidence.get(k, 0.95))))
        # the read value is still the likeliest state: an unnamed alternative (e.g. the value this item
        # had before) gets at most half its probability, or a doubtful new reading (a Tokyo column's
        # heights at 0.12) could never displace the old one
        out[k] = {v: c, REST: max(FLOOR, min((1.0 - c) / 4, c / 2))}
    return out


class Evidence:
    def __init__(self, alpha: float = 0.5) -> None:
        self.alpha = alpha
        self.frames = 0
        self._e: dict[str, dict[Any, float]] = {}  # key -> state -> averaged log-probability
        self._rest: dict[str, float] = {}  # key -> the average for states never listed

    def reset(self) -> None:
        self.frames = 0
        self._e.clear()
        self._rest.clear()

    def add(self, beliefs: dict[str, Belief], unseen: frozenset[str] = frozenset()) -> None:
        """One frame's beliefs. An `unseen` item (out of the frame) keeps its evidence as it was."""
        a = self.alpha if self.frames else 1.0
        keep = 1.0 - a
        default: Belief = {EMPTY: EMPTY_P}
        for key in (set(self._e) | set(beliefs)) - unseen:
            b = beliefs.get(key, default)
            e = self._e.get(key)
            if e is None:  # first seen now: until now it looked like an empty zone
                e = self._e[key] = {EMPTY: math.log(EMPTY_P) if self.frames else 0.0}
                self._rest[key] = _LOG_FLOOR if self.frames else 0.0
            rest = self._rest[key]
            unlisted = b.get(REST, FLOOR)
            for s in b:
                if s not in e and s != REST:
                    e[s] = rest
            for s in e:
                e[s] = keep * e[s] + a * math.log(max(b.get(s, unlisted), 1e-6))
            self._rest[key] = keep * rest + a * math.log(unlisted)
        self.frames += 1

    def score(self, key: str, state: Any) -> float:
        """The averaged log-probability of `key` being in `state`."""
        e = self._e.get(key)
        if e is None:
            return math.log(EMPTY_P) if state is EMPTY else _LOG_FLOOR
        v = e.get(state)
        return self._rest[key] if v is None else v

    def best(self, key: str) -> tuple[Any, float]:
        e = self._e.get(key)
        if not e:
            return EMPTY, self.score(key, EMPTY)
        s = max(e, key=lambda k: e[k])
        return s, e[s]

    def keys(self) -> set[str]:
        return set(self._e)

    def table(self) -> dict[str, Any]:
        """The likeliest state of every item seen, without the empty ones."""
        out = {}
        for key in self._e:
            s, _ = self.best(key)
            if s is not EMPTY:
                out[key] = s
        return out
