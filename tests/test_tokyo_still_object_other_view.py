"""Several cameras (issue 19, branch tokyohand2): a still object that only camera 2 sees (a cup or a
phone left at the edge of its picture) leaves the builds to the cameras that show none, camera 1
included, as one only camera 1 sees does (tests/test_tokyo_hand_one_view.py). Main's code blocked every
frame while it stood there: no move was read for the rest of the match."""

from __future__ import annotations

import pytest
from test_tokyo_hand_one_view import SKIN
from test_tokyo_referee import play
from tokyo_poses import AT_550

from referee_app.games.tokyo import TokyoAdapter
from referee_app.games.tokyo_builds import likeliest_build
from vision.sources import OtherView, PairedFrame

START = "purple start (-150,-60) table (-150,-170)"
CORNER = (100, 620)  # camera 2's bottom-left corner: bare mat, far from the start road


def _painted(image, at):
    """`image` with a skin-coloured disc (a resting hand's colour over the blue mat) centred at `at`."""
    import cv2

    out = image.copy()
    cv2.circle(out, at, 60, SKIN, -1)
    return out


@pytest.fixture(scope="module")
def seed40():
    """Tuning seed 40's first move, purple's start road, three noisy frames of it from each camera."""
    from datasets.match_sim import Setup
    from datasets.match_sim.tokyo import simulate

    sim = simulate(40, Setup(1280, 720, 550.0, 40.0, fov_deg=50.0, cameras=2, second=AT_550), turns=1)
    assert sim.moves[0].notation == START
    k = next(k for k, sc in enumerate(sim.scenes) if sc.checkpoint == 0)

    def stills(ph):
        lit = ph.light(sim.draw(sim.scenes[k].content, ph.pose), sim.scenes[k], k)
        return [ph.expose(lit, 10 * k + n) for n in range(3)]

    return sim, stills(sim.photographer), stills(sim.others[0])


def _adapter(sim) -> TokyoAdapter:
    adapter = TokyoAdapter()
    adapter.use_calibration(sim.extra["calibration"], step_mm=10.0)
    adapter.use_camera_calibration(2, sim.extra["other_calibrations"][0])
    adapter.watch(play())
    return adapter


def _read(adapter, first, second):
    return [adapter.read(PairedFrame(a, 0.0, "test", n, others=[OtherView(b, "test:camera2")]))
            for n, (a, b) in enumerate(zip(first, second, strict=True))]


def test_a_still_object_only_camera_2_sees_leaves_the_builds_to_camera_1(seed40):
    """Fails on main: every frame stays blocked (its reading past a still object read camera 2 alone)."""
    sim, first, second = seed40
    adapter = _adapter(sim)
    seen = _read(adapter, first, [_painted(b, CORNER) for b in second])
    # the first frame showing it is blocked (an object is a hand until it stays put), the rest are read
    assert seen[0].blocked is not None and "camera 2" in seen[0].blocked
    assert [s.blocked for s in seen[1:]] == [None, None]
    assert likeliest_build(adapter._builds).notation() == START


def test_a_hand_moving_in_camera_2_still_blocks(seed40):
    """A hand over camera 2's side of the table moves from frame to frame: every frame stays blocked."""
    sim, first, second = seed40
    adapter = _adapter(sim)
    places = [(100, 620), (180, 560), (260, 500)]
    seen = _read(adapter, first, [_painted(b, at) for b, at in zip(second, places, strict=True)])
    assert all(s.blocked is not None for s in seen)


def test_an_object_moving_from_one_camera_to_the_other_is_no_still_one(seed40):
    """The same pixels in another camera's picture are another place: the frame after camera 1's object
    went and camera 2's came is blocked, the one after it (camera 2's object still) is read."""
    sim, first, second = seed40
    adapter = _adapter(sim)
    seen = _read(adapter, [_painted(first[0], CORNER), *first[1:]],
                 [second[0], *(_painted(b, CORNER) for b in second[1:])])
    assert seen[0].blocked is not None and "camera 2" not in seen[0].blocked
    assert seen[1].blocked is not None and "camera 2" in seen[1].blocked
    assert seen[2].blocked is None
    assert likeliest_build(adapter._builds).notation() == START
