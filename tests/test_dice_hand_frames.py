"""The dice road reader on a frame a hand blocks (issue #24): its cells are not put to the crop reader,
what follows reads as when they were, and the top-face view is warped only when something looks at
it. Results only, never times."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

from referee_app.demo import bundled_demos
from referee_app.games.dice import DiceAdapter
from vision import board3d, zones
from vision.zones import ZoneDiceReader, ZoneDie

HAND_OVER_POOL_2, HAND_OVER_POOL_3 = 3, 7  # the recording's first frames a hand blocks


@pytest.fixture(scope="module")
def frames() -> list[np.ndarray]:
    demo = next(d for d in bundled_demos() if d.game == "highway-dice")
    return [f.image for f in itertools.islice(demo.frames(realtime=False), 13)]


def fresh(frames: list[np.ndarray]) -> DiceAdapter:
    """An adapter as the referee loop gets it: it has learned the empty board from the first frame."""
    adapter = DiceAdapter()
    adapter.read(frames[0])
    return adapter


def cell_calls(monkeypatch: pytest.MonkeyPatch, what: str = "_crop_read") -> list[int]:
    """A counter of the calls of ZoneDiceReader's method `what` (or the zones module's function)
    made while a cell is read on the top-face view."""
    calls, inside = [0], [False]
    read_cell = ZoneDiceReader._read_cell_on_faces
    owner: Any = ZoneDiceReader if hasattr(ZoneDiceReader, what) else zones
    counted = getattr(owner, what)

    def cell(self: ZoneDiceReader, *args: Any, **kw: Any) -> Any:
        inside[0] = True
        try:
            return read_cell(self, *args, **kw)
        finally:
            inside[0] = False

    def call(*args: Any, **kw: Any) -> Any:
        calls[0] += inside[0]
        return counted(*args, **kw)

    monkeypatch.setattr(ZoneDiceReader, "_read_cell_on_faces", cell)
    monkeypatch.setattr(owner, what, call)
    return calls


def test_a_blocked_frames_cells_are_not_put_to_the_crop_reader(
        frames: list[np.ndarray], monkeypatch: pytest.MonkeyPatch) -> None:
    adapter = fresh(frames)
    calls = cell_calls(monkeypatch)
    for i, f in enumerate(frames[:HAND_OVER_POOL_3 + 1]):
        before = calls[0]
        obs = adapter.read(f)
        if i in (HAND_OVER_POOL_2, HAND_OVER_POOL_3):
            assert obs.blocked is not None and obs.blocked.startswith(f"{2 if i == 3 else 3}: a large object")
            assert calls[0] == before  # main's reader asked it about ~20 cells under each hand
    # a hand over the cells alone blocks nothing: those cells are read as ever
    before = calls[0]
    for f in frames[HAND_OVER_POOL_3 + 1:12]:
        obs = adapter.read(f)
    assert obs.blocked is None and calls[0] > before


def reading(adapter: DiceAdapter, frame: np.ndarray) -> tuple:
    obs = adapter.read(frame)
    r = adapter._reader
    dice = {z: [(d.value, d.confidence, d.color, d.box_mm, sorted(d.readings.items())) for d in ds]
            for z, ds in r.last_reading.dice.items()}
    return (sorted(obs.items.items()), sorted(obs.confidence.items()), obs.blocked, sorted(obs.unseen),
            obs.annotated.tobytes(), dice, sorted(r.last_reading.unreadable.items()),
            r.zones.reference.tobytes())


def test_what_follows_a_blocked_frame_reads_as_when_its_cells_were_read(
        frames: list[np.ndarray], monkeypatch: pytest.MonkeyPatch) -> None:
    adapter = fresh(frames)
    fast = [reading(adapter, f) for f in frames]
    read_cell = ZoneDiceReader._read_cell_on_faces

    def every_cell_read(self: ZoneDiceReader, *args: Any, **kw: Any) -> Any:
        kw["hand"] = False
        return read_cell(self, *args[:6], **kw)

    with monkeypatch.context() as m:
        m.setattr(ZoneDiceReader, "_read_cell_on_faces", every_cell_read)
        adapter = fresh(frames)
        full = [reading(adapter, f) for f in frames]
    # on this recording the crop reader finds no die under either hand, so even the blocked frames
    # read alike; every frame after them, learned empty sheet included, bit for bit
    assert fast == full
    assert fast[4][0] == [("tray", (5, 5))] and fast[8][0] == [("pool:0", 5)]
    assert fast[HAND_OVER_POOL_2][2] is not None and fast[HAND_OVER_POOL_3][2] is not None


def test_a_cell_under_the_hand_of_a_blocked_frame_keeps_its_last_reading(
        frames: list[np.ndarray], monkeypatch: pytest.MonkeyPatch) -> None:
    adapter = fresh(frames)
    for f in frames[:HAND_OVER_POOL_3]:
        adapter.read(f)
    reader = adapter._reader.zones
    cells = [z.name for z in reader.zones if z.name.startswith("cell:Y")]  # the hand's fingers lie there
    held = {c: [ZoneDie(4, 0.95, "yellow", (0.0, 0.0, 16.0, 16.0))] for c in cells}
    reader._last_dice.update(held)
    calls = cell_calls(monkeypatch)
    obs = adapter.read(frames[HAND_OVER_POOL_3])
    assert obs.blocked is not None and calls[0] == 0
    got = adapter._reader.last_reading.dice
    kept = [c for c in cells if got.get(c) == held[c]]
    assert kept  # the cells the crop reader would have been asked about
    assert all(got.get(c) in ([], held[c], None) for c in cells)  # the others read as empty


def test_the_top_face_view_is_warped_only_when_looked_at(frames: list[np.ndarray],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[board3d.FaceView] = []
    face_view = board3d.face_view

    def kept(*args: Any, **kw: Any) -> board3d.FaceView:
        made.append(face_view(*args, **kw))
        return made[-1]

    monkeypatch.setattr(board3d, "face_view", kept)
    adapter = fresh(frames)
    adapter.read(frames[0])  # every zone read again (none confirmed yet), every one empty
    assert made and made[-1]._image is None
    adapter.read(frames[4])  # two dice in the tray: read on the top-face view, round the tray only
    view = made[-1]
    assert view._image is None and view._parts is not None and view._parts.array.any()
    assert not view._parts.array[-50:].any()  # the bottom of the sheet: no zone read there looked at it
    # made on first use, it is the view warped at once, bit for bit
    r = adapter._reader
    lazy = face_view(frames[4], r.pose, r.sheet_mm, r.px_per_mm, lazy=True)
    now = face_view(frames[4], r.pose, r.sheet_mm, r.px_per_mm)
    assert lazy.size == now.size == (now.image.shape[1], now.image.shape[0])
    assert np.array_equal(lazy.image, now.image)
    assert np.array_equal(lazy.warp_from_sheet_view(r.zones._changed), now.warp_from_sheet_view(r.zones._changed))


def test_a_die_the_crop_reader_doubts_is_dropped_before_its_pips_and_colour(
        frames: list[np.ndarray], monkeypatch: pytest.MonkeyPatch) -> None:
    adapter = fresh(frames)
    for f in frames[:11]:
        adapter.read(f)
    values = cell_calls(monkeypatch, "_value")
    pips = cell_calls(monkeypatch, "count_pips")
    colours = cell_calls(monkeypatch, "_light")
    obs = adapter.read(frames[11])  # a hand over the yellow cells, no tray or pool: not blocked
    # the hand's ten cells each asked once (a screened cell is no longer read again re-framed: dicefps7)
    assert obs.blocked is None and values[0] >= 10
    assert pips[0] == colours[0] == 0  # every cell under it doubted by the crop reader: none counted
