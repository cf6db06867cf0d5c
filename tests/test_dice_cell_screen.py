"""A cell crop that the crop reader screens out (its first view gives it under SCREEN's chance of being
a die, so it gets no turned views) is not re-framed and read again (issue #24, branch dicefps7): a hand
over the cells asked the crop reader 2-3 more times per cell, all of it read as no die. A crop the
reader doubts (SCREEN up to the chance needed) is still re-framed: a die nudged off its cell's centre.
Results only, never times."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

from referee_app.demo import bundled_demos
from referee_app.games.dice import DiceAdapter
from vision.learned.crops import SCREEN

HAND = 11  # the bundled recording's frame with a hand over the yellow cells (no tray or pool under it)


@pytest.fixture(scope="module")
def frames() -> list[np.ndarray]:
    demo = next(d for d in bundled_demos() if d.game == "highway-dice")
    return [f.image for f in itertools.islice(demo.frames(realtime=False), HAND + 1)]


def _hand_frame(frames: list[np.ndarray], chance: float | None) -> tuple[list[str], list[str], Any]:
    """Read the recording up to the hand frame; on it, each cell's first crop reading (the call with a
    `need`) says `chance` of a die (None: the reader's own). Returns the cells put to the crop reader,
    the cells re-framed (a `_crop_read` with `refine`) and the hand frame's reading."""
    adapter = DiceAdapter()
    for f in frames[:HAND]:
        adapter.read(f)
    zr = adapter._reader.zones
    asked: list[str] = []
    reframed: list[str] = []
    value, crop_read = zr._value, zr._crop_read
    cell: list[str] = []

    def first_value(image: Any, box: Any, z: Any, faces: Any = None, changed: Any = None,
                    learned: bool = False, need: float | None = None) -> Any:
        out = value(image, box, z, faces, changed, learned, need)
        if need is not None and faces is None and not z.many:
            cell[:] = [z.name]
            if z.name not in asked:
                asked.append(z.name)
                if chance is not None:
                    v, conf, colour, readings, at = out
                    readings = {**readings, "learned": (*readings["learned"][:2], chance)}
                    return v, conf, colour, readings, at
        return out

    def watched_crop_read(image: Any, box: Any, refine: bool = False, framed: bool = True) -> Any:
        if refine and cell:
            reframed.append(cell[0])
        return crop_read(image, box, refine, framed)

    zr._value = first_value
    zr._crop_read = watched_crop_read
    adapter.read(frames[HAND])
    return asked, reframed, adapter._reader.last_reading


def test_the_hand_over_the_cells_is_read_as_no_die_without_re_framing(frames: list[np.ndarray]) -> None:
    asked, reframed, reading = _hand_frame(frames, None)
    assert len(asked) >= 5  # the hand's cells were put to the crop reader
    assert reframed == []  # each screened out at its first view: none re-framed (main re-framed each)
    assert all(reading.dice.get(name) == [] for name in asked)  # read as no die, as before


def test_a_screened_cell_is_not_re_framed_but_a_doubted_one_is(frames: list[np.ndarray]) -> None:
    below = _hand_frame(frames, 0.5 * SCREEN)
    assert below[0] and below[1] == []
    doubted = _hand_frame(frames, SCREEN)  # the reader doubts, does not screen out: re-framed
    assert doubted[0] and set(doubted[1]) == set(doubted[0])
