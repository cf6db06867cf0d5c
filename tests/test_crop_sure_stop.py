"""A tray or pool die's re-framing read stops at its centred box when that box's first view reads the die
surely (vision/learned/crops.py `read_best(..., sure_stop=...)`, vision/zones.py `_crop_read`, issue #24,
branch dicefps9): the four shifted boxes are then not read. The calls checked are the six-box reads the
dice road reader makes on the bundled recording's first frames. Results only, never times."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

pytest.importorskip("onnxruntime")

from referee_app.demo import bundled_demos  # noqa: E402
from referee_app.games.dice import DiceAdapter  # noqa: E402
from vision.learned.crops import SURE_VIEW, CropReader, box_crops, softmax  # noqa: E402


@pytest.fixture(scope="module")
def calls() -> list[tuple[np.ndarray, np.ndarray, dict[str, Any]]]:
    """(image, boxes, keywords) of each re-framing `read_best` (six boxes) the reader makes on frames 0-8."""
    demo = next(d for d in bundled_demos() if d.game == "highway-dice")
    adapter = DiceAdapter()
    adapter.read(next(iter(demo.frames(realtime=False))).image)
    reader = adapter._reader.zones
    reader._crop_read(np.zeros((64, 64, 3), np.uint8), np.array([8, 8, 40, 40], np.float32))  # its CropReader
    seen: list[tuple[np.ndarray, np.ndarray, dict[str, Any]]] = []
    real = reader._values.read_best

    def spy(image: np.ndarray, boxes: np.ndarray, *a: Any, **k: Any) -> Any:
        b = np.array(boxes, np.float32).reshape(-1, 4)
        if len(b) == 6:
            seen.append((image.copy(), b, {key: v for key, v in k.items() if key != "sure_stop"}))
        return real(image, boxes, *a, **k)

    reader._values.read_best = spy  # type: ignore[method-assign]
    for f in itertools.islice(demo.frames(realtime=False), 9):
        adapter.read(f.image)
    assert len(seen) >= 6  # the trays' dice of two scenes
    return seen


def _counting() -> tuple[CropReader, list[int]]:
    reader, crops = CropReader(tta=8, quick=4, memo=256), []
    run = reader.model.run
    reader.model.run = lambda blob: crops.append(len(blob)) or run(blob)  # type: ignore[method-assign]
    return reader, crops


def test_a_die_sure_on_its_centred_box_reads_the_same_with_fewer_crops(calls: Any) -> None:
    sure = 0
    full_crops = stop_crops = 0
    for image, boxes, k in calls:
        plain, pc = _counting()
        full = plain.read_best(image, boxes, **k)
        fast, sc = _counting()
        got = fast.read_best(image, boxes, sure_stop=1, **k)
        full_crops, stop_crops = full_crops + sum(pc), stop_crops + sum(sc)
        centred = softmax(plain._run(box_crops(image, boxes[1:2], plain.size))[:, :7])  # its first view
        if centred[0, 1:].max() >= SURE_VIEW:
            sure += 1
            assert sum(sc) < sum(pc)  # the shifted boxes' crops not run
        # not sure: the whole read bit for bit; sure: on this recording the same too (the measured check)
        assert all(np.array_equal(a, b) for a, b in zip(got, full, strict=True))
    assert sure  # the recording's tray dice are mostly sure on their centred box
    assert sure < len(calls)  # and some are not: the rest of the boxes read then
    assert stop_crops < full_crops


def test_no_stop_is_the_whole_read(calls: Any) -> None:
    for image, boxes, k in calls[:4]:
        a = CropReader(tta=8, quick=4).read_best(image, boxes, **k)
        b = CropReader(tta=8, quick=4).read_best(image, boxes, sure_stop=None, **k)
        assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
