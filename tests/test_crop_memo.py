"""The crop reader's memo of crops it has run (CropReader(memo=N), vision/learned/crops.py) and the
shared onnxruntime session (vision/learned/onnx_model.py): a crop seen before gets the very output a
run gives, a changed crop is run, and the dice road reader reads the same with and without the memo."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

pytest.importorskip("onnxruntime")

from referee_app.demo import bundled_demos  # noqa: E402
from referee_app.games.dice import DiceAdapter  # noqa: E402
from vision import zones  # noqa: E402
from vision.learned.crops import CropReader  # noqa: E402


def crops(seed: int, n: int, size: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (n, size, size, 3), dtype=np.uint8)


def test_a_remembered_crop_gives_what_a_run_gives_and_a_changed_one_is_run() -> None:
    plain, memo = CropReader(tta=8), CropReader(tta=8, memo=16)
    a = crops(0, 5, memo.size)
    runs: list[int] = []
    real = memo.model.run
    memo.model.run = lambda blob: runs.append(len(blob)) or real(blob)  # type: ignore[method-assign]
    assert np.array_equal(memo._run(a), plain._run(a))
    b = a.copy()
    b[2, 7, 7, 0] ^= 1  # one crop, one byte
    mixed = np.concatenate([b[1:3], a[:1]])
    assert np.array_equal(memo._run(mixed), plain._run(mixed))  # bit for bit, whatever shares the batch
    assert runs == [5, 1]  # only the changed crop ran the second time
    assert np.array_equal(memo._run(a[::-1]), plain._run(a[::-1])) and runs == [5, 1]
    memo._run(crops(1, 20, memo.size))
    assert len(memo._kept) == 16  # the oldest are forgotten


def test_readers_share_one_session_per_model_file() -> None:
    assert CropReader().model._sess is CropReader(tta=8).model._sess


def test_the_dice_road_reads_the_same_with_and_without_the_memo(monkeypatch: pytest.MonkeyPatch) -> None:
    demo = next(d for d in bundled_demos() if d.game == "highway-dice")
    frames = [f.image for f in itertools.islice(demo.frames(realtime=False), 13)]
    seen = {}
    for memo in (zones.CROP_MEMO, 0):
        monkeypatch.setattr(zones, "CROP_MEMO", memo)
        adapter = DiceAdapter()
        seen[memo] = [(o.items, o.confidence, o.blocked, o.beliefs) for o in map(adapter.read, frames)]
    assert seen[zones.CROP_MEMO] == seen[0]
    assert any(items for items, *_ in seen[0])  # dice were read at all

