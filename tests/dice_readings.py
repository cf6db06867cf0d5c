"""What the dice adapter reads from a run of frames, in full: for tests that compare two ways of
computing the same reading (they must agree bit for bit)."""

from __future__ import annotations

import numpy as np

from referee_app.games.dice import DiceAdapter


def read_in_full(frames: list[np.ndarray], annotated: bool = False) -> list[tuple]:
    """Each frame's items, confidences, blocked flag, beliefs, every die's readings and the learned
    empty sheet (`annotated`: the annotated picture too), read by a fresh adapter that learned the
    first frame."""
    adapter = DiceAdapter()
    adapter.read(frames[0])
    out = []
    for f in frames:
        o = adapter.read(f)
        dice = adapter._reader.last_reading.dice
        picture = (o.annotated.tobytes(),) if annotated else ()
        out.append((o.items, o.confidence, o.blocked, o.beliefs, *picture,
                    {k: [(d.value, d.confidence, d.color, d.box_mm, d.readings) for d in v]
                     for k, v in dice.items()}, adapter._reader.zones.reference.tobytes()))
    return out
