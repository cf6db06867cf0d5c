"""The crop reader's `read_best_above` (vision/learned/crops.py, issue #24, branch dicefps8): a tray or
pool die's re-framed box is read again and kept only when it reads likelier than the box it came from;
its turned views now stop as soon as they cannot lift it there. Whenever it gives a reading, that is
`read_best`'s bit for bit; it gives None exactly when `read_best`'s chance is not above the bar. The
calls checked are the ones the dice road reader makes on the bundled recording's first frames. Results
only, never times."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

pytest.importorskip("onnxruntime")

from referee_app.demo import bundled_demos  # noqa: E402
from referee_app.games.dice import DiceAdapter  # noqa: E402
from vision.learned.crops import CropReader  # noqa: E402


@pytest.fixture(scope="module")
def calls() -> list[tuple[np.ndarray, np.ndarray, float]]:
    """(image, box, bar) of each `read_best_above` the reader makes on the recording's frames 0-8."""
    demo = next(d for d in bundled_demos() if d.game == "highway-dice")
    adapter = DiceAdapter()
    adapter.read(next(iter(demo.frames(realtime=False))).image)
    reader = adapter._reader.zones
    reader._crop_read(np.zeros((64, 64, 3), np.uint8), np.array([8, 8, 40, 40], np.float32))  # its CropReader
    seen: list[tuple[np.ndarray, np.ndarray, float]] = []
    real = reader._values.read_best_above

    def spy(image: np.ndarray, boxes: np.ndarray, beat: float) -> Any:
        seen.append((image.copy(), np.array(boxes, np.float32), beat))
        return real(image, boxes, beat)

    reader._values.read_best_above = spy  # type: ignore[method-assign]
    for f in itertools.islice(demo.frames(realtime=False), 9):
        adapter.read(f.image)
    assert len(seen) >= 6  # the trays' dice of two scenes
    return seen


def _counting() -> tuple[CropReader, list[int]]:
    reader, crops = CropReader(tta=8), []
    run = reader.model.run
    reader.model.run = lambda blob: crops.append(len(blob)) or run(blob)  # type: ignore[method-assign]
    return reader, crops


def test_a_reading_above_the_bar_is_read_bests_and_none_is_given_exactly_below_it(calls: Any) -> None:
    above, below, saved = 0, 0, 0
    for image, box, beat in calls:
        plain, plain_crops = _counting()
        full = plain.read_best(image, box, frame_above=beat)
        fast, fast_crops = _counting()
        got = fast.read_best_above(image, box, beat)
        if full[0][0] > beat:
            above += 1
            assert got is not None
            for a, b in zip(got, full, strict=True):
                assert a.dtype == b.dtype and np.array_equal(a, b)
            assert sum(fast_crops) == sum(plain_crops)
        else:
            below += 1
            assert got is None
            assert sum(fast_crops) <= sum(plain_crops)
            saved += sum(plain_crops) - sum(fast_crops)
    assert above and below  # both kinds of call were checked
    assert saved > 0  # views were left unrun where they could not have mattered


@pytest.mark.parametrize("beat", [-1.0, 0.0, 0.5])
def test_a_low_bar_gives_read_best_whole(calls: Any, beat: float) -> None:
    for image, box, _ in calls[:6]:
        full = CropReader(tta=8).read_best(image, box, frame_above=beat)
        got = CropReader(tta=8).read_best_above(image, box, beat)
        if full[0][0] > beat:
            assert got is not None and all(np.array_equal(a, b) for a, b in zip(got, full, strict=True))
        else:
            assert got is None


def test_no_reading_clears_a_bar_of_one(calls: Any) -> None:
    reader, crops = _counting()
    for image, box, _ in calls[:6]:
        assert reader.read_best_above(image, box, 1.0) is None
    assert sum(crops) <= 6  # the first view alone settles it: no turned view can lift a chance past 1
