"""The crop reader's quick read (vision/learned/crops.py `CropReader(quick=...)`, issue #24, branch
dicefps8): the best box's first `quick` of `tta` views are run, and when each gives one value surely the
reading is their mean, its rivals read on as many views; otherwise every view, as before, bit for bit.
The calls checked are the ones the dice road reader makes on the bundled recording's first frames.
Results only, never times."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

pytest.importorskip("onnxruntime")

from referee_app.demo import bundled_demos  # noqa: E402
from referee_app.games.dice import DiceAdapter  # noqa: E402
from vision.learned.crops import CropReader  # noqa: E402
from vision.types import VisionError  # noqa: E402


@pytest.fixture(scope="module")
def calls() -> list[tuple[np.ndarray, np.ndarray]]:
    """(image, boxes) of each `read_best` with turned views the reader makes on frames 0-8."""
    demo = next(d for d in bundled_demos() if d.game == "highway-dice")
    adapter = DiceAdapter()
    adapter.read(next(iter(demo.frames(realtime=False))).image)
    reader = adapter._reader.zones
    reader._crop_read(np.zeros((64, 64, 3), np.uint8), np.array([8, 8, 40, 40], np.float32))  # its CropReader
    seen: list[tuple[np.ndarray, np.ndarray]] = []
    real = reader._values.read_best

    def spy(image: np.ndarray, boxes: np.ndarray, *a: Any, **k: Any) -> Any:
        if k.get("views", True):
            seen.append((image.copy(), np.array(boxes, np.float32).reshape(-1, 4)))
        return real(image, boxes, *a, **k)

    reader._values.read_best = spy  # type: ignore[method-assign]
    for f in itertools.islice(demo.frames(realtime=False), 9):
        adapter.read(f.image)
    assert sum(len(b) > 1 for _, b in seen) >= 6  # the trays' dice of two scenes, their six boxes each
    return seen


def _counting(**kw: Any) -> tuple[CropReader, list[int]]:
    reader, crops = CropReader(tta=8, **kw), []
    run = reader.model.run
    reader.model.run = lambda blob: crops.append(len(blob)) or run(blob)  # type: ignore[method-assign]
    return reader, crops


def test_a_sure_die_is_read_on_its_first_four_views_and_an_unsure_one_on_all(calls: Any) -> None:
    sure = unsure = 0
    full_crops = quick_crops = 0
    for image, boxes in calls:
        plain, pc = _counting()
        full = plain.read_best(image, boxes)
        fast, qc = _counting(quick=4, memo=256)
        got = fast.read_best(image, boxes)
        full_crops, quick_crops = full_crops + sum(pc), quick_crops + sum(qc)
        assert got[1][0] == full[1][0]  # the value: the bound held on every call here
        if np.array_equal(got[0], full[0]):  # not sure on four views: every view, as before
            unsure += 1
            assert all(np.array_equal(a, b) for a, b in zip(got, full, strict=True))
        else:  # the mean of four views, as a four-view reader reads the same boxes
            sure += 1
            four = CropReader(tta=4).read_best(image, boxes)
            assert got[1][0] == four[1][0]
            np.testing.assert_allclose(got[0], four[0], rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(got[2], four[2], rtol=1e-5, atol=1e-6)
            np.testing.assert_array_equal(got[3], four[3])
    assert sure  # the recording's dice are mostly sure ones
    assert quick_crops < full_crops


def test_quick_off_is_the_full_read(calls: Any) -> None:
    for image, boxes in calls[:8]:
        a = CropReader(tta=8).read_best(image, boxes)
        b = CropReader(tta=8, quick=0).read_best(image, boxes)
        assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("quick", [1, 8, 9])
def test_quick_must_leave_views_out(quick: int) -> None:
    with pytest.raises(VisionError):
        CropReader(tta=8, quick=quick)
