"""A tray die read by the crop reader while its pips were miscounted (a lone stray mark taken for a 1)
stands where its face is, not where that mark is: placed at the mark, `_dice_beside` counted the face's
own pips again as a second die of the same value (tuning seed 36 at 1920x1080 / 850 mm / 30 degrees:
the roll 4 2 read as 2 4 4 for all five frames of its scene, with the dice reader's `_prep` on 2 mm
blocks since c99a357; with the per-pixel normalisation the pips happened to be counted right)."""

from __future__ import annotations

import itertools

import cv2
import pytest

from referee_app.commands.eval_match import make_setup, simulate
from referee_app.games.dice import DiceAdapter


@pytest.fixture(scope="module")
def roll_frames() -> list:
    cv2.setNumThreads(1)
    sim = simulate("highway-dice", 36, make_setup("1920x1080", 850, 30), max_moves=4)
    # frames 0-14: the empty board, the first roll and its moves; 15-19: "roll 4 2"
    frames = list(itertools.islice(sim.frames(), 17))
    assert sim.scenes[frames[15].scene].note == "roll 4 2"
    return frames


def test_a_miscounted_die_is_not_read_twice(roll_frames: list) -> None:
    # with `_prep` on 2 mm blocks (no exact step; the default is per pixel since), where the 4's pips
    # were miscounted
    adapter = DiceAdapter(exact=frozenset())
    seen = [adapter.read(f.image) for f in roll_frames]
    for obs in seen[15:]:
        assert obs.items.get("tray") == (2, 4), obs.items.get("tray")
    # the die in question: its pips were miscounted and the crop reader's value kept
    dice = adapter._reader.last_reading.dice["tray"]
    assert any(d.value == 4 and d.readings.get("pips", (4,))[0] != 4 for d in dice)
