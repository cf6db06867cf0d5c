"""Tokyo Highway frames that show nothing new are not read again (referee_app/games/tokyo_reuse.py,
vision.tiles.reuse.image_changed), a view with a hand is read no further (read_tokyo's
`stop_at_hand`), and neither keeps a stale reading: a changed region, or a new state of the match,
is read again and answers as a fresh adapter does."""

from __future__ import annotations

import copy
import json

import cv2
import numpy as np
import pytest
from test_tokyo_referee import STARTED, play

from referee_app.demo import DEMO_ROOT
from referee_app.games.tokyo import TokyoAdapter, load_calibration
from vision.sources import OtherView, PairedFrame
from vision.tiles.reuse import changed_boxes, image_changed

DEMO = DEMO_ROOT / "tokyo-highway"
SOURCE = "demo:tokyo-highway"


def picture(name: str) -> np.ndarray:
    return cv2.imread(str(DEMO / name), cv2.IMREAD_COLOR)


def paired(image: np.ndarray, second: np.ndarray, index: int = 0) -> PairedFrame:
    return PairedFrame(image, float(index), SOURCE, index, others=[OtherView(second, f"{SOURCE}:camera2", "")])


def noisy(image: np.ndarray, seed: int, amount: int = 3) -> np.ndarray:
    """The same scene as a camera sends it again: a few grey levels of sensor noise."""
    rng = np.random.default_rng(seed)
    return np.clip(image.astype(np.int16) + rng.integers(-amount, amount + 1, image.shape), 0, 255).astype(np.uint8)


def counting(adapter: TokyoAdapter) -> list[int]:
    """Count the adapter's full readings (`_read_table`)."""
    calls: list[int] = []
    read = adapter._read_table

    def counted(*args, **kw):
        calls.append(1)
        return read(*args, **kw)

    adapter._read_table = counted  # type: ignore[method-assign]
    return calls


def fresh_like(adapter: TokyoAdapter) -> TokyoAdapter:
    """A fresh adapter (nothing read or remembered) holding `adapter`'s cameras' kept table estimates
    (vision/tokyo/table_memory.py): the estimate is no reading, but the pieces are judged against it,
    so a fresh read is compared with one against the same estimate."""
    fresh = TokyoAdapter()
    fresh._tables = copy.deepcopy(adapter._tables)
    return fresh


def seen(obs) -> tuple:
    return (obs.items, obs.confidence, obs.blocked, obs.warnings, repr(sorted(obs.beliefs.items(), key=str)))


def test_image_changed_takes_noise_as_still_and_a_small_change_or_new_light_as_change():
    a = picture("002.jpg")
    assert not image_changed(a, a.copy())
    assert not image_changed(noisy(a, 1), a)
    spot = a.copy()
    spot[300:306, 500:506] = 255 - spot[300:306, 500:506]  # 36 pixels: a stick end, a finger tip
    assert image_changed(spot, a)
    lit = cv2.add(a, np.full_like(a, 6))
    assert image_changed(lit, a)  # the light changed: every reading may shift
    assert image_changed(a[:, :-1], a) and image_changed(a, None)
    # the whole-image test says what `changed_boxes` says over the same squares
    boxes = {f"{x},{y}": (x, y, x + 32, y + 32) for y in range(0, 720, 32) for x in range(0, 1280, 32)}
    for other in (noisy(a, 2), spot, lit, picture("004.jpg")):
        assert image_changed(other, a) == bool(changed_boxes(other, a, boxes))


@pytest.fixture(scope="module")
def scenes():
    before, after = picture("002.jpg"), picture("004.jpg")  # purple's start road, then green's too
    return before, after, picture("camera2/002.jpg"), picture("camera2/004.jpg")


def test_a_still_table_is_read_once_and_a_changed_region_is_read_again(scenes):
    before, after, before2, after2 = scenes
    adapter = TokyoAdapter()
    calls = counting(adapter)
    first = adapter.read(paired(before, before2, 0))
    again = adapter.read(paired(noisy(before, 3), noisy(before2, 4), 1))
    assert len(calls) == 1 and seen(again) == seen(first)  # sensor noise: the reading is kept
    # only where green's start stands does either camera's frame change: that region is new, so the
    # frame is read again (camera 2 too: a column one view alone shows is left out of the columns)
    patched, patched2 = local_change(before, after), local_change(before2, after2)
    got = adapter.read(paired(patched, patched2, 2))
    assert len(calls) == 2
    fresh = fresh_like(adapter).read(paired(patched, patched2, 2))
    assert seen(got) == seen(fresh) and got.items != first.items  # read anew, not the kept reading


