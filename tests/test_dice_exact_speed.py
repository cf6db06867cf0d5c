"""The dice road reader's shortcuts read exactly what the plain computations read (issue #24): the crop
reader's best box without reading every box in full (`CropReader.read_best`), the cells' correlations
all at once (`_nccs`, the exact `_ncc` near a threshold), a cell's changed mask in its pip window only
(`_changed_in`), and the bundled recording read through all of them against the plain ways, every
observation and the learned empty sheet compared bit for bit."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

pytest.importorskip("onnxruntime")

from referee_app.demo import bundled_demos  # noqa: E402
from referee_app.games.dice import DiceAdapter  # noqa: E402
from vision import zones  # noqa: E402
from vision.learned.crops import (  # noqa: E402
    SCREEN,
    SURE_VIEW,
    CropReader,
    box_crops,
    dihedral_view,
    softmax,
)

FRAMES = 16  # the empty board, two hands, two rolls, a die stored in a pool, dice on the board


@pytest.fixture(scope="module")
def frames() -> list[np.ndarray]:
    demo = next(d for d in bundled_demos() if d.game == "highway-dice")
    return [f.image for f in itertools.islice(demo.frames(realtime=False), FRAMES)]


def plain_best(reader: CropReader, image: np.ndarray, boxes: np.ndarray,
               framed: bool = True, frame_above: float | None = None,
               views: bool = True, sure_stop: int | None = None) -> tuple[np.ndarray, ...]:
    """`read_best` the plain way: every box read in full (`views=False`: its first view only, as a
    reader of one view), then the likeliest taken. A quick reader (dicefps8) reads every box on its
    first `quick` views when the likeliest box by its first view reads each of them as one value at
    least SURE_VIEW. `sure_stop` (dicefps9): the boxes after it are dropped when its first view reads
    one value at least SURE_VIEW."""
    if sure_stop is not None:
        boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
        one = box_crops(image, boxes[sure_stop:sure_stop + 1], reader.size)
        p = softmax(reader.model.run(np.ascontiguousarray(one.transpose(0, 3, 1, 2), np.float32))[:, :7])
        if p[0, 1:].max() >= SURE_VIEW:
            boxes = boxes[:sure_stop + 1]
    tta = reader.tta
    reader.tta = tta if views else 1
    if views and reader.quick:
        crops = box_crops(image, np.asarray(boxes, np.float32).reshape(-1, 4), reader.size)
        first = softmax(reader.model.run(np.ascontiguousarray(crops.transpose(0, 3, 1, 2), np.float32))[:, :7])
        chance = 1.0 - first[:, 0]
        if (chance >= SCREEN).any():
            lead = int(np.argmax(np.where(chance >= SCREEN, chance, -1.0)))
            seen = np.stack([softmax(reader.model.run(np.ascontiguousarray(
                dihedral_view(crops[lead:lead + 1], i).transpose(0, 3, 1, 2), np.float32))[0, :7])
                for i in range(reader.quick)])
            if (seen[:, int(seen[0, 1:].argmax()) + 1] >= SURE_VIEW).all():
                reader.tta = reader.quick
    try:
        p, v, c, f = reader.read(image, boxes)
    finally:
        reader.tta = tta
    b = int(np.argmax(p))
    return p[b:b + 1], v[b:b + 1], c[b:b + 1], f[b:b + 1]


def plain_best_above(reader: CropReader, image: np.ndarray, boxes: np.ndarray,
                     beat: float) -> tuple[np.ndarray, ...] | None:
    """`read_best_above` the plain way: `plain_best`, kept when its chance is above `beat`."""
    got = plain_best(reader, image, boxes, frame_above=beat)
    return got if got[0][0] > beat else None


def bits(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a).tobytes()


def test_read_best_is_read_of_the_likeliest_box_bit_for_bit(frames: list[np.ndarray]) -> None:
    reader = CropReader(tta=8)
    runs: list[int] = []
    real = reader.model.run
    reader.model.run = lambda blob: runs.append(len(blob)) or real(blob)  # type: ignore[method-assign]
    image = frames[4]  # the roll: two dice in the tray
    adapter = DiceAdapter()
    for f in frames[:5]:
        adapter.read(f)
    cal = adapter._reader.localiser.calibration
    cases = []
    for die in adapter._reader.last_reading.dice["tray"]:
        # boxes round each die in the camera frame, shifted half a die each way (as _crop_read makes)
        (x0, y0), (x1, y1) = cal.to_image(np.array([die.box_mm[:2], die.box_mm[2:]], np.float64))
        side = max(x1 - x0, y1 - y0)
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        shifts = [(0, 0), (-0.5, 0), (0.5, 0), (0, -0.5), (0, 0.5)]
        cases.append(np.array([[x0, y0, x1, y1]] + [[cx + (dx - 0.5) * side, cy + (dy - 0.5) * side,
                                                     cx + (dx + 0.5) * side, cy + (dy + 0.5) * side]
                                                    for dx, dy in shifts], np.float32))
    assert len(cases) == 2
    rng = np.random.default_rng(1)
    for _ in range(6):  # and boxes anywhere, dice or none
        xy = rng.uniform(0, 600, (6, 2))
        cases.append(np.concatenate([xy, xy + rng.uniform(20, 60, (6, 2))], axis=1).astype(np.float32))
    saved = 0
    for boxes in cases:
        runs.clear()
        got = reader.read_best(image, boxes)
        fast = sum(runs)
        runs.clear()
        want = plain_best(reader, image, boxes)
        assert [bits(a) for a in got] == [bits(a) for a in want]
        saved += sum(runs) - fast
        best = int(np.argmax(reader.read(image, boxes)[0]))
        for kw in ({"framed": False}, {"frame_above": float(want[0][0])}):
            got = reader.read_best(image, boxes, **kw)
            assert [bits(a) for a in got[:3]] == [bits(a) for a in want[:3]]
            assert bits(got[3]) == bits(boxes[best:best + 1])  # not re-framed: the box given
    assert saved > 0


def test_a_rival_gets_turned_views_only_while_it_can_still_win() -> None:
    reader = CropReader(tta=8)
    die, none = np.zeros(10, np.float32), np.zeros(10, np.float32)
    die[1], none[0] = 10.0, 10.0  # logits: surely a 1, surely not a die
    crops = np.zeros((2, reader.size, reader.size, 3), np.uint8)
    for view, want_runs, want_kept in ((none, [1], []), (die, [1] * 7, [0])):
        proba = np.zeros((2, 7), np.float32)
        proba[:, 0] = [0.001, 0.9]  # their first views' chance of "not a die"
        proba[:, 1] = 1.0 - proba[:, 0]
        runs: list[int] = []
        reader._run = lambda c, v=view, r=runs: r.append(len(c)) or np.tile(v, (len(c), 1))  # type: ignore
        expect = proba.copy()
        kept = reader._rivals(crops, proba, np.array([0, 1]), np.float32(0.99))
        # the second (at most 1 - 0.9 / 8 after all its views) never gets one; the first one view
        # when that view says "no die", all seven when each says "a die"
        assert runs == want_runs and list(kept) == want_kept
        if want_kept:
            reader._views(crops, expect, np.array([0]))
            assert bits(proba[0]) == bits(expect[0])


def test_the_cells_correlations_decide_as_ncc_does() -> None:
    rng = np.random.default_rng(2)
    a_view = rng.normal(size=(120, 200)).astype(np.float32)
    b_view = (0.9 * a_view + 0.3 * rng.normal(size=a_view.shape)).astype(np.float32)
    b_view[:, 150:] = a_view[:, 150:]  # some windows identical (NCC 1)
    b_view[:, 100:110] = 1.0  # and one flat window
    a_view[:, 100:110] = 1.0
    windows = {f"w{i}": (x, y, x + 26, y + 26) for i, (x, y) in
               enumerate(itertools.product(range(0, 170, 20), range(0, 90, 30)))}
    windows["flat"] = (100, 0, 110, 20)
    near = zones._nccs(a_view, b_view, windows)
    for name, (x0, y0, x1, y1) in windows.items():
        a, b = a_view[y0:y1, x0:x1], b_view[y0:y1, x0:x1]
        exact = zones._ncc(a, b)
        if name == "flat":
            assert np.isnan(near[name]) and exact == 1.0
        else:
            assert abs(near[name] - exact) < 1e-5
        for level in (exact, np.nextafter(exact, 2.0), np.nextafter(exact, -2.0), 0.55, 0.85):
            assert zones._at_least(near[name], a, b, float(level)) == (exact >= level)
    assert zones._at_least(None, a, b, 0.5) == (zones._ncc(a, b) >= 0.5)


def test_a_cells_changed_mask_is_the_whole_views_in_its_window() -> None:
    rng = np.random.default_rng(3)
    obs = rng.normal(size=(90, 140)).astype(np.float32)
    ref = (obs + rng.normal(scale=0.5, size=obs.shape)).astype(np.float32)
    whole = zones._changed_mask(obs, ref, None)
    for window in ((10, 20, 60, 70), (0, 0, 30, 25), (100, 50, 140, 90), (0, 0, 140, 90)):
        x0, y0, x1, y1 = window
        part = zones._changed_in(obs, ref, window)
        assert np.array_equal(part[y0:y1, x0:x1], whole[y0:y1, x0:x1])
        assert not part.sum() - part[y0:y1, x0:x1].sum()  # nothing outside the window


def reading(adapter: DiceAdapter, image: np.ndarray) -> tuple:
    o = adapter.read(image)
    r = adapter._reader
    dice = {z: [(d.value, d.confidence, d.color, d.box_mm, d.readings) for d in ds]
            for z, ds in r.last_reading.dice.items()}
    return (o.items, o.confidence, o.beliefs, o.blocked, o.warnings, o.unseen, bits(o.annotated), dice,
            r.last_reading.unreadable, bits(r.zones.reference))


def test_the_recording_reads_the_same_through_the_plain_computations(
        frames: list[np.ndarray], monkeypatch: pytest.MonkeyPatch) -> None:
    fast = [reading(adapter, f) for adapter in [DiceAdapter()] for f in frames]
    with monkeypatch.context() as m:
        m.setattr(CropReader, "read_best", plain_best)
        m.setattr(CropReader, "read_best_above", plain_best_above)
        m.setattr(zones, "_nccs", lambda a, b, windows: {})  # every decision by _ncc itself
        m.setattr(zones, "_changed_in", lambda obs, ref, window: zones._changed_mask(obs, ref, None))
        m.setattr(zones, "_scratch", lambda name, shape, dtype: np.empty(shape, dtype))
        plain = [reading(adapter, f) for adapter in [DiceAdapter()] for f in frames]
    assert fast == plain
    assert any(items for items, *_ in fast)  # dice were read
