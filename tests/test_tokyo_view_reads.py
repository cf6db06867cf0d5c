"""A camera whose picture did not change is not read again when another camera's did (issue 24,
branch tokyospeed, referee_app/games/tokyo_reuse.ViewReads): the frame's views are fused again with
the still camera's own reading kept, and every answer is the one reading both cameras gives."""

from __future__ import annotations

import pytest
from test_tokyo_reuse import local_change, noisy, paired, picture

from referee_app.games.tokyo import TokyoAdapter


@pytest.fixture
def reads(monkeypatch) -> list[int]:
    """The pictures vision.tokyo.stereo reads with read_tokyo (by id)."""
    import vision.tokyo.stereo as stereo

    seen: list[int] = []
    real = stereo.read_tokyo

    def counted(image, *args, **kw):
        seen.append(id(image))
        return real(image, *args, **kw)

    monkeypatch.setattr(stereo, "read_tokyo", counted)
    return seen


def _both_read(adapter: TokyoAdapter) -> TokyoAdapter:
    adapter._view_reads.take = lambda cameras, *_: [None] * len(cameras)  # type: ignore[method-assign]
    return adapter


def _answer(adapter: TokyoAdapter, frame) -> tuple:
    obs = adapter.read(frame)
    table = adapter._remembered.table
    return (obs.items, obs.confidence, obs.blocked, obs.warnings, repr(sorted(obs.beliefs.items(), key=str)),
            repr(table.observation), repr(table.others), table.covered)


def test_only_the_camera_whose_picture_changed_is_read_again(reads) -> None:
    """Camera 1 still (sensor noise), camera 2 shows green's start road put down: one view read, not
    two (6308ece read both), and the same answer and fused reading as reading both."""
    before, before2 = picture("002.jpg"), picture("camera2/002.jpg")
    changed2 = local_change(before2, picture("camera2/004.jpg"))
    frames = [paired(before, before2, 0), paired(noisy(before, 3), changed2, 1),
              paired(noisy(before, 5), changed2, 2)]
    adapter = TokyoAdapter()
    first = _answer(adapter, frames[0])
    assert len(reads) == 2
    got = _answer(adapter, frames[1])
    assert len(reads) == 3 and reads[-1] != reads[0]  # camera 2 alone
    plain = _both_read(TokyoAdapter())
    assert _answer(plain, frames[0]) == first
    assert _answer(plain, frames[1]) == got
    assert got[5] != first[5]  # camera 2's new road is in the reading: read anew, not kept


def test_a_camera_whose_probe_moved_since_its_reading_is_read_again(reads) -> None:
    """The kept reading was read against the camera's hand probe as that reading left it: a probe
    that holds another estimate now (cleared, or kept from another reading) has the camera read
    again, and the answer is the one reading both gives with that probe."""
    before, before2 = picture("002.jpg"), picture("camera2/002.jpg")
    changed2 = local_change(before2, picture("camera2/004.jpg"))
    adapter = TokyoAdapter()
    adapter.read(paired(before, before2, 0))
    adapter._probes[1].clear()
    got = _answer(adapter, paired(noisy(before, 3), changed2, 1))
    assert len(reads) == 4  # both cameras
    plain = _both_read(TokyoAdapter())
    plain.read(paired(before, before2, 0))
    plain._probes[1].clear()
    assert _answer(plain, paired(noisy(before, 3), changed2, 1)) == got


def test_the_match_pieces_are_drawn_once_a_state_and_camera(monkeypatch) -> None:
    """Still frames of one state of the match (sensor noise): the known pieces' mask and junction tops
    are drawn once for each camera, not each frame (6308ece drew them every frame), and every answer
    is the one drawing them afresh gives."""
    from test_tokyo_referee import STARTED, play

    import referee_app.games.tokyo_builds as tb
    import vision.tokyo.piece_evidence as pe

    after, after2 = picture("004.jpg"), picture("camera2/004.jpg")
    frames = [paired(after, after2, 0), paired(noisy(after, 3), noisy(after2, 4), 1),
              paired(noisy(after, 5), noisy(after2, 6), 2)]
    state = play(STARTED[0])
    grown: list[int] = []
    views: list[int] = []
    mask, view_of = pe.known_mask, tb._views

    def counted(*args, grow_px: int = 3, **kw):
        if grow_px:
            grown.append(grow_px)
        return mask(*args, grow_px=grow_px, **kw)

    def views_counted(*args, **kw):
        views.append(1)
        return view_of(*args, **kw)

    monkeypatch.setattr(pe, "known_mask", counted)
    monkeypatch.setattr(tb, "_views", views_counted)
    adapter = TokyoAdapter()
    adapter.watch(state)
    got = [_answer(adapter, f) for f in frames]
    assert len(views) >= 2 and len(grown) == 2  # two frames' builds scored, each camera drawn once
    drawn = tb._drawn
    monkeypatch.setattr(tb, "_drawn", lambda st, calib, shape, hulls: drawn(st, calib, shape, {}))
    fresh = TokyoAdapter()
    fresh.watch(state)
    assert [_answer(fresh, f) for f in frames] == got


def test_a_knocked_cameras_still_picture_is_brought_back_once_for_its_drift() -> None:
    """The same kept picture brought back by an equal drift is the array made before (so ViewReads
    knows the knocked camera's still picture and keeps its reading); another drift or picture warps
    afresh, each as warp_to_calibrated does."""
    import numpy as np

    from vision.tokyo.piece_evidence import warp_to_calibrated

    image = picture("002.jpg")
    drift = np.array([[1.0, 0.002, 3.5], [-0.002, 1.0, -2.0]])
    adapter = TokyoAdapter()
    first = adapter._warped(image, drift)
    assert adapter._warped(image, drift.copy()) is first
    assert np.array_equal(first, warp_to_calibrated(image, drift))
    other = drift.copy()
    other[0, 2] += 0.25
    moved = adapter._warped(image, other)
    assert moved is not first and np.array_equal(moved, warp_to_calibrated(image, other))
    again = adapter._warped(image.copy(), other)
    assert again is not moved and np.array_equal(again, moved)
