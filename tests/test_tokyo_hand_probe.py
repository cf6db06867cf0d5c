"""The hand probe (issue #24, fourth round): a view in the light of the camera's last hand-free view is
tested for a hand against that view's table estimate before its own is made. A hand found so ends the
reading (no estimate of its own, no stick masks); a view where none is found is read exactly as without
the probe, so a road laid or moved since is read from the new picture, never kept."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from test_tokyo_reuse import DEMO, picture

import vision.tokyo.foreground as foreground
import vision.tokyo.reader as reader
from referee_app.demo import bundled_demos
from referee_app.games.tokyo import TokyoAdapter, load_calibration
from vision.tokyo import read_tokyo, read_tokyo_views
from vision.tokyo.reader import hand_in_view
from vision.tokyo.table_memory import TableMemory

# 010, 012, 014: one light, 5, 6 and 7 roads; 011 a hand over that table; 022 another light


@pytest.fixture(scope="module")
def calib():
    return load_calibration(DEMO / "calibration.json")[0]


@pytest.fixture
def estimates(monkeypatch) -> list[int]:
    """Counts the table estimates made (by the reader and by pieces_masks without one)."""
    made: list[int] = []
    real = foreground.estimate_table

    def counted(image: np.ndarray, thumb: np.ndarray | None = None) -> foreground.TableEstimate:
        made.append(1)
        return real(image, thumb)

    monkeypatch.setattr(foreground, "estimate_table", counted)
    monkeypatch.setattr(reader, "estimate_table", counted)
    return made


def test_a_hand_in_the_kept_light_is_found_without_an_estimate_of_its_own(calib, estimates):
    probe = TableMemory()
    read_tokyo(picture("010.jpg"), calib, stop_at_hand=True, probe=probe)
    assert len(estimates) == 1  # 010's own, kept for the probe
    hand = read_tokyo(picture("011.jpg"), calib, stop_at_hand=True, probe=probe)
    assert len(estimates) == 1  # the hand was found against 010's estimate
    assert hand_in_view(hand) and not hand.sticks and not hand.supports
    fresh = read_tokyo(picture("011.jpg"), calib, stop_at_hand=True)
    assert hand.warnings == fresh.warnings  # the same object, at the same place


def test_new_roads_in_the_kept_light_are_read_exactly_as_without_the_probe(calib):
    """A road laid (012: 6 roads, 014: 7) after the probe's view (010: 5): the probe finds no hand, the
    view gets its own estimate and reads what a reader without the probe reads, to the last bit."""
    probe = TableMemory()
    for name, roads in (("010.jpg", 5), ("012.jpg", 6), ("014.jpg", 7)):
        got = read_tokyo(picture(name), calib, stop_at_hand=True, probe=probe)
        assert got.to_dict() == read_tokyo(picture(name), calib, stop_at_hand=True).to_dict()
        assert len(got.sticks) == roads  # a kept reading would stay at 5


def test_a_moved_stick_is_read_where_it_now_lies(calib):
    """The sticks moved (012's picture shifted by 24 px: the same light, so the probe runs) after the
    probe's view: read where they lie now, as without the probe."""
    probe = TableMemory()
    read_tokyo(picture("012.jpg"), calib, stop_at_hand=True, probe=probe)
    moved = np.roll(picture("012.jpg"), 24, axis=1)
    assert probe.fitting(moved) is not None
    got = read_tokyo(moved, calib, stop_at_hand=True, probe=probe)
    want = read_tokyo(moved, calib, stop_at_hand=True)
    assert got.to_dict() == want.to_dict()
    before = read_tokyo(picture("012.jpg"), calib, stop_at_hand=True)
    assert sorted(s.endpoints for s in got.sticks) != sorted(s.endpoints for s in before.sticks)


def test_the_probe_keeps_hand_free_views_in_their_light_only(calib, estimates):
    probe = TableMemory()
    assert hand_in_view(read_tokyo(picture("011.jpg"), calib, stop_at_hand=True, probe=probe))
    assert probe.fitting(picture("011.jpg")) is None  # a hand's view is never kept
    read_tokyo(picture("010.jpg"), calib, stop_at_hand=True, probe=probe)
    kept = probe.fitting(picture("012.jpg"))
    assert kept is not None
    assert probe.fitting(picture("022.jpg")) is None  # another light: no probe
    n = len(estimates)
    other = read_tokyo(picture("022.jpg"), calib, stop_at_hand=True, probe=probe)
    assert len(estimates) == n + 1  # read with its own estimate, as without the probe
    assert other.to_dict() == read_tokyo(picture("022.jpg"), calib, stop_at_hand=True).to_dict()
    hand = read_tokyo(picture("011.jpg"), calib, stop_at_hand=True, probe=probe)
    assert hand_in_view(hand)  # in 010's light, but 022's estimate is the one kept now: read in full
    assert probe.fitting(picture("022.jpg")) is not None and probe.fitting(picture("012.jpg")) is None


def test_without_stop_at_hand_the_probe_reads_nothing_less(calib):
    probe = TableMemory()
    read_tokyo(picture("010.jpg"), calib, stop_at_hand=True, probe=probe)
    got = read_tokyo(picture("011.jpg"), calib, probe=probe)
    assert got.to_dict() == read_tokyo(picture("011.jpg"), calib).to_dict()


def test_views_take_one_probe_each(calib):
    with pytest.raises(Exception, match="hand probes"):
        read_tokyo_views([picture("010.jpg")], [calib], probes=[TableMemory(), TableMemory()])


def _loop_frames(count: int) -> list:
    demo = next(d for d in bundled_demos() if d.game == "tokyo-highway")
    return list(itertools.islice(demo.frames(realtime=False), count))


def test_the_adapter_blocks_the_same_frames_and_reads_the_same_pieces(estimates):
    """The recording's first 12 frames (4 hands over the last scene's table): with the probe the same
    frames are blocked by a hand, the rest read the same items, and the hands cost no estimates."""
    frames = _loop_frames(12)
    seen = {}
    for on in (False, True):
        adapter = TokyoAdapter()
        adapter.probe_hands = on
        start = len(estimates)
        seen[on] = [adapter.read(f) for f in frames], len(estimates) - start
    (plain, made_plain), (probed, made_probed) = seen[False], seen[True]
    assert [o.blocked is not None for o in probed] == [o.blocked is not None for o in plain]
    assert sum(o.blocked is not None for o in plain) == 4
    assert [o.items for o in probed] == [o.items for o in plain]
    assert made_probed == made_plain - 4


def test_a_view_makes_its_thumbnail_once(calib, monkeypatch):
    """The probe's light test and the view's own estimate read one thumbnail (was made twice a view),
    and the estimate made from it is the one made without it."""
    probe = TableMemory()
    read_tokyo(picture("010.jpg"), calib, stop_at_hand=True, probe=probe)
    made: list[int] = []
    real = foreground._thumb

    def counted(image: np.ndarray) -> np.ndarray:
        made.append(1)
        return real(image)

    monkeypatch.setattr(foreground, "_thumb", counted)
    image = picture("012.jpg")  # the probe's light, no hand: probed, then its own estimate made
    got = read_tokyo(image, calib, stop_at_hand=True, probe=probe)
    assert len(made) == 1
    monkeypatch.undo()
    assert got.to_dict() == read_tokyo(image, calib).to_dict()
    a, b = foreground.estimate_table(image, foreground.thumbnail(image)), foreground.estimate_table(image)
    assert all(np.array_equal(x, y) for x, y in ((a.chroma, b.chroma), (a.background, b.background),
                                                  (a.thumb, b.thumb)))
