"""A camera's table estimate kept from frame to frame (vision/tokyo/table_memory.py, issue #24, third
round): the pieces of a new scene are read against it, never the last scene's reading; a new light
gets a new estimate, and a view with a hand never gives the estimate kept."""

from __future__ import annotations

import numpy as np
import pytest
from test_tokyo_reuse import DEMO, picture

from referee_app.games.tokyo import load_calibration
from vision.tokyo import read_tokyo
from vision.tokyo.foreground import BRIGHT, CHROMA, estimate_table, pieces_masks
from vision.tokyo.reader import hand_in_view
from vision.tokyo.table_memory import TableMemory

# 010, 012, 014: one light, 5, 6 and 7 roads; 011 a hand over that table; 022 another light
SAME_LIGHT = ("010.jpg", "012.jpg", "014.jpg")


@pytest.fixture(scope="module")
def calib():
    return load_calibration(DEMO / "calibration.json")[0]


def _pieces(obs) -> tuple:
    return (len(obs.sticks), sorted(s.color for s in obs.sticks), len(obs.supports),
            sorted(s.height for s in obs.supports))


def test_each_new_scene_is_read_against_the_kept_estimate_as_afresh(calib):
    memory = TableMemory()
    fresh = [read_tokyo(picture(n), calib, stop_at_hand=True) for n in SAME_LIGHT]
    kept = [read_tokyo(picture(n), calib, stop_at_hand=True, tables=memory) for n in SAME_LIGHT]
    assert memory.made == 1  # one estimate, from the first picture, for all three
    assert [len(o.sticks) for o in kept] == [5, 6, 7]  # a stale reading would keep the first's 5
    assert [_pieces(o) for o in kept] == [_pieces(o) for o in fresh]


def test_a_new_light_gets_its_own_estimate(calib):
    memory = TableMemory()
    read_tokyo(picture("010.jpg"), calib, tables=memory)
    for image in (picture("022.jpg"), (picture("012.jpg") * 0.8).astype(np.uint8)):
        est = memory.estimate(image)
        assert est is not memory.estimate(picture("010.jpg"))
        want, _ = pieces_masks(image, (BRIGHT,), (CHROMA,))
        got, _ = pieces_masks(image, (BRIGHT,), (CHROMA,), est)
        assert np.array_equal(got[0], want[0])
    assert memory.made == 3  # 010's, then one each: neither fits 010's light


def test_a_view_with_a_hand_never_gives_the_estimate_kept(calib):
    memory = TableMemory()
    assert hand_in_view(read_tokyo(picture("011.jpg"), calib, stop_at_hand=True, tables=memory))
    memory.estimate(picture("012.jpg"))
    assert memory.made == 2  # nothing was kept from the hand's view
    read_tokyo(picture("010.jpg"), calib, stop_at_hand=True, tables=memory)
    kept = memory.estimate(picture("012.jpg"))
    hand = read_tokyo(picture("011.jpg"), calib, stop_at_hand=True, tables=memory)
    assert hand_in_view(hand) and memory.estimate(picture("012.jpg")) is kept  # 010's stays


def test_the_kept_planes_cannot_be_written():
    est = estimate_table(picture("010.jpg"))
    for plane in est.planes((720, 1280)):
        assert not plane.flags.writeable
    _, table = pieces_masks(picture("012.jpg"), (BRIGHT,), estimate=est)
    with pytest.raises(ValueError):
        table[0, 0] = 0