def local_change(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """`before` with the box round the pixels that changed most by `after` taken from `after`."""
    moved = cv2.absdiff(after, before).max(2) > 60
    ys, xs = np.nonzero(moved)
    box = (slice(max(0, ys.min() - 4), ys.max() + 5), slice(max(0, xs.min() - 4), xs.max() + 5))
    out = before.copy()
    out[box] = after[box]
    return out


def test_the_same_frame_against_a_new_state_of_the_match_is_judged_again(scenes):
    before, after, before2, after2 = scenes
    frame = paired(after, after2, 0)
    adapter = TokyoAdapter()
    calls = counting(adapter)
    adapter.watch(play(STARTED[0]))
    one = adapter.read(frame)
    assert seen(adapter.read(frame)) == seen(one)  # the same frame, the same match: the same answer
    now = play(*STARTED)
    adapter.watch(now)
    two = adapter.read(frame)
    fresh = TokyoAdapter()
    fresh.watch(now)
    assert seen(two) == seen(fresh.read(frame)) and len(calls) == 1  # builds scored again, pixels kept
    assert two.beliefs != one.beliefs


def test_a_view_with_a_hand_is_read_no_further():
    from vision.tokyo import read_tokyo, read_tokyo_views
    from vision.tokyo.reader import hand_in_view

    calib = load_calibration(DEMO / "calibration.json")[0]
    calib2 = load_calibration(DEMO / "calibration2.json")[0]
    hand, still = picture("001.jpg"), picture("002.jpg")
    full, stopped = read_tokyo(hand, calib), read_tokyo(hand, calib, stop_at_hand=True)
    assert hand_in_view(full) and hand_in_view(stopped)
    assert not stopped.supports and not stopped.sticks
    assert stopped.warnings == full.warnings[:len(stopped.warnings)]
    plain = json.dumps(read_tokyo(still, calib).to_dict(), default=float)
    assert json.dumps(read_tokyo(still, calib, stop_at_hand=True).to_dict(), default=float) == plain
    # two views: a hand in camera 2's ends the reading there, blocked as before
    views = read_tokyo_views([still, picture("camera2/001.jpg")], [calib, calib2], stop_at_hand=True)
    assert len(views.views) == 2 and hand_in_view(views.views[1]) and not views.columns
    obs = TokyoAdapter().read(paired(still, picture("camera2/001.jpg")))
    assert obs.blocked is not None and obs.blocked.startswith("camera 2: hand or large object")


def counting_calls(monkeypatch, module, name: str) -> list[int]:
    """Count calls of `module.name` (patched where the adapter looks it up)."""
    calls: list[int] = []
    real = getattr(module, name)

    def counted(*args, **kw):
        calls.append(1)
        return real(*args, **kw)

    monkeypatch.setattr(module, name, counted)
    return calls


# the builds of a paired frame are scored in both views (branch tokyo2cam): a read that scores them
# maps each camera's picture once (camera 1's alone is aligned: its drift searched)
VIEWS = 2


def hand_then_clear(adapter: TokyoAdapter, maps: list[int], drifts: list[int]) -> None:
    """A frame covered by a hand (purple builds) costs no piece map and no drift search; the clear
    frame after it is mapped once (each view) and aligned once, and read as a fresh adapter reads it."""
    hand = adapter.read(paired(picture("005.jpg"), picture("camera2/005.jpg"), 1))
    assert hand.blocked is not None and hand.blocked.startswith("hand or large object")
    assert (len(maps), len(drifts)) == (VIEWS, 1)
    after = paired(noisy(picture("004.jpg"), 5), noisy(picture("camera2/004.jpg"), 6), 2)
    got = adapter.read(after)
    assert got.blocked is None and (len(maps), len(drifts)) == (2 * VIEWS, 2)
    fresh = fresh_like(adapter)
    fresh.watch(play(*STARTED))
    assert seen(got) == seen(fresh.read(after))


def test_a_covered_frame_costs_no_piece_maps_and_no_drift_search_and_stays_blocked(monkeypatch):
    import referee_app.games.tokyo as tokyo_module
    import vision.tokyo.piece_evidence as evidence

    maps = counting_calls(monkeypatch, evidence, "piece_maps")
    drifts = counting_calls(monkeypatch, tokyo_module, "camera_drift")
    adapter = TokyoAdapter()
    adapter.watch(play(*STARTED))
    still = paired(picture("004.jpg"), picture("camera2/004.jpg"), 0)  # both start roads down
    adapter.read(still)
    assert (len(maps), len(drifts)) == (VIEWS, 1)  # the state's drift searched for: none
    # purple builds: main scored nothing on the covered frame, yet mapped and aligned it
    hand_then_clear(adapter, maps, drifts)


def test_a_drift_found_on_a_frame_read_as_it_came_has_it_read_again_brought_back():
    """A camera knocked just now (its view no longer aligns as well as when this state's drift was
    last searched, or a new state of the match, never searched): the frame, first read as it came, is
    read again brought back to the calibrated view, alike in both cases."""
    from test_tokyo_builds import BUILD, shot

    from referee_app import demo_tokyo as dt
    from vision.tokyo import PieceSizes, PinholeCamera, TokyoCalibration
    from vision.types import Frame

    cam = dt.demo_camera()
    turn, _ = cv2.Rodrigues(np.radians([0.7, -0.5, 0.4]))
    knocked = PinholeCamera(cam.K, turn @ cam.R, -(turn @ cam.R) @ cam.centre, cam.width, cam.height)
    state = play(*STARTED, BUILD)
    frame = Frame(shot(dt.scene_from_state(state), knocked, seed=21), 0.0, "test", 0)

    def reader(searched: bool) -> tuple[TokyoAdapter, list[int]]:
        adapter = TokyoAdapter()
        adapter.use_calibration(TokyoCalibration(cam, PieceSizes()))
        adapter.watch(state)
        if searched:  # no drift found for this state, with the view aligned better than it is now
            adapter._track.state, adapter._track.score = state, float("inf")
        return adapter, counting(adapter)

    first, first_reads = reader(True)
    aligned, aligned_reads = reader(False)
    assert seen(first.read(frame)) == seen(aligned.read(frame))
    assert (len(first_reads), len(aligned_reads)) == (2, 2)
    assert first._track.drift is not None and aligned._track.drift is not None


def test_a_covered_frame_after_a_move_costs_no_piece_maps_and_no_drift_search(monkeypatch):
    """The hand that made a move is often still in view on the first frame of the new state: that
    frame is read first (blocked) and neither mapped nor aligned; the next clear one is."""
    import referee_app.games.tokyo as tokyo_module
    import vision.tokyo.piece_evidence as evidence

    maps = counting_calls(monkeypatch, evidence, "piece_maps")
    drifts = counting_calls(monkeypatch, tokyo_module, "camera_drift")
    adapter = TokyoAdapter()
    adapter.watch(play(*STARTED))
    adapter.read(paired(picture("004.jpg"), picture("camera2/004.jpg"), 0))
    assert (len(maps), len(drifts)) == (VIEWS, 1)
    adapter.watch(play(*STARTED))  # a new state of the match (its drift never searched)
    hand_then_clear(adapter, maps, drifts)  # main mapped the covered frame and searched its drift


def test_a_still_frame_once_two_answers_agreed_costs_no_piece_maps_and_a_change_or_hand_is_read(monkeypatch):
    """Noise only since the kept picture: the first two such frames are scored on their own pixels;
    once their answers agree, the next ones get that answer (no piece maps, no build scores). A
    change anywhere, or a hand, is read again all the same."""
    import vision.tokyo.piece_evidence as evidence

    maps = counting_calls(monkeypatch, evidence, "piece_maps")
    before, after = picture("004.jpg"), picture("camera2/004.jpg")
    adapter = TokyoAdapter()
    reads = counting(adapter)
    adapter.watch(play(*STARTED))
    answers = [adapter.read(paired(noisy(before, 10 + k), noisy(after, 20 + k), k)) for k in range(5)]
    assert len(reads) == 1 and len(maps) == 2 * VIEWS  # main: piece maps for every one of the five frames
    assert all(seen(a) == seen(answers[1]) for a in answers[2:])
    # a hand comes in: read (and blocked), not answered as the still table
    hand = adapter.read(paired(picture("005.jpg"), picture("camera2/005.jpg"), 5))
    assert hand.blocked is not None and len(reads) == 2
    # the table changed in one place only (purple's first build, without the hand)
    patched, patched2 = local_change(before, picture("006.jpg")), local_change(after, picture("camera2/006.jpg"))
    got = adapter.read(paired(patched, patched2, 6))
    fresh = fresh_like(adapter)
    fresh.watch(play(*STARTED))
    assert len(reads) == 3 and seen(got) == seen(fresh.read(paired(patched, patched2, 6)))


def test_an_unsure_build_or_answers_that_differ_do_not_stand():
    from referee_app.games.base import Observation
    from referee_app.games.tokyo_builds import BUILD_KEY
    from referee_app.games.tokyo_reuse import Remembered, stands

    state = object()

    def answer(items: dict, belief: dict | None = None, key: str = "k") -> Remembered:
        obs = Observation(dict(items), {})
        if belief is not None:
            obs.beliefs = {BUILD_KEY: belief}
        return Remembered(key, state, None, obs, None, True, {})

    sure, unsure = {"b1": 0.95, "b2": 0.05}, {"b1": 0.7, "b2": 0.3}
    assert stands(answer({"build": "b1"}, sure), answer({"build": "b1"}, sure))
    assert not stands(None, answer({"build": "b1"}, sure))  # one answer is not confirmed
    assert not stands(answer({"build": "b1"}, unsure), answer({"build": "b1"}, unsure))
    assert not stands(answer({"build": "b2"}, sure), answer({"build": "b1"}, sure))
    assert not stands(answer({"build": "b1"}, sure, key="other"), answer({"build": "b1"}, sure))
