"""A cell crop that the crop reader screens out (its first view gives it under SCREEN's chance of a die,
so it gets no turned views) is re-framed onto a die only when there is a die to frame (issue #24, branch
dicefps7): a hand over the cells cost each cell a five-crop re-framing and two more reads, all read as
no die. Now the crop the reader's own re-framing of that first crop lands on is glimpsed first (one
crop, first view only); only if it gets SCREEN's chance is the cell re-framed as before, and that
re-framing stops where none of its die-sized boxes gets SCREEN's chance. A crop the reader doubts
(SCREEN up to the chance needed) is re-framed as before: a die nudged off its cell's centre
(tests/test_zones_off_centre.py). Results only, never times."""

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


def _hand_frame(frames: list[np.ndarray], chance: float | None = None,
                glimpse: float | None = None) -> tuple[list[str], list[str], Any]:
    """Read the recording up to the hand frame; on it, each cell's first crop reading (the call with a
    `need`) says `chance` of a die and the glimpse says `glimpse` (None: the reader's own). Returns the
    cells put to the crop reader, the cells re-framed (a `_crop_read` with `refine`) and the frame's
    reading."""
    adapter = DiceAdapter()
    for f in frames[:HAND]:
        adapter.read(f)
    zr = adapter._reader.zones
    asked: list[str] = []
    reframed: list[str] = []
    value, crop_read, glimpsed = zr._value, zr._crop_read, zr._glimpse
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

    def watched_crop_read(image: Any, box: Any, refine: bool = False, framed: bool = True,
                          screen: bool = False) -> Any:
        if refine and cell:
            reframed.append(cell[0])
        return crop_read(image, box, refine, framed, screen)

    def forced_glimpse(image: Any, box: Any) -> float:
        got = glimpsed(image, box)
        return got if glimpse is None else glimpse

    zr._value, zr._crop_read, zr._glimpse = first_value, watched_crop_read, forced_glimpse
    adapter.read(frames[HAND])
    return asked, reframed, adapter._reader.last_reading


def test_the_hand_over_the_cells_is_read_as_no_die_without_re_framing(frames: list[np.ndarray]) -> None:
    asked, reframed, reading = _hand_frame(frames)
    assert len(asked) >= 5  # the hand's cells were put to the crop reader
    assert reframed == []  # each screened out, its glimpse too: none re-framed (main re-framed each)
    assert all(reading.dice.get(name) == [] for name in asked)  # read as no die, as before


def test_a_screened_cell_is_re_framed_only_when_its_glimpse_may_be_a_die(frames: list[np.ndarray]) -> None:
    below = _hand_frame(frames, chance=0.5 * SCREEN, glimpse=0.5 * SCREEN)
    assert below[0] and below[1] == []
    seen = _hand_frame(frames, chance=0.5 * SCREEN, glimpse=SCREEN)  # something die-like nearby
    assert seen[0] and set(seen[1]) == set(seen[0])
    doubted = _hand_frame(frames, chance=SCREEN, glimpse=0.0)  # doubted, not screened: no glimpse asked
    assert doubted[0] and set(doubted[1]) == set(doubted[0])


class _Reader:
    """A crop reader that gives every box `chance` of a die and counts its calls."""

    def __init__(self, chance: float) -> None:
        self.chance, self.calls = chance, 0

    def read_best(self, image: Any, boxes: Any, framed: bool = True, frame_above: float | None = None,
                  views: bool = True, sure_stop: int | None = None) -> Any:
        self.calls += 1
        box = np.asarray(boxes, np.float32).reshape(-1, 4)[:1]
        return np.array([self.chance], np.float32), np.array([2]), np.array([0.9], np.float32), box

    def read_best_above(self, image: Any, boxes: Any, beat: float) -> Any:
        got = self.read_best(image, boxes, frame_above=beat)
        return got if got[0][0] > beat else None


@pytest.mark.parametrize("chance", [0.5 * SCREEN, SCREEN])
def test_screen_stops_the_re_framing_where_no_box_gets_screens_chance(frames: list[np.ndarray],
                                                                      chance: float) -> None:
    adapter = DiceAdapter()
    adapter.read(frames[0])
    zr = adapter._reader.zones
    box = np.array([100, 100, 148, 148], np.float32)
    for screen, calls in ((False, 2), (True, 1 if chance < SCREEN else 2)):
        zr._values = _Reader(chance)
        got = zr._crop_read(frames[0], box, refine=True, screen=screen)
        assert zr._values.calls == calls and got[2] == pytest.approx(chance)


def test_read_best_without_views_gives_the_first_views_chance(frames: list[np.ndarray]) -> None:
    from vision.learned.crops import CropReader, box_crops, softmax

    reader = CropReader(tta=8)
    boxes = np.array([[600, 300, 640, 340], [10, 10, 50, 50]], np.float32)
    p, *_ = reader.read_best(frames[0], boxes, framed=False, views=False)
    first = softmax(reader._run(box_crops(frames[0], boxes, reader.size))[:, :7])
    assert float(p[0]) == float((1.0 - first[:, 0]).astype(np.float32).max())
