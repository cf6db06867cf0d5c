"""What the dice adapter reads: a run of frames in full, for tests that compare two ways of computing
the same reading (they must agree bit for bit); a simulated match's tray at one roll."""

from __future__ import annotations

import cv2
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


def tray_after_empty(seed: int, roll: int, note: str, camera: str, height: float = 850,
                     tilt: float = 30) -> tuple[int, ...]:
    """The tray read from scene `roll` (whose note must be `note`) of `eval match`'s simulated match
    `seed`, as a photo after the empty board drawn at the same pose (the camera's bumps up to the roll
    applied): what one frame alone says, without reuse."""
    from referee_app.commands.eval_match import make_setup, simulate

    cv2.setNumThreads(1)
    sim = simulate("highway-dice", seed, make_setup(camera, height, tilt))
    assert sim.scenes[roll].note == note
    ph = sim.photographer
    for k in range(roll + 1):
        if sim.scenes[k].bump:
            ph.bump()

    def frame(k: int) -> np.ndarray:
        sc = sim.scenes[k]
        return ph.expose(ph.light(sim.draw(sc.content, ph.pose), sc, k), k * 5)

    ad = DiceAdapter(reuse=False)
    ad.read(frame(0))  # the empty board
    return tuple(ad.read(frame(roll)).items.get("tray") or ())
